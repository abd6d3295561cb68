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
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from .output_lock import lock as _lock, unlock as _unlock

MARKER = ".site-builder"
"""A file in every output folder we build: we only ever replace folders that have it."""

MARKER_TEXT = b"built by site_builder; this folder is replaced whole on every build\n"

BACKGROUND_REMOVAL = 256
"""An old site with at least this many top-level entries is deleted in the background."""

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class PublishError(Exception):
    """The output folder cannot be replaced safely."""


@dataclass
class WriteStats:
    """What the write stage did."""

    written: int = 0
    unchanged: int = 0


class _Tree:
    """What both ways of writing a site share: the set of paths and the counts."""

    _paths: set[str]
    _written: set[str]
    stats: WriteStats

    @property
    def paths(self) -> set[str]:
        """Every relative path added or reused so far."""
        return self._paths

    def checkpoint(self) -> tuple[set[str], set[str], int]:
        """The state ``worker_report`` measures from."""
        return set(self._paths), set(self._written), self.stats.unchanged

    def worker_report(self, since: tuple[set[str], set[str], int]) -> tuple[list[str], list[str], int]:
        """In a forked worker: (paths, written paths, unchanged count) added since ``checkpoint()``."""
        paths, written, unchanged = since
        return sorted(self._paths - paths), sorted(self._written - written), self.stats.unchanged - unchanged

    def merge(self, paths: list[str], written: list[str], unchanged: int) -> None:
        """Take over files a forked worker wrote into this same tree (its ``worker_report``)."""
        overlap = self._paths.intersection(paths)
        if overlap:
            raise ValueError(f"{sorted(overlap)[0]} written twice in one build")
        self._paths.update(paths)
        self._written.update(written)
        self.stats.written += len(written)
        self.stats.unchanged += unchanged


