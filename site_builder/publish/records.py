"""The tree record (``.<output>.tree-record``) and the spare record
(``.<output>.spare-record.json``): read, checked against the trees, written.

The snapshots they hold (folder ctimes, root listings) are ``snapshot.py``'s.
"""

from __future__ import annotations

import json
import marshal
import os
import stat
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..files import RefusedPath, read_owned, write_owned
from .guard import MARKER
from .snapshot import _Snapshot, _children, _clock, _folders_of, _survey
from .trees import _remove_paths, _sweep, _unlink_quietly


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


_UNSAFE = ("//", "/./", "/../")
"""In a record's paths, each wrapped as ``/path/``: what could lead out of the tree
(``..``) or is not a path a build writes (an empty one: ``//``; none holds "\\0",
which separates them: ``_pack``). Substring tests: 10,000 paths are checked in
well under a millisecond."""


@dataclass
class _Side:
    """One tree as the record describes it."""

    identity: list[int]
    """Inodes of its root (and of the live site's marker): they change when the
    tree is replaced by anything but our own swap."""
    paths: set[str]
    """Every file in it."""
    snapshot: _Snapshot

    def to_data(self, other: set[str] | None = None) -> dict:
        """The side as the tree record stores it (``_pack``); its paths as None when
        they are ``other`` (the live site's, as an edit leaves the spare's)."""
        return {"identity": self.identity, "paths": None if self.paths == other else _pack(self.paths),
                "ctimes": _pack_numbers(self.snapshot.ctimes, "q"),
                "listed": {folder: _pack_numbers(inodes, "Q") for folder, inodes in self.snapshot.listed.items()}}

    @staticmethod
    def from_data(data: dict | None, other: set[str] | None = None) -> _Side | None:
        """The side ``to_data`` stored (its paths ``other`` when it says so);
        ValueError (or TypeError...) when malformed."""
        if data is None:
            return None
        paths, ctimes, listed = data["paths"], data["ctimes"], data["listed"]
        if not isinstance(listed, dict) or "" not in listed or (paths is None and other is None) or (
                paths is not None and _unsafe(paths)):
            raise ValueError("malformed record")
        # (The same set for both sides: none is changed in place.)
        return _Side(data["identity"], other if paths is None else set(_unpack(paths)),
                     _Snapshot(_unpack_numbers(ctimes), {folder: _unpack_numbers(inodes) for folder, inodes in listed.items()}))

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


def _unsafe(packed: str) -> bool:
    """True when one of the paths ``packed`` holds (``_pack``) could lead out of its
    tree, or is not a path at all."""
    if not isinstance(packed, str) or not packed:
        return True
    wrapped = "/" + packed.replace(_SEPARATOR, "/\n/") + "/"
    return any(bad in wrapped for bad in _UNSAFE)


# A side's paths, folders and root listing are 25,000 names each at 10,000
# realistic terms. Stored as lists and dicts, the tree record took ~85 ms to
# read and ~50 ms to write per edit (marshal makes or walks ~200,000 objects,
# and the paths were sorted); stored as one string of names and one array of
# numbers each, ~4x less (docs/performance.md, "One-body edit (issue 40,
# sixth round)"). "\0" separates names: no file name can hold it.
_SEPARATOR = "\0"


def _pack(names) -> str:
    """``names`` as one string (any order: a record is read back as a set or a dict)."""
    return _SEPARATOR.join(names)


def _unpack(packed: str) -> list[str]:
    return packed.split(_SEPARATOR) if packed else []


def _pack_numbers(numbers: dict[str, int], code: str) -> tuple[str, str, bytes]:
    """name -> number as (the names packed, ``code``, the numbers as 64-bit integers:
    "q" signed for ctimes, "Q" unsigned for inodes)."""
    return _pack(numbers), code, array(code, numbers.values()).tobytes()


def _unpack_numbers(packed: tuple[str, str, bytes]) -> dict[str, int]:
    names, code, raw = packed
    if code not in ("q", "Q"):
        raise ValueError("malformed record")
    numbers = array(code)
    numbers.frombytes(raw)
    names = _unpack(names)
    if len(names) != len(numbers):
        raise ValueError("malformed record")
    return dict(zip(names, numbers.tolist()))


