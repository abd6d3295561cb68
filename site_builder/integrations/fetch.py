"""Downloading a published ``glossary.json`` with a total deadline and a size limit.

A socket timeout bounds each read, not the download: a server sending one
byte every few seconds (in its headers or its body) would hold ``check
--links-in``, or a docs build using the Markdown extension, forever. Here a
watchdog shuts the connection's socket down when ``DEADLINE`` passes, which
wakes any read blocked on it, and the body is refused past ``MAX_BYTES``.
A local file (a path or a ``file:`` URL) is read as a regular file only: a
FIFO there cannot hang the read either.
"""

from __future__ import annotations

import http.client
import socket
import threading
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from ..files import RefusedPath, read_regular

DEADLINE = 30.0
"""Seconds for a whole download: connecting, redirects, headers and body."""
CONNECT_TIMEOUT = 10.0
"""Seconds for any one network operation (within the deadline)."""
MAX_BYTES = 64 * 1024 * 1024
"""The largest glossary.json read (a 10,000-term glossary's is a few MB)."""
CHUNK = 64 * 1024


class FetchError(OSError):
    """The download took too long or was too large."""


class _Watchdog:
    """Shuts down every socket it was given once the deadline passes."""

    def __init__(self, seconds: float):
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def cancel(self) -> None:
        self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)  # wakes a recv() blocked in another thread, as close() does not
    except OSError:
        pass


def _opener(watchdog: _Watchdog) -> urllib.request.OpenerDirector:
    """urllib's opener (redirects, proxies), with every connection's socket watched."""

    class Watched(http.client.HTTPConnection):
        def connect(self):
            super().connect()
            watchdog.watch(self.sock)

    class WatchedTLS(http.client.HTTPSConnection):
        def connect(self):
            super().connect()
            watchdog.watch(self.sock)

    class Plain(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(Watched, req)

    class Secure(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(WatchedTLS, req, context=self._context)

    return urllib.request.build_opener(Plain, Secure)


def fetch_url(url: str) -> bytes:
    """The body at the http(s) ``url``; ``OSError`` (``FetchError`` for the
    deadline and the size limit) when it cannot be had."""
    watchdog = _Watchdog(DEADLINE)
    try:
        with _opener(watchdog).open(url, timeout=min(CONNECT_TIMEOUT, DEADLINE)) as response:
            length = response.headers.get("Content-Length", "")
            if length.isdigit() and int(length) > MAX_BYTES:
                raise FetchError(f"it is {int(length):,} bytes; the limit is {MAX_BYTES:,}")
            parts, size = [], 0
            while True:
                part = response.read1(CHUNK) if hasattr(response, "read1") else response.read(CHUNK)
                if not part:
                    break
                size += len(part)
                if size > MAX_BYTES:
                    raise FetchError(f"it is larger than the limit of {MAX_BYTES:,} bytes")
                parts.append(part)
        if watchdog.expired:
            raise FetchError(f"it took longer than {DEADLINE:g} s")
        return b"".join(parts)
    except (OSError, http.client.HTTPException, ValueError) as error:
        if watchdog.expired and not isinstance(error, FetchError):
            raise FetchError(f"it took longer than {DEADLINE:g} s") from None
        if isinstance(error, OSError):
            raise
        raise OSError(str(error)) from None
    finally:
        watchdog.cancel()


def read_local(location: str | Path) -> bytes:
    """The bytes of a local file (a path, or a ``file:`` URL): a regular file only, at most ``MAX_BYTES``."""
    if isinstance(location, str) and urlsplit(location).scheme == "file":
        location = urllib.request.url2pathname(urlsplit(location).path)
    try:
        return read_regular(location, follow=True, owned=False, limit=MAX_BYTES)
    except (ValueError, RefusedPath) as error:  # over the limit; a FIFO, a device...
        raise FetchError(getattr(error, "reason", str(error))) from None
