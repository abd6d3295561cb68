"""The lock that keeps one writer at a time on an output folder.

A ``serve`` and a ``build`` of the same site must not interleave, or one could
trust a record the other has just made untrue. The lock is a POSIX record lock
(``fcntl.lockf``) on ``.<output>.lock`` beside the output folder; the file
holds the pid of the build holding it, written right after the lock is taken.

Why ``lockf`` and not ``flock``: a POSIX lock belongs to the *process* that
took it, not to the open file. A forked worker does not inherit it, so the
moment the build that took it dies (``kill -9``, an OOM kill) the lock is
free, even while a worker forked with its descriptor still runs. There is
nothing to hunt for, and a waiting build only ever waits for a live one.

The price, designed for here: a process loses *all* its POSIX locks on a file
when it closes *any* descriptor to that file, and a second lock taken by the
same process (another thread) on the same file succeeds at once. So within a
process the lock file is opened by ``lock`` alone, once per holder: a second
``lock`` of the same output in the same process (serve's in-place build on a
thread while a staged one runs, say) first waits for an in-process lock, and
only opens the file once the first holder has closed it. No other code opens
the lock file (the checks beside ``output/`` only ``lstat`` it).
"""

from __future__ import annotations

import errno
import os
import sys
import threading
import time
from pathlib import Path

from ..files import open_regular

POLL_SECONDS = 0.05
"""How often a waiting build tries the lock again."""

_BUSY = (errno.EAGAIN, errno.EACCES)
"""What a non-blocking ``lockf`` raises for a lock another process holds."""

ANNOUNCE_SECONDS = 0.5
"""How long a build waits for the holder's pid to appear in the file before
saying it waits without one (a new holder writes it right after locking)."""

_guard = threading.Lock()
"""Guards ``_in_process``."""

_in_process: dict[str, threading.Lock] = {}
"""Per lock file (its real path): held by the thread of this process that holds
the file's POSIX lock, or is about to open the file to take it."""

_held: dict[int, threading.Lock] = {}
"""Descriptor of each lock file this process holds -> its in-process lock."""


def _forget_in_child() -> None:
    """A forked child holds none of its parent's POSIX locks: nor the in-process ones."""
    global _guard
    _guard = threading.Lock()
    _in_process.clear()
    _held.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def lock_path(output: Path) -> Path:
    """The lock file of ``output``: ``.<output>.lock`` beside it."""
    return output.parent / f".{output.name}.lock"


def lock(output: Path) -> int | None:
    """Wait for, then hold, the lock on ``output``: one writer at a time (a
    ``serve`` and a ``build`` of the same site must not interleave, or one
    could trust a record the other has just made untrue). Returns the lock's
    descriptor for ``unlock``; a forked child never holds the lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    path = lock_path(output)
    here = _in_process_lock(path)
    if not here.acquire(blocking=False):
        _say_waiting(os.getpid())  # another thread of this process holds it: its pid is ours
        here.acquire()
    try:
        # Never through a planted symlink, FIFO or device, nor into a file with other links: it is written below.
        fd = open_regular(path, os.O_RDWR | os.O_CREAT, 0o644, sole=True)
    except BaseException:
        here.release()
        raise
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if not isinstance(error, BlockingIOError) and error.errno not in _BUSY:
                raise
            _wait(fd, fcntl)
        mine = f"{os.getpid()}\n".encode()
        os.pwrite(fd, mine, 0)  # then cut what a longer pid left: the file is never empty
        os.ftruncate(fd, len(mine))
    except BaseException:
        os.close(fd)
        here.release()
        raise
    _held[fd] = here
    return fd


def unlock(fd: int | None) -> None:
    """Release a lock taken by ``lock`` (None: nothing was taken)."""
    if fd is None:
        return
    here = _held.pop(fd, None)
    os.close(fd)  # closing the (one) descriptor releases the POSIX lock
    if here is not None:
        here.release()


def _in_process_lock(path: Path) -> threading.Lock:
    """The in-process lock of the lock file ``path``, by its real path (one
    file reached through two spellings of its folder is one lock)."""
    key = os.path.join(os.path.realpath(path.parent), path.name)
    with _guard:
        return _in_process.setdefault(key, threading.Lock())


def _wait(fd: int, fcntl) -> None:
    """Poll until ``fd`` holds the lock; say once, naming the holder, that this build waits."""
    said = False
    started = time.monotonic()
    while True:
        if not said:
            holder = _recorded_pid(fd)
            if holder is not None and not _runs(holder):
                holder = None  # a killed build's pid, not yet overwritten by the new holder's
            if holder is not None or time.monotonic() - started >= ANNOUNCE_SECONDS:
                _say_waiting(holder)
                said = True
        time.sleep(POLL_SECONDS)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as error:
            if not isinstance(error, BlockingIOError) and error.errno not in _BUSY:
                raise


def _say_waiting(holder: int | None) -> None:
    named = f" (pid {holder})" if holder is not None else ""
    print(f"waiting for another build{named} to finish…", file=sys.stderr, flush=True)


def _runs(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _recorded_pid(fd: int) -> int | None:
    """The pid written in the lock file, if any."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace")
    except OSError:
        return None
    first = text.split("\n", 1)[0].strip()
    return int(first) if first.isdigit() and int(first) > 0 else None
