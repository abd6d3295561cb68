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
import marshal
import os
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .lock import lock as _lock, unlock as _unlock

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
    record (first build, a killed build, a replaced output, a spare changed
    since) the spare is listed instead, and whatever a build never makes
    (symlinks, devices, FIFOs, sockets, empty folders) is removed from it.
    Nothing in the trees is ever followed: a symlink is an entry to remove,
    not a folder to write into or a file to link.
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
        if self.recycled and not stat.S_ISDIR(os.lstat(self.path).st_mode):
            os.unlink(self.path)  # a symlink or file put where the spare goes: never write through it
            self.path.mkdir()
            self.recycled = False
        self.stats = WriteStats()
        self._root = str(self.path)
        self._old = str(self.output)
        self._dirs = {""}
        self._old_dirs = {""}  # folders of the live site seen to be real folders
        self._paths: set[str] = set()
        self._written: set[str] = set()
        live, spare = _read_trees(self.output)
        # The live site as it went live (or as serve's in-place writes left it): checked at commit().
        self._live = live if live is not None and live.identity == _identity(self.output, True) else None
        known = spare.paths if self.recycled and spare is not None and spare.holds(self.path, False) else None
        self._record = _read_spare_record(self.path, self.spare, self.output, known, self._live)
        if self.recycled and known is None:
            # Unknown or changed since: list it, removing what a build never makes, before writing into it.
            known = set(_sweep(self._root))
        self._present: set[str] = known or set()
        # No live site (a first build): no old file to compare with or link to.
        # Checked once under the lock, which keeps other writers out.
        self._no_site = not self.output.exists()
        # Folders of every file the spare holds exist already, as real folders.
        self._dirs.update(_folders_of(self._present))

    def _target(self, relative: str) -> str:
        # Plain strings and os calls: at 10,000 pages pathlib's overhead shows.
        if relative in self._paths:
            raise ValueError(f"{relative} written twice in one build")
        self._paths.add(relative)
        folder = os.path.dirname(relative)
        if folder not in self._dirs:
            path = os.path.join(self._root, folder)
            if self.recycled:
                _real_folder(self._root, folder)  # a file of the old site may be in the way
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

    def _live_file(self, relative: str, data: bytes | None = None) -> bool:
        """True when the live site holds a regular file at ``relative`` (reached through
        real folders only: a symlinked folder could lead anywhere), with ``data`` if given."""
        folder = relative.rpartition("/")[0]
        if folder not in self._old_dirs:
            if not _is_real_folder(self._old, folder):
                return False
            self._old_dirs.add(folder)
        path = os.path.join(self._old, relative)
        if data is None:
            try:
                return stat.S_ISREG(os.lstat(path).st_mode)
            except OSError:
                return False
        return _same_bytes(path, data)

    def add(self, relative: str, data: bytes) -> None:
        """Put ``data`` at ``relative``; hard-link the current file instead when identical."""
        target = self._target(relative)
        old = os.path.join(self._old, relative)
        if not self._no_site and self._live_file(relative, data):
            if not self._in_sync(relative):
                self._link(old, target)
            self.stats.unchanged += 1
        else:
            self._write(target, data)
            self._written.add(relative)
            self.stats.written += 1

    def reuse(self, relative: str) -> bool:
        """Hard-link the current site's file at ``relative``; False when it is missing
        (or is anything but a regular file)."""
        if self._in_sync(relative):
            self._target(relative)
            self.stats.unchanged += 1
            return True
        if self._no_site or not self._live_file(relative):
            return False
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
        """True when ``keep(paths)`` costs nothing per unchanged file: the spare's
        record says those are exactly the live site's files, all present, and the
        few the spare lacks are regular files in the live site, ready to link."""
        record = self._record
        if record is None or record.output_paths != paths:
            return False
        to_link = (paths - record.spare_paths) | (paths & record.stale)
        return all(self._live_file(relative) for relative in to_link)

    def keep(self, paths: set[str]) -> None:
        """Keep the live site's files at ``paths`` as they are."""
        record = self._record
        if record is not None:
            # Files the spare already holds as the live site has them: nothing to
            # do on disk, and their folders exist (see _claim), so count them at once.
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
        """Make ``target`` the very file ``old`` is (same inode, so same mtime).

        ``old`` is a regular file of the live site (the callers check): links are
        never followed, neither ``old`` nor whatever sits at ``target``."""
        if not self.recycled:
            os.link(old, target, follow_symlinks=False)
            return
        try:
            have = os.lstat(target)
            if stat.S_ISREG(have.st_mode):
                want = os.lstat(old)
                if (have.st_ino, have.st_dev) == (want.st_ino, want.st_dev):
                    return
        except FileNotFoundError:
            pass
        _clear_obstacle(target)
        temporary = f"{target}.{os.getpid()}.link"
        os.link(old, temporary, follow_symlinks=False)
        os.replace(temporary, target)

    def _write(self, target: str, data: bytes) -> None:
        # In a recycled tree the old file may be a hard link shared with the live
        # site: replace the directory entry, never write into that inode.
        if self.recycled:
            _clear_obstacle(target)
            temporary = f"{target}.{os.getpid()}.new"
            _write_file(temporary, data, target)
            try:
                os.replace(temporary, target)
            except OSError:
                _unlink_quietly(temporary)
                raise
        else:
            _write_file(target, data)

    def commit(self, prune: bool = True) -> WriteStats:
        """Swap the staged site in atomically; keep the old one as the next spare.

        (``prune`` is for ``InPlace``; the staged tree is always made exact.)"""
        if MARKER not in self._paths:
            self.add(MARKER, MARKER_TEXT)
        _remove_paths(Path(self._root), self._present - self._paths)
        # Describes the trees about to be swapped: gone before the swap, so that
        # no failure after it can leave a record naming the wrong tree.
        _unlink_quietly(_trees_path(self.output))
        try:
            if self.output.exists():
                _exchange(self.path, self.output)
                try:
                    os.rename(self.path, self.spare)  # now holds the old site
                except OSError:
                    remove_tree(self.path)
                else:
                    _write_records(self.spare, self.output, self._paths, self._written, self._live)
            else:
                os.rename(self.path, self.output)
                _write_records(None, self.output, self._paths, self._written, None)
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
                if self._record is not None:  # still true: renaming a folder changes none of its entries
                    _save(_record_path(self.spare), self._record.data)
            else:
                shutil.rmtree(self.path, ignore_errors=True)
        finally:
            _unlock(self._lock)
            self._lock = None


