"""The render stage's page loop of this checkout against another revision, in real builds, alternated.

    python benchmarks/bench_page_loop.py REV [--size 2000] [--pairs 4] [--jobs 1] [--mix simple realistic]

Each build is a cold ``--no-cache`` build of the synthetic corpus
(benchmarks/make_corpus.py) with ``site_builder.render.pages._term_pages``
wrapped: the CPU (user + system, ``getrusage``) spent inside it, where each
term page is rendered, written and indexed for search, is summed over the
build process and its page workers. It prints that CPU per page of both
versions and their ratio (this checkout / REV), with the load average. The
whole build's figures (``bench_ab.py``) hold the markdown stage, the site
files and the search tail too; this one holds the page loop alone, which a
change to it moves by more than a loaded machine's noise.
REV is checked out into a temporary git worktree, as ``bench_ab.py`` does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_ab  # noqa: E402  (the revision's worktree)
import bench_build  # noqa: E402  (--mix and the corpus command)

DRIVER = """
import atexit, os, resource, sys
from site_builder.render import pages

home, spent, log = os.getpid(), [0.0, 0], sys.argv.pop(1)
class Anchor: pass
anchor, noted = Anchor(), [None]

def report():
    with open(log, "a") as handle:
        handle.write(f"{spent[0]} {spent[1]}\\n")

original = pages._term_pages
def timed(start, end):
    if noted[0] != os.getpid():  # a forked worker's first slice: its own sum, reported as it exits
        noted[0], spent[:] = os.getpid(), [0.0, 0]
        if os.getpid() != home:
            import multiprocessing.util
            multiprocessing.util.Finalize(anchor, report, exitpriority=100)
    before = resource.getrusage(resource.RUSAGE_SELF)
    try:
        return original(start, end)
    finally:
        after = resource.getrusage(resource.RUSAGE_SELF)
        spent[0] += after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        spent[1] += end - start
pages._term_pages = timed
atexit.register(report)
from site_builder.cli import main
sys.exit(main(sys.argv[1:]))
"""


def page_loop_cpu(checkout: Path, corpus: Path, output: Path, jobs: int) -> float:
    """One cold build by ``checkout``'s code: the page loop's CPU per page, in microseconds."""
    log = output.parent / "page-loop.log"
    output.parent.mkdir(parents=True)
    result = subprocess.run([sys.executable, "-c", DRIVER, str(log), "build", "--no-cache", "--jobs", str(jobs),
                             "--content", str(corpus), "--output", str(output)],
                            cwd=checkout, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"build by {checkout} failed:\n{result.stderr[-2000:]}")
    rows = [line.split() for line in log.read_text().splitlines()]
    pages = sum(int(pages) for _, pages in rows)
    return sum(float(cpu) for cpu, _ in rows) / pages * 1e6


def compare(args: argparse.Namespace, work: Path, other: Path, mix: str) -> None:
    """``args.pairs`` alternated builds of each version on the ``mix`` corpus; print the medians and ratio."""
    corpus = work / f"corpus-{mix}"
    subprocess.run(bench_build.corpus_command(args.size, corpus / "terms", mix), check=True, stdout=subprocess.DEVNULL)
    (corpus / "site.toml").write_text('title = "Benchmark"\npreviews = false\n')
    figures: dict[str, list[float]] = {"this": [], "other": []}
    for index in range(args.pairs):
        # Each pair in turn starts with the other side: a drifting machine favours neither.
        order = (("other", other), ("this", ROOT)) if index % 2 == 0 else (("this", ROOT), ("other", other))
        for side, checkout in order:
            figures[side].append(page_loop_cpu(checkout, corpus, work / f"{side}-{mix}-{index}" / "output", args.jobs))
    mine, theirs = statistics.median(figures["this"]), statistics.median(figures["other"])
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{args.size:,} terms, {mix} mix, --jobs {args.jobs}, {args.pairs} pairs alternated (load average {load}): "
          f"page loop CPU per page {args.revision[:12]} {theirs:.0f} us, this {mine:.0f} us, "
          f"this / other {mine / theirs:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", help="the git revision to compare this checkout with")
    parser.add_argument("--size", type=int, default=2000, help="terms in the corpus (default 2000)")
    parser.add_argument("--pairs", type=int, default=4, help="builds of each version (default 4)")
    parser.add_argument("--jobs", type=int, default=1, help="the builds' --jobs (default 1)")
    bench_build.add_mix_argument(parser)
    args = parser.parse_args()
    with bench_ab.revision_worktree(args.revision, "bench-page-loop-") as (work, other):
        for mix in args.mix:
            compare(args, work, other, mix)


if __name__ == "__main__":
    main()
