"""What a tree's folders looked like when a build left it: their ctimes, and the
entries of the root and of racy folders, listed one by one.

The records (``records.py``) keep a snapshot of each tree, so that the next
build can tell without listing a tree that nothing in it was added, removed
or replaced since; ``_survey`` takes a snapshot and checks a tree against one.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from .trees import _unlink_quietly


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


_MEMO_FROM = 1000
"""``_folders_of`` and ``_children`` keep their answers for sets of this many paths or
more: an edit asks both about the same 25,000 paths (the spare's, the live site's)
three or four times, ~25 ms each time to make again and ~1 ms to compare. Pure
functions of their arguments: an equal set, the same answer."""

_KEEP = 3
"""Path sets remembered (``_recent``): an edit's three are the spare's, the new site's
and the old site's, each the one before plus the files the edits since added
(a new word's search shard)."""

_recent: list[tuple[frozenset, dict]] = []
"""(paths, answers worked out for them: ``folders``, ``root``), the latest first."""


def _known(paths) -> dict:
    """The answers kept for ``paths`` (a new entry when none). A new one starts from
    a remembered subset of them (fewer than ``_MEMO_FROM`` paths short), if any:
    what a set of paths gives is what the subset gives with what the rest adds."""
    for known, answers in _recent:
        if len(known) == len(paths) and known == paths:
            return answers
    answers: dict = {}
    for known, before in _recent:
        if len(known) < len(paths) < len(known) + _MEMO_FROM and known <= paths:
            added = paths - known
            if "folders" in before:
                answers["folders"] = before["folders"] | _make_folders_of(added)
            if "root" in before:
                tops, files = _root_entries(added)
                answers["root"] = before["root"][0] | tops, before["root"][1] | files
            break
    _recent.insert(0, (frozenset(paths), answers))
    del _recent[_KEEP:]
    return answers


def _folders_of(paths) -> set[str]:
    """Every folder holding one of ``paths``, with its parents up to the root ("")."""
    if len(paths) < _MEMO_FROM:
        return _make_folders_of(paths)
    answers = _known(paths)
    if "folders" not in answers:
        answers["folders"] = frozenset(_make_folders_of(paths))
    return set(answers["folders"])


def _make_folders_of(paths) -> set[str]:
    direct = {path.rpartition("/")[0] for path in paths}  # at 10,000 pages: one comprehension, not a loop
    folders = direct | {""}
    for folder in direct:
        while "/" in folder:
            folder = folder.rpartition("/")[0]
            if folder in folders:
                break
            folders.add(folder)
    return folders


def _root_entries(paths) -> tuple[frozenset, frozenset]:
    """(the first part of every path, the paths that are files at the root)."""
    return frozenset(path.partition("/")[0] for path in paths), frozenset(path for path in paths if "/" not in path)


def _children(paths, folders: set[str]) -> dict[str, tuple[set[str], set[str]]]:
    """For each of ``folders``: the entries a tree holding exactly ``paths`` has
    there, as (names of folders, names of files)."""
    if folders == {""}:  # the common case, and 10,000 entries: comprehensions
        if len(paths) < _MEMO_FROM:
            tops, files = _root_entries(paths)
            return {"": (set(tops - files), set(files))}
        answers = _known(paths)
        if "root" not in answers:
            answers["root"] = _root_entries(paths)
        tops, files = answers["root"]
        return {"": (set(tops - files), set(files))}
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
            only: set[str] | None = None, top: dict[str, int] | None = None) -> _Snapshot | None:
    """Snapshot the tree at ``root``, which holds exactly ``paths`` (only the folders
    ``only``, when given: the rest is known already); None when it does not.
    ``top``: the root's entries (name -> inode) as known already, taken instead
    of listing the root (with ``only``: ``records._carried``).

    With ``before``: None also unless every folder is still as ``before`` saw it.
    ``now`` (from ``_clock``) decides which folders are racy and must be listed;
    None: check against ``before`` only.
    Every folder is looked at with lstat, so a symlink is never taken for one.
    """
    folders = _folders_of(paths) if only is None else only | {""}
    ctimes: dict[str, int] = {}
    to_list = {""} if top is None else set()
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
        children = _children(paths, to_list) if to_list else {}
        listed: dict[str, dict[str, int]] = {"": top} if top is not None else {}
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