class Staging(_Tree):
    """A new site being assembled beside ``output``; ``commit()`` swaps it in.

    Pages can be added as they are rendered (so the whole site never has to sit
    in memory) or reused from the current site when the caller knows they are
    unchanged.

    Double-buffered: the site that ``commit()`` swaps out is kept beside the
    output as ``.<output>.spare`` and the next build stages into it, changing
    only what differs, instead of creating thousands of folders and links
    again. The spare is never served, so changing it is as safe as building a
    fresh tree: until the atomic exchange, ``output/`` is untouched.

    A record kept beside the spare lists its files and the ones
    that differ from the live site, so a rebuild touches only those: its
    cost follows the size of the change, not of the site. Without a valid
    record (first build, a killed build, a replaced output) every file is
    checked instead.
    """

    def __init__(self, output: Path):
        self.output = output.absolute()
        self.output.parent.mkdir(parents=True, exist_ok=True)
        _guard(self.output)
        self._lock = _lock(self.output)  # held until commit() or abort()
        try:
            self._claim()
        except BaseException:
            _unlock(self._lock)  # or the next build in this process (serve's worker) waits forever
            raise

    def _claim(self) -> None:
        """Take the spare (or a new folder) as the staging tree, under the lock."""
        clean_leftovers(self.output)
        self.path = self.output.parent / f".{self.output.name}.staging-{os.getpid()}"
        self.spare = self.output.parent / f".{self.output.name}.spare"
        if self.path.exists():
            shutil.rmtree(self.path)
        try:
            os.rename(self.spare, self.path)  # claim the spare (atomic: one build wins)
            self.recycled = True
        except OSError:
            self.path.mkdir()
            self.recycled = False
        self.stats = WriteStats()
        self._root = str(self.path)
        self._old = str(self.output)
        self._dirs = {""}
        self._paths: set[str] = set()
        self._written: set[str] = set()
        self._record = _read_record(self.path, self.spare, self.output) if self.recycled else None
        # No live site (a first build): no old file to compare with or link to.
        # Checked once under the lock, which keeps other writers out.
        self._no_site = not self.output.exists()
        if self._record is not None:
            # Folders of every file the spare holds exist already.
            self._dirs.update({p.rpartition("/")[0] for p in self._record.spare_paths})

    def _target(self, relative: str) -> str:
        # Plain strings and os calls: at 10,000 pages pathlib's overhead shows.
        if relative in self._paths:
            raise ValueError(f"{relative} written twice in one build")
        self._paths.add(relative)
        folder = os.path.dirname(relative)
        if folder not in self._dirs:
            path = os.path.join(self._root, folder)
            if self.recycled:
                os.makedirs(path, exist_ok=True)
            else:
                # One mkdir in the common case (a page's own folder in a fresh tree);
                # another process (a page worker) may have made it already.
                try:
                    os.mkdir(path)
                except FileExistsError:
                    pass
                except FileNotFoundError:
                    os.makedirs(path, exist_ok=True)
            self._dirs.add(folder)
        return os.path.join(self._root, relative)

    def _in_sync(self, relative: str) -> bool:
        """True when the spare's file at ``relative`` is known to be the live one."""
        record = self._record
        return (record is not None and relative in record.output_paths
                and relative in record.spare_paths and relative not in record.stale)

    def add(self, relative: str, data: bytes) -> None:
        """Put ``data`` at ``relative``; hard-link the current file instead when identical."""
        target = self._target(relative)
        old = os.path.join(self._old, relative)
        if not self._no_site and _same_bytes(old, data):
            if not self._in_sync(relative):
                self._link(old, target)
            self.stats.unchanged += 1
        else:
            self._write(target, data)
            self._written.add(relative)
            self.stats.written += 1

    def reuse(self, relative: str) -> bool:
        """Hard-link the current site's file at ``relative``; False when it is missing."""
        if self._in_sync(relative):
            self._target(relative)
            self.stats.unchanged += 1
            return True
        old = os.path.join(self._old, relative)
        target = self._target(relative)
        try:
            self._link(old, target)
        except OSError:
            self._paths.discard(relative)
            return False
        self.stats.unchanged += 1
        return True

    def can_keep(self, paths: set[str]) -> bool:
        """True when ``keep(paths)`` costs nothing per file: the spare's record
        says those are exactly the live site's files, all present."""
        return self._record is not None and self._record.output_paths == paths

    def keep(self, paths: set[str]) -> None:
        """Keep the live site's files at ``paths`` as they are."""
        record = self._record
        if record is not None:
            # Files the spare already holds as the live site has them: nothing to
            # do on disk, and their folders exist (see __init__), so count them at once.
            in_sync = (paths & record.output_paths & record.spare_paths) - record.stale
            if not in_sync.isdisjoint(self._paths):
                raise ValueError(f"{min(in_sync & self._paths)} written twice in one build")
            self._paths |= in_sync
            self.stats.unchanged += len(in_sync)
            paths = paths - in_sync
        for relative in paths:
            if not self.reuse(relative):
                raise FileNotFoundError(os.path.join(self._old, relative))

    def _link(self, old: str, target: str) -> None:
        """Make ``target`` the very file ``old`` is (same inode, so same mtime)."""
        if not self.recycled:
            os.link(old, target)
            return
        try:
            if os.path.samefile(old, target):
                return
        except FileNotFoundError:
            pass
        _clear_obstacle(target)
        temporary = f"{target}.{os.getpid()}.link"
        os.link(old, temporary)
        os.replace(temporary, target)

    def _write(self, target: str, data: bytes) -> None:
        # In a recycled tree the old file may be a hard link shared with the live
        # site: replace the directory entry, never write into that inode.
        if self.recycled:
            _clear_obstacle(target)
            temporary = f"{target}.{os.getpid()}.new"
            with open(temporary, "wb") as handle:
                handle.write(data)
            os.replace(temporary, target)
        else:
            # os-level calls: a buffered file object costs more than the write at 10,000 pages.
            descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(descriptor, view):]
            finally:
                os.close(descriptor)

    def commit(self, prune: bool = True) -> WriteStats:
        """Swap the staged site in atomically; keep the old one as the next spare.

        (``prune`` is for ``InPlace``; the staged tree is always made exact.)"""
        if MARKER not in self._paths:
            self.add(MARKER, MARKER_TEXT)
        if self._record is not None:
            _remove_paths(Path(self._root), self._record.spare_paths - self._paths)
        elif self.recycled:
            _prune(Path(self._root), self._paths)
        record = self._record
        try:
            if self.output.exists():
                _exchange(self.path, self.output)
                try:
                    os.rename(self.path, self.spare)  # now holds the old site
                except OSError:
                    remove_tree(self.path)
                else:
                    _write_record(self.spare, self.output, self._paths, self._written,
                                  record.output_paths if record else None, record.output_folders if record else None)
            else:
                os.rename(self.path, self.output)
        finally:
            _unlock(self._lock)
            self._lock = None
        return self.stats

    def abort(self) -> None:
        """Throw the staged site away; ``output`` is untouched."""
        shutil.rmtree(self.path, ignore_errors=True)
        _unlock(self._lock)
        self._lock = None

    def release(self) -> None:
        """Give back a spare nothing was staged into (with its record), and the lock."""
        if self._paths:
            raise RuntimeError("release() after files were staged: abort() instead")
        try:
            if self.recycled:
                os.rename(self.path, self.spare)
                folders = _folder_times(self.spare, self._record.spare_paths) if self._record else None
                if folders is not None:
                    _store_record(self.spare, self.output, self._record, folders)
            else:
                shutil.rmtree(self.path, ignore_errors=True)
        finally:
            _unlock(self._lock)
            self._lock = None


