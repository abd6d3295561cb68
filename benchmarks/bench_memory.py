"""Where a build's memory goes: every process of its tree, over time.

    python benchmarks/bench_memory.py --content /work/bench/realistic
    python benchmarks/bench_memory.py --content DIR --every 0.5 --against /path/to/other/checkout

Runs one cold build (``--no-cache``, a fresh output folder under a temporary
folder) of the site in ``--content`` and samples, every 30 ms, each process
of its tree (the build, its term loaders, markdown and page workers): RSS,
PSS, private and shared dirty memory (``/proc/PID/smaps_rollup``), minor
page faults and CPU time (``/proc/PID/stat``). It prints the build's stage
log with the time each line came, a timeline every ``--every`` seconds
(``R`` RSS, ``P`` PSS, ``pd`` private dirty, ``sd`` shared dirty, in MiB;
``f`` faults; ``s`` system time in ticks), then per process: its lifetime,
page faults, CPU and peak private memory, and the peaks summed over the
tree. A forked worker's RSS starts at its parent's (it maps every page of
it); what it copies shows as private dirty growing while shared dirty falls.

``--against DIR`` runs the same build from ``DIR`` (another checkout: e.g.
``git worktree add --detach DIR REV``) too, alternating ``--pairs`` times,
and prints both summaries: how a change moved memory, faults and CPU.
docs/performance.md, "Peak memory (issue 40, third round)", quotes it.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELDS = ("Rss", "Pss", "Private_Dirty", "Shared_Dirty")


def read_tree(pid: int) -> dict[int, dict[str, int]]:
    """pid -> its memory fields (KiB), ``minflt``, ``utime`` and ``stime`` (ticks), for ``pid`` and its descendants."""
    found = {}
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            figures = {}
            with open(f"/proc/{current}/smaps_rollup") as handle:
                for line in handle:
                    key, _, rest = line.partition(":")
                    if key in FIELDS:
                        figures[key] = int(rest.split()[0])
            with open(f"/proc/{current}/stat") as handle:
                stat = handle.read().rsplit(")", 1)[1].split()
            figures.update(minflt=int(stat[7]), utime=int(stat[11]), stime=int(stat[12]))
            with open(f"/proc/{current}/task/{current}/children") as handle:
                stack.extend(int(c) for c in handle.read().split())
            found[current] = figures
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return found


def sample_build(command: list[str], cwd: Path) -> dict:
    """Run ``command`` in ``cwd``; its samples [(seconds, tree)], output lines [(seconds, line)] and rusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd)
    lines: list[tuple[float, str]] = []

    def read_output() -> None:
        for line in process.stdout:
            lines.append((time.perf_counter() - start, line.rstrip()))

    reader = threading.Thread(target=read_output)
    reader.start()
    samples = []
    while process.poll() is None:
        samples.append((time.perf_counter() - start, read_tree(process.pid)))
        time.sleep(0.03)
    reader.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit("\n".join(line for _, line in lines[-20:]))
    return {"samples": [s for s in samples if s[1]], "lines": lines, "wall": time.perf_counter() - start,
            "user": after.ru_utime - before.ru_utime, "sys": after.ru_stime - before.ru_stime,
            "minflt": after.ru_minflt - before.ru_minflt}


def summary(run: dict) -> dict[str, float]:
    """The run's peaks summed over the tree (MiB), faults and CPU; printed per process too."""
    samples = run["samples"]
    first: dict[int, float] = {}
    last: dict[int, dict[str, int]] = {}
    peak_private: dict[int, int] = {}
    for seconds, tree in samples:
        for pid, figures in tree.items():
            first.setdefault(pid, seconds)
            last[pid] = figures
            peak_private[pid] = max(peak_private.get(pid, 0), figures["Private_Dirty"])
    order = sorted(last, key=lambda pid: first[pid])
    for pid in order:
        figures = last[pid]
        print(f"  {'build' if pid == order[0] else pid:>7}  from {first[pid]:6.2f} s  faults {figures['minflt']:7d}  "
              f"user {figures['utime'] / 100:6.2f} s  sys {figures['stime'] / 100:5.2f} s  "
              f"peak private {peak_private[pid] // 1024:4d} MiB")
    peaks = {key: max(sum(f[key] for f in tree.values()) for _, tree in samples) // 1024 for key in ("Rss", "Pss")}
    print(f"  peak RSS summed {peaks['Rss']} MiB, peak PSS summed {peaks['Pss']} MiB; faults {run['minflt']}; "
          f"CPU user {run['user']:.2f} s + sys {run['sys']:.2f} s; wall {run['wall']:.2f} s")
    return {"rss": peaks["Rss"], "pss": peaks["Pss"], "faults": run["minflt"], "cpu": run["user"] + run["sys"],
            "sys": run["sys"]}


def timeline(run: dict, every: float) -> None:
    """The stage log, then each process's figures every ``every`` seconds."""
    for seconds, line in run["lines"]:
        print(f"{seconds:7.2f} {line}")
    shown = -every
    build = None
    for seconds, tree in run["samples"]:
        build = build or min(tree)
        if seconds - shown < every:
            continue
        shown = seconds
        parts = " | ".join(f"{'B' if pid == build else pid}: R{f['Rss'] // 1024} P{f['Pss'] // 1024} "
                           f"pd{f['Private_Dirty'] // 1024} sd{f['Shared_Dirty'] // 1024} f{f['minflt']} s{f['stime']}"
                           for pid, f in sorted(tree.items()))
        print(f"{seconds:6.2f}  R{sum(f['Rss'] for f in tree.values()) // 1024:4d} "
              f"P{sum(f['Pss'] for f in tree.values()) // 1024:4d}  {parts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--content", type=Path, required=True, help="the site to build (content folder)")
    parser.add_argument("--every", type=float, default=1.0, help="seconds between two timeline lines")
    parser.add_argument("--against", type=Path, help="another checkout: alternate builds of both, print both")
    parser.add_argument("--pairs", type=int, default=3, help="with --against: alternated pairs")
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "site_builder")])  # as installed
    work = Path(tempfile.mkdtemp(prefix="bench-memory-"))  # fresh folders only: see bench_build.py
    versions = {"this": ROOT} if args.against is None else {"this": ROOT, "other": args.against.resolve()}
    if args.against is not None:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.against / "site_builder")])
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in versions}
    count = 0
    try:
        for _ in range(1 if args.against is None else args.pairs):
            for name, checkout in versions.items():
                count += 1
                # Run from the checkout: python -m finds its site_builder first on sys.path.
                command = [sys.executable, "-m", "site_builder", "build", "--content", str(args.content.resolve()),
                           "--output", str(work / f"site-{count}" / "output"), "--no-cache"]
                print(f"\n## {name} ({checkout}), load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
                run = sample_build(command, checkout)
                if args.against is None:
                    timeline(run, args.every)
                figures[name].append(summary(run))
    finally:
        subprocess.run(["rm", "-rf", str(work)])
    if args.against is not None:
        print("\n## medians (peaks: highest)")
        for key, pick in (("pss", max), ("rss", max), ("faults", statistics.median), ("cpu", statistics.median),
                          ("sys", statistics.median)):
            this, other = (pick(f[key] for f in figures[name]) for name in versions)
            print(f"  {key:7s} this {this:10.2f}  other {other:10.2f}  ratio {this / other:.3f}")


if __name__ == "__main__":
    main()
