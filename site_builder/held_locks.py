"""The output-lock descriptors this process holds, which a forked worker must close.

``publish.lock`` adds each lock file it opens here; ``parallel.guard`` closes
them in every forked child. They live on the bottom floor, not in
``publish.lock``, so that ``parallel`` (which every stage uses) need not
import the publish stage.
"""

from __future__ import annotations

import os

held: set[int] = set()
"""Descriptors of lock files this process opened and has not closed."""


def close_inherited() -> None:
    """In a forked child: close the lock descriptors the parent holds. Never
    ``flock(LOCK_UN)`` them: that would release the parent's lock too."""
    for fd in held:
        try:
            os.close(fd)
        except OSError:
            pass
    held.clear()
