"""Build speed and memory against Hugo and MkDocs on the same synthetic corpus.

    python benchmarks/bench_build.py                 # 1,000 and 10,000 terms
    python benchmarks/bench_build.py --sizes 1000 --runs 3 --mkdocs
    python benchmarks/bench_build.py --sizes 10000 --mix simple realistic --runs 3

``--mix`` names the corpora to measure (default both): ``simple`` is prose,
lists and plain links; ``realistic`` adds what real glossaries hold (aliases
with spaces, titles with colons, maths, wiki links, tables, code, footnotes).
Every figure is printed per mix: a speed-up on one mix alone is not one.

Makes the corpus with benchmarks/make_corpus.py (the shared bench generator:
same words for every tool), then measures, each as the median of --runs runs
in this one process:

- cold build (no cache, empty output) of site_builder, and of Hugo / MkDocs
  when installed (Hugo: apt-get install hugo; MkDocs: pip install mkdocs);
  ours and Hugo's interleaved (ours, Hugo's, ours, ...), and the ratio of
  each pair printed beside the ratio of the medians;
- rebuild after editing one term's body (warm cache), and the first such
  rebuild after a cold build, which also lays down the spare tree;
- peak memory of the whole process tree (parent and workers), two ways:
  the proportional set size summed (PSS, ``/proc/PID/smaps_rollup``: a page
  shared by n processes counts 1/n in each, so once in the sum: the memory
  the tree uses), and the resident memory summed (RSS, ``/proc/PID/status``:
  every page a forked worker shares copy-on-write with its parent counts once
  per process, so it overstates a forking build). RSS is sampled every 10 ms;
  PSS as often as reading it leaves a core mostly to the build (reading it
  walks the page tables, ~1 ms per 40 MiB mapped): every 50 ms or more.
  Hugo is one process: its two figures differ only by its shared libraries.
  The target ratio (<= 0.3x) is printed for PSS, the RSS-sum ratio beside it
  (docs/performance.md, "Peak memory (issue 40, third round)").

Memory is sampled in runs of its own, never in a timed one (since issue 40's
seventh round): one cold build of ours and one of Hugo's, interleaved, and
one edit, after the timed runs. The sampler reads ``smaps_rollup`` in the
kernel, ~7 ms a read over our process tree, ~15 % of a core in all, on a
2-core machine both our workers want; Hugo leaves a core partly idle, so the
sampler took its time mostly from ours. The memory runs' wall times are
printed too: the difference is the sampler's cost.

Every timed run starts from a settled disk (``os.sync()`` first, untimed):
the kernel writes a build's files back for up to 30 s after it ends (and the
corpus's 30,000 files after they are made), and that work would otherwise
land on whichever build runs next, the same one each time in a fixed order.

Each figure's CPU time (user + system of the build and its workers) and the
load average are printed beside it, and each ratio against the issue's target
(cold <= 1.4x Hugo, one-body edit <= 0.1x Hugo's cold, peak memory <= 0.3x).

It prints the ratios docs/performance.md quotes. Absolute times drift on shared
machines; ratios measured in the same run are what to compare.

Every timed cold build writes into a folder never used before (the edits
rebuild one site in place, as a user would), and nothing is deleted until the
end: on ext4 without a journal (this machine's disk) the
kernel skips inodes freed in the last minutes when it allocates new ones,
scanning past each of them, so a build right after deleting the previous
output creates its files up to 2x slower, by an amount that depends on what
else was deleted lately. That costs disk space: about 120 MB per cold build
at 10,000 terms, all freed at the end.

``--pairs N`` instead alternates N cold builds of ours and Hugo's and prints
the ratio of each pair: the steadiest cold-build figure when the machine's
speed drifts during a run.

``--against REV`` instead measures this checkout and git revision REV (checked
out into a temporary worktree) in the same run, alternating their builds, and
prints each figure of both and its ratio (this checkout / REV): how a change
moved the cold build, the one-body edit and peak memory. CPU time (user +
system of the build and its workers) is printed beside wall time: on a
machine with other work running it moves far less than wall time does.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAKE_CORPUS = ROOT / "benchmarks" / "make_corpus.py"
MIXES = ("simple", "realistic")


def add_mix_argument(parser: argparse.ArgumentParser) -> None:
    """``--mix simple realistic``: the corpus mixes a benchmark measures, both by default."""
    parser.add_argument("--mix", nargs="+", choices=MIXES, default=list(MIXES),
                        help="corpus mixes of benchmarks/make_corpus.py to measure, each reported apart "
                             "(default: both)")


def corpus_command(n: int, target: Path, mix: str, flavor: str = "plain") -> list[str]:
    """The argv that writes make_corpus.py's ``n``-term ``mix`` corpus of ``flavor`` into ``target``."""
    return [sys.executable, str(MAKE_CORPUS), str(n), str(target), "--flavor", flavor, "--mix", mix]


