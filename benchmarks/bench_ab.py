"""Cold builds of this checkout against another revision, alternated.

    python benchmarks/bench_ab.py REV [--size 1000] [--pairs 10] [--mix simple realistic]

Checks REV out into a temporary git worktree, makes the synthetic corpus
(benchmarks/make_corpus.py), then runs ``--pairs`` cold ``--no-cache``
builds of each version in turn, each into a folder never used before (see
bench_build.py for why nothing is deleted until the end). It prints the
median wall time, user and system CPU and each stage's time of both
versions, and their ratio (this checkout / REV). Alternating keeps a
drifting machine from favouring either side; compare ratios, not times.
Each ``--mix`` (default both: simple and realistic) gets its own corpus and
its own table; the machine's load average is printed with each.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
STAGE = re.compile(r"^\s+(\w+)\s+([\d.]+) ms$", re.M)
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_build  # noqa: E402  (--mix and the corpus command)


def build_once(checkout: Path, corpus: Path, output: Path) -> dict[str, float]:
    """One cold build by ``checkout``'s code; its figures in ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "site_builder", "build", "--no-cache",
                             "--content", str(corpus), "--output", str(output)],
                            cwd=checkout, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"build by {checkout} failed:\n{result.stderr[-2000:]}")
    figures = {"wall": wall * 1000, "user": (after.ru_utime - before.ru_utime) * 1000,
               "sys": (after.ru_stime - before.ru_stime) * 1000}
    figures.update({name: float(ms) for name, ms in STAGE.findall(result.stdout)})
    return figures


def compare(args: argparse.Namespace, work: Path, other: Path, mix: str) -> None:
    """``args.pairs`` alternated cold builds of each version on the ``mix`` corpus; print the medians and ratios."""
    corpus = work / f"corpus-{mix}"
    subprocess.run(bench_build.corpus_command(args.size, corpus / "terms", mix), check=True, stdout=subprocess.DEVNULL)
    (corpus / "site.toml").write_text('title = "Benchmark"\npreviews = false\n')
    figures: dict[str, dict[str, list[float]]] = {"this": defaultdict(list), "other": defaultdict(list)}
    for index in range(args.pairs):
        for side, checkout in (("other", other), ("this", ROOT)):
            for name, value in build_once(checkout, corpus, work / f"{side}-{mix}-{index}" / "output").items():
                figures[side][name].append(value)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n{args.size:,} terms, {mix} mix, {args.pairs} cold builds each, alternated; medians in ms "
          f"(load average {load})")
    print(f"{'':<9} {args.revision[:12]:>12} {'this':>9}  this / other")
    for name in figures["this"]:
        mine, theirs = statistics.median(figures["this"][name]), statistics.median(figures["other"][name])
        ratio = f"{mine / theirs:6.2f}" if theirs else "     -"
        print(f"{name:<9} {theirs:12.0f} {mine:9.0f}  {ratio}")


@contextlib.contextmanager
def revision_worktree(revision: str, prefix: str) -> Iterator[tuple[Path, Path]]:
    """(a scratch folder, a git worktree of ``revision`` inside it), both
    compiled as ``pip install`` would (see bench_build.py); removed on exit."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    other = work / "other"
    try:
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(other), revision],
                       cwd=ROOT, check=True)
        for checkout in (ROOT, other):
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "site_builder")])
        yield work, other
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="the git revision to compare this checkout with")
    parser.add_argument("--size", type=int, default=1000, help="terms in the corpus (default 1000)")
    parser.add_argument("--pairs", type=int, default=10, help="builds of each version (default 10)")
    bench_build.add_mix_argument(parser)
    args = parser.parse_args()
    with revision_worktree(args.revision, "bench-ab-") as (work, other):
        for mix in args.mix:
            compare(args, work, other, mix)


if __name__ == "__main__":
    main()
