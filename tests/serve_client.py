"""A running ``python -m site_builder serve`` in a subprocess, and clients for its
pages and its live-reload event stream.

Shared by tests/serve/test_serve.py and tests/serve/test_regression_serve_templates.py.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from helpers import REPO


class Serve:
    """A running ``python -m site_builder serve`` and its output, line by line."""

    def __init__(self, root: Path, *extra: str, package_root: Path = REPO):
        """``package_root``: the folder holding the ``site_builder`` package to run."""
        self.root = root
        self.output = root / "site" / "output"
        env = dict(os.environ, PYTHONPATH=str(package_root), PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "site_builder", "serve", "--content", str(root / "content"),
             "--output", str(self.output), "--port", "0", *extra],
            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.printed: list[str] = []
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        for stream, sink in ((self.process.stdout, self.stdout), (self.process.stderr, self.stderr)):
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True).start()
        line = self.wait_for_line(r"Serving .* at http://127\.0\.0\.1:(\d+)/", timeout=60)
        self.port = int(re.search(r":(\d+)/", line).group(1))

    def _pump(self, stream, sink: list[str]) -> None:
        for line in stream:
            sink.append(line)
            self.printed.append(line)

    def wait_for_line(self, pattern: str, timeout: float = 30) -> str:
        """The first line printed so far (or within ``timeout``) that matches ``pattern``."""
        deadline = time.monotonic() + timeout
        while True:
            for line in list(self.printed):
                if re.search(pattern, line):
                    return line
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise AssertionError(f"no line matching {pattern!r}; stdout={''.join(self.stdout)} stderr={''.join(self.stderr)}")
            time.sleep(0.05)

    def get(self, target: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.putrequest(method, target, skip_accept_encoding=True)
            conn.endheaders()
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            conn.close()

    def events(self, since: str) -> "EventStream":
        return EventStream(self.port, since)

    def interrupt(self, timeout: float = 10) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=timeout)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class EventStream:
    """A Server-Sent Events client for /__livereload."""

    def __init__(self, port: int, since: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.request("GET", f"/__livereload?since={since}")
        self.sock = self.conn.sock  # http.client lets go of it once an HTTP/1.0 response starts
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"

    def next(self, timeout: float = 30) -> tuple[str, str]:
        """The next event as (name, data); comments and retry lines skipped."""
        deadline = time.monotonic() + timeout
        name, data = "message", []
        while True:
            # Keep-alive comments arrive now and then: the deadline holds across them.
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            line = self.response.fp.readline().decode("utf-8")
            if not line:
                raise AssertionError("event stream closed")
            line = line.rstrip("\n")
            if line == "":
                if data:
                    return name, "\n".join(data)
                name = "message"
                continue
            field, _, value = line.partition(": ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)

    def wait_for(self, wanted: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while True:
            name, data = self.next(timeout=max(0.1, deadline - time.monotonic()))
            if name == wanted:
                return data

    def close(self) -> None:
        self.response.close()
        self.sock.close()


def page_token(html: bytes) -> str:
    return re.search(rb'<script src="/__livereload\.js" data-token="([^"]+)"', html).group(1).decode()


def no_traceback(running: Serve) -> None:
    text = "".join(running.stdout + running.stderr)
    assert "Traceback" not in text, text