@dataclass
class _SpareRecord:
    spare_paths: set[str]
    """Every file in the spare."""
    output_paths: set[str]
    """Every file in the live site."""
    stale: set[str]
    """Files of the live site the spare lacks or holds another version of."""
    output_folders: dict[str, int]
    """mtimes of the live site's folders when it went live: if they differ when it
    is swapped out, someone changed its files and they must be listed again."""


def _record_path(spare: Path) -> Path:
    # Beside the spare, not in it: writing it must not change the folders it describes.
    return spare.with_name(spare.name + "-record.json")


def _write_record(spare: Path, output: Path, output_paths: set[str], written: set[str],
                  spare_paths: set[str] | None, spare_folders: dict[str, int] | None) -> None:
    """Describe the spare just swapped out (the old site) against the new live site.

    Files the build did not write are hard links shared by both trees; the rest
    (written, or new) differ. ``spare_paths`` and ``spare_folders`` are what the
    last record said of the old site when it went live; if its folders changed
    since (a file added or removed by hand), or there was no record, its files
    are listed from disk. Every folder's mtime is kept, so any file added,
    removed or renamed in either tree afterwards voids the record.
    """
    folders = _folder_times(spare, spare_paths) if spare_paths is not None else None
    if folders is None or folders != spare_folders:
        spare_paths = _list_files(spare)
        folders = _folder_times(spare, spare_paths)
    output_folders = _folder_times(output, output_paths)
    if folders is None or output_folders is None:
        return
    _store_record(spare, output, _SpareRecord(spare_paths, output_paths, written | (output_paths - spare_paths),
                                              output_folders), folders)


def _store_record(spare: Path, output: Path, record: _SpareRecord, folders: dict[str, int]) -> None:
    identity = _identity(spare, output)
    if identity is None:
        return
    data = {"identity": identity, "spare": sorted(record.spare_paths), "output": sorted(record.output_paths),
            "stale": sorted(record.stale), "folders": folders, "output_folders": record.output_folders}
    record = _record_path(spare)
    temporary = record.with_name(record.name + ".tmp")
    temporary.write_text(json.dumps(data), encoding="utf-8")
    os.replace(temporary, record)


