"""CPU time per page of the body renderer with autolinks on, against off; and the
cost of the body cache keys that follow the names each body mentions.

Run: ``python benchmarks/bench_autolink.py [pages] [rounds] [--mix simple|realistic]``
(default 1000 pages of the shared synthetic corpus, realistic mix, 5 rounds).
Single process, ``time.process_time()``; each round renders every page with
autolinks off and on (``autolink_unit="page"``), alternating which goes first.
Prints the median ms/page of each and their ratio, the autolinks made per page,
and the ratio of keying every body with ``mentions_material`` to the plain key.
``--names vocabulary`` adds a term for each word of the corpus' vocabulary, so
that prose mentions terms (the corpus' own titles never occur in its prose).
No budget, no assertions.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_build  # noqa: E402
from bench_markdown import _Term, load  # noqa: E402
from make_corpus import WORDS  # noqa: E402
from site_builder.cache import store as cache  # noqa: E402
from site_builder.cache.bodies import mentions_material  # noqa: E402
from site_builder.markup.render import BodyRenderer  # noqa: E402
from site_builder.names import NameIndex  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="?", type=int, default=1000)
    parser.add_argument("rounds", nargs="?", type=int, default=5)
    parser.add_argument("--mix", default="realistic", choices=("simple", "realistic"))
    parser.add_argument("--names", default="corpus", choices=("corpus", "vocabulary"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(bench_build.corpus_command(args.pages, Path(tmp), args.mix), check=True)
        names, bodies = load(Path(tmp))
    if args.names == "vocabulary":
        extra = [_Term(f"word-{word}", word.capitalize(), []) for word in WORDS]
        names = NameIndex([*extra, *(_Term(slug, title, []) for title, slug in names.by_name.items())])
    renderers = {"off": BodyRenderer(names), "on": BodyRenderer(names, autolink_unit="page")}
    times: dict[str, list[float]] = {name: [] for name in renderers}
    html: dict[str, list[str]] = {}
    for index in range(args.rounds):
        for name in (list(renderers) if index % 2 == 0 else list(reversed(renderers))):
            start = time.process_time()
            html[name] = [renderers[name].render(body, line, f"p{n}").html for n, (body, line) in enumerate(bodies)]
            times[name].append((time.process_time() - start) * 1000 / len(bodies))
    off, on = statistics.median(times["off"]), statistics.median(times["on"])
    made = sum(page.count('class="term-link"') for page in html["on"]) - sum(page.count('class="term-link"') for page in html["off"])
    print(f"{len(bodies)} pages ({args.mix}) x {args.rounds} rounds, median CPU ms/page")
    print(f"  autolink off: {off:.3f}   on: {on:.3f}   on/off: {on / off:.3f}   autolinks per page: {made / len(bodies):.1f}")
    start = time.process_time()
    plain = [cache.key("shared", body, str(line)) for body, line in bodies]
    keyed = time.process_time() - start
    start = time.process_time()
    material = mentions_material(names)
    followed = [cache.key("shared", body, str(line), material(body)) for body, line in bodies]
    following = time.process_time() - start
    print(f"  body keys: plain {keyed * 1000:.1f} ms, following mentions {following * 1000:.1f} ms "
          f"(ratio {following / max(keyed, 1e-9):.1f}; {len(plain) == len(followed)} keys each)")


if __name__ == "__main__":
    main()