# The records: what lets a rebuild skip unchanged files without looking at them.
#
# ``.<output>.tree-record`` describes the entries of both trees, the live
# site and the spare: their files and a snapshot of their folders, as the
# build that swapped them, or serve's in-place writes, left them.
# ``.<output>.spare-record.json`` says which of the spare's files differ from
# the live site's; it is used up when a build claims the spare, and serve's
# in-place writes drop it. Each names the inodes of the trees it describes,
# and a tree is believed to be as described only if it still matches its
# snapshot, which restoring timestamps cannot fool: it holds folder ctimes,
# which utime cannot set.


_UNSAFE = ("//", "/./", "/../", "\0")
"""In a record's paths, each wrapped as ``/path/``: what could lead out of the tree
(``..``) or is not a path a build writes. Substring tests: 10,000 paths are checked
in well under a millisecond."""


@dataclass
class _Snapshot:
    """What a tree's folders looked like when we left it, enough to tell without
    listing them that no entry was added, removed or replaced since.

    A folder's ctime changes whenever an entry in it is added, removed or
    replaced (and on chmod, utime...), and no tool can set it back. Two kinds
    of folder are listed instead, entry by entry (name, kind, inode): the root,
    whose own ctime changes when it is renamed (which the claim and the
    exchange do every build), and folders changed in the same clock tick as
    the snapshot was taken ("racy", as git says of its index), which a change
    right after could leave with the same ctime.
    """

    ctimes: dict[str, int]
    listed: dict[str, dict[str, int]]


