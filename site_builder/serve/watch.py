"""Noticing saves for ``serve``: inotify on Linux, polling elsewhere.

Polling 10,000 files costs tens of milliseconds per scan and adds half a poll
interval of delay on average; inotify reports a save the moment the editor
closes the file, for no work at all in between. Both watchers answer the same
question: did the site's inputs change, and did the package's own code?
"""

from __future__ import annotations

import ctypes
import os
import select
import struct
import time
from pathlib import Path
from typing import Callable

POLL_SECONDS = 0.2
"""Polling watcher: how often to scan; inotify watcher: how long one wait lasts."""

SETTLE_SECONDS = 0.02
"""A save is over when no more events (or changes) arrive for this long."""

Snapshot = dict[str, tuple[int, int, int, int]]

# <sys/inotify.h>
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_Q_OVERFLOW, _IN_ISDIR = 0x400, 0x800, 0x4000, 0x40000000
_IN_NONBLOCK, _IN_CLOEXEC = 0o4000, 0o2000000
_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE
         | _IN_DELETE | _IN_DELETE_SELF | _IN_MOVE_SELF)
_EVENT = struct.Struct("iIII")


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


class InotifyWatcher:
    """Linux inotify on every folder of the inputs and of the package."""

    def __init__(self, inputs: list[Path], code: Path, skip: Callable[[str], bool]):
        inputs, code = [Path(os.path.abspath(p)) for p in inputs], Path(os.path.abspath(code))
        self._libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self.code = str(code)
        self.skip = skip
        self.folders: dict[int, str] = {}
        self.changed: set[str] | None = set()
        """Paths seen changing in the last ``wait`` that reported a change (None: unknown)."""
        try:
            for root in [*inputs, code]:
                self._watch_tree(str(root))
        except OSError:
            self.close()
            raise

    def _watch_tree(self, root: str) -> None:
        # Follow symlinked folders (content/terms may be one), once each: a loop ends there.
        seen: set[tuple[int, int]] = set()
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
            wd = self._libc.inotify_add_watch(self.fd, os.fsencode(folder), _MASK)
            if wd < 0:
                error = ctypes.get_errno()
                if error in (2, 20):  # ENOENT, ENOTDIR: gone already
                    continue
                raise OSError(error, f"inotify_add_watch failed for {folder} (raise fs.inotify.max_user_watches?)")
            self.folders[wd] = folder

    def _events(self, timeout: float) -> list[str] | None:
        """Paths that changed within ``timeout`` ([] for none); None when the kernel dropped events."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return []
        try:
            data = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return []
        paths: list[str] = []
        offset = 0
        while offset + _EVENT.size <= len(data):
            wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            name = data[offset + _EVENT.size: offset + _EVENT.size + length].rstrip(b"\0")
            offset += _EVENT.size + length
            if mask & _IN_Q_OVERFLOW:
                return None
            folder = self.folders.get(wd)
            if folder is None:
                continue
            path = os.path.join(folder, os.fsdecode(name)) if name else folder
            if name and self.skip(path):
                continue
            if mask & _IN_ISDIR and mask & (_IN_CREATE | _IN_MOVED_TO):
                self._watch_tree(path)  # a new folder: watch it (and what is already inside)
            if mask & _IN_ISDIR or mask & (_IN_DELETE_SELF | _IN_MOVE_SELF):
                # A folder came, went or moved: the files in it changed without
                # events of their own. The build must look at everything.
                self._folders_changed = True
            paths.append(path)
        return paths

    def wait(self, stopping: Callable[[], bool]) -> tuple[bool, bool]:
        """(inputs changed, code changed) within one wait; waits for a save to settle."""
        self._folders_changed = False
        paths = self._events(POLL_SECONDS)
        if paths == []:
            return False, False
        everything = paths is None
        seen = set(paths or ())
        while not stopping():  # let the editor finish writing
            more = self._events(SETTLE_SECONDS)
            if more == []:
                break
            everything = everything or more is None
            seen.update(more or ())
        if everything:
            self.changed = None
            return True, True
        self.changed = None if self._folders_changed else seen
        # Templates and static files are hashed into every cache key with the code
        # (``cache.code_version``), so they count as code: the worker restarts.
        code = any(p.startswith(self.code + os.sep) for p in seen)
        inputs = any(not (p.startswith(self.code + os.sep) and p.endswith(".py")) for p in seen)
        return inputs, code

    def close(self) -> None:
        """Release the inotify descriptor."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def make_watcher(inputs: list[Path], code: Path, skip: Callable[[str], bool]):
    """An inotify watcher where the kernel offers one, else a polling one."""
    try:
        return InotifyWatcher(inputs, code, skip)
    except (OSError, AttributeError):  # not Linux, or out of watches
        return PollingWatcher(inputs, code, skip)
