"""``serve``'s build worker: a warm ``python`` process that builds on request.

The protocol is one JSON request per line on the worker's stdin (the
``build_site`` options, and the files changed since the last finished
build) and one JSON ``BuildResult`` per line on its stdout. The worker runs in
a session of its own and dies with ``serve`` (``parallel.guard``); ``serve``
kills it with its children on Ctrl-C and replaces it when the package changes.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from .. import parallel

PACKAGE = Path(__file__).resolve().parent.parent
"""The ``site_builder`` folder: the worker imports the package from here, and
``serve`` restarts the worker when anything in it changes."""


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
            [sys.executable, "-c", f"from site_builder.serve.worker import worker_main; worker_main({os.getpid()})"],
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
    from ..build import BuildOptions, build_site
    from ..cache.store import BuildCache
    from ..errors import BuildFailed
    from ..files import RefusedPath
    from ..publish import PublishError

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
                               config=Path(request["config"]) if request.get("config") else None,
                               base_url=request["base_url"], strict=request["strict"], in_place=True,
                               changed=frozenset(changed) if changed is not None else None)
        if store is None or store.folder != options.cache_folder():
            # Kept between builds: no cache table is read twice. Writes wait
            # until the browser has been told to reload.
            store = BuildCache(options.cache_folder(), defer_writes=True)
        log: list[str] = []
        try:
            report = build_site(options, log.append, store, caller_froze=True)  # (unfrozen below)
            warnings = [str(w) for w in report.warnings]
            if report.cache_failure:  # serve goes on from the tables in memory
                warnings.append(f"warning: the build cache could not be saved ({report.cache_failure})")
            result = BuildResult(ok=True, warnings=warnings, log=log,
                                 terms=report.terms, written=report.written, unchanged=report.unchanged,
                                 seconds=report.seconds)
        except BuildFailed as failure:
            result = BuildResult(ok=False, problems=[str(p) for p in failure.problems], log=log)
        except (PublishError, RefusedPath) as exc:
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
