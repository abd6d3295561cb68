"""``serve``'s writes straight into the live site, file by file (``InPlace``).

Each file is replaced atomically, the site as a whole is not: a dev server's
rebuilds touch only what changed. ``build`` always stages (``staging.py``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..files import RefusedPath
from .guard import MARKER, MARKER_TEXT, _guard
from .lock import lock as _lock, unlock as _unlock
from .records import _Side, _describe_spare, _identity, _read_trees, _record_path, _save_trees, _spare_path, _trees_path
from .snapshot import _Snapshot, _clock, _folders_of, _survey
from .trees import _clear_obstacle, _is_real_folder, _real_folder, _same_bytes, _sweep, _unlink_quietly, _write_file
from .writer import WriteStats, _Tree


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
        self._spare = _spare_path(self.output)
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
        except (OSError, RefusedPath):
            _unlink_quietly(_trees_path(output))

    def release(self) -> None:
        """Nothing was written: only let go of the lock."""
        self.abort()

    def abort(self) -> None:
        """Release the lock; nothing to undo file by file (the next build repairs the tree)."""
        _unlock(self._lock)
        self._lock, self._locked = None, False
