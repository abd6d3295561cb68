"""Opening files without following links: the one rule for every file the build
reads from ``content/`` or owns beside ``output/``.

Everything the build keeps beside the output folder (the lock, the tree and
spare records, the cache folder and its files, the staging, spare and old
trees) is opened with ``O_NOFOLLOW | O_NONBLOCK`` and checked with ``fstat``
on the open descriptor, so no check can race with the open: a symlink, FIFO,
socket or device planted at one of those paths is refused with
``RefusedPath``, naming the path, and nothing is written through it or waited
on. Content files are read the same way (``read_regular(follow=True)``, after
the load stage checked where a symlink leads): only regular files are read,
and a FIFO cannot hang the build.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

KINDS = ((stat.S_ISLNK, "a symlink"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
         (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder"))


class RefusedPath(Exception):
    """A path the build owns (or reads) holds something it must not open: a
    symlink, a FIFO, a socket, a device, or a file with other hard links."""

    def __init__(self, path: Path | str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words ("a FIFO", "a regular file")."""
    for test, name in KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def _refuse(path: Path | str, what: str, owned: bool) -> RefusedPath:
    if owned:
        return RefusedPath(path, f"is {what} where site_builder keeps its own files; refusing to use it "
                                 "(remove it and build again)")
    return RefusedPath(path, f"is {what}; only regular files are read")


def open_regular(path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o644, *, follow: bool = False,
                 sole: bool = False, owned: bool = True) -> int:
    """Open ``path`` (``os.open`` ``flags``) only if it is a regular file; return the descriptor.

    Never follows a symlink at ``path`` unless ``follow``, never blocks on a
    FIFO, and checks the open file itself (``fstat``), so nothing can be
    swapped in between a check and the open. ``sole``: also refuse a file
    with other hard links (for files written in place: the lock). Raises
    ``RefusedPath`` (``owned``: a file the build makes, else one it reads) or
    the ``OSError`` of the open (ENOENT for a missing file)."""
    extra = os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        descriptor = os.open(path, flags | extra, mode)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.EOPNOTSUPP):
            try:
                found = kind_of((os.stat if follow else os.lstat)(path).st_mode)
            except OSError:
                found = "a symlink that leads nowhere" if error.errno == errno.ELOOP else None
            if found is not None and found != "a regular file":
                raise _refuse(path, found, owned) from None
        if error.filename is None:
            error.filename = str(path)
        raise
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise _refuse(path, kind_of(info.st_mode), owned)
        if sole and info.st_nlink != 1:
            raise RefusedPath(path, f"has {info.st_nlink - 1} other hard link(s), so writing it would change "
                                    "another file; refusing to open it (remove it and build again)")
        # (O_NONBLOCK changes nothing for a regular file: left set, two syscalls a file fewer.)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_regular(path: Path | str, *, follow: bool = False, owned: bool = True, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path`` (see ``open_regular``); with ``limit``,
    ``ValueError`` when it is larger."""
    descriptor = open_regular(path, os.O_RDONLY, follow=follow, owned=owned)
    try:
        size = os.fstat(descriptor).st_size
        if limit is not None and size > limit:
            raise ValueError(f"file is {size:,} bytes; the limit is {limit:,}")
        # One read of the size known, one byte more to see the end. Anything but
        # exactly the size is read on to the end of the file, as a buffered
        # reader would: a file that grew since the fstat, and a short read
        # (FUSE, 9p, NFS, or a read over ~2 GiB), which is not the end.
        # (open()'s reader cost a term file ~4 us more: objects, fstat, lseek, ioctl.)
        data = os.read(descriptor, size + 1)
        if len(data) == size:
            return data
        chunks = [data]
        while more := os.read(descriptor, 1 << 16):
            chunks.append(more)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def read_owned(path: Path | str) -> bytes | None:
    """The bytes of a file the build keeps beside the output (a record, a cache
    table); None when there is none. A plant there raises ``RefusedPath``."""
    try:
        return read_regular(path)
    except FileNotFoundError:
        return None


def write_owned(path: Path | str, data: bytes, temporary: Path | str | None = None) -> None:
    """Replace the file ``path`` the build keeps beside the output with ``data``,
    atomically (a reader sees the old bytes or the new): written to
    ``temporary`` (default ``path`` + ``.tmp``), created afresh, then renamed.

    A plant at ``path`` or ``temporary`` is refused, not written through; a
    regular file at ``temporary`` is the leftover of a killed build, removed."""
    temporary = str(temporary) if temporary is not None else f"{path}.tmp"
    check_owned(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    try:
        descriptor = open_regular(temporary, flags, 0o644)
    except FileExistsError:
        check_owned(temporary)
        os.unlink(temporary)
        descriptor = open_regular(temporary, flags, 0o644)
    try:
        try:
            write_all(descriptor, data)
        finally:
            os.close(descriptor)
        os.replace(temporary, path)
    except OSError as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if error.filename is None:
            error.filename = str(path)
        raise


def write_all(descriptor: int, data: bytes) -> None:
    """Write all of ``data`` to the open ``descriptor`` (os.write may write less)."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view):]


def check_owned(path: Path | str) -> bool:
    """True when ``path`` is a regular file, False when nothing is there;
    ``RefusedPath`` for anything else (a symlink, FIFO, socket, device, folder)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(mode):
        raise _refuse(path, kind_of(mode), True)
    return True


def check_owned_folder(path: Path | str) -> bool:
    """True when ``path`` is a real folder (not a symlink to one), False when
    nothing is there; ``RefusedPath`` for anything else."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISDIR(mode):
        raise _refuse(path, kind_of(mode), True)
    return True