def tree_kib(pid: int, source: str = "status", field: str = "VmRSS:") -> int:
    """One memory figure (``field`` of ``/proc/PID/<source>``, in KiB) summed over
    ``pid`` and all its descendants: resident memory by default."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/{source}") as handle:
                for line in handle:
                    if line.startswith(field):
                        total += int(line.split()[1])
                        break
            with open(f"/proc/{current}/task/{current}/children") as handle:
                stack.extend(int(c) for c in handle.read().split())
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


def run(command: list[str], cwd: Path | None = None, sample: bool = True, pss: bool = True) -> tuple[float, int]:
    """Run ``command`` (in ``cwd``); return (wall seconds, peak tree RSS summed, in MiB).
    Its CPU time (user + system, the process and its workers) is left in
    ``run.cpu``; the peak proportional set size summed over the tree (a page
    shared with forked workers counted once), in MiB, in ``run.pss`` (with
    ``pss=False``: not sampled, 0). ``sample=False``: no sampler thread beside
    a short build, and peaks of 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    peaks = [0, 0]
    done = threading.Event()

    def watch():
        next_pss = 0.0
        while not done.is_set():
            peaks[0] = max(peaks[0], tree_kib(process.pid))
            now = time.perf_counter()
            if pss and now >= next_pss:
                peaks[1] = max(peaks[1], tree_kib(process.pid, "smaps_rollup", "Pss:"))
                took = time.perf_counter() - now
                next_pss = now + max(PSS_EVERY, 4 * took)  # the sampler takes at most a fifth of a core
            time.sleep(0.01)

    sampler = threading.Thread(target=watch, daemon=True)
    if sample:
        sampler.start()
    _, err = process.communicate()
    elapsed = time.perf_counter() - start
    done.set()
    if sample:
        sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the process and its workers are reaped by now
    run.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    run.pss = peaks[1] // 1024
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{err.decode()[-2000:]}")
    return elapsed, peaks[0] // 1024


PSS_EVERY = 0.05
"""Seconds between two PSS samples at least (RSS: every 10 ms)."""


def median_of(runs: int, command) -> tuple[float, int]:
    """Median wall time of ``runs`` unsampled runs of ``command()`` (a fresh
    argv each run), and a peak of 0; the median CPU time (user + system, with
    the workers) is left in ``median_of.cpu``. Memory: :func:`timed` with ``sample=True``."""
    times, peaks, cpus, psses = [], [], [], []
    for _ in range(runs):
        seconds, peak = run(command(), sample=False)
        times.append(seconds)
        peaks.append(peak)
        cpus.append(run.cpu)
        psses.append(run.pss)
    median_of.cpu = statistics.median(cpus)
    return statistics.median(times), max(peaks)


def settled() -> None:
    """Wait until every file written so far is on disk: the kernel writes a
    build's output back in the background for up to 30 s after it ends, and
    that work would otherwise land on whichever build runs next."""
    os.sync()


def timed(command: list[str], cwd: Path | None = None, sample: bool = False) -> tuple[float, int, float, int]:
    """One run of ``command`` from a settled disk: (wall s, peak RSS sum MiB, CPU s, peak PSS sum MiB).
    Unsampled by default (peaks of 0): a memory sampler beside a timed run
    takes its CPU from the run (see the module docstring); ``sample=True`` for a memory run."""
    settled()
    seconds, peak = run(command, cwd=cwd, sample=sample)
    return seconds, peak, run.cpu, run.pss


