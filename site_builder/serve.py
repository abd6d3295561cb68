"""``serve``: build, serve ``output/`` locally, rebuild on change, reload the browser.

Three parts, each on its own thread or process::

    main thread      watch loop: inotify (or polling) ───change──> ask the worker to build
                         │                                   ok: new token ──┐
                         │                            failed: problems ──────┤
    build worker     a warm ``python`` process that runs ``build_site``      │
    (own session)    (killed and replaced on Ctrl-C or a package change;     │
                      dies with ``serve``, even a SIGKILLed one)             │
                                                                             v
    HTTP threads     GET files from output/ (+ live-reload script)   /__livereload (SSE)
                                                                     sends "reload", "problems", "ok"

Builds run in a separate process so that Ctrl-C can stop one at once (the
publish stage is atomic, so killing it leaves the old site or the new one),
so that the markdown stage's worker pool never forks a threaded process, and
so that an edit to the package (code, templates, static files) is picked up
on the next build: the watcher replaces the worker, whose imported modules,
compiled templates and ``cache.code_version`` all describe the old package.

The live-reload script is added to HTML responses only, never to the files
in ``output/``; it is an external script, so pages keep working under the CSP
``script-src 'self'`` that this server also sends.
"""

from __future__ import annotations

import gc
import json
import os
import posixpath
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qs, unquote_to_bytes, urlsplit

from . import CACHE_FOLDER, hosting, parallel, watch
from .publish import clean_leftovers

KEEPALIVE_SECONDS = 15.0
RELOAD_SCRIPT = "/__livereload.js"
EVENTS_PATH = "/__livereload"

