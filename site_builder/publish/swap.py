"""The atomic swap of the staged site and the live one: ``renameat2(RENAME_EXCHANGE)``
(Linux), with a two-rename fallback elsewhere that puts the old site back if
the second rename fails (and that ``clean_leftovers`` finishes if killed
between the two).
"""

from __future__ import annotations

import ctypes
import errno
import os
from pathlib import Path

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(new: Path, current: Path) -> None:
    """Swap two folders atomically; fall back to two renames where unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        renameat2 = None
    if renameat2 is not None:
        result = renameat2(_AT_FDCWD, os.fsencode(new), _AT_FDCWD, os.fsencode(current), _RENAME_EXCHANGE)
        if result == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
            raise OSError(err, os.strerror(err), str(current))
    # Not atomic: clean_leftovers() restores ``.old`` if we die between the renames.
    old = current.parent / f".{current.name}.old"
    os.rename(current, old)
    try:
        os.rename(new, current)
    except OSError:
        os.rename(old, current)  # put the live site back before reporting
        raise
    os.rename(old, new)
