"""``serve``'s HTTP side: files from ``output/``, the live-reload script and its event stream.

Every HTML response gets the live-reload script (an external script, so pages
keep working under the CSP ``script-src 'self'`` this server also sends); the
files in ``output/`` never do. ``/__livereload`` is a Server-Sent Events
stream that tells the page "reload", "problems" or "ok" after each build,
from the ``ReloadState`` the watch loop (``loop.py``) publishes to.
"""

from __future__ import annotations

import json
import os
import posixpath
import socket
import sys
import threading
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qs, unquote_to_bytes, urlsplit

from ..outputs import hosting

KEEPALIVE_SECONDS = 15.0
RELOAD_SCRIPT = "/__livereload.js"
EVENTS_PATH = "/__livereload"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".xml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".avif": "image/avif",
    ".ico": "image/x-icon",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".wasm": "application/wasm",
    ".inv": "application/octet-stream",  # Sphinx objects.inv (zlib-compressed)
}

SECURITY_HEADERS = {**hosting.SECURITY_HEADERS, "Cache-Control": "no-store"}
"""Sent with every response: the headers recommended for hosts (``hosting.py``),
with ``no-store`` instead of the host's cache rules, so a page that breaks the
CSP breaks here first."""

LOOPBACK = ("127.0.0.1", "localhost", "::1")

CORS_PATHS = ("/glossary.json",)
"""Files other sites' hover cards fetch; hosts should send them with ``Access-Control-Allow-Origin: *``."""

_DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, socket.timeout)


def content_type(name: str) -> str:
    """The Content-Type for a file name (binary when unknown)."""
    return CONTENT_TYPES.get(posixpath.splitext(name)[1].lower(), "application/octet-stream")


def inject_reload_script(html: bytes, token: str) -> bytes:
    """``html`` with the live-reload script added before ``</head>`` (or at the end)."""
    tag = f'<script src="{RELOAD_SCRIPT}" data-token="{token}" defer></script>\n'.encode()
    lower = html.lower()
    for marker in (b"</head>", b"</body>"):
        at = lower.find(marker)
        if at != -1:
            return html[:at] + tag + html[at:]
    return html + tag


def resolve_request_path(root: Path, target: str) -> tuple[int, Path | None]:
    """Map a request target to a file or folder under ``root``.

    Returns ``(200, path)``, or ``(400, None)`` for a malformed target and
    ``(404, None)`` for one that names nothing under ``root``. The target is
    percent-decoded exactly once (so ``%252e%252e`` is the literal name
    ``%2e%2e``); ``..`` segments, backslashes and NUL bytes are refused, and
    so is any path whose symlinks lead outside ``root``.
    """
    if target.startswith(("http://", "https://")):
        target = urlsplit(target).path or "/"
    path = target.split("?", 1)[0].split("#", 1)[0]
    if not path.startswith("/"):
        return 400, None
    try:
        decoded = unquote_to_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        return 400, None
    if "\x00" in decoded or "\\" in decoded:
        return 400, None
    segments = [s for s in decoded.split("/") if s not in ("", ".")]
    if ".." in segments:
        return 400, None
    real_root = os.path.realpath(root)
    candidate = os.path.join(real_root, *segments)
    real = os.path.realpath(candidate)
    if real != real_root and not real.startswith(real_root + os.sep):
        return 404, None  # a symlink that leads outside the site
    if not os.path.exists(real):
        return 404, None
    return 200, Path(real)


@dataclass
class ReloadState:
    """What the event stream tells browsers; guarded by ``changed``."""

    token: str
    problems: list[str] = field(default_factory=list)
    sequence: int = 0
    """Bumped after every build, so streams send "problems" or "ok"."""
    stopping: bool = False
    changed: threading.Condition = field(default_factory=threading.Condition)

    def publish(self, token: str | None, problems: list[str]) -> None:
        """Record a build's outcome (a new token when the site changed) and wake the streams."""
        with self.changed:
            if token is not None:
                self.token = token
            self.problems = problems
            self.sequence += 1
            self.changed.notify_all()

    def stop(self) -> None:
        """Wake every waiting live-reload stream so it ends (the server is stopping)."""
        with self.changed:
            self.stopping = True
            self.changed.notify_all()


class DevServer(ThreadingHTTPServer):
    """A threaded HTTP server for one site folder; handler threads never block exit."""

    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 1024
    """listen()'s backlog (socketserver's default is 5): a page's burst of
    requests, or 200 at once, is queued, not refused and retried after a
    second by each client's SYN timer (200 concurrent requests took 8.7 s)."""

    def __init__(self, address: tuple[str, int], root: Path, state: ReloadState):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.root = root
        self.state = state
        self.loopback_only = address[0] in LOOPBACK
        super().__init__(address, DevRequestHandler)

    def handle_error(self, request, client_address) -> None:
        kind = sys.exc_info()[0]
        if kind is not None and issubclass(kind, _DISCONNECTS):
            return  # the browser went away mid-response: nothing to report
        print(f"serve: error while answering {client_address[0]}:", file=sys.stderr)
        traceback.print_exc(limit=3, file=sys.stderr)


