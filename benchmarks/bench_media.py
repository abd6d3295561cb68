#!/usr/bin/env python3
"""What looking for images costs the load stage (issue 35): ``load_term_files``
on a corpus with ``load.media.resolve_term`` and with it replaced by a no-op,
alternated, median of 5. Prints the ratio (1.0: free).

Usage: python benchmarks/make_corpus.py 2000 /tmp/corpus/terms --mix realistic
       python benchmarks/bench_media.py /tmp/corpus
"""
import statistics
import sys
import time
from pathlib import Path

from site_builder.load import content, media


def main() -> None:
    root = Path(sys.argv[1])
    resolve = media.resolve_term

    def timed(scan: bool) -> float:
        media.resolve_term = resolve if scan else (lambda body, preview, path, folder: ({}, ""))
        start = time.perf_counter()
        content.load_term_files(root)
        return time.perf_counter() - start

    runs = [(timed(True), timed(False)) for _ in range(5)]
    media.resolve_term = resolve
    scan, none = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    bodies = [t.body for t in content.load_terms(root)[0]]
    start = time.perf_counter()
    for body in bodies:
        media.references(body)
    each = (time.perf_counter() - start) / max(1, len(bodies))
    print(f"load of {len(bodies)} terms: with the image scan {scan * 1000:.1f} ms, without {none * 1000:.1f} ms, "
          f"ratio {scan / none:.3f}; references() {each * 1e6:.1f} us a body")


if __name__ == "__main__":
    main()
