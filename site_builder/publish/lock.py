"""The lock that keeps one writer at a time on an output folder.

A ``serve`` and a ``build`` of the same site must not interleave, or one could
trust a record the other has just made untrue. The lock is an ``flock`` on
``.<output>.lock`` beside the output folder; the file holds the pid of the
build holding it, written right after the lock is taken.

An ``flock`` belongs to the open file, not to the process: a forked child
that keeps its copy of the descriptor keeps the lock, even after the build
that took it was killed. So this module remembers the descriptors it holds,
and every forked worker closes them (``close_inherited``, called by
``parallel.guard``). A build that finds the lock taken says so once and waits
while the build named in the file runs; if that build is gone but the lock is
still held (by a process that inherited it from a killed build), it names the
processes holding it and fails instead of waiting forever.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ..files import open_regular
from .guard import PublishError

POLL_SECONDS = 0.05
"""How often a waiting build tries the lock again."""

ORPHAN_SECONDS = 2.0
"""How long the lock may be held with no live build named in the file before
the holders are looked for. A new holder writes its pid right after taking
the lock, so a short gap is normal; two seconds of it is not."""

GIVE_UP_SECONDS = 8.0
"""With no live build named and no holder found (one this user cannot see),
fail after this long rather than wait forever."""

COMMAND_CHARACTERS = 200
"""A leftover's command line is cut to this length in the error."""

# the descriptors held, and their closing in a forked child, sit on the bottom
# floor so that parallel.guard need not import the write stage
from ..held_locks import close_inherited, held as _held  # noqa: E402,F401


def lock(output: Path) -> int | None:
    """Wait for, then hold, the lock on ``output``: one writer at a time (a
    ``serve`` and a ``build`` of the same site must not interleave, or one
    could trust a record the other has just made untrue).

    Raises ``publish.PublishError`` when the lock is held by leftovers of a
    killed build (see the module's docstring)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    path = output.parent / f".{output.name}.lock"
    # Never through a planted symlink, FIFO or device, nor into a file with other links: it is written below.
    fd = open_regular(path, os.O_RDWR | os.O_CREAT, 0o644, sole=True)
    _held.add(fd)  # from here: a child forked while this process waits must not keep it either
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _wait(fd, path, fcntl)
        mine = f"{os.getpid()}\n".encode()
        os.pwrite(fd, mine, 0)  # then cut what a longer pid left: the file is never empty
        os.ftruncate(fd, len(mine))
    except BaseException:
        unlock(fd)
        raise
    return fd


def unlock(fd: int | None) -> None:
    """Release a lock taken by ``lock`` (None: nothing was taken)."""
    if fd is not None:
        _held.discard(fd)
        os.close(fd)  # closing the descriptor releases the lock (once no child has a copy)


def _wait(fd: int, path: Path, fcntl) -> None:
    """Poll until ``fd`` holds the lock; announce the wait once; fail if the holder is a leftover."""
    said = False
    unclaimed_since: float | None = None  # since when no live build is named in the file
    while True:
        holder = _recorded_pid(fd)
        if holder is not None and _holds(holder, fd):
            unclaimed_since = None
            if not said:
                print(f"waiting for another build (pid {holder}) to finish…", file=sys.stderr, flush=True)
                said = True
        else:
            now = time.monotonic()
            unclaimed_since = unclaimed_since or now
            if now - unclaimed_since >= ORPHAN_SECONDS:
                holders = _holders(fd)
                if holders or now - unclaimed_since >= GIVE_UP_SECONDS:
                    _fail(path, holder, holders)
        time.sleep(POLL_SECONDS)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            continue


def _recorded_pid(fd: int) -> int | None:
    """The pid written in the lock file, if any."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace")
    except OSError:
        return None
    first = text.split("\n", 1)[0].strip()
    return int(first) if first.isdigit() and int(first) > 0 else None


def _holds(pid: int, fd: int) -> bool:
    """Whether ``pid`` runs and has the lock file open (a pid reused by another
    program does not); where /proc cannot tell, that it runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive, and its files are not ours to read
    target = os.fstat(fd)
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:
        return not os.path.isdir("/proc/self/fd")  # gone, or a system without /proc
    except OSError:
        return True
    return any(_same_file(f"/proc/{pid}/fd/{name}", target) for name in names)


def _holders(fd: int) -> list[tuple[int, str]]:
    """(pid, command line) of every other process holding the lock ``fd`` waits for.

    A process with the lock file open may only be waiting for it too (it
    opened the file itself); one that holds the lock shows it in
    ``/proc/<pid>/fdinfo/<fd>``. Where fdinfo lists no locks at all (old
    kernels), every process with the file open is named.
    """
    target = os.fstat(fd)
    found: list[tuple[int, str]] = []
    openers: list[tuple[int, str]] = []
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    for pid in sorted(pids):
        if pid == os.getpid():
            continue
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue  # gone, or not ours to look at
        for name in names:
            if not _same_file(f"/proc/{pid}/fd/{name}", target):
                continue
            entry = (pid, _command_line(pid))
            openers.append(entry)
            try:
                with open(f"/proc/{pid}/fdinfo/{name}", encoding="ascii", errors="replace") as info:
                    if any(line.startswith("lock:") for line in info):
                        found.append(entry)
            except OSError:
                pass
            break
    if found:
        return found
    return openers if not _fdinfo_shows_locks(fd) else []


def _fdinfo_shows_locks(fd: int) -> bool:
    """Whether this kernel lists a descriptor's locks in fdinfo (tried on a lock file of our own)."""
    import fcntl
    import tempfile

    with tempfile.TemporaryFile() as probe:
        fcntl.flock(probe.fileno(), fcntl.LOCK_EX)
        try:
            with open(f"/proc/self/fdinfo/{probe.fileno()}", encoding="ascii", errors="replace") as info:
                return any(line.startswith("lock:") for line in info)
        except OSError:
            return False


def _same_file(link: str, target: os.stat_result) -> bool:
    try:
        info = os.stat(link)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) == (target.st_dev, target.st_ino)


def _command_line(pid: int) -> str:
    """The command line of ``pid`` on one line, at most ``COMMAND_CHARACTERS`` long."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            words = handle.read().replace(b"\0", b" ").decode("utf-8", "replace").split()  # one line
    except OSError:
        return "?"
    line = " ".join(words) or "?"
    return line if len(line) <= COMMAND_CHARACTERS else line[:COMMAND_CHARACTERS - 1] + "…"


def _fail(path: Path, recorded: int | None, holders: list[tuple[int, str]]) -> None:
    gone = f"the build that took it (pid {recorded}) is gone" if recorded else "no running build is recorded in it"
    if holders:
        named = "; ".join(f"pid {pid} ({command})" for pid, command in holders)
        pids = " ".join(str(pid) for pid, _command in holders)
        raise PublishError(f"{path} is held by leftovers of a killed build: {named}; {gone}. "
                           f"Stop them (kill {pids}) and build again")
    raise PublishError(f"{path} is held by a process that cannot be found (another user's?), and {gone}")
