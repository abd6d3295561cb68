"""Load the terms while the interpreter is still importing.

The build starts in one process: the interpreter, then the imports
(Jinja, Python-Markdown, ...: about 0.2 s), then reading and parsing every
term file (about 0.1 ms each), and only then do the markdown workers spread
over the cores. Until then the other cores are idle. So the command line
forks loaders as soon as it has parsed its arguments, before the heavy
imports: each imports only ``content`` and loads a contiguous slice of the
term files (``content.load_term_files(part=...)``), and sends back what the
load returns, pickled. The build takes it in place of its own load when that
load would have started from nothing (no cached terms: a first build, or
``--no-cache``), which makes the two the same computation, only earlier.

This module imports nothing heavy: it runs before everything else. Loaders
fork through ``parallel.fork``, so that a killed build leaves none behind. A loader
that fails (or a build that does not need it) costs nothing but the time it
ran; the build then loads as it always did.
"""

from __future__ import annotations

import gc
import os
import pickle
import re
import select
import signal
import time
from pathlib import Path
from typing import Callable

from .. import parallel
from ..files import RefusedPath, open_regular

FILES_PER_LOADER = 2500
"""A loader per this many term files, up to one per core: below it, a second
loader's own imports cost more than the half of the files it would take."""


class Preload:
    """Forked loaders at work on the terms of one content folder."""

    def __init__(self, content: Path, loaders: list[tuple[int, int]], started_ns: int):
        self.content = content
        self.started_ns = started_ns
        """``time.time_ns()`` before the loaders started: every stamp they take is newer."""
        self._loaders = loaders  # (pid, read end of its pipe)

    def result(self, meanwhile: Callable[[], None] = lambda: None):
        """Every term file loaded, as ``content.load_term_files(content)`` gives
        them; None if any loader failed. ``meanwhile()`` runs first
        if the loaders are not done yet, instead of waiting idle."""
        payloads = []
        readers = [reader for _pid, reader in self._loaders]
        if readers and len(select.select(readers, [], [], 0)[0]) < len(readers):
            meanwhile()
        try:
            while readers:
                with os.fdopen(readers.pop(0), "rb") as stream:
                    payloads.append(stream.read())
        finally:
            for reader in readers:  # only after an error
                os.close(reader)
            failed = self._reap()
        if failed or not all(payloads):
            return None  # a loader killed mid-write leaves a truncated pickle: never read it
        try:
            parts = [pickle.loads(payload) for payload in payloads]
        except Exception:  # unreadable all the same: the build loads the terms itself
            return None
        return [entry for part in parts for entry in part]  # the slices are contiguous, in file order

    def discard(self) -> None:
        """Stop the loaders whose result is not wanted; safe to call twice."""
        for pid, reader in self._loaders:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - already gone
                pass
            try:
                os.close(reader)
            except OSError:
                pass
        self._reap()

    def _reap(self) -> bool:
        """Wait for every loader; True if one did not exit cleanly."""
        failed = False
        for pid, _reader in self._loaders:
            _pid, status = os.waitpid(pid, 0)
            failed = failed or not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0
        self._loaders = []
        return failed


def start(content: Path, cores: int | None = None) -> Preload | None:
    """Fork the loaders for ``content``, at most ``cores`` (default: one per
    core this process may use); None where fork is missing or there is nothing to load."""
    if not hasattr(os, "fork") or not hasattr(os, "sched_getaffinity"):  # pragma: no cover - not Linux
        return None
    cores = cores or parallel.default_jobs()
    try:
        with os.scandir(content / "terms") as listing:
            count = sum(1 for _ in listing)  # the top folder only: a guide to how many loaders
    except OSError:
        return None
    parts = max(1, min(cores, count // FILES_PER_LOADER))
    started_ns = time.time_ns()
    loaders = []
    for index in range(parts):
        reader, writer = os.pipe()
        pid = parallel.fork()  # guarded: it dies with this process, so a killed build leaves no loader
        if pid == 0:  # pragma: no cover - runs in the child; its result is tested
            os.close(reader)
            for _pid, earlier in loaders:  # the other loaders' pipes: only their reader may hold them
                os.close(earlier)
            _load(content, (index, parts), writer)
        os.close(writer)
        loaders.append((pid, reader))
    return Preload(content, loaders, started_ns)


def _load(content: Path, part: tuple[int, int], writer: int) -> None:  # pragma: no cover - in the child
    """In a loader: load one part, write it pickled to ``writer``, and exit."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: stop quietly; the parent reports it
        # Collector off, as in the build's own load (cache.collector_paused): the
        # terms make no cycles and live until this process exits. It ran ~100
        # times walking the growing load, ~70-120 ms of a 5,000-term loader.
        gc.disable()
        from . import content as loading

        loaded = loading.load_term_files(content, part=part)
        with os.fdopen(writer, "wb") as stream:
            stream.write(pickle.dumps(loaded, protocol=pickle.HIGHEST_PROTOCOL))
        code = 0
    finally:
        os._exit(code)


EARLY_SCAN = 1000
"""At most this many term files are read for ``explainers_named``: a site that
big takes long enough to build that an explainer's early start is noise."""
_EXPLAINER_LINE = re.compile(rb"^explainer:[ \t]*[\"']?([A-Za-z0-9][A-Za-z0-9_.-]*)[\"']?[ \t]*\r?$", re.M)


def explainers_named(content: Path, limit: int = EARLY_SCAN) -> set[str]:
    """The explainers the term files of ``content`` name (``explainer: <name>``
    in their front matter, read from each file's head), so that a first build
    may start preparing them before its own imports; empty when there are more
    than ``limit`` term files or the folder cannot be read. A hint, not a load:
    the build's load stage decides what is valid."""
    try:
        with os.scandir(content / "terms") as listing:
            paths = [entry.path for entry in listing if entry.name.endswith(".md")]
    except OSError:
        return set()
    if len(paths) > limit:
        return set()
    names: set[str] = set()
    for path in paths:
        try:
            # A regular file, not followed (a hint needs no symlinked term): a FIFO must not hang the start.
            descriptor = open_regular(path, owned=False)
        except (OSError, RefusedPath):
            continue  # the load stage reports it
        with open(descriptor, "rb") as file:
            head = file.read(4096)
        if not head.startswith(b"---"):
            continue
        end = head.find(b"\n---", 3)
        found = _EXPLAINER_LINE.search(head, 0, end if end >= 0 else len(head))
        if found:
            names.add(found.group(1).decode("ascii"))
    return names
