"""Cold builds of this checkout against another revision, alternated.

    python benchmarks/bench_ab.py REV [--size 1000] [--pairs 10]

Checks REV out into a temporary git worktree, makes the synthetic corpus
(benchmarks/make_corpus.py), then runs ``--pairs`` cold ``--no-cache``
builds of each version in turn, each into a folder never used before (see
bench_build.py for why nothing is deleted until the end). It prints the
median wall time, user and system CPU and each stage's time of both
versions, and their ratio (this checkout / REV). Alternating keeps a
drifting machine from favouring either side; compare ratios, not times.
"""

from __future__ import annotations

import argparse
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

ROOT = Path(__file__).resolve().parent.parent
STAGE = re.compile(r"^\s+(\w+)\s+([\d.]+) ms$", re.M)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="the git revision to compare this checkout with")
    parser.add_argument("--size", type=int, default=1000, help="terms in the corpus (default 1000)")
    parser.add_argument("--pairs", type=int, default=10, help="builds of each version (default 10)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-ab-"))
    other = work / "other"
    try:
        subprocess.run(["git", "worktree", "add", "--detach", "--quiet", str(other), args.revision],
                       cwd=ROOT, check=True)
        for checkout in (ROOT, other):
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "site_builder")])
        corpus = work / "corpus"
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "make_corpus.py"), str(args.size),
                        str(corpus / "terms"), "--flavor", "plain"], check=True, stdout=subprocess.DEVNULL)
        (corpus / "site.toml").write_text('title = "Benchmark"\npreviews = false\n')
        figures: dict[str, dict[str, list[float]]] = {"this": defaultdict(list), "other": defaultdict(list)}
        for index in range(args.pairs):
            for side, checkout in (("other", other), ("this", ROOT)):
                for name, value in build_once(checkout, corpus, work / f"{side}-{index}" / "output").items():
                    figures[side][name].append(value)
        print(f"{args.size:,} terms, {args.pairs} cold builds each, alternated; medians in ms")
        print(f"{'':<9} {args.revision[:12]:>12} {'this':>9}  this / other")
        for name in figures["this"]:
            mine, theirs = statistics.median(figures["this"][name]), statistics.median(figures["other"][name])
            ratio = f"{mine / theirs:6.2f}" if theirs else "     -"
            print(f"{name:<9} {theirs:12.0f} {mine:9.0f}  {ratio}")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
