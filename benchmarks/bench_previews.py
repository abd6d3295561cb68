"""What the social previews cost: CPU per image, and the default build against the like-for-like one.

    python benchmarks/bench_previews.py                      # 200 cards; builds at 1,000 and 10,000 terms
    python benchmarks/bench_previews.py --cards 500 --sizes 1000 --runs 3 --mix realistic
    python benchmarks/bench_previews.py --encoders --sizes   # palette_png.py against Pillow's PNG encoder

Prints, in one run:

- the CPU time of one preview (``time.process_time``: this process's CPU,
  drawing and PNG encoding, nothing cached between cards but glyphs and
  words), the median over ``--cards`` cards with varied text (the words of
  benchmarks/make_corpus.py, some titles in Greek, Cyrillic, Chinese, Arabic,
  Hebrew and emoji), the first card of the process (fonts loaded, glyphs
  rendered) shown apart; and the PNG sizes;
- a cold build (``--no-cache``, a fresh output folder) of the make_corpus site
  at each size with the default configuration (``base_url`` set, so previews
  are made) and with ``previews = false`` (the like-for-like build the other
  benchmarks time), each the median of ``--runs`` runs alternated, wall time
  and CPU time (user + system of the build and its workers,
  ``resource.getrusage``), and their ratios (target: within 3x).

``--encoders``: the whole card's CPU with ``palette_png.py`` against the same
card saved by Pillow's PNG encoder (same palette, same zlib level), on the
titles and summaries of 300 terms of each ``--mix``, rounds alternated: the
figure that keeps the hand-written writer.

The builds are made once per ``--mix`` of make_corpus.py (default both:
simple and realistic, whose titles hold colons and apostrophes), each
reported on its own line. Both builds run the same command but for ``site.toml``. The machine's speed
drifts when it is shared: compare ratios from one run, and CPU over wall.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_build import add_mix_argument, corpus_command, fresh, run  # noqa: E402  (the same timing, fresh-folder and corpus rules)
from make_corpus import WORDS  # noqa: E402

OTHER_SCRIPTS = ["Ταχεία αποκωδικοποίηση", "Спекулятивное декодирование", "推测解码与语言模型", "فك التشفير التخميني",
                 "פענוח ספקולטיבי", "Rockets 🚀 and laptops 👩‍💻"]


def cards(count: int) -> list[tuple[str, str]]:
    rng = random.Random(413)
    made = []
    for i in range(count):
        title = OTHER_SCRIPTS[i % len(OTHER_SCRIPTS)] if i % 20 == 0 else \
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 7))).capitalize()
        summary = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 40))).capitalize() + "."
        made.append((f"{title} {i}", summary))
    return made


def per_card(count: int, level: int | None = None) -> dict[str, float]:
    """Print the CPU of one card over ``count`` cards (and the PNG sizes); return
    {"median_ms", "mean_ms"} (the mean counts the process's first card)."""
    from site_builder.outputs import fonts, preview

    painter = preview.painter("en") if level is None else preview.Painter(fonts.font_set("en"))
    if level is not None:
        preview.COMPRESS_LEVEL, default = level, preview.COMPRESS_LEVEL
    made = cards(count)
    start = time.process_time()
    first = painter.card(*made[0], "Benchmark Glossary", "example.org/glossary/")
    first_cpu = time.process_time() - start
    times, sizes = [], [len(first)]
    for title, summary in made[1:]:
        start = time.process_time()
        png = painter.card(title, summary, "Benchmark Glossary", "example.org/glossary/")
        times.append(time.process_time() - start)
        sizes.append(len(png))
    total = first_cpu + sum(times)
    print(f"preview CPU per image: median {statistics.median(times) * 1000:.2f} ms over {len(times)} cards "
          f"(p90 {sorted(times)[int(len(times) * 0.9)] * 1000:.2f} ms; all {count} including the first: "
          f"{total / count * 1000:.2f} ms each; the first alone {first_cpu * 1000:.0f} ms)")
    print(f"PNG size: median {statistics.median(sizes) / 1024:.1f} KiB, max {max(sizes) / 1024:.1f} KiB "
          f"(zlib level {preview.COMPRESS_LEVEL})")
    if level is not None:
        preview.COMPRESS_LEVEL = default
    return {"median_ms": statistics.median(times) * 1000, "mean_ms": total / count * 1000}


def encoders(mix: str, work: Path, count: int = 300, rounds: int = 4) -> float:
    """Print and return the CPU per card with palette_png.py over that with Pillow's
    PNG encoder, on ``count`` cards of the ``mix`` corpus, rounds alternated."""
    import io

    import yaml
    from PIL import Image

    from site_builder.load.front_matter import split_front_matter
    from site_builder.outputs import preview

    folder = work / f"encoders-{mix}"
    subprocess.run(corpus_command(count, folder, mix), check=True, stdout=subprocess.DEVNULL)
    made = []
    for path in sorted(folder.glob("*.md")):
        meta = yaml.safe_load(split_front_matter(path.read_text(encoding="utf-8"), path.name)[0])
        made.append((str(meta["title"]), str(meta["summary"])))

    def pillow(sheet) -> bytes:
        palette = preview._lay_emoji(sheet.canvas, sheet.emoji, sheet.changed) if sheet.emoji else preview._PALETTE
        image = Image.fromarray(sheet.canvas, "P")
        image.putpalette(palette)
        out = io.BytesIO()
        image.save(out, "PNG", compress_level=preview.COMPRESS_LEVEL)
        return out.getvalue()

    ours = preview.Sheet.encode
    painter = preview.painter("en")
    painter.card(*made[0], "Benchmark Glossary", "example.org/glossary/")  # fonts loaded, glyphs drawn
    times: dict[str, list[float]] = {"ours": [], "pillow": []}
    try:
        for index in range(rounds):
            for name in (("ours", "pillow") if index % 2 == 0 else ("pillow", "ours")):
                preview.Sheet.encode = ours if name == "ours" else pillow
                start = time.process_time()
                for title, summary in made:
                    painter.card(title, summary, "Benchmark Glossary", "example.org/glossary/")
                times[name].append((time.process_time() - start) / len(made) * 1000)
    finally:
        preview.Sheet.encode = ours
    mine, theirs = statistics.median(times["ours"]), statistics.median(times["pillow"])
    print(f"{mix:>9} mix, {len(made)} cards x {rounds} rounds alternated: CPU per card {mine:.2f} ms with "
          f"palette_png.py, {theirs:.2f} ms with Pillow's PNG encoder; ours/Pillow {mine / theirs:.2f}")
    return mine / theirs


def builds(n: int, runs: int, work: Path, mix: str = "simple") -> dict[str, float]:
    """Print the default build of the ``n``-term ``mix`` corpus against the like-for-like one;
    return their medians: {"on_wall", "off_wall", "on_cpu", "off_cpu"} in seconds."""
    content = work / f"corpus-{n}-{mix}"
    subprocess.run(corpus_command(n, content / "terms", mix), check=True, stdout=subprocess.DEVNULL)
    configs = {"default": 'title = "Benchmark"\nbase_url = "https://example.org/glossary/"\n',
               "like-for-like": 'title = "Benchmark"\nbase_url = "https://example.org/glossary/"\npreviews = false\n'}
    wall: dict[str, list[float]] = {name: [] for name in configs}
    cpu: dict[str, list[float]] = {name: [] for name in configs}
    for _ in range(runs):
        for name, toml in configs.items():
            (content / "site.toml").write_text(toml)
            seconds, _ = run([sys.executable, "-m", "site_builder", "build", "--quiet", "--no-cache",
                              "--content", str(content), "--output", str(fresh(work, "site") / "output")], cwd=ROOT)
            wall[name].append(seconds)
            cpu[name].append(run.cpu)
    on, off = (statistics.median(wall[k]) for k in configs)
    on_cpu, off_cpu = (statistics.median(cpu[k]) for k in configs)
    print(f"{n:>6} terms, {mix:>9} mix: default {on:6.2f} s wall {on_cpu:6.2f} s CPU | like-for-like {off:6.2f} s wall "
          f"{off_cpu:6.2f} s CPU | ratio {on / off:4.2f}x wall, {on_cpu / off_cpu:4.2f}x CPU (target 3x; "
          f"median of {runs})")
    return {"on_wall": on, "off_wall": off, "on_cpu": on_cpu, "off_cpu": off_cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cards", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--levels", type=int, nargs="*", default=[],
                        help="also time the cards at these zlib levels (the builds use the default)")
    parser.add_argument("--encoders", action="store_true",
                        help="instead of the per-card figures: palette_png.py against Pillow's PNG encoder, per mix")
    add_mix_argument(parser)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "site_builder")], check=True)
    if not args.encoders:
        per_card(args.cards)
        for level in args.levels:
            per_card(args.cards, level)
    with tempfile.TemporaryDirectory(prefix="bench-previews-") as folder:
        if args.encoders:
            for mix in args.mix:
                encoders(mix, Path(folder))
        for n in args.sizes:
            for mix in args.mix:
                builds(n, args.runs, Path(folder), mix)


if __name__ == "__main__":
    main()
