"""Issue 21 in one run: the builds users actually run, each against its target.

    python benchmarks/bench_defaults.py                        # 1,000 and 10,000 terms, 3 runs each
    python benchmarks/bench_defaults.py --sizes 1000 --runs 1  # a quick look
    python benchmarks/bench_defaults.py --mix realistic        # one corpus mix (default: both)

Prints, in one run, and then a table of the targets, each met or not:

- the default configuration (``base_url`` set as the Pages workflow sets it,
  so previews are made) against the like-for-like build (``previews =
  false``) at each ``--sizes``, cold, wall and CPU (``bench_previews.builds``);
  target: within 3x;
- the CPU of one preview, all included: (default CPU - like-for-like CPU) /
  cards drawn, from those builds, and one card drawn in this process
  (``bench_previews.per_card``); target: <= 5 ms;
- this repository's cold build against the same terms without their
  ``explainer:`` line (``bench_first_build.compare``); target: <= 3x.

The ratios are judged on CPU time (user + system of the build and its
workers): on a shared machine wall time says as much about the other work
running as about the build. Wall ratios are printed beside them.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_build  # noqa: E402  (--mix)
import bench_first_build  # noqa: E402  (same folder: the functions the single-purpose scripts run)
import bench_previews  # noqa: E402

RATIO_TARGET = 3.0
PREVIEW_MS_TARGET = 5.0


def verdict(value: float, target: float) -> str:
    """"met" or "NOT met": ``value`` against an upper bound."""
    return "met" if value <= target else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cards", type=int, default=200)
    bench_build.add_mix_argument(parser)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "site_builder")], check=True)
    rows: list[tuple[str, str, str, str]] = []  # what, figure, target, verdict

    card = bench_previews.per_card(args.cards)
    rows.append(("preview CPU, one card drawn here (median)", f"{card['median_ms']:.2f} ms",
                 f"<= {PREVIEW_MS_TARGET:g} ms", verdict(card["median_ms"], PREVIEW_MS_TARGET)))
    with tempfile.TemporaryDirectory(prefix="bench-defaults-") as folder:
        for n, mix in ((n, mix) for n in args.sizes for mix in args.mix):
            got = bench_previews.builds(n, args.runs, Path(folder), mix)
            ratio = got["on_cpu"] / got["off_cpu"]
            rows.append((f"{n:,} terms, {mix} mix: default / like-for-like, CPU (wall {got['on_wall'] / got['off_wall']:.2f}x)",
                         f"{ratio:.2f}x", f"<= {RATIO_TARGET:g}x", verdict(ratio, RATIO_TARGET)))
            per_image = (got["on_cpu"] - got["off_cpu"]) / (n + 1) * 1000  # every term's card and the site's
            rows.append((f"{n:,} terms, {mix} mix: preview CPU per image, all included", f"{per_image:.2f} ms",
                         f"<= {PREVIEW_MS_TARGET:g} ms", verdict(per_image, PREVIEW_MS_TARGET)))
    first = bench_first_build.compare(args.runs)
    (with_wall, with_cpu), (without_wall, without_cpu) = first["with"], first["without"]
    rows.append((f"this repository's cold build / without explainer, CPU (wall {with_wall / without_wall:.2f}x)",
                 f"{with_cpu / without_cpu:.2f}x", f"<= {RATIO_TARGET:g}x", verdict(with_cpu / without_cpu, RATIO_TARGET)))

    print(f"\nIssue 21's targets (medians of {args.runs}; ratios on CPU time):")
    width = max(len(row[0]) for row in rows)
    for what, figure, target, met in rows:
        print(f"  {what:<{width}}  {figure:>9}  {target:>9}  {met}")


if __name__ == "__main__":
    main()
