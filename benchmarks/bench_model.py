"""Time the speculative decoding page data and report the JSON size.

Run: ``python benchmarks/bench_model.py [runs]``. Prints the median of
``runs`` (default 7) timings of ``page_data_json()`` and of its parts, and the
JSON size; exits non-zero if the median exceeds the 0.5 s budget.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

# runnable from a plain checkout, without installing the package
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from site_builder.explainers.speculative_decoding import data  # noqa: E402
from site_builder.explainers.speculative_decoding import optimal_depth, speedup, turning_point  # noqa: E402

BUDGET_S = 0.5


def median_time(fn, runs: int) -> float:
    """Median wall time of ``runs`` calls of ``fn`` (after one warm-up call)."""
    fn()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(runs: int = 7) -> int:
    """Print the timings and size; return the exit status."""
    a = np.linspace(0, 1, 201)[:, None]
    c = np.linspace(0, 1, 201)[None, :]
    parts = {
        "page_data_json": data.page_data_json,
        "  grid": data._grid,
        "  plane": data._plane,
        "  histograms": data._histograms,
        "  lossless": data._lossless,
        "  presets": data._presets,
        "optimal_depth 201x201x65": lambda: optimal_depth(a, c),
        "turning_point 201x201": lambda: turning_point(a, c),
        "speedup 201x201x65": lambda: speedup(a[..., None], np.arange(65), c[..., None]),
    }
    results = {name: median_time(fn, runs) for name, fn in parts.items()}
    for name, seconds in results.items():
        print(f"{name:<28} {seconds * 1000:8.1f} ms  (median of {runs})")
    size = len(data.page_data_json())
    print(f"{'JSON size':<28} {size:8d} bytes ({size / 1024:.1f} KiB)")
    ok = results["page_data_json"] < BUDGET_S
    print(f"budget {BUDGET_S} s: {'ok' if ok else 'EXCEEDED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 7))
