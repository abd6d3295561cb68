"""Noticing saves for ``serve``: watchfiles' events where it is installed, polling elsewhere.

Polling 10,000 files costs tens of milliseconds per scan and adds half a poll
interval of delay on average; an event watcher reports a save the moment the
editor closes the file, for no work at all in between. Events come from
watchfiles (the ``serve`` extra: ``pip install site_builder[serve]``; Rust's
notify crate: inotify, FSEvents, ReadDirectoryChangesW), which replaced a
hand-written ctypes inotify reader that ran on Linux only. Without it, the
polling watcher answers the same question: did the site's inputs change, and
did the package's own code?
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

POLL_SECONDS = 0.2
"""Polling watcher: how often to scan; watchfiles watcher: how long one wait lasts."""

SETTLE_SECONDS = 0.02
"""A save is over when no more events (or changes) arrive for this long."""

Snapshot = dict[str, tuple[int, int, int, int]]

def snapshot(roots: list[Path], skip: Callable[[str], bool] = lambda path: False) -> Snapshot:
    """path -> (mtime_ns, ctime_ns, size, inode) of every file under ``roots``, except folders ``skip`` names."""
    found: Snapshot = {}
    stack = [str(root) for root in roots]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir():
                    if not skip(entry.path):
                        stack.append(entry.path)
                    continue
                info = entry.stat()
            except OSError:
                continue
            # ctime too: a same-size edit that restores the mtime (cp -p) still changes it.
            found[entry.path] = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)
    return found


class PollingWatcher:
    """Scans every file's mtime, size and inode every ``POLL_SECONDS``."""

    def __init__(self, inputs: list[Path], code: Path, skip: Callable[[str], bool]):
        inputs, code = [Path(os.path.abspath(p)) for p in inputs], Path(os.path.abspath(code))
        self.inputs, self.code, self.skip = inputs, code, skip
        self.seen_inputs, self.seen_code = self._scan()
        self.changed: set[str] | None = set()
        """Paths seen changing in the last ``wait`` that reported a change."""

    def _scan(self) -> tuple[Snapshot, Snapshot]:
        # Templates and static files count as code too: they are hashed into every
        # cache key with it (``cache.code_version``), so the worker must restart.
        return snapshot(self.inputs, self.skip), snapshot([self.code], self.skip)

    def wait(self, stopping: Callable[[], bool]) -> tuple[bool, bool]:
        """(inputs changed, code changed) after up to one poll interval; waits for a save to settle."""
        time.sleep(POLL_SECONDS)
        inputs, code = self._scan()
        if inputs == self.seen_inputs and code == self.seen_code:
            return False, False
        while not stopping():  # let the editor finish writing
            time.sleep(SETTLE_SECONDS)
            settled, code = self._scan()
            if settled == inputs:
                break
            inputs = settled
        changed = (inputs != self.seen_inputs, code != self.seen_code)
        self.changed = {path for path in inputs.keys() | self.seen_inputs.keys()
                        if inputs.get(path) != self.seen_inputs.get(path)}
        self.seen_inputs, self.seen_code = inputs, code
        return changed

    def close(self) -> None:
        """Nothing to release."""


class _Stopping:
    """``stopping()`` as the event object watchfiles polls (it only calls ``is_set``)."""

    def __init__(self, stopping: Callable[[], bool]):
        self.stopping = stopping

    def is_set(self) -> bool:
        return self.stopping()


class WatchfilesWatcher:
    """watchfiles' events on every folder of the inputs and of the package.

    Each folder is watched on its own (``recursive=False``), found by walking
    the roots as ``skip`` allows: a skipped folder (the output, the cache, the
    repository's root around a ``--config`` file) costs no watch and sends no
    event, and a symlinked folder is followed, once. A new folder restarts
    the watch with it included (the new watch opens before the old closes).
    """

    def __init__(self, inputs: list[Path], code: Path, skip: Callable[[str], bool]):
        import watchfiles  # the serve extra; make_watcher falls back to polling without it

        self._watchfiles = watchfiles
        inputs, code = [Path(os.path.abspath(p)) for p in inputs], Path(os.path.abspath(code))
        self.roots = [str(root) for root in [*inputs, code]]
        self.code = str(code)
        self.skip = skip
        self.stopping: Callable[[], bool] = lambda: False
        self.changed: set[str] | None = set()
        """Paths seen changing in the last ``wait`` that reported a change (None: unknown)."""
        self.folders: set[str] = set()
        self._events = None
        self._pending: set = set()
        self._restart()

    def _walk(self) -> set[str]:
        # Follow symlinked folders (content/terms may be one), once each: a loop ends there.
        seen: set[tuple[int, int]] = set()
        folders: set[str] = set()
        for root in self.roots:
            for folder, subfolders, _files in os.walk(root, followlinks=True):
                try:
                    info = os.stat(folder)
                except OSError:
                    subfolders[:] = []
                    continue
                if (info.st_dev, info.st_ino) in seen:
                    subfolders[:] = []
                    continue
                seen.add((info.st_dev, info.st_ino))
                subfolders[:] = [name for name in subfolders if not self.skip(os.path.join(folder, name))]
                folders.add(folder)
        return folders

    def _restart(self) -> None:
        """Watch the folders there are now; the old watch closes after the new one is open."""
        old = self._events
        self.folders = self._walk()
        self._events = self._watchfiles.watch(
            *sorted(self.folders), watch_filter=None, recursive=False, yield_on_timeout=True,
            rust_timeout=int(POLL_SECONDS * 1000), step=int(SETTLE_SECONDS * 1000), debounce=1600,
            stop_event=_Stopping(lambda: self.stopping()), raise_interrupt=False, ignore_permission_denied=True)
        # The first step opens the watch (and waits one timeout): changes from here on are
        # seen; any it already caught are kept for the next ``wait``.
        self._pending |= next(self._events, None) or set()
        if old is not None:
            old.close()

    def wait(self, stopping: Callable[[], bool]) -> tuple[bool, bool]:
        """(inputs changed, code changed) within one wait; waits for a save to settle."""
        self.stopping = stopping
        found, self._pending = self._pending or next(self._events, None), set()
        if not found:  # a timeout (an empty set), or stopping
            return False, False
        seen: set[str] = set()
        folders_changed = False
        for _change, path in found:
            if self.skip(path) or os.path.dirname(path) not in self.folders and path not in self.folders:
                continue  # inside a skipped folder (its own name is checked here too)
            if path in self.folders or os.path.isdir(path):
                # A folder came, went or moved: the files in it changed without
                # events of their own. The build must look at everything.
                folders_changed = True
            seen.add(path)
        if not seen:
            return False, False
        if folders_changed:
            self._restart()
        self.changed = None if folders_changed else seen
        # Templates and static files are hashed into every cache key with the code
        # (``cache.code_version``), so they count as code: the worker restarts.
        code = any(p.startswith(self.code + os.sep) for p in seen)
        inputs = any(not (p.startswith(self.code + os.sep) and p.endswith(".py")) for p in seen)
        return inputs, code

    def close(self) -> None:
        """Stop watching."""
        if self._events is not None:
            self._events.close()
            self._events = None


def make_watcher(inputs: list[Path], code: Path, skip: Callable[[str], bool]):
    """watchfiles' watcher where it is installed (the ``serve`` extra), else a polling one."""
    try:
        return WatchfilesWatcher(inputs, code, skip)
    except ImportError:
        return PollingWatcher(inputs, code, skip)
