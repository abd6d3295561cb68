"""The lock that keeps one writer at a time on an output folder.

A ``serve`` and a ``build`` of the same site must not interleave, or one could
trust a record the other has just made untrue. The lock is an ``flock`` on
``.<output>.lock`` beside the output folder.
"""

from __future__ import annotations

import os
from pathlib import Path


def lock(output: Path) -> int | None:
    """Wait for, then hold, the lock on ``output``: one writer at a time (a
    ``serve`` and a ``build`` of the same site must not interleave, or one
    could trust a record the other has just made untrue)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    fd = os.open(output.parent / f".{output.name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def unlock(fd: int | None) -> None:
    """Release a lock taken by ``lock`` (None: nothing was taken)."""
    if fd is not None:
        os.close(fd)  # closing the descriptor releases the lock
