"""This repository's first build against the same terms without the explainer.

    python benchmarks/bench_first_build.py [--runs 3]
    python benchmarks/bench_first_build.py --against REV [--runs 3]

A new user's first command builds content/ from nothing: no cache, so the
explainers stage (numpy data, Altair specs, vl-convert's compile
and SVG rendering) is paid in full. This copies content/ twice, once as it
is and once with the ``explainer:`` line removed from every term, and runs
``--runs`` cold ``--no-cache`` builds of each, alternated, printing the
median wall and CPU time (user + system, workers included) of both, their
ratio, and the build log's stage times. Target (issue 21): with the
explainer <= 3x without it. ``--against REV`` instead alternates this
checkout's build of content/ with git revision REV's (before and after a change).
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_ab import build_once  # same folder: run as python benchmarks/bench_first_build.py

ROOT = Path(__file__).resolve().parent.parent


def build(content: Path, output: Path) -> tuple[float, float, dict[str, float]]:
    """One cold build (``bench_ab.build_once``): wall seconds, CPU seconds, stage -> ms."""
    figures = build_once(ROOT, content, output)
    wall, cpu = figures.pop("wall") / 1000, (figures.pop("user") + figures.pop("sys")) / 1000
    return wall, cpu, figures


def compare(runs: int) -> dict[str, tuple[float, float]]:
    """Print this repository's cold build against the no-explainer build,
    ``runs`` of each alternated; return their medians, name -> (wall, CPU) seconds."""
    work = Path(tempfile.mkdtemp(prefix="bench-first-"))
    try:
        with_explainer = work / "with"
        shutil.copytree(ROOT / "content", with_explainer)
        without = work / "without"
        shutil.copytree(ROOT / "content", without)
        for term in (without / "terms").rglob("*.md"):
            text = term.read_text(encoding="utf-8")
            term.write_text(re.sub(r"^explainer:.*\n", "", text, count=1, flags=re.M), encoding="utf-8")
        results: dict[str, list] = {"with": [], "without": []}
        for i in range(runs):
            for name, content in (("with", with_explainer), ("without", without)):
                results[name].append(build(content, work / f"out-{name}-{i}" / "output"))
        print(f"This repository's content/, cold --no-cache builds, {runs} each, alternated (median):")
        medians = {}
        for name, found in results.items():
            wall = statistics.median(r[0] for r in found)
            cpu = statistics.median(r[1] for r in found)
            stages = {s: statistics.median(r[2].get(s, 0.0) for r in found) for s in found[0][2]}
            medians[name] = (wall, cpu)
            print(f"  {name + ' explainer':<18} wall {wall:6.2f} s   CPU {cpu:6.2f} s   "
                  + "  ".join(f"{s} {ms:.0f}" for s, ms in stages.items()))
        print(f"  ratio (with / without): wall {medians['with'][0] / medians['without'][0]:.2f}x, "
              f"CPU {medians['with'][1] / medians['without'][1]:.2f}x   (target <= 3x)")
        return medians
    finally:
        shutil.rmtree(work, ignore_errors=True)


def against(revision: str, runs: int) -> None:
    """Print this repository's cold build by this checkout's code and by git
    ``revision``'s (unpacked with ``git archive``), ``runs`` of each alternated:
    medians and their ratios (this / revision)."""
    work = Path(tempfile.mkdtemp(prefix="bench-first-against-"))
    try:
        other = work / "other"
        other.mkdir()
        archive = subprocess.run(["git", "archive", revision], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(other)], input=archive, check=True)
        for checkout in (ROOT, other):
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "site_builder")], check=True)
        content = work / "content"
        shutil.copytree(ROOT / "content", content)
        found: dict[str, list] = {revision: [], "this": []}
        for i in range(runs):
            for side, checkout in ((revision, other), ("this", ROOT)):
                figures = build_once(checkout, content, work / f"out-{i}-{len(found[side])}-{side[:12]}" / "output")
                found[side].append((figures["wall"] / 1000, (figures["user"] + figures["sys"]) / 1000))
        print(f"This repository's content/, cold --no-cache builds, {runs} each, alternated (median):")
        medians = {side: (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows))
                   for side, rows in found.items()}
        for side, (wall, cpu) in medians.items():
            print(f"  {side[:12]:<12} wall {wall:6.2f} s   CPU {cpu:6.2f} s")
        print(f"  this / {revision[:12]}: wall {medians['this'][0] / medians[revision][0]:.2f}x, "
              f"CPU {medians['this'][1] / medians[revision][1]:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", metavar="REV", help="instead, time this checkout's first build against git REV's")
    args = parser.parse_args()
    if args.against:
        against(args.against, args.runs)
    else:
        compare(args.runs)


if __name__ == "__main__":
    main()