def _record_path(spare: Path) -> Path:
    # Beside the spare, not in it: writing it must not change the folders it describes.
    return spare.with_name(spare.name + "-record.json")


def _trees_path(output: Path) -> Path:
    return output.with_name(f".{output.name}.tree-record")


def _spare_path(output: Path) -> Path:
    """The spare tree beside ``output``: the site before last, which the next build stages into."""
    return output.with_name(f".{output.name}.spare")


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
        info = os.lstat(path)
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
    raw = read_owned(path)  # a plant there is refused (files.RefusedPath), never followed
    try:
        # marshal, as the build cache: at 10,000 pages JSON took 25 ms each way, marshal 5.
        data = marshal.loads(raw)
        live = _Side.from_data(data["output"])
        sides = live, _Side.from_data(data["spare"], live.paths if live is not None else None)
    except Exception:  # noqa: BLE001 - unreadable or damaged, in any way: no record
        return None, None
    _last_trees = signature, sides
    return sides


def _save_trees(output: Path, live: _Side, spare: _Side | None) -> None:
    global _last_trees
    path = _trees_path(output)
    _save(path, {"output": live.to_data(), "spare": spare.to_data(live.paths) if spare is not None else None},
          marshal.dumps)
    signature = _signature(path)
    _last_trees = (signature, (live, spare)) if signature is not None else None


def _read_spare_record(staging: Path, spare: Path, output: Path, paths: set[str] | None,
                       live: _Side | None) -> _SpareRecord | None:
    """Which files of the just-claimed spare (now ``staging``, holding exactly
    ``paths``) are the live site's (``live``), if the record says so of these
    two trees; it is used up either way."""
    path = _record_path(spare)
    raw = read_owned(path)  # a plant there is refused (files.RefusedPath), never followed
    _unlink_quietly(path)
    try:
        data = json.loads(raw) if raw is not None else None
    except ValueError:
        return None
    if data is None:
        return None
    if paths is None or live is None or live.identity != _identity(output, True):
        return None
    try:
        if data["identity"] != [*_identity(staging, False), *live.identity]:
            return None  # the live site was replaced, or the record is not this spare's
        return _SpareRecord(paths, live.paths, set(data["stale"]), data)
    except (KeyError, TypeError):
        return None


def _write_records(spare: Path | None, output: Path, output_paths: set[str], written: set[str],
                   old: _Side | None, staged: _Side | None = None, record: _SpareRecord | None = None,
                   old_checked: _Snapshot | bool | None = None) -> None:
    """Describe the site just swapped in and the spare just swapped out (the old site).

    Files the build did not write are hard links shared by both trees; the rest
    (written, or new) differ. ``old`` is what the record said of the old site
    when it went live (see ``_describe_spare``). ``staged`` and ``record``: the
    spare's side of the tree record and the spare record, when the build that
    staged into the spare found it to hold (``_Side.holds``, at its claim); then
    only the folders that build changed are looked at again (``_carried``).
    ``old_checked``: the old site's survey against ``old``, made ahead
    (``ahead.old_site``: a snapshot, False when it did not match; None: not made).
    Best effort: without records the next build checks every file, so a
    failure here (a full disk) only costs time.
    """
    try:
        now = _clock(output)
        snapshot = _carried(output, output_paths, written, now, staged, record)
        if snapshot is None:
            snapshot = _survey(str(output), output_paths, now)
        identity = _identity(output, True)
        if snapshot is None or identity is None:
            _unlink_quietly(_trees_path(output))
            return
        live = _Side(identity, output_paths, snapshot)
        described = _describe_spare(spare, output, output_paths, old, now, written, old_checked) \
            if spare is not None else None
        _save_trees(output, live, described[0] if described is not None else None)
        if described is not None and described[1] is not None:
            _save(_record_path(spare), {"identity": described[0].identity + identity, "stale": sorted(described[1])})
    except (OSError, RefusedPath):  # a plant since check_output: no record, nothing written through it
        _unlink_quietly(_trees_path(output))
        if spare is not None:
            _unlink_quietly(_record_path(spare))


