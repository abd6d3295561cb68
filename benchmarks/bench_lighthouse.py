"""Lighthouse (mobile) on the speculative decoding page, served with gzip on loopback.

    python benchmarks/bench_lighthouse.py [--site DIR] [--runs 3] [--lighthouse PATH]

Builds this repository's content/ (unless --site names a built site), serves
it from 127.0.0.1 with gzip (as any static host would), and runs Lighthouse's
performance category in its default mobile emulation (simulated throttling:
a mid-range phone, 4x CPU slowdown) ``--runs`` times against the explainer's
page, with Debian's chromium. Prints the median of: performance score, total
blocking time, the bytes transferred (all of them; the first load as issue 19
counts it, the page's HTML, CSS and scripts; the pictures; the lazy assets, which
load only when a chart nears the viewport or a control is used, so Lighthouse's
phone, which never scrolls nor interacts, should load none), cumulative layout
shift, the main-thread time spent evaluating and parsing scripts, and the longest
task; with the machine's load average (a shared machine inflates every time).

Targets (issue 19): performance >= 0.98, total blocking time <= 150 ms,
first load without the Vega runtime <= 60 KB gzip, everything before any
interaction <= 250 KB gzip, the runtime itself <= 190 KB gzip.

Lighthouse is an npm package: ``--lighthouse`` is its ``lighthouse`` binary
(``npm install lighthouse`` somewhere); by default ``npx --yes lighthouse@12``
fetches it from the npm registry. Informational: no assertions.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = "speculative-decoding/"
LAZY = ("vega-runtime", "sd-specs", "sd-serving")
"""Asset names the page loads only when a chart nears the viewport or a control is used."""


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, gzip-compressed when the client accepts it (text types only)."""

    COMPRESS = (".html", ".js", ".css", ".json", ".svg", ".txt", ".xml")

    def log_message(self, *args) -> None:  # quiet
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if "gzip" not in self.headers.get("Accept-Encoding", "") or path.suffix not in self.COMPRESS or not path.is_file():
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        import io
        return io.BytesIO(body)


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, int]:
    """A gzip-serving HTTP server for ``folder`` on a free loopback port, running in a thread."""
    handler = functools.partial(GzipHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def lighthouse(command: list[str], url: str) -> dict:
    """One Lighthouse run's report (JSON)."""
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    env = {**os.environ, "CHROME_PATH": chrome or ""}
    result = subprocess.run([*command, url, "--output=json", "--output-path=stdout", "--quiet",
                             "--only-categories=performance",
                             "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
                            capture_output=True, text=True, env=env, timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"lighthouse failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


def figures(report: dict) -> dict[str, float]:
    """The figures this benchmark prints, from one report."""
    audits = report["audits"]
    requests = audits["network-requests"]["details"]["items"]
    total = sum(r.get("transferSize", 0) for r in requests)
    lazy = sum(r.get("transferSize", 0) for r in requests if any(name in r["url"] for name in LAZY))
    runtime = sum(r.get("transferSize", 0) for r in requests if "vega-runtime" in r["url"])
    # the first load as issue 19 counts it: the page's HTML, CSS and scripts (no pictures, no lazy assets)
    code = sum(r.get("transferSize", 0) for r in requests
               if r.get("resourceType") in ("Document", "Stylesheet", "Script") and not any(name in r["url"] for name in LAZY))
    pictures = sum(r.get("transferSize", 0) for r in requests if r.get("resourceType") == "Image")
    bootup = audits["bootup-time"]["details"]["items"]
    script_ms = sum(item.get("scripting", 0) + item.get("scriptParseCompile", 0) for item in bootup)
    tasks = audits.get("long-tasks", {}).get("details", {}).get("items", [])
    return {
        "performance": report["categories"]["performance"]["score"],
        "total blocking time, ms": audits["total-blocking-time"]["numericValue"],
        "largest contentful paint, ms": audits["largest-contentful-paint"]["numericValue"],
        "bytes before interaction, KB": total / 1000,
        "bytes without the lazy assets, KB": (total - lazy) / 1000,
        "first load: HTML, CSS, scripts, KB": code / 1000,
        "pictures (static charts, icon), KB": pictures / 1000,
        "lazy assets loaded, KB": lazy / 1000,
        "Vega runtime loaded, KB": runtime / 1000,
        "cumulative layout shift": audits["cumulative-layout-shift"]["numericValue"],
        "script evaluation + parse, ms": script_ms,
        "longest task, ms": max((t.get("duration", 0) for t in tasks), default=0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a built site (default: build content/ now)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lighthouse", help="path of the lighthouse binary (default: npx --yes lighthouse@12)")
    args = parser.parse_args()
    command = [args.lighthouse] if args.lighthouse else ["npx", "--yes", "lighthouse@12"]
    work = Path(tempfile.mkdtemp(prefix="bench-lh-"))
    try:
        site = args.site
        if site is None:
            site = work / "output"
            subprocess.run([sys.executable, "-m", "site_builder", "build", "--quiet", "--no-cache",
                            "--output", str(site)], cwd=ROOT, check=True)
        server, port = serve(site)
        url = f"http://127.0.0.1:{port}/{PAGE}"
        load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
        runs = [figures(lighthouse(command, url)) for _ in range(args.runs)]
        server.shutdown()
        print(f"Lighthouse mobile, {url}, median of {args.runs} (load average before: {load_before}, after: "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}):")
        for key in runs[0]:
            values = [run[key] for run in runs]
            print(f"  {key:<36} {statistics.median(values):9.2f}   (runs: {', '.join(f'{v:.2f}' for v in values)})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