def summary(runs: list[tuple[float, int, float, int]]) -> tuple[float, int, float, int]:
    """Median wall and CPU, highest peaks, of :func:`timed` results."""
    return (statistics.median(r[0] for r in runs), max(r[1] for r in runs),
            statistics.median(r[2] for r in runs), max(r[3] for r in runs))


def fresh(folder: Path, name: str) -> Path:
    """A path under ``folder`` no build has used (see the module docstring for why not delete)."""
    fresh.count += 1
    return folder / f"{name}-{fresh.count}"


fresh.count = 0


def make_corpus(n: int, folder: Path, mix: str = "simple") -> dict[str, Path]:
    """The ``mix`` corpus of ``n`` terms in each flavor under ``folder``: {flavor: its folder}."""
    paths = {}
    for flavor in ("plain", "hugo", "mkdocs"):
        target = folder / flavor
        if flavor == "plain":
            target = folder / "plain" / "terms"
        subprocess.run(corpus_command(n, target, mix, flavor), check=True, stdout=subprocess.DEVNULL)
        paths[flavor] = folder / flavor
    # Previews are PNG rendering, which Hugo and MkDocs do not do: off for a fair comparison.
    (paths["plain"] / "site.toml").write_text('title = "Benchmark"\npreviews = false\n')
    settled()  # 30,000 fresh files: written back now, not during the first timed build
    return paths


def bench(n: int, runs: int, with_mkdocs: bool, work: Path, mix: str = "simple") -> None:
    """Cold, edit and memory figures at ``n`` terms of the ``mix`` corpus, everything under ``work``."""
    corpus = make_corpus(n, work, mix)

    def ours(site: Path, *flags: str) -> list[str]:
        return [sys.executable, "-m", "site_builder", "build", "--quiet",
                "--content", str(corpus["plain"]), "--output", str(site / "output"), *flags]

    hugo_installed = shutil.which("hugo") is not None
    # Cold builds of ours and Hugo's interleaved (as the issue asks): a
    # machine whose speed drifts over minutes favours neither, and each
    # starts with no other build's output still being written back.
    cold_runs, hugo_runs = [], []
    for _ in range(runs):
        cold_runs.append(timed(ours(fresh(work, "site"), "--no-cache")))
        if hugo_installed:
            hugo_runs.append(timed(hugo_command(corpus, fresh(work, "hugo-public"))))
    cold, _, cold_cpu, _ = summary(cold_runs)
    # Memory, sampled in runs of their own (interleaved the same way).
    memory_wall, cold_mem, _, cold_pss = timed(ours(fresh(work, "site"), "--no-cache"), sample=True)
    if hugo_installed:
        hugo_memory_wall, hugo_mem, _, hugo_pss = timed(hugo_command(corpus, fresh(work, "hugo-public")), sample=True)
    site = fresh(work, "site")
    run(ours(site), sample=False)  # fill the cache
    target = corpus["plain"] / "terms" / "term-00042.md"
    edits = iter(range(10**6))

    def edit_body() -> list[str]:
        with open(target, "a") as handle:
            handle.write(f"\nAn edited line {next(edits)}.\n")
        settled()
        return ours(site)

    # The first rebuild after a cold build also lays down the spare tree the
    # next ones stage into (see site_builder/publish/staging.py); every later edit is "steady".
    first, _ = run(edit_body(), sample=False)
    warm, _ = median_of(runs, edit_body)
    warm_cpu = median_of.cpu
    _, warm_mem, _, warm_pss = timed(edit_body(), sample=True)  # the edit's memory, in a run of its own
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n## {n:,} terms, {mix} mix ({runs} run(s) each, median; peak = whole process tree; "
          f"load average {load})")
    print(f"site_builder cold build     {cold:7.2f} s   CPU {cold_cpu:6.2f} s   peak PSS {cold_pss:5d} MiB "
          f"(RSS summed {cold_mem} MiB; the memory run, sampler on: {memory_wall:.2f} s)")
    print(f"site_builder one-body edit  {warm:7.2f} s   CPU {warm_cpu:6.2f} s   peak PSS {warm_pss:5d} MiB "
          f"(RSS summed {warm_mem} MiB)  "
          f"(first after a cold build: {first:.2f} s)")

    if hugo_installed:
        hugo, _, hugo_cpu, _ = summary(hugo_runs)
        print(f"Hugo cold build             {hugo:7.2f} s   CPU {hugo_cpu:6.2f} s   peak PSS {hugo_pss:5d} MiB "
              f"(RSS {hugo_mem} MiB; the memory run, sampler on: {hugo_memory_wall:.2f} s)")
        pair_ratios = [mine[0] / theirs[0] for mine, theirs in zip(cold_runs, hugo_runs)]
        print(f"  cold / Hugo               {cold / hugo:7.2f} x   (CPU {cold_cpu / hugo_cpu:.2f} x; "
              f"pairs {' '.join(f'{r:.2f}' for r in pair_ratios)})   target 1.4 x")
        print(f"  one-body edit / Hugo cold {warm / hugo:7.2f} x   (CPU {warm_cpu / hugo_cpu:.2f} x; "
              f"first after cold: {first / hugo:.2f} x)   target 0.1 x")
        print(f"  peak memory (PSS) / Hugo  {cold_pss / max(hugo_pss, 1):7.2f} x   "
              f"(cold build; the edit's: {warm_pss / max(hugo_pss, 1):.2f} x)   target 0.3 x")
        print(f"  peak RSS summed / Hugo    {cold_mem / max(hugo_mem, 1):7.2f} x   "
              f"(cold build; the edit's: {warm_mem / max(hugo_mem, 1):.2f} x; counts each page a worker "
              f"shares with the build once per process)")
    else:
        print("Hugo not installed (apt-get install hugo): no Hugo ratios")
    if with_mkdocs and shutil.which("mkdocs"):
        mk, mk_mem = run(["mkdocs", "build", "-q", "-f", str(corpus["mkdocs"] / "mkdocs.yml"),
                          "-d", str(fresh(work, "mkdocs-site"))])
        print(f"MkDocs cold build           {mk:7.2f} s   peak {mk_mem:5d} MiB (1 run)")
        print(f"  MkDocs / cold             {mk / cold:7.2f} x faster")
    elif with_mkdocs:
        print("MkDocs not installed (pip install mkdocs)")


