#!/usr/bin/env python3
"""Time from saving one term to the browser's reload event under ``serve``.

Usage: python benchmarks/bench_serve.py [N] [--rounds R] [--no-previews] [--corpus PATH] [--mix simple realistic]

Makes a corpus of N terms (default 1000) with benchmarks/make_corpus.py
(``--flavor plain``), starts ``python -m site_builder serve --port 0`` on it,
opens the live-reload event stream as a browser page would, then R times
(default 5) appends a sentence to one term and measures the wall time from
the file's close to the "reload" event. Prints each round, the median, and the
build time the server itself reports, so the rest (polling, settling, the
event) can be told apart. Once per ``--mix`` of the corpus (default both:
simple and realistic), each under its own heading.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parents[1] / "benchmarks" / "make_corpus.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("terms", nargs="?", type=int, default=1000, help="corpus size (default 1000)")
    parser.add_argument("--rounds", type=int, default=5, help="edits to time (default 5)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="make_corpus.py to use")
    parser.add_argument("--no-previews", action="store_true", help="previews = false in site.toml (no PNG per page)")
    parser.add_argument("--mix", nargs="+", choices=("simple", "realistic"), default=["simple", "realistic"],
                        help="corpus mixes to measure, each reported apart (default: both)")
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for mix in args.mix:
        print(f"\n## {mix} mix")
        measure(args, mix)
    return 0


def measure(args: argparse.Namespace, mix: str) -> None:
    """Serve the ``mix`` corpus and print the save-to-reload times of ``args.rounds`` edits."""
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        root = Path(tmp)
        terms = root / "content" / "terms"
        terms.mkdir(parents=True)
        subprocess.run([sys.executable, str(args.corpus), str(args.terms), str(terms), "--flavor", "plain",
                        "--mix", mix], check=True, stdout=subprocess.DEVNULL)
        if args.no_previews:
            (root / "content" / "site.toml").write_text("previews = false\n")
        env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1")
        started = time.perf_counter()
        server = subprocess.Popen(
            [sys.executable, "-m", "site_builder", "serve", "--content", str(root / "content"),
             "--output", str(root / "output"), "--port", "0"],
            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        printed: list[str] = []
        threading.Thread(target=lambda: printed.extend(server.stdout), daemon=True).start()
        try:
            port = int(wait_for(printed, r"Serving .* at http://[^:]+:(\d+)/", server, 600).group(1))
            previews = "off" if args.no_previews else "on"
            print(f"{args.terms} terms, previews {previews}: first build and start {time.perf_counter() - started:.2f} s")
            term = terms / "term-00000.md"
            page = get(port, "/term-00000/")
            token = re.search(rb'data-token="([^"]+)"', page).group(1).decode()
            stream = Events(port, token)
            stream.wait_for("ok", 60)
            latencies = []
            for round_ in range(args.rounds):
                builds_before = sum("Built " in line for line in printed)
                with term.open("a", encoding="utf-8") as handle:
                    handle.write(f"\nEdited in round {round_}.\n")
                saved = time.perf_counter()
                stream.wait_for("reload", 600)
                latency = time.perf_counter() - saved
                wait_for(printed, r"Built ", server, 10, skip=builds_before)
                built = [line for line in printed if line.startswith("Built ")][-1]
                seconds = float(re.search(r"in ([\d.]+) s", built).group(1))
                latencies.append(latency)
                print(f"  round {round_ + 1}: save -> reload event {latency * 1000:7.0f} ms (build itself {seconds * 1000:7.0f} ms)")
                time.sleep(0.5)
            print(f"median save -> reload event at {args.terms} terms: {statistics.median(latencies) * 1000:.0f} ms "
                  f"(min {min(latencies) * 1000:.0f}, max {max(latencies) * 1000:.0f}; {args.rounds} rounds)")
            stream.close()
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()


def wait_for(printed: list[str], pattern: str, server: subprocess.Popen, timeout: float, skip: int = 0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        matches = [m for m in (re.search(pattern, line) for line in list(printed)) if m]
        if len(matches) > skip:
            return matches[skip]
        if server.poll() is not None:
            break
        time.sleep(0.01)
    raise SystemExit(f"serve did not print {pattern!r}:\n" + "".join(printed))


def get(port: int, path: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    body = conn.getresponse().read()
    conn.close()
    return body


class Events:
    """The live-reload event stream, read as a browser's EventSource would."""

    def __init__(self, port: int, since: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.conn.request("GET", f"/__livereload?since={since}")
        self.response = self.conn.getresponse()

    def wait_for(self, wanted: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        name = ""
        while time.monotonic() < deadline:
            line = self.response.fp.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: ") and name == wanted:
                return line[6:]
        raise SystemExit(f"no {wanted!r} event within {timeout} s")

    def close(self) -> None:
        self.response.close()


if __name__ == "__main__":
    sys.exit(main())
