"""CPU time per page of the markdown renderer: stock Python-Markdown processors vs ours.

``BodyRenderer(fast=False)`` keeps Python-Markdown's own processors; the default
installs ``markup/fast_inline.py``, ``fast_tree.py`` and ``fast_blocks.py``.

Run: ``python benchmarks/bench_markdown.py [pages] [rounds] [--mix simple realistic]``
(default 1000 pages of the shared synthetic corpus, 5 rounds, both mixes, each
reported apart). Single process; each round
renders every page once with each renderer, alternating which goes first, and
is timed with ``time.process_time()``. Prints the median ms/page of each, their
ratio and the median of the per-round ratios (steadier on a busy machine), and
whether both gave the same HTML. No budget, no assertions.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import markdown
import yaml

# runnable from a plain checkout, without installing the package
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from site_builder.load.front_matter import split_front_matter  # noqa: E402
from site_builder.markup.render import BodyRenderer  # noqa: E402
from site_builder.names import NameIndex  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_build  # noqa: E402  (--mix and the corpus command)

@dataclass
class _Term:
    slug: str
    title: str
    aliases: list = field(default_factory=list)


def stock_renderer(names: NameIndex) -> BodyRenderer:
    """A BodyRenderer with Python-Markdown's own processors throughout."""
    return BodyRenderer(names, fast=False)


def load(directory: Path) -> tuple[NameIndex, list[tuple[str, int]]]:
    terms, bodies = [], []
    for path in sorted(directory.glob("*.md")):
        front, body, line, _ = split_front_matter(path.read_text(encoding="utf-8"), path.name)
        meta = yaml.safe_load(front)
        terms.append(_Term(path.stem, str(meta["title"]), [str(a) for a in meta.get("aliases") or []]))
        bodies.append((body, line))
    return NameIndex(terms), bodies


def run(renderer: BodyRenderer, bodies: list[tuple[str, int]]) -> tuple[float, list[str]]:
    start = time.process_time()
    html = [renderer.render(body, line).html for body, line in bodies]
    return time.process_time() - start, html


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="?", type=int, default=1000)
    parser.add_argument("rounds", nargs="?", type=int, default=5)
    bench_build.add_mix_argument(parser)
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for mix in args.mix:
        print(f"\n## {mix} mix")
        measure(args.pages, args.rounds, mix)


def measure(pages: int, rounds: int, mix: str) -> None:
    """Time stock against ours on ``pages`` pages of the ``mix`` corpus; print the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(bench_build.corpus_command(pages, Path(tmp), mix), check=True)
        names, bodies = load(Path(tmp))
    renderers = {"stock": stock_renderer(names), "ours": BodyRenderer(names)}
    md = renderers["ours"].md
    print(f"markdown {markdown.__version__}; ours uses {type(md.treeprocessors['inline']).__name__}, "
          f"{type(md.parser).__name__}, {type(md.treeprocessors['toc']).__name__}")
    times: dict[str, list[float]] = {name: [] for name in renderers}
    outputs: dict[str, list[str]] = {}
    for name, renderer in renderers.items():  # warm-up
        outputs[name] = run(renderer, bodies[:50])[1]
    for index in range(rounds):
        order = list(renderers) if index % 2 == 0 else list(reversed(renderers))
        for name in order:
            seconds, outputs[name] = run(renderers[name], bodies)
            times[name].append(seconds * 1000 / len(bodies))
    stock, ours = statistics.median(times["stock"]), statistics.median(times["ours"])
    print(f"{len(bodies)} pages x {rounds} rounds, median CPU ms/page (process_time)")
    print(f"  stock: {stock:.3f}  (all: {', '.join(f'{t:.3f}' for t in times['stock'])})")
    print(f"  ours:  {ours:.3f}  (all: {', '.join(f'{t:.3f}' for t in times['ours'])})")
    paired = statistics.median(o / s for o, s in zip(times["ours"], times["stock"]))
    print(f"  ours/stock: {ours / stock:.3f}  (speed-up x{stock / ours:.2f}); "
          f"median of the per-round ratios: {paired:.3f}")
    print(f"  same HTML: {outputs['stock'] == outputs['ours']}")


if __name__ == "__main__":
    main()
