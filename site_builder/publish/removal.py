"""Deleting replaced trees and the leftovers of killed builds.

``remove_tree`` deletes a large replaced site in a detached child: the one
process allowed to outlive a build, holding nothing of the build's (not the
lock, not its standard streams). ``clean_leftovers`` runs at the start of
every build, under the lock.
"""

from __future__ import annotations

import ctypes
import os
import time
from pathlib import Path

from ..files import check_owned_folder
from .trees import remove_all

BACKGROUND_REMOVAL = 256
"""An old site with at least this many top-level entries is deleted in the background."""


DELETION_NAME = b"sb-remove-tree"
"""What ``ps`` and the process table call the detached deletion, so an operator
(or a test) can tell it from a leftover worker: it is the one process meant to
outlive a build."""


def _name_process(name: bytes) -> None:
    """Set this process's name (Linux ``PR_SET_NAME``); nothing elsewhere."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_NAME, ctypes.c_char_p(name), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


_PR_SET_NAME = 15


def remove_tree(path: Path) -> None:
    """Delete a replaced site. Large trees go in a detached child process:
    unlinking thousands of files costs seconds on some disks and nobody
    waits for it (the next build removes anything left)."""
    if sum(1 for _ in zip(range(BACKGROUND_REMOVAL), path.iterdir())) < BACKGROUND_REMOVAL or not hasattr(os, "fork"):
        remove_all(path)
        return
    doomed = path
    if ".old-" not in path.name:
        doomed = path.with_name(path.name.replace(".staging-", ".old-") + f"-{time.monotonic_ns()}")
        try:
            os.rename(path, doomed)
        except OSError:
            remove_all(path)
            return
    if os.fork() == 0:  # pragma: no cover - runs in the child
        try:
            # Hold nothing of the build's: not its lock (or any other file), and
            # not its standard streams, or a caller reading the build's output
            # (CI, $(...), subprocess) would wait for the deletion to finish.
            quiet = os.open(os.devnull, os.O_RDWR)
            for standard in (0, 1, 2):
                os.dup2(quiet, standard)
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # ``quiet`` too
            os.setsid()
            _name_process(DELETION_NAME)
            remove_all(doomed)
        finally:
            os._exit(0)


ACTIVE_DELETION_SECONDS = 60
"""An ``.old-*`` folder changed this recently is still being deleted by a child."""


def clean_leftovers(output: Path) -> None:
    """Remove what killed or finished builds left beside ``output``."""
    now = time.time()
    # Each is checked (check_owned_folder): a symlink, FIFO or device planted
    # there is refused, naming it, never followed, removed through or restored as the site.
    for leftover in output.parent.glob(f".{output.name}.staging-*"):
        if check_owned_folder(leftover) and not _builder_alive(leftover):  # a live one is another build writing now (e.g. serve's)
            remove_tree(leftover)
    for leftover in output.parent.glob(f".{output.name}.old-*"):
        try:
            if check_owned_folder(leftover) and now - os.lstat(leftover).st_mtime > ACTIVE_DELETION_SECONDS:
                remove_tree(leftover)
        except OSError:
            continue
    old = output.parent / f".{output.name}.old"
    if check_owned_folder(old) and output.exists():
        remove_all(old)
    elif os.path.lexists(old):
        os.rename(old, output)  # a two-step swap was interrupted: restore


def _builder_alive(staging: Path) -> bool:
    """True when the process named in ``.output.staging-<pid>`` still runs (and is not us)."""
    pid = staging.name.rsplit("-", 1)[-1]
    if not pid.isdigit() or int(pid) == os.getpid():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: alive, someone else's
        return True
    return True