@dataclass
class _Side:
    """One tree as the record describes it."""

    identity: list[int]
    """Inodes of its root (and of the live site's marker): they change when the
    tree is replaced by anything but our own swap."""
    paths: set[str]
    """Every file in it."""
    snapshot: _Snapshot

    def to_data(self) -> dict:
        return {"identity": self.identity, "paths": sorted(self.paths),
                "ctimes": self.snapshot.ctimes, "listed": self.snapshot.listed}

    @staticmethod
    def from_data(data: dict | None) -> _Side | None:
        if data is None:
            return None
        paths, ctimes, listed = data["paths"], data["ctimes"], data["listed"]
        if (not isinstance(ctimes, dict) or not isinstance(listed, dict) or "" not in listed
                or _unsafe(paths)):
            raise ValueError("malformed record")
        return _Side(data["identity"], set(paths), _Snapshot(ctimes, listed))

    def holds(self, root: Path, live: bool) -> bool:
        """True when ``root`` is this very tree, entry for entry."""
        return (self.identity == _identity(root, live)
                and _survey(str(root), self.paths, None, before=self.snapshot) is not None)


@dataclass
class _SpareRecord:
    spare_paths: set[str]
    """Every file in the spare."""
    output_paths: set[str]
    """Every file in the live site."""
    stale: set[str]
    """Files of the live site the spare lacks or holds another version of."""
    data: dict
    """The record as read, to give back unchanged (``release``)."""


def _unsafe(paths: list[str]) -> bool:
    """True when one of ``paths`` could lead out of its tree, or is not a path at all."""
    wrapped = "/" + "/\n/".join(paths) + "/"  # raises TypeError for anything but strings
    return not paths or any(bad in wrapped for bad in _UNSAFE)


def _record_path(spare: Path) -> Path:
    # Beside the spare, not in it: writing it must not change the folders it describes.
    return spare.with_name(spare.name + "-record.json")


def _trees_path(output: Path) -> Path:
    return output.with_name(f".{output.name}.tree-record")


def _identity(root: Path, live: bool) -> list[int] | None:
    """Inode of ``root``, and of its marker file for the live site."""
    try:
        inodes = [os.lstat(root).st_ino]
        if live:
            marker = os.lstat(root / MARKER)
            if not stat.S_ISREG(marker.st_mode):
                return None
            inodes.append(marker.st_ino)
        return inodes
    except OSError:
        return None


_last_trees: tuple[tuple, tuple[_Side | None, _Side | None]] | None = None
"""(signature of the file, what it says) of the tree record this process last
wrote or read: serve's worker reads its own record back at every edit. A file
changed since has another inode or ctime (which no tool can set)."""


def _signature(path: Path) -> tuple | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return str(path), info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _read_trees(output: Path) -> tuple[_Side | None, _Side | None]:
    """(live site, spare) as the tree record describes them; not checked against the disk here."""
    global _last_trees
    path = _trees_path(output)
    signature = _signature(path)
    if signature is None:
        return None, None
    if _last_trees is not None and _last_trees[0] == signature:
        return _last_trees[1]
    try:
        # marshal, as the build cache: at 10,000 pages JSON took 25 ms each way, marshal 5.
        data = marshal.loads(path.read_bytes())
        sides = _Side.from_data(data["output"]), _Side.from_data(data["spare"])
    except Exception:  # noqa: BLE001 - unreadable or damaged, in any way: no record
        return None, None
    _last_trees = signature, sides
    return sides


def _save_trees(output: Path, live: _Side, spare: _Side | None) -> None:
    global _last_trees
    path = _trees_path(output)
    _save(path, {"output": live.to_data(), "spare": spare.to_data() if spare is not None else None}, marshal.dumps)
    signature = _signature(path)
    _last_trees = (signature, (live, spare)) if signature is not None else None


def _read_spare_record(staging: Path, spare: Path, output: Path, paths: set[str] | None,
                       live: _Side | None) -> _SpareRecord | None:
    """Which files of the just-claimed spare (now ``staging``, holding exactly
    ``paths``) are the live site's (``live``), if the record says so of these
    two trees; it is used up either way."""
    path = _record_path(spare)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        _unlink_quietly(path)
    if paths is None or live is None or live.identity != _identity(output, True):
        return None
    try:
        if data["identity"] != [*_identity(staging, False), *live.identity]:
            return None  # the live site was replaced, or the record is not this spare's
        return _SpareRecord(paths, live.paths, set(data["stale"]), data)
    except (KeyError, TypeError):
        return None