PACKAGE = Path(__file__).resolve().parent

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
        self._security_headers()
        self.end_headers()

    def _security_headers(self) -> None:
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)

    def _send(self, status: int, data: bytes, kind: str, head: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        if self.path.split("?", 1)[0].endswith(CORS_PATHS):
            self.send_header("Access-Control-Allow-Origin", "*")  # other docs sites fetch these
        self._security_headers()
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def _events(self, head: bool) -> None:
        """Server-Sent Events: "reload" when the site changed, "problems"/"ok" after each build."""
        query = parse_qs(urlsplit(self.path).query)
        sent_token = query.get("since", [""])[0]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self._security_headers()
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


# --- the build worker --------------------------------------------------------

@dataclass
class BuildResult:
    """One build's outcome as the worker reports it."""

    ok: bool
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    terms: int = 0
    written: int = 0
    unchanged: int = 0
    seconds: float = 0.0


class BuildWorker:
    """A warm ``python`` process that builds on request, one build at a time.

    It runs in a session of its own, so a terminal's Ctrl-C reaches only us and
    ``kill()`` can end it together with its markdown worker processes.
    """

    def __init__(self, request: dict):
        self.request = request
        self.process: subprocess.Popen | None = None
        self.last_ok = False
        """Whether the last build finished."""

    def start(self) -> None:
        """Start a fresh worker process that imports the package as it is now on disk."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE.parent), env.get("PYTHONPATH")]))
        # It is told our pid, to die with us (parallel.guard): a killed serve leaves no worker.
        self.process = subprocess.Popen(
            [sys.executable, "-c", f"from site_builder.serve import worker_main; worker_main({os.getpid()})"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, start_new_session=True,
        )

    def build(self) -> BuildResult:
        """Build once; a worker that dies mid-build reports a failure (and is replaced next time)."""
        if self.process is None or self.process.poll() is not None:
            self.start()
        assert self.process and self.process.stdin and self.process.stdout
        try:
            self.process.stdin.write(json.dumps(self.request).encode() + b"\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except (BrokenPipeError, ValueError, OSError):
            line = b""
        if not line:
            self.kill()
            self.last_ok = False
            return BuildResult(ok=False, problems=["error: the build process stopped before finishing (see above)"])
        result = BuildResult(**json.loads(line))
        self.last_ok = result.ok
        return result

    def interrupt(self) -> None:
        """Kill the worker and its children; only a system call, so safe in a signal handler."""
        _kill_group(self.process)

    def kill(self) -> None:
        """End the worker at once (safe mid-publish: publishing is atomic) and reap it."""
        process, self.process = self.process, None
        if process is None:
            return
        _kill_group(process)
        process.wait()
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def stop(self) -> None:
        """Let an idle worker exit by itself; kill it if it does not."""
        process = self.process
        if process is None:
            return
        try:
            process.stdin.close()
            process.wait(timeout=2)
            self.process = None
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


def _kill_group(process: subprocess.Popen | None) -> None:
    if process is not None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def worker_main(parent: int | None = None) -> None:
    """The worker's loop: one JSON request per line in, one JSON result per line out.

    ``parent``: the pid of the ``serve`` that started it; the worker dies with it."""
    if parent is not None:
        parallel.guard(parent)
    from .build import BuildOptions, build_site
    from .cache import BuildCache
    from .errors import BuildFailed
    from .publish import PublishError

    replies = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # stray prints go to stderr, never into the replies
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    store: BuildCache | None = None
    for line in sys.stdin:
        if parallel.orphaned():
            return
        request = json.loads(line)
        # No package file (code, template, static file) changes under a running
        # worker: the watcher restarts it instead, so its caches of them hold.
        changed = request.get("changed")
        # in_place: the fast path replaces the edited pages file by file (each
        # atomically); any other build still stages and swaps the whole site.
        options = BuildOptions(content=Path(request["content"]), output=Path(request["output"]),
                               base_url=request["base_url"], strict=request["strict"], in_place=True,
                               changed=frozenset(changed) if changed is not None else None)
        if store is None or store.folder != options.cache_folder():
            # Kept between builds: no cache table is read twice. Writes wait
            # until the browser has been told to reload.
            store = BuildCache(options.cache_folder(), defer_writes=True)
        log: list[str] = []
        try:
            report = build_site(options, log.append, store)
            warnings = [str(w) for w in report.warnings]
            if report.cache_failure:  # serve goes on from the tables in memory
                warnings.append(f"warning: the build cache could not be saved ({report.cache_failure})")
            result = BuildResult(ok=True, warnings=warnings, log=log,
                                 terms=report.terms, written=report.written, unchanged=report.unchanged,
                                 seconds=report.seconds)
        except BuildFailed as failure:
            result = BuildResult(ok=False, problems=[str(p) for p in failure.problems], log=log)
        except PublishError as exc:
            result = BuildResult(ok=False, problems=[f"error: {exc}"], log=log)
        except Exception:  # a bug in the builder: report it, keep serving the old site
            store = None  # its tables may be half updated: read them from disk again
            result = BuildResult(ok=False, log=log, problems=["error: the build crashed (a bug in site_builder):",
                                                              *traceback.format_exc().rstrip().split("\n")])
        replies.write(json.dumps(result.__dict__) + "\n")
        if store is not None:
            store.flush()
        # Off the critical path: clear garbage now, and spare the next build's
        # collector the long-lived tables.
        gc.unfreeze()
        gc.collect()
        gc.freeze()


# --- watching ----------------------------------------------------------------

def make_watcher(content: Path, output: Path):
    """A watcher (see ``watch.py``) of the site's inputs (content, templates, static
    files) and the package's code, blind to the builder's own output and cache."""
    output_path = str(output)
    parent = os.path.dirname(output_path)
    leftovers = os.path.join(parent, f".{os.path.basename(output_path)}.")  # staging-*, old-*: the builder's own
    cache = os.path.join(parent, CACHE_FOLDER)

    def skip(path: str) -> bool:
        return path in (output_path, cache) or path.startswith(leftovers) or path.endswith("__pycache__")

    inputs = [content, PACKAGE / "templates", PACKAGE / "static", *sorted(PACKAGE.glob("explainers/*/static"))]
    return watch.make_watcher(inputs, PACKAGE, skip)


# --- the command ---------------------------------------------------------------

def serve(args, log: Callable[[str], None]) -> int:
    """Run ``serve``; returns the exit status (0 after Ctrl-C)."""
    output: Path = args.output.absolute()
    request = {"content": str(args.content.absolute()), "output": str(output),
               "base_url": args.base_url, "strict": args.strict}
    worker = BuildWorker(request)
    state = ReloadState(token=_token(0))
    try:
        server = DevServer((args.host, args.port), output, state)
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    stopping = threading.Event()

    def on_signal(signum, frame) -> None:
        # Only a flag and a kill(2) here: anything that takes a lock could deadlock.
        stopping.set()
        worker.interrupt()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                              name="serve-http", daemon=True)
    watcher = None
    try:
        watcher = make_watcher(args.content.absolute(), output)
        # Files changed since the last finished build (None: check them all),
        # so the build need not look at the 9,999 others.
        pending: set[str] | None = None
        total = _build(worker, state, log, stopping, first=True)
        if worker.last_ok:
            pending = set()
        if not stopping.is_set():
            thread.start()
            host, port = server.server_address[:2]
            shown = f"[{host}]" if ":" in host else host
            print(f"Serving {output} at http://{shown}:{port}/ (Ctrl-C to stop)", flush=True)
            if args.host not in LOOPBACK:
                print(f"warning: listening on {args.host}: other machines can reach this server", file=sys.stderr)
        while not stopping.is_set():
            inputs_changed, code_changed = watcher.wait(stopping.is_set)
            if stopping.is_set() or not (inputs_changed or code_changed):
                continue
            if code_changed:
                log("Package code changed: restarting the build process")
                worker.stop()
            log("Change detected: rebuilding")
            if pending is not None and watcher.changed is not None:
                pending |= watcher.changed
            else:
                pending = None
            worker.request["changed"] = sorted(pending) if pending is not None else None
            total = _build(worker, state, log, stopping, last_total=total)
            if worker.last_ok:
                pending = set()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        state.stop()
        if thread.is_alive():
            server.shutdown()
        server.server_close()
        worker.stop()
        if watcher is not None:
            watcher.close()
        clean_leftovers(output)  # a build killed mid-publish leaves a staging folder
    log("Stopped.")
    return 0


def _token(sequence: int) -> str:
    """Names one build of one server run: a page loaded under another token is stale."""
    return f"{os.getpid()}-{time.time_ns()}-{sequence}"


def _build(worker: BuildWorker, state: ReloadState, log, stopping: threading.Event,
           first: bool = False, last_total: int | None = None) -> int | None:
    """Build once, print the outcome and tell the browsers; returns the site's file count."""
    result = worker.build()
    if stopping.is_set():
        return last_total
    for line in result.log:
        log(line)
    if not result.ok:
        for problem in result.problems:
            print(problem, file=sys.stderr, flush=True)
        serving = "the previous site" if Path(worker.request["output"], "index.html").exists() else "nothing yet"
        print(f"error: build failed; serving {serving}", file=sys.stderr, flush=True)
        state.publish(None, result.problems)
        return last_total
    for warning in result.warnings:
        print(warning, file=sys.stderr, flush=True)
    total = result.written + result.unchanged
    log(f"Built {result.terms} terms: {total} files ({result.written} written, {result.unchanged} unchanged) "
        f"in {result.seconds:.2f} s")
    changed = first or result.written > 0 or total != last_total
    state.publish(_token(state.sequence + 1) if changed else None, [])
    return total