def _read_record(staging: Path, spare: Path, output: Path) -> _SpareRecord | None:
    """The record of the just-claimed spare (now ``staging``), if it still
    describes that tree and the live site exactly; it is used up either way."""
    path = _record_path(spare)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        path.unlink()
    except (OSError, ValueError):
        return None
    try:
        if data["identity"] != _identity(staging, output):
            return None  # the live site was replaced, or the record is not this spare's
        spare_paths = set(data["spare"])
        if _folder_times(staging, spare_paths) != data["folders"]:
            return None  # someone changed the spare's files since
        return _SpareRecord(spare_paths, set(data["output"]), set(data["stale"]), data["output_folders"])
    except (KeyError, TypeError):
        return None


def _folder_times(root: Path, paths: set[str]) -> dict[str, int] | None:
    """mtime of every folder holding one of ``paths`` (and of ``root``), or None if one is gone."""
    # Three calls per rebuild, 10,000 folders each: stat relative to an open
    # root (no path walk from /) and split the "/"-joined paths by hand.
    folders = {p.rpartition("/")[0] for p in paths}
    folders.add("")
    times = {}
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        for folder in sorted(folders):
            times[folder] = os.stat(folder or ".", dir_fd=root_fd).st_mtime_ns
    except OSError:
        return None
    finally:
        os.close(root_fd)
    return times


def _identity(spare: Path, output: Path) -> list[int] | None:
    """Inode numbers of both folders and of the live marker file: they change when
    either tree is replaced by anything but our own swap."""
    try:
        return [os.stat(spare).st_ino, os.stat(output).st_ino, os.stat(output / MARKER).st_ino]
    except OSError:
        return None


def _list_files(root: Path) -> set[str]:
    """Relative paths of every file under ``root``."""
    found = set()
    for folder, _subfolders, names in os.walk(root):
        relative_base = os.path.relpath(folder, root)
        for name in names:
            found.add(name if relative_base == "." else f"{relative_base}/{name}".replace(os.sep, "/"))
    return found


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


class InPlace(_Tree):
    """Writes changed files straight into ``output`` (same interface as ``Staging``).

    For ``serve`` only: each file is replaced atomically (write, then rename),
    but the site as a whole is not, which a dev server can afford in exchange
    for rebuilds that touch only what changed. ``build`` always stages.
    """

    def __init__(self, output: Path):
        self.output = output.absolute()
        self.output.mkdir(parents=True, exist_ok=True)
        _guard(self.output)
        self._spare_record = _record_path(self.output.parent / f".{self.output.name}.spare")
        self.stats = WriteStats()
        self._paths: set[str] = set()
        self._written: set[str] = set()
        self._lock: int | None = None
        self._locked = False

    def add(self, relative: str, data: bytes) -> None:
        """Write ``data`` at ``relative`` unless the file already holds exactly that."""
        if relative in self._paths:
            raise ValueError(f"{relative} written twice in one build")
        self._paths.add(relative)
        target = self.output / relative
        if _same_bytes(target, data):
            self.stats.unchanged += 1
            return
        if not self._locked:  # from the first write to commit(): no staged build may interleave
            self._lock, self._locked = _lock(self.output), True
        # Files change under the spare's feet now: its record no longer holds.
        self._spare_record.unlink(missing_ok=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, target)
        self._written.add(relative)
        self.stats.written += 1

    def can_keep(self, paths: set[str]) -> bool:
        """Always: kept files are simply left where they are."""
        return True

    def keep(self, paths: set[str]) -> None:
        """Leave the files at ``paths`` as they are."""
        self._paths.update(paths)
        self.stats.unchanged += len(paths)

    def reuse(self, relative: str) -> bool:
        """Keep the current file at ``relative``; False when it is missing."""
        if (self.output / relative).is_file():
            self._paths.add(relative)
            self.stats.unchanged += 1
            return True
        return False

    def commit(self, prune: bool = True) -> WriteStats:
        """Remove files the new site no longer has (unless the caller knows there are none)."""
        try:
            if MARKER not in self._paths:
                self.add(MARKER, MARKER_TEXT)
            if prune:
                _prune(self.output, self._paths)
        finally:
            self.abort()
        return self.stats

    def release(self) -> None:
        """Nothing was written: only let go of the lock."""
        self.abort()

    def abort(self) -> None:
        """Release the lock; nothing to undo file by file (the next build repairs the tree)."""
        _unlock(self._lock)
        self._lock, self._locked = None, False