class DevRequestHandler(BaseHTTPRequestHandler):
    """GET/HEAD for files under the server's root, plus the live-reload endpoints."""

    server: DevServer
    server_version = "site_builder-serve"
    sys_version = ""
    protocol_version = "HTTP/1.0"
    timeout = 60

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - base class name
        pass  # a dev server's request log is noise; problems are printed by the builder

    def handle(self) -> None:
        try:
            super().handle()
        except _DISCONNECTS:
            self.close_connection = True

    def do_HEAD(self) -> None:
        self._answer(head=True)

    def do_GET(self) -> None:
        self._answer(head=False)

    def _answer(self, head: bool) -> None:
        if self.server.loopback_only and not _is_loopback_host(self.headers.get("Host", "")):
            # DNS rebinding: a page on another site resolving its own name to 127.0.0.1 must not read ours.
            return self._send(421, b"Misdirected request: this dev server answers to localhost only\n",
                              "text/plain; charset=utf-8", head)
        path = self.path.split("?", 1)[0]
        if path == RELOAD_SCRIPT:
            data = resources.files("site_builder").joinpath("static", "livereload.js").read_bytes()
            return self._send(200, data, content_type(RELOAD_SCRIPT), head)
        if path == EVENTS_PATH:
            return self._events(head)
        token = self.server.state.token  # read before the file: a race costs a reload, never a stale page
        status, target = resolve_request_path(self.server.root, self.path)
        if status == 400:
            return self._send(400, b"Bad request\n", "text/plain; charset=utf-8", head)
        if target is not None and target.is_dir():
            if not path.endswith("/"):  # one leading slash: "//name/" would send the browser to host "name"
                return self._redirect("/" + path.lstrip("/") + "/")
            target = target / "index.html"
            if not target.is_file():
                target = None
        if target is None or not target.is_file():
            return self._not_found(token, head)
        self._send_file(200, target, token, head)

    def _send_file(self, status: int, target: Path, token: str, head: bool) -> None:
        try:
            data = target.read_bytes()
        except OSError:
            return self._send(404, b"Not found\n", "text/plain; charset=utf-8", head)
        kind = content_type(target.name)
        if kind.startswith("text/html"):
            data = inject_reload_script(data, token)
        self._send(status, data, kind, head)

    def _not_found(self, token: str, head: bool) -> None:
        page = self.server.root / "404.html"
        if page.is_file():
            return self._send_file(404, page, token, head)
        self._send(404, b"Not found\n", "text/plain; charset=utf-8", head)

    def _redirect(self, location: str) -> None:
        self.send_response(301)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The base class's error answer, never in HTTP/0.9's form (no status
        line, no headers), which it uses for a request line it could not read."""
        self.request_version = "HTTP/1.0"
        super().send_error(code, message, explain)

    def end_headers(self) -> None:
        """Every answer carries the security headers, the ones the base class
        makes too (``send_error``: 501 for another method, 400, 414, 431)."""
        self._security_headers()
        super().end_headers()

    def _security_headers(self) -> None:
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)

    def _send(self, status: int, data: bytes, kind: str, head: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        if self.path.split("?", 1)[0].endswith(CORS_PATHS):
            self.send_header("Access-Control-Allow-Origin", "*")  # other docs sites fetch these
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def _events(self, head: bool) -> None:
        """Server-Sent Events: "reload" when the site changed, "problems"/"ok" after each build."""
        query = parse_qs(urlsplit(self.path).query)
        sent_token = query.get("since", [""])[0]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        if head:
            return
        state = self.server.state
        sent_sequence = -1
        self.wfile.write(b"retry: 500\n\n")
        self.wfile.flush()
        while True:
            with state.changed:
                state.changed.wait_for(
                    lambda: state.stopping or state.token != sent_token or state.sequence != sent_sequence,
                    timeout=KEEPALIVE_SECONDS,
                )
                if state.stopping:
                    return
                token, sequence, problems = state.token, state.sequence, list(state.problems)
            message = b": keep-alive\n\n"
            if token != sent_token:
                message = _event("reload", token)
                sent_token = token
            elif sequence != sent_sequence:
                message = _event("problems", json.dumps(problems)) if problems else _event("ok", token)
                sent_sequence = sequence
            self.wfile.write(message)
            self.wfile.flush()


def _is_loopback_host(host: str) -> bool:
    """True for a Host header naming this machine (localhost, 127.0.0.1, [::1], any port), or none:
    browsers always send one, so only a browser tricked by DNS rebinding sends another name."""
    host = host.strip().lower()
    if not host:
        return True
    name = host[1:].split("]", 1)[0] if host.startswith("[") else host.rsplit(":", 1)[0]
    return name in LOOPBACK or name.endswith(".localhost")


def _event(name: str, data: str) -> bytes:
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"event: {name}\n{lines}\n".encode("utf-8")
