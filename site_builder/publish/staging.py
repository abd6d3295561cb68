"""The staging tree: the new site assembled beside ``output/`` (in the spare,
when there is one) and swapped in whole by ``Staging.commit()``.

Holds ``Staging`` alone, the writer ``build`` uses; the records it reads and
leaves, the swap and the clean-up are its siblings' (see the package's
docstring).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..files import check_owned_folder
from . import ahead
from .guard import MARKER, MARKER_TEXT, _guard
from .lock import lock as _lock, unlock as _unlock
from .records import _identity, _read_spare_record, _read_trees, _record_path, _save, _spare_path, _trees_path, _write_records
from .removal import clean_leftovers, remove_tree
from .snapshot import _folders_of
from .swap import _exchange
from .trees import remove_all, _clear_obstacle, _is_real_folder, _real_folder, _remove_paths, _same_bytes, _sweep, _unlink_quietly, _write_file
from .writer import WriteStats, _Tree


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
        self.spare = _spare_path(self.output)
        if check_owned_folder(self.path):  # a plant there is refused, never followed
            remove_all(self.path)
        ahead.settle(self.output)  # the spare's check made ahead is done before it moves
        try:
            os.rename(self.spare, self.path)  # claim the spare (atomic: one build wins)
            self.recycled = True
        except OSError:
            self.path.mkdir()
            self.recycled = False
        if self.recycled and not stat.S_ISDIR(os.lstat(self.path).st_mode):
            # Planted after check_output looked: put it back as found, never write through it.
            os.rename(self.path, self.spare)
            check_owned_folder(self.spare)
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
        known = spare.paths if self.recycled and spare is not None and self._holds(spare) else None
        self._checked = spare if known is not None else None  # as the claim found it: see records._carried
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

    def _holds(self, spare) -> bool:
        """Whether the claimed spare is still as its record says (checked ahead, when it was)."""
        held = ahead.spare_held(spare, self.path)
        return spare.holds(self.path, False) if held is ahead.UNKNOWN else held

    def _target(self, relative: str) -> str:
        # Plain strings and os calls: at 10,000 pages pathlib's overhead shows.
        if relative in self._paths:
            raise ValueError(f"{relative} written twice in one build")
        self._paths.add(relative)
        folder = os.path.dirname(relative)
        if folder not in self._dirs:
            path = f"{self._root}/{folder}"
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
        return f"{self._root}/{relative}"  # (os.path.join's, for the relative paths a build makes)

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
        if not self._no_site and self._live_file(relative, data):
            if not self._in_sync(relative):
                self._link(os.path.join(self._old, relative), target)
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
                ahead.settle(self.output, before_swap=True)  # and the live site's, before the swap
                _exchange(self.path, self.output)
                try:
                    os.rename(self.path, self.spare)  # now holds the old site
                except OSError:
                    remove_tree(self.path)
                else:
                    _write_records(self.spare, self.output, self._paths, self._written, self._live,
                                   self._checked, self._record, ahead.old_site(self.spare, self._live))
            else:
                os.rename(self.path, self.output)
                _write_records(None, self.output, self._paths, self._written, None)
        finally:
            _unlock(self._lock)
            self._lock = None
        return self.stats

    def abort(self) -> None:
        """Throw the staged site away; ``output`` is untouched."""
        remove_all(self.path)
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
                remove_all(self.path)
        finally:
            _unlock(self._lock)
            self._lock = None