def remove_tree(path: Path) -> None:
    """Delete a replaced site. Large trees go in a detached child process:
    unlinking thousands of files costs seconds on some disks and nobody
    waits for it (the next build removes anything left)."""
    if sum(1 for _ in zip(range(BACKGROUND_REMOVAL), path.iterdir())) < BACKGROUND_REMOVAL or not hasattr(os, "fork"):
        shutil.rmtree(path, ignore_errors=True)
        return
    doomed = path
    if ".old-" not in path.name:
        doomed = path.with_name(path.name.replace(".staging-", ".old-") + f"-{time.monotonic_ns()}")
        try:
            os.rename(path, doomed)
        except OSError:
            shutil.rmtree(path, ignore_errors=True)
            return
    if os.fork() == 0:  # pragma: no cover - runs in the child
        try:
            os.closerange(3, 1 << 16)  # never hold the build's lock (or any other file) while deleting
            os.setsid()
            shutil.rmtree(doomed, ignore_errors=True)
        finally:
            os._exit(0)


ACTIVE_DELETION_SECONDS = 60
"""An ``.old-*`` folder changed this recently is still being deleted by a child."""


def clean_leftovers(output: Path) -> None:
    """Remove what killed or finished builds left beside ``output``."""
    now = time.time()
    for leftover in output.parent.glob(f".{output.name}.staging-*"):
        if not _builder_alive(leftover):  # a live one is another build writing now (e.g. serve's)
            remove_tree(leftover)
    for leftover in output.parent.glob(f".{output.name}.old-*"):
        try:
            if now - leftover.stat().st_mtime > ACTIVE_DELETION_SECONDS:
                remove_tree(leftover)
        except OSError:
            continue
    old = output.parent / f".{output.name}.old"
    if old.exists() and output.exists():
        shutil.rmtree(old, ignore_errors=True)
    elif old.exists():
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


def check_output(output: Path) -> None:
    """Raise ``PublishError`` now if ``output`` is a folder a build may never replace."""
    _guard(output.absolute())


def _guard(output: Path) -> None:
    if output.is_symlink() or (output.exists() and not output.is_dir()):
        raise PublishError(f"{output} exists and is not a folder; refusing to replace it")
    if output.is_dir() and any(output.iterdir()) and not (output / MARKER).exists():
        raise PublishError(f"{output} is not empty and was not built by site_builder; refusing to replace it (choose another --output or empty it)")


def _clear_obstacle(target: str) -> None:
    """A folder where a file must go (a slug that became a file name): remove it."""
    if os.path.isdir(target) and not os.path.islink(target):
        shutil.rmtree(target)


def _prune(root: Path, keep: set[str]) -> None:
    """Delete every file under ``root`` not in ``keep``, then empty folders."""
    for folder, _subfolders, names in os.walk(root, topdown=False):
        base = Path(folder)
        relative_base = base.relative_to(root).as_posix()
        for name in names:
            relative = name if relative_base == "." else f"{relative_base}/{name}"
            if relative not in keep:
                (base / name).unlink(missing_ok=True)
        if base != root and not any(base.iterdir()):
            base.rmdir()


def _same_bytes(path: Path | str, data: bytes) -> bool:
    try:
        if os.stat(path).st_size != len(data):
            return False
        with open(path, "rb") as handle:
            return handle.read() == data
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
    try:
        os.rename(new, current)
    except OSError:
        os.rename(old, current)  # put the live site back before reporting
        raise
    os.rename(old, new)