def hugo_command(corpus: dict[str, Path], destination: Path) -> list[str]:
    """Hugo's cold build of the corpus into ``destination``."""
    return ["hugo", "--quiet", "-s", str(corpus["hugo"]), "-d", str(destination)]


def pairs(n: int, count: int, work: Path, mix: str = "simple") -> None:
    """Cold builds of ours and Hugo's, interleaved: a ratio per pair, steadier on a drifting machine."""
    if not shutil.which("hugo"):
        print("Hugo not installed (apt-get install hugo): no pairs")
        return
    corpus = make_corpus(n, work, mix)
    ratios, cpu_ratios = [], []
    print(f"\n## {n:,} terms, {mix} mix, {count} interleaved cold-build pairs")
    for _ in range(count):
        mine, _, mine_cpu, _ = timed([sys.executable, "-m", "site_builder", "build", "--quiet", "--no-cache",
                                      "--content", str(corpus["plain"]), "--output", str(fresh(work, "site") / "output")])
        settled()
        theirs, _ = run(hugo_command(corpus, fresh(work, "hugo-public")), sample=False)
        ratios.append(mine / theirs)
        cpu_ratios.append(mine_cpu / run.cpu)
        print(f"site_builder {mine:6.2f} s (CPU {mine_cpu:6.2f} s)   Hugo {theirs:6.2f} s (CPU {run.cpu:6.2f} s)   "
              f"ratio {mine / theirs:5.2f} x (CPU {cpu_ratios[-1]:.2f} x)")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"  cold / Hugo, median of pairs {statistics.median(ratios):5.2f} x "
          f"(range {min(ratios):.2f}-{max(ratios):.2f}; CPU {statistics.median(cpu_ratios):.2f} x; load average {load})")