def _carried(output: Path, paths: set[str], written: set[str], now: int, staged: _Side | None,
             record: _SpareRecord | None) -> _Snapshot | None:
    """The snapshot of the tree just swapped in (``output``, holding ``paths``), from
    the one its claim checked it against (``staged``): the folders where the build
    added, removed, replaced or linked a file are looked at again; every other
    folder keeps the ctime (or the listing) the claim found. None when that is
    not known (no spare record to tell which files were linked): survey it all.

    Safe even if a folder changed that this does not look at: a ctime kept is one
    the claim found, older than the clock of the snapshot it came from, so any
    later change to that folder leaves another ctime, and the next check of this
    snapshot fails (the next build then lists the tree)."""
    if staged is None or record is None or record.spare_paths != staged.paths:
        return None
    # Written (replaced), added or removed, or linked again: the files the spare
    # record says the spare lacks or holds another version of (Staging._in_sync).
    touched = written | (paths ^ staged.paths) | (record.stale & paths) | (paths - record.output_paths)
    before = staged.snapshot
    ctimes, listed = dict(before.ctimes), dict(before.listed)
    if paths != staged.paths:  # files added or removed: folders may be too
        folders = _folders_of(paths)
        for gone in [folder for folder in ctimes if folder not in folders]:
            del ctimes[gone]
        for gone in [folder for folder in listed if folder not in folders]:
            del listed[gone]
        only = _folders_of(touched) & folders
    else:  # (an edit's case) the same folders as the snapshot the claim checked
        only = _folders_of(touched)
    top = _top_after(output, paths, touched, before.listed.get(""))
    fresh = _survey(str(output), paths, now, only=only, top=top)
    if fresh is None:
        return None
    for folder in fresh.listed:
        ctimes.pop(folder, None)
    for folder in fresh.ctimes:
        listed.pop(folder, None)
    ctimes.update(fresh.ctimes)
    listed.update(fresh.listed)
    if paths != staged.paths and set(ctimes) | set(listed) != folders:
        return None  # a folder neither snapshot saw (cannot be, but then: survey it all)
    return _Snapshot(ctimes, listed)


def _top_after(output: Path, paths: set[str], touched: set[str], listing: dict[str, int] | None) -> dict[str, int] | None:
    """The root's entries (name -> inode) of the tree just swapped in (``output``,
    holding ``paths``), from the listing its claim checked (``listing``): only the
    entries holding a file the build changed (``touched``) are looked at again
    (one lstat each), instead of listing 25,000 entries (~25 ms at 10,000
    realistic terms). None when unknown (the root is then listed).

    Safe as ``_carried``'s ctimes: an entry planted at the root since the claim is
    missing from this listing, so the next check of the tree (which lists its
    root) fails, and that build clears the tree."""
    if listing is None:
        return None
    folders, files = _children(paths, {""})[""]
    entries = dict(listing)
    for name in {path.partition("/")[0] for path in touched}:
        if name not in folders and name not in files:
            entries.pop(name, None)  # removed by the build
            continue
        try:
            info = os.lstat(os.path.join(output, name))
        except OSError:
            return None
        if not (stat.S_ISDIR(info.st_mode) if name in folders else stat.S_ISREG(info.st_mode)):
            return None
        entries[name] = info.st_ino
    return entries if entries.keys() == folders | files else None


def _describe_spare(spare: Path, output: Path, output_paths: set[str], old: _Side | None, now: int,
                    written: set[str] | None, checked: _Snapshot | bool | None = None,
                    ) -> tuple[_Side, set[str] | None] | None:
    """The spare's side of the record, after making it hold only regular files
    the live site (``output_paths``) has too; and which of those it lacks or holds
    another version of (None when ``written``, the files of the live site the
    spare cannot share, is unknown). ``checked``: the survey below, made ahead
    (``_write_records``'s ``old_checked``), when it was.

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
    if old is None or checked is False:
        snapshot = None
    elif isinstance(checked, _Snapshot):
        snapshot = checked
    else:
        snapshot = _survey(root, old.paths, now, before=old.snapshot)
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
    """Write a record atomically (a reader sees the old one or the new one), never through a plant."""
    write_owned(path, encode(data))
