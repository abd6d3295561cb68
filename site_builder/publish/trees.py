"""Reading, writing and cleaning the trees without ever following a link.

``output/`` and the spare are walked with ``lstat`` and ``scandir`` (d_type),
files are opened with ``O_NOFOLLOW``, and whatever a build never makes
(symlinks, dangling or not, devices, FIFOs, sockets, stray files and folders)
is removed rather than written through: so nothing planted in a tree survives
a build (docs/errors-and-guarantees.md, "Nothing planted survives").
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

from ..files import write_all


def _sweep(root: str, keep: set[str] | None = None, clean: bool = True) -> dict[str, int]:
    """relative path -> inode of every regular file under ``root``.

    ``clean``: first remove every entry that is neither a regular file nor a real
    folder (symlinks, dangling or not, devices, FIFOs, sockets), every file not
    in ``keep`` (when given), and the folders that leaves empty. Nothing is
    followed. Only for a tree nobody serves (or serve's own output).
    """
    found: dict[str, int] = {}
    folders: list[str] = []
    pending = [""]
    if clean:
        _own_folder(root, os.lstat(root).st_mode)
    while pending:
        folder = pending.pop()
        with os.scandir(os.path.join(root, folder) if folder else root) as entries:
            for entry in entries:
                relative = f"{folder}/{entry.name}" if folder else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if clean:
                        _own_folder(entry.path, entry.stat(follow_symlinks=False).st_mode)
                    pending.append(relative)
                    folders.append(relative)
                elif entry.is_file(follow_symlinks=False) and (keep is None or relative in keep or not clean):
                    found[relative] = entry.inode()
                elif clean:
                    os.unlink(entry.path)
    if clean:
        for folder in reversed(folders):  # a folder comes after its parent: children first
            try:
                os.rmdir(os.path.join(root, folder))
            except OSError as error:
                if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    raise
    return found


def _own_folder(path: str, mode: int) -> None:
    """Give the owner back the rights on a folder of a tree we own (a read-only
    folder left in the spare): writing or removing in it would fail later, with
    the build half done."""
    if mode & 0o700 != 0o700:
        os.chmod(path, stat.S_IMODE(mode) | 0o700, follow_symlinks=False)


def remove_all(path: Path | str) -> None:
    """``shutil.rmtree`` of a tree we own, through folders made read-only (their
    rights are given back first), never following a link; what still cannot be
    removed is left for the next build."""
    def retry(function, failed, _info) -> None:
        parent = os.path.dirname(failed)
        try:
            _own_folder(parent, os.lstat(parent).st_mode)
            if function in (os.open, os.scandir, os.listdir):  # a folder it could not read: its own rights
                _own_folder(failed, os.lstat(failed).st_mode)
                shutil.rmtree(failed, onerror=lambda *_: None)
            else:
                function(failed)
        except OSError:
            pass

    if os.path.lexists(path) and stat.S_ISDIR(os.lstat(path).st_mode):
        shutil.rmtree(path, onerror=retry)


def _remove_paths(root: Path, doomed: set[str]) -> None:
    """Delete the files ``doomed`` under ``root``, then the folders that empties."""
    folders = set()
    for relative in doomed:
        try:
            os.unlink(os.path.join(root, relative))
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            shutil.rmtree(os.path.join(root, relative), ignore_errors=True)
        folder = os.path.dirname(relative)
        while folder:
            folders.add(folder)
            folder = os.path.dirname(folder)
    for folder in sorted(folders, key=lambda f: -f.count("/")):  # deepest first
        try:
            os.rmdir(os.path.join(root, folder))
        except OSError:
            pass  # not empty: other files still live there


def _clear_obstacle(target: str) -> None:
    """A folder where a file must go (a slug that became a file name): remove it."""
    try:
        if stat.S_ISDIR(os.lstat(target).st_mode):
            shutil.rmtree(target)
    except FileNotFoundError:
        pass


def _is_real_folder(root: str, folder: str) -> bool:
    """True when ``root/folder`` is a folder reached through real folders only (no symlink on the way)."""
    path = root
    for part in folder.split("/") if folder else ():
        path = os.path.join(path, part)
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return False
        except OSError:
            return False
    return True


def _real_folder(root: str, folder: str) -> None:
    """Make ``root/folder`` a real folder, replacing whatever else is on the way
    (a symlink, a file): never write through a link."""
    path = root
    for part in folder.split("/") if folder else ():
        path = os.path.join(path, part)
        try:
            if stat.S_ISDIR(os.lstat(path).st_mode):
                continue
            os.unlink(path)
        except FileNotFoundError:
            pass
        try:
            os.mkdir(path)
        except FileExistsError:  # another process (a page worker) made it meanwhile
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                raise


def _same_bytes(path: Path | str, data: bytes) -> bool:
    """True when ``path`` is a regular file (not a link to one) holding exactly ``data``."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            with open(descriptor, "rb", closefd=False) as handle:
                return handle.read() == data
        finally:
            os.close(descriptor)
    except OSError:
        return False


def _write_file(path: str, data: bytes, name: str | None = None) -> None:
    """Create (or truncate) the file ``path`` with ``data``, never through a symlink.

    An error names the file (``name``, else ``path``): a full disk fails in
    write(), whose OSError would otherwise name nothing."""
    try:
        # os-level calls: a buffered file object costs more than the write at 10,000 pages.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
        try:
            written = os.write(descriptor, data)  # all of it, but for a full disk or a signal
            if written < len(data):
                write_all(descriptor, memoryview(data)[written:])
        finally:
            os.close(descriptor)
    except OSError as error:
        if error.filename is None:
            error.filename = name or path
        raise


def _unlink_quietly(path: Path | str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