def against(n: int, runs: int, revision: str, other: Path, work: Path, mix: str = "simple") -> None:
    """This checkout and ``other`` (a worktree of ``revision``), builds alternated: both figures and their ratio."""
    corpus = make_corpus(n, work, mix)
    versions = {"this": ROOT, revision: other}

    def command(site: Path, *flags: str) -> list[str]:
        # Run from the checkout: python -m finds its site_builder first on sys.path.
        return [sys.executable, "-m", "site_builder", "build", "--quiet",
                "--content", str(corpus["plain"]), "--output", str(site / "output"), *flags]

    figures: dict[str, dict[str, list[float]]] = {v: {"cold": [], "cold_cpu": [], "cold_mem": [], "cold_pss": [], "edit": [],
                                                       "edit_cpu": [], "edit_mem": [], "first": []} for v in versions}
    for _ in range(runs):
        for name, checkout in versions.items():
            seconds, _, cpu, _ = timed(command(fresh(work, "site"), "--no-cache"), cwd=checkout)
            figures[name]["cold"].append(seconds)
            figures[name]["cold_cpu"].append(cpu)
    for name, checkout in versions.items():  # memory: a sampled run of its own (see the module docstring)
        _, peak, _, pss = timed(command(fresh(work, "site"), "--no-cache"), cwd=checkout, sample=True)
        figures[name]["cold_mem"].append(peak)
        figures[name]["cold_pss"].append(pss)
    sites = {name: fresh(work, "site") for name in versions}
    target = corpus["plain"] / "terms" / "term-00042.md"
    edits = iter(range(10**6))

    def edit_body(name: str, sample: bool = False) -> tuple[float, int]:
        with open(target, "a") as handle:
            handle.write(f"\nAn edited line {next(edits)}.\n")
        settled()
        return run(command(sites[name]), cwd=versions[name], sample=sample)

    for name, checkout in versions.items():
        run(command(sites[name]), cwd=checkout, sample=False)  # fill the cache
        figures[name]["first"].append(edit_body(name)[0])  # also lays down the spare tree
    for _ in range(runs):
        for name in versions:
            seconds, _ = edit_body(name)
            figures[name]["edit"].append(seconds)
            figures[name]["edit_cpu"].append(run.cpu)
    for name in versions:
        figures[name]["edit_mem"].append(edit_body(name, sample=True)[1])
    this, theirs = figures["this"], figures[revision]
    print(f"\n## {n:,} terms, {mix} mix: this checkout against {revision} ({runs} run(s) each, alternated; median)")
    print(f"{'':28} {'this':>8} {revision[:10]:>10} {'ratio':>7}")
    for label, key, unit, pick in (("cold build", "cold", "s", statistics.median),
                                   ("cold build, CPU", "cold_cpu", "s", statistics.median),
                                   ("one-body edit", "edit", "s", statistics.median),
                                   ("one-body edit, CPU", "edit_cpu", "s", statistics.median),
                                   ("first edit after cold", "first", "s", statistics.median),
                                   ("peak PSS summed, cold", "cold_pss", "MiB", max),
                                   ("peak RSS summed, cold", "cold_mem", "MiB", max),
                                   ("peak RSS summed, edit", "edit_mem", "MiB", max)):
        mine, old = pick(this[key]), pick(theirs[key])
        print(f"{label:<28} {mine:8.2f} {old:10.2f} {mine / old:7.3f} x   ({unit})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mkdocs", action="store_true", help="also time MkDocs (slow: ~16 min at 10,000 terms)")
    parser.add_argument("--pairs", type=int, default=0, metavar="N",
                        help="instead: N interleaved cold builds of ours and Hugo's per size, a ratio per pair")
    parser.add_argument("--against", metavar="REV",
                        help="instead: this checkout against git revision REV, builds alternated, ratios")
    add_mix_argument(parser)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    # As installed (pip compiles the bytecode): a checkout run with
    # PYTHONDONTWRITEBYTECODE=1 would compile every module at each start, ~60 ms.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "site_builder")])  # best effort
    work = Path(tempfile.mkdtemp(prefix="bench-"))
    other = work / "revision"
    if args.against:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(other), args.against],
                       check=True)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(other / "site_builder")])
    try:  # deleted only at the very end: see the module docstring
        for n in args.sizes:
            for mix in args.mix:
                if args.against:
                    against(n, args.runs, args.against, other, work / f"against{n}-{mix}", mix)
                elif args.pairs:
                    pairs(n, args.pairs, work / f"pairs{n}-{mix}", mix)
                else:
                    bench(n, args.runs, args.mkdocs, work / f"bench{n}-{mix}", mix)
    finally:
        if args.against:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(other)])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
