"""The ``serve`` command: build, serve, watch, rebuild, tell the browsers to reload."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from .. import CACHE_FOLDER
from ..publish import clean_leftovers
from . import watch
from .http import LOOPBACK, DevServer, ReloadState
from .worker import PACKAGE, BuildWorker


def make_watcher(content: Path, output: Path, config: Path | None = None):
    """A watcher (see ``watch.py``) of the site's inputs (content, templates, static
    files, a ``--config`` file outside the content) and the package's code, blind
    to the builder's own output and cache."""
    output_path = str(output)
    parent = os.path.dirname(output_path)
    leftovers = os.path.join(parent, f".{os.path.basename(output_path)}.")  # staging-*, old-*: the builder's own
    cache = os.path.join(parent, CACHE_FOLDER)
    inputs = [content, PACKAGE / "templates", PACKAGE / "static", *sorted(PACKAGE.glob("explainers/*/static"))]
    # A config outside the content: watch its folder, but only for that one file
    # (the folder may be the repository's root, with everything else in it).
    config_path = os.path.abspath(config) if config is not None else None
    config_folder = os.path.dirname(config_path) if config_path else None
    content_path = os.path.abspath(content)
    if config_path and (config_path + os.sep).startswith(content_path + os.sep):
        config_folder = None  # inside the content: already watched
    if config_folder:
        inputs.append(Path(config_folder))

    def skip(path: str) -> bool:
        if config_folder and os.path.dirname(path) == config_folder and path != config_path:
            return True  # (the content folder, when it is in there, is watched as its own root)
        return path in (output_path, cache) or path.startswith(leftovers) or path.endswith("__pycache__")

    return watch.make_watcher(inputs, PACKAGE, skip)


def serve(args, log: Callable[[str], None]) -> int:
    """Run ``serve``; returns the exit status (0 after Ctrl-C)."""
    output: Path = args.output.absolute()
    config = getattr(args, "config", None)
    request = {"content": str(args.content.absolute()), "output": str(output),
               "config": str(config.absolute()) if config is not None else None,
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
        watcher = make_watcher(args.content.absolute(), output, config)
        if isinstance(watcher, watch.PollingWatcher):
            log(f"watchfiles is not installed (pip install 'site_builder[serve]'): "
                f"looking for changes every {watch.POLL_SECONDS:g} s instead")
        # The header build prints too, so the stage lines below it say what they time.
        log(f"Building {args.content} -> {args.output} (then serving it and rebuilding on change)")
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

