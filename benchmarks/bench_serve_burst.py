#!/usr/bin/env python3
"""``serve`` answering a burst of concurrent requests: the listen backlog's effect.

Usage: python benchmarks/bench_serve_burst.py [--requests N] [--runs R]

Builds a two-term site in a temporary folder, then R times (default 3) starts
the dev server's HTTP server (``serve/http.py``'s ``DevServer``) with
socketserver's default backlog of 5 and with the backlog it uses
(``DevServer.request_queue_size``), fires N (default 200) concurrent GETs of
``/`` and times until every one is answered. Prints each run and the ratio
(ours / backlog 5): with a backlog of 5, connections past it wait for the
client's SYN retry (about a second each round).
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from site_builder.serve.http import DevServer, ReloadState  # noqa: E402


def burst(root: Path, backlog: int, requests: int) -> tuple[float, int]:
    """(seconds until ``requests`` concurrent GETs are all answered or timed out, how many failed)."""
    server = type("Server", (DevServer,), {"request_queue_size": backlog})(("127.0.0.1", 0), root, ReloadState("t"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    statuses: list[int] = []

    def get() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", "/")
            statuses.append(conn.getresponse().status)
        except OSError:  # with a backlog of 5 some connections wait out the timeout
            statuses.append(0)
        finally:
            conn.close()

    threads = [threading.Thread(target=get) for _ in range(requests)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    server.shutdown()
    server.server_close()
    return elapsed, sum(1 for status in statuses if status != 200)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        content = Path(folder) / "content" / "terms"
        content.mkdir(parents=True)
        for slug in ("alpha", "beta"):
            (content / f"{slug}.md").write_text(f"---\ntitle: {slug.title()}\nsummary: A term.\n---\nProse.\n")
        output = Path(folder) / "out"
        subprocess.run([sys.executable, "-m", "site_builder", "build", "--content", str(content.parent),
                        "--output", str(output), "--quiet"], cwd=REPO, check=True)
        ours, default = [], []
        for run in range(args.runs):
            (seconds, failed), (mine, mine_failed) = (burst(output, 5, args.requests),
                                                      burst(output, DevServer.request_queue_size, args.requests))
            default.append(seconds)
            ours.append(mine)
            print(f"run {run + 1}: backlog 5 {seconds:.3f} s ({failed} failed), "
                  f"backlog {DevServer.request_queue_size} {mine:.3f} s ({mine_failed} failed)")
    print(f"ratio (backlog {DevServer.request_queue_size} / backlog 5, medians): "
          f"{statistics.median(ours) / statistics.median(default):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