def _write_records(spare: Path | None, output: Path, output_paths: set[str], written: set[str],
                   old: _Side | None) -> None:
    """Describe the site just swapped in and the spare just swapped out (the old site).

    Files the build did not write are hard links shared by both trees; the rest
    (written, or new) differ. ``old`` is what the record said of the old site
    when it went live (see ``_describe_spare``). Best effort: without records
    the next build checks every file, so a failure here (a full disk) only
    costs time.
    """
    try:
        now = _clock(output)
        snapshot = _survey(str(output), output_paths, now)
        identity = _identity(output, True)
        if snapshot is None or identity is None:
            _unlink_quietly(_trees_path(output))
            return
        live = _Side(identity, output_paths, snapshot)
        described = _describe_spare(spare, output, output_paths, old, now, written) if spare is not None else None
        _save_trees(output, live, described[0] if described is not None else None)
        if described is not None and described[1] is not None:
            _save(_record_path(spare), {"identity": described[0].identity + identity, "stale": sorted(described[1])})
    except OSError:
        _unlink_quietly(_trees_path(output))
        if spare is not None:
            _unlink_quietly(_record_path(spare))


def _describe_spare(spare: Path, output: Path, output_paths: set[str], old: _Side | None, now: int,
                    written: set[str] | None) -> tuple[_Side, set[str] | None] | None:
    """The spare's side of the record, after making it hold only regular files
    the live site (``output_paths``) has too; and which of those it lacks or holds
    another version of (None when ``written``, the files of the live site the
    spare cannot share, is unknown).

    If the spare no longer matches ``old`` (an entry added, removed or replaced
    by hand), or there is no ``old``, it is listed from disk, cleared of
    whatever a build never makes, and compared with the live site inode by inode.
    """
    try:
        if not stat.S_ISDIR(os.lstat(spare).st_mode):
            os.unlink(spare)  # not even a folder: nothing to keep
            return None
    except FileNotFoundError:
        return None
    identity = _identity(spare, False)
    root = str(spare)
    snapshot = _survey(root, old.paths, now, before=old.snapshot) if old is not None else None
    if snapshot is not None:
        gone = old.paths - output_paths  # never needed again: the live site lacks them
        paths = old.paths - gone
        stale = written | (output_paths - paths) if written is not None else None
        if gone:
            _remove_paths(spare, gone)
            snapshot = _survey(root, paths, _clock(output))
    else:
        found = _sweep(root, keep=output_paths)
        paths = set(found)
        stale = None
        if written is not None:
            ours = _sweep(str(output), clean=False)
            stale = {relative for relative in output_paths if found.get(relative) != ours.get(relative)}
        snapshot = _survey(root, paths, _clock(output))
    if snapshot is None or identity is None:
        return None
    return _Side(identity, paths, snapshot), stale


