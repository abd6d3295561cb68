"""Write stage: put the finished site in place atomically.

The new site is written into a staging folder beside ``output/`` and then
swapped in with one ``renameat2(RENAME_EXCHANGE)`` (Linux), so at every moment
``output/`` holds either the whole old site or the whole new one, even if the
process is killed. Files whose bytes did not change are hard-linked from the
old site, keeping their timestamps, so syncing to a host uploads only what
changed. Leftovers of killed builds are removed by the next build.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

MARKER = ".site-builder"
"""A file in every output folder we build: we only ever replace folders that have it."""

MARKER_TEXT = b"built by site_builder; this folder is replaced whole on every build\n"

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class PublishError(Exception):
    """The output folder cannot be replaced safely."""


@dataclass
class WriteStats:
    """What the write stage did."""

    written: int = 0
    unchanged: int = 0


def publish(files: dict[str, bytes], output: Path) -> WriteStats:
    """Replace ``output`` with exactly ``files`` (relative path -> bytes), atomically."""
    output = output.absolute()
    parent = output.parent
    parent.mkdir(parents=True, exist_ok=True)
    _guard(output)
    clean_leftovers(output)
    staging = parent / f".{output.name}.staging-{os.getpid()}"
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    stats = WriteStats()
    made_dirs = {staging}
    files = {**files, MARKER: MARKER_TEXT}
    for relative in sorted(files):
        data = files[relative]
        target = staging / relative
        if target.parent not in made_dirs:
            target.parent.mkdir(parents=True, exist_ok=True)
            made_dirs.add(target.parent)
        old = output / relative
        if _same_bytes(old, data):
            os.link(old, target)
            stats.unchanged += 1
        else:
            target.write_bytes(data)
            stats.written += 1
    if output.exists():
        _exchange(staging, output)
        shutil.rmtree(staging, ignore_errors=True)  # now holds the old site
    else:
        os.rename(staging, output)
    return stats


def clean_leftovers(output: Path) -> None:
    """Remove staging folders that killed builds left beside ``output``."""
    for leftover in output.parent.glob(f".{output.name}.staging-*"):
        shutil.rmtree(leftover, ignore_errors=True)
    old = output.parent / f".{output.name}.old"
    if old.exists() and output.exists():
        shutil.rmtree(old, ignore_errors=True)
    elif old.exists():
        os.rename(old, output)  # a two-step swap was interrupted: restore


def _guard(output: Path) -> None:
    if output.is_symlink() or (output.exists() and not output.is_dir()):
        raise PublishError(f"{output} exists and is not a folder; refusing to replace it")
    if output.is_dir() and any(output.iterdir()) and not (output / MARKER).exists():
        raise PublishError(f"{output} is not empty and was not built by site_builder; refusing to replace it (choose another --output or empty it)")


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        if path.stat().st_size != len(data):
            return False
        return path.read_bytes() == data
    except OSError:
        return False


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
    os.rename(new, current)
    os.rename(old, new)