def _save(path: Path, data: dict, encode: Callable[[dict], bytes] = lambda data: json.dumps(data).encode("utf-8")) -> None:
    """Write a record atomically (a reader sees the old one or the new one)."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        _write_file(str(temporary), encode(data))
        os.replace(temporary, path)
    except OSError:
        _unlink_quietly(temporary)
        raise


def _clock(output: Path) -> int:
    """The file system's own clock, as ctimes show it: a snapshot's folders with a
    ctime this recent may change again without their ctime showing it."""
    probe = output.with_name(f".{output.name}.clock-{os.getpid()}")
    _unlink_quietly(probe)
    descriptor = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        return os.fstat(descriptor).st_ctime_ns
    finally:
        os.close(descriptor)
        _unlink_quietly(probe)


def _folders_of(paths) -> set[str]:
    """Every folder holding one of ``paths``, with its parents up to the root ("")."""
    direct = {path.rpartition("/")[0] for path in paths}  # at 10,000 pages: one comprehension, not a loop
    folders = direct | {""}
    for folder in direct:
        while "/" in folder:
            folder = folder.rpartition("/")[0]
            if folder in folders:
                break
            folders.add(folder)
    return folders


def _children(paths, folders: set[str]) -> dict[str, tuple[set[str], set[str]]]:
    """For each of ``folders``: the entries a tree holding exactly ``paths`` has
    there, as (names of folders, names of files)."""
    if folders == {""}:  # the common case, and 10,000 entries: comprehensions
        files = {path for path in paths if "/" not in path}
        return {"": ({path.partition("/")[0] for path in paths} - files, files)}
    found: dict[str, tuple[set[str], set[str]]] = {folder: (set(), set()) for folder in folders}
    for path in paths:
        parent, _, name = path.rpartition("/")
        kind = 1
        while True:
            entries = found.get(parent)
            if entries is not None:
                entries[kind].add(name)
            if not parent:
                break
            parent, _, name = parent.rpartition("/")
            kind = 0
    return found


def _survey(root: str, paths: set[str], now: int | None, before: _Snapshot | None = None,
            only: set[str] | None = None) -> _Snapshot | None:
    """Snapshot the tree at ``root``, which holds exactly ``paths`` (only the folders
    ``only``, when given: the rest is known already); None when it does not.

    With ``before``: None also unless every folder is still as ``before`` saw it.
    ``now`` (from ``_clock``) decides which folders are racy and must be listed;
    None: check against ``before`` only.
    Every folder is looked at with lstat, so a symlink is never taken for one.
    """
    folders = _folders_of(paths) if only is None else only | {""}
    ctimes: dict[str, int] = {}
    to_list = {""}
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        for folder in folders:
            if not folder:
                continue
            info = os.stat(folder, dir_fd=root_fd, follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode):
                return None
            ctime = info.st_ctime_ns
            if before is not None:
                if folder in before.listed:
                    to_list.add(folder)
                elif before.ctimes.get(folder) != ctime:
                    return None
            if now is not None and ctime >= now:
                to_list.add(folder)  # racy: listed instead
            else:
                ctimes[folder] = ctime
        children = _children(paths, to_list)
        listed: dict[str, dict[str, int]] = {}
        for folder in to_list:
            inodes, subfolders, files = _entries(root_fd, folder)
            if (subfolders, files) != children[folder] or len(inodes) != len(subfolders) + len(files):
                return None  # something else is there: a symlink, a FIFO, a stray file...
            if before is not None and folder in before.listed and before.listed[folder] != inodes:
                return None
            if folder not in ctimes:
                listed[folder] = inodes
    except OSError:
        return None
    finally:
        os.close(root_fd)
    return _Snapshot(ctimes, listed)


def _entries(root_fd: int, folder: str) -> tuple[dict[str, int], set[str], set[str]]:
    """The entries in ``folder``: (name -> inode of each, names of the real folders,
    names of the regular files), from the folder's listing alone (d_type)."""
    descriptor = os.open(folder or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=root_fd)
    inodes: dict[str, int] = {}
    folders: set[str] = set()
    files: set[str] = set()
    try:
        with os.scandir(descriptor) as entries:
            for entry in entries:
                inodes[entry.name] = entry.inode()
                if entry.is_dir(follow_symlinks=False):
                    folders.add(entry.name)
                elif entry.is_file(follow_symlinks=False):
                    files.add(entry.name)
    finally:
        os.close(descriptor)
    return inodes, folders, files


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
    while pending:
        folder = pending.pop()
        with os.scandir(os.path.join(root, folder) if folder else root) as entries:
            for entry in entries:
                relative = f"{folder}/{entry.name}" if folder else entry.name
                if entry.is_dir(follow_symlinks=False):
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

    Only a live site that still matches the tree record is updated this way
    (``can_keep``): if anything was added, removed or replaced in it by hand
    since, the full build runs instead. A spare that no longer matches is
    cleared of what a build never makes. The record is brought up to date after.
    """

    def __init__(self, output: Path):
        self.output = output.absolute()
        self.output.mkdir(parents=True, exist_ok=True)
        _guard(self.output)
        self._root = str(self.output)
        self._spare = self.output.parent / f".{self.output.name}.spare"
        self._live: _Side | None = None
        self._spare_side: _Side | None = None
        self._spare_checked = True
        self._voided = False
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
        folder = relative.rpartition("/")[0]
        target = os.path.join(self._root, relative)
        if _is_real_folder(self._root, folder) and _same_bytes(target, data):
            self.stats.unchanged += 1
            return
        self._take_lock()
        self._void()
        _real_folder(self._root, folder)
        _clear_obstacle(target)  # a folder where the file goes
        temporary = os.path.join(self._root, folder, f".{os.path.basename(relative)}.{os.getpid()}.tmp")
        try:
            _write_file(temporary, data, target)
            os.replace(temporary, target)
        except OSError:
            _unlink_quietly(temporary)  # never leave it in the served site
            raise
        self._written.add(relative)
        self.stats.written += 1

    def _take_lock(self) -> None:
        if not self._locked:  # from the first change to commit(): no staged build may interleave
            self._lock, self._locked = _lock(self.output), True

    def _void(self) -> None:
        """Files change under the records' feet now: until commit() they no longer hold."""
        if not self._voided:
            _unlink_quietly(_record_path(self._spare))
            _unlink_quietly(_trees_path(self.output))
            self._voided = True

    def can_keep(self, paths: set[str]) -> bool:
        """True when the live site is exactly the files ``paths``, as the tree record
        describes it and nobody changed since: then kept files can be left alone."""
        live, spare = _read_trees(self.output)
        if live is None or live.paths != paths or not live.holds(self.output, True):
            return False
        self._live = live
        self._spare_side = spare if spare is not None and spare.holds(self._spare, False) else None
        self._spare_checked = self._spare_side is not None or not os.path.lexists(self._spare)
        return True

    def keep(self, paths: set[str]) -> None:
        """Leave the files at ``paths`` as they are."""
        self._paths.update(paths)
        self.stats.unchanged += len(paths)

    def reuse(self, relative: str) -> bool:
        """Keep the current file at ``relative``; False when it is missing (or not a regular file)."""
        if not _is_real_folder(self._root, relative.rpartition("/")[0]):
            return False
        try:
            if not stat.S_ISREG(os.lstat(os.path.join(self._root, relative)).st_mode):
                return False
        except OSError:
            return False
        self._paths.add(relative)
        self.stats.unchanged += 1
        return True

    def commit(self, prune: bool = True) -> WriteStats:
        """Remove files the new site no longer has (unless the caller knows there are none)."""
        try:
            if MARKER not in self._paths:
                self.add(MARKER, MARKER_TEXT)
            if prune:
                self._take_lock()
                self._void()
                _sweep(self._root, keep=self._paths)
                self._live = None
            if self._voided or not self._spare_checked:
                self._take_lock()
                self._void()
                self._update_records()
        finally:
            self.abort()
        return self.stats

    def _update_records(self) -> None:
        """The tree record again, after the writes: of the live site only the
        written files' folders are looked at (all of them after a prune); a spare
        that changed since is cleared and listed."""
        output = self.output
        try:
            now = _clock(output)
            live = self._live
            if live is not None:
                fresh = _survey(self._root, self._paths, now, only=_folders_of(self._written))
                if fresh is None:
                    return
                ctimes = {folder: ctime for folder, ctime in live.snapshot.ctimes.items() if folder not in fresh.listed}
                ctimes.update(fresh.ctimes)
                listed = {folder: inodes for folder, inodes in live.snapshot.listed.items() if folder not in fresh.ctimes}
                listed.update(fresh.listed)
                snapshot = _Snapshot(ctimes, listed)
            else:
                snapshot = _survey(self._root, self._paths, now)
            identity = _identity(output, True)
            if snapshot is None or identity is None:
                return
            spare = self._spare_side
            if not self._spare_checked:
                described = _describe_spare(self._spare, output, self._paths, None, now, None)
                spare = described[0] if described is not None else None
            _save_trees(output, _Side(identity, self._paths, snapshot), spare)
        except OSError:
            _unlink_quietly(_trees_path(output))

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
            # Hold nothing of the build's: not its lock (or any other file), and
            # not its standard streams, or a caller reading the build's output
            # (CI, $(...), subprocess) would wait for the deletion to finish.
            quiet = os.open(os.devnull, os.O_RDWR)
            for standard in (0, 1, 2):
                os.dup2(quiet, standard)
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # ``quiet`` too
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
    if old.is_symlink() or (old.exists() and not old.is_dir()):
        old.unlink()  # not ours: never restore a link as the site
    elif old.exists() and output.exists():
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
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view):]
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
