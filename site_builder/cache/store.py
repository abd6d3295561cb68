"""A content-addressed build cache, so a rebuild redoes only what changed.

Every entry is keyed by a hash of *all* its inputs (the file's bytes, the
config, the name index, the templates and the code version), so an entry can
be missing but never stale. The cache lives in ``.site_builder_cache/`` beside
the output folder; deleting it is always safe.
"""

from __future__ import annotations

import errno
import gc
import hashlib
import marshal
import os
import pickle
import sqlite3
import threading
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ..files import RefusedPath, check_owned, check_owned_folder, read_owned, write_owned
from .code import CODE_SUFFIXES, OUTPUT_DEPENDENCIES, code_version, explainer_versions

__all__ = ["CODE_SUFFIXES", "OUTPUT_DEPENDENCIES", "BlobStore", "BuildCache", "code_version", "collector_paused",
           "disk_full", "explainer_versions", "key"]


def key(*parts: str | bytes) -> str:
    """A cache key: sha256 over the parts, each length-prefixed so no two lists collide."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


RECENT = ".recent"
"""``<table>.recent.table``: the entries ``save_entries`` set or removed since the
table's last whole save, which it names (``_TAG``): after another whole save it is
never read again (and replaced by the next ``save_entries``)."""
RECENT_SHARE = (64, 100)
"""``save_entries`` saves the whole table again past 64 entries or 1 % of it."""
_TAG = "__saved__"

_MARSHAL, _PICKLE = b"M", b"P"
"""First byte of a table file. Tables of plain values (str, int, tuple, list,
dict) are stored with marshal, which loads ~5x faster than pickle: a rebuild
of 10,000 terms reads several of them."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while making many long-lived objects.

    Loading a table (or 10,000 terms) makes ~100,000 containers in one go and
    no cyclic garbage; the collector would walk them again and again while
    they grow (at 10,000 terms that doubled the time to load the tables)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
_SQLITE_IOERR, _SQLITE_FULL = 10, 13


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` says the disk (or the user's quota) is full, from the
    OS or from SQLite ("database or disk is full", or the "disk I/O error" it
    gives when its write-ahead log cannot grow)."""
    if isinstance(error, OSError):
        return error.errno in DISK_FULL
    if not isinstance(error, sqlite3.Error):
        return False
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (_SQLITE_IOERR, _SQLITE_FULL)
    return "disk is full" in str(error) or "disk I/O error" in str(error)


class BuildCache:
    """Named tables (dicts), each persisted as one file: one sequential write
    is far cheaper than thousands of small files on a slow disk. Large values
    needed only now and then (rendered HTML) go to ``blobs`` instead."""

    def __init__(self, folder: Path | None, defer_writes: bool = False):
        self.folder = folder
        self.tables: dict[str, dict] = {}
        self._blobs: BlobStore | None = None
        self.defer_writes = defer_writes
        """True (``serve``): ``save_table`` only marks a table; ``flush()`` writes,
        once the browser has its page. Tables stay in memory between builds."""
        self._dirty: set[str] = set()
        self._tags: dict[str, str | None] = {}
        """table -> the token of its last whole save (read or written), which ``save_entries`` names."""
        self._recent: dict[str, tuple[dict, set]] = {}
        """table -> (entries set, keys removed) since that save, as on disk."""
        self.memo: dict = {}
        """Objects rebuilt from table entries, for reuse while those entries last (memory only)."""
        self.failure: str | None = None
        self.full = False
        """True once a write found the disk full (see ``fail``)."""
        """Why the cache could not be saved (a full disk, a file where its folder
        should be...), or None. A build goes on without it: the cache only saves
        time, and the site was already written or is written next."""

    def check(self) -> None:
        """Give the cache up (as ``--no-cache``, with ``failure`` naming the path)
        when its folder is not a real folder or holds anything but regular files:
        a symlink, FIFO, socket or device planted there is never opened, nor
        removed (it is the user's). The cache only saves time: the build goes on.
        Run before any work."""
        try:
            if self.folder is None or not check_owned_folder(self.folder):
                return
            with os.scandir(self.folder) as entries:
                for entry in entries:
                    if not entry.is_file(follow_symlinks=False):
                        check_owned(entry.path)
        except (OSError, RefusedPath) as error:
            self.folder, self._blobs, self.tables = None, None, {}
            self.failure = str(error)

    @property
    def enabled(self) -> bool:
        """False when caching is switched off (``--no-cache``)."""
        return self.folder is not None

    def table(self, name: str) -> dict:
        """The table ``name`` as last saved (empty when missing or unreadable), with
        the entries ``save_entries`` recorded since, when they go with that save."""
        if name not in self.tables:
            data = self._read(name)
            tag = data.pop(_TAG, None)
            changed, gone = {}, set()
            if tag is not None:
                recent = self._read(f"{name}{RECENT}")
                if recent.get("base") == tag and isinstance(recent.get("set"), dict) and isinstance(recent.get("gone"), list):
                    changed, gone = recent["set"], set(recent["gone"])
                    data.update(changed)
                    for key in gone:
                        data.pop(key, None)
            self._tags[name], self._recent[name] = tag, (changed, gone)
            self.tables[name] = data
        return self.tables[name]

    def _read(self, name: str) -> dict:
        data: dict = {}
        if self.folder is not None:
            try:
                # One read (marshal.load() on a file reads in small pieces), never through a plant.
                raw = read_owned(self.folder / f"{name}.table") or b""
                kind, payload = raw[:1], memoryview(raw)[1:]
                with collector_paused():
                    loaded = marshal.loads(payload) if kind == _MARSHAL else pickle.loads(payload) if kind == _PICKLE else None
                if isinstance(loaded, dict) and loaded.get("__code__") == code_version(self.folder):
                    data = loaded
            except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError, TypeError):
                data = {}  # a damaged cache is just a cold cache
        data.pop("__code__", None)
        return data

    def save_entries(self, name: str, changed: dict[str, Any], gone: Iterable[str] = ()) -> None:
        """Set ``changed`` and remove ``gone`` in table ``name``. On disk, while few
        (``RECENT_SHARE``), only these, beside the whole table's file and naming the
        save they go with (a fast-path edit changes a few of 10,000 entries: marshalling
        and writing all of them again took ~20-30 ms a table); else the whole table."""
        gone = set(gone)
        data = {**self.table(name), **changed}
        for key in gone:
            data.pop(key, None)
        before, dropped = self._recent.get(name, ({}, set()))
        recent = {key: value for key, value in before.items() if key not in gone}
        recent.update(changed)
        dropped = (dropped - changed.keys()) | gone
        tag = self._tags.get(name)
        if (tag is None or self.folder is None or self.defer_writes or self.failure is not None
                or len(recent) + len(dropped) > max(RECENT_SHARE[0], len(data) // RECENT_SHARE[1])):
            self.save_table(name, data)
            return
        self.tables[name] = data
        self._recent[name] = (recent, dropped)
        self._write(f"{name}{RECENT}", {"base": tag, "set": recent, "gone": sorted(dropped)}, whole=False)

    def save_table(self, name: str, data: dict[str, Any]) -> None:
        """Replace table ``name`` on disk (atomically: write then rename)."""
        self.tables[name] = data
        if self.folder is None:
            return
        if self.defer_writes:
            self._dirty.add(name)
            return
        self._write(name, data)

    def flush(self) -> None:
        """Write the tables ``save_table`` deferred."""
        for name in sorted(self._dirty):
            self._write(name, self.tables[name])
        self._dirty.clear()

    def _write(self, name: str, data: dict[str, Any], whole: bool = True) -> None:
        if self.failure is not None:
            return
        temporary = self.folder / f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"  # unique per writer
        content = {**data, "__code__": code_version(self.folder)}
        if whole:  # what the entries save_entries records name: those of another save are never read with it
            content[_TAG] = f"{os.getpid()}-{time.time_ns()}-{os.urandom(6).hex()}"
        try:
            payload = _MARSHAL + marshal.dumps(content)
        except ValueError:  # holds objects marshal cannot store
            payload = _PICKLE + pickle.dumps(content, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            check_owned_folder(self.folder)
            write_owned(self.folder / f"{name}.table", payload, temporary)
            if whole:  # (the recent entries of the save before, if any, name another: never read again)
                self._tags[name], self._recent[name] = content[_TAG], ({}, set())
        except (OSError, RefusedPath) as error:  # (a plant since check(): refused, and the cache given up)
            self.fail(error)

    def fail(self, error: Exception) -> None:
        """Stop saving, and drop the tables already saved: some tables record what
        the last finished build did, and a mix of this build's and an older
        one's must never be trusted. The next build starts from nothing.
        A full disk also marks the cache ``full``: the build drops it whole when
        it ends (``drop``), so that what it holds never stops the next build."""
        self.full = self.full or disk_full(error)
        if self.failure is None:
            self.failure = str(error)
        try:
            names = list(self.folder.iterdir()) if self.folder is not None and self.folder.is_dir() else []
        except OSError:
            names = []
        for path in names:
            if path.suffix in (".table", ".tmp"):
                try:
                    path.unlink()
                except OSError:
                    pass  # unreadable ones are a cold cache too (see table())

    def drop(self) -> None:
        """Delete every file of the cache folder (the tables, the SQLite stores
        with their write-ahead logs, temporaries), after a full disk: it only
        saves time, and the next build needs the room more. Only regular files
        are removed, nothing is followed; a planted entry is left to its owner."""
        self.close()
        self.tables, self.memo, self._dirty, self._tags, self._recent = {}, {}, set(), {}, {}
        if self.folder is None:
            return
        try:
            with os.scandir(self.folder) if check_owned_folder(self.folder) else nullcontext(()) as entries:
                doomed = [entry.path for entry in entries if entry.is_file(follow_symlinks=False)]
        except (OSError, RefusedPath):
            return
        for path in doomed:
            try:
                os.unlink(path)
            except OSError:
                pass

    def close(self) -> None:
        """Close the blob store's connection, if open (the tables are plain files)."""
        if self._blobs is not None:
            self._blobs.close()

    @property
    def blobs(self) -> "BlobStore":
        """The key -> text store (a no-op store when caching is off)."""
        if self._blobs is None:
            self._blobs = BlobStore(self.folder / "blobs.sqlite" if self.folder is not None else None, self.fail)
        return self._blobs


class BlobStore:
    """Content-addressed texts in SQLite: reads and writes cost what they touch,
    not the size of the whole store (a pickle of every page's HTML would be
    read and rewritten in full on each rebuild)."""

    def __init__(self, path: Path | None, on_failure: Callable[[Exception], None] = lambda error: None,
                 read_only: bool = False):
        self.path = path
        self.on_failure = on_failure
        """Told when the store cannot be opened at all; it then stores nothing."""
        self.read_only = read_only
        """Read without writing: opened immutable, so no journal, lock or
        shared-memory file is made and it works on a full disk. The store is
        content-addressed, so an entry a write-ahead log left unmerged can only
        be missing then, never wrong."""
        self._db: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection | None:
        if self.path is None:
            return None
        if self._db is None and self.read_only:
            try:
                self._db = sqlite3.connect(f"{self.path.as_uri()}?mode=ro&immutable=1", uri=True) \
                    if check_owned(self.path) else None
            except (sqlite3.Error, RefusedPath) as error:
                self.path = None
                self.on_failure(error)
        elif self._db is None:
            try:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    # SQLite follows links and cannot be told not to from Python: its
                    # files are checked just before (and the whole folder by check()).
                    check_owned_folder(self.path.parent)
                    for suffix in ("", "-wal", "-shm", "-journal"):
                        check_owned(f"{self.path}{suffix}")
                    db = sqlite3.connect(self.path, isolation_level=None)
                    db.execute("PRAGMA journal_mode=WAL")
                    db.execute("PRAGMA synchronous=NORMAL")
                    db.execute("CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                    self._db = db
                except sqlite3.OperationalError:
                    raise  # a full disk or a locked file is no damage: give up the store, keep its file
                except sqlite3.DatabaseError:
                    # A damaged store is a cold store: start it again.
                    self.path.unlink(missing_ok=True)
                    self._db = sqlite3.connect(self.path, isolation_level=None)
                    self._db.execute("CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            except (OSError, sqlite3.Error, RefusedPath) as error:
                self.path = None  # a store that cannot open is no store
                self.on_failure(error)
        return self._db

    def get_many(self, keys: list[str]) -> dict[str, str]:
        """The stored texts of those ``keys`` that are present."""
        db = self._connect()
        if db is None or not keys:
            return {}
        found: dict[str, str] = {}
        try:
            for start in range(0, len(keys), 500):
                part = keys[start:start + 500]
                marks = ",".join("?" * len(part))
                found.update(db.execute(f"SELECT key, value FROM blobs WHERE key IN ({marks})", part))
        except sqlite3.DatabaseError:
            return {}
        return found

    def present(self, keys: list[str]) -> set[str]:
        """Those of ``keys`` that are stored (their texts not read)."""
        db = self._connect()
        if db is None or not keys:
            return set()
        found: set[str] = set()
        try:
            for start in range(0, len(keys), 500):
                part = keys[start:start + 500]
                marks = ",".join("?" * len(part))
                found.update(key for (key,) in db.execute(f"SELECT key FROM blobs WHERE key IN ({marks})", part))
        except sqlite3.DatabaseError:
            return set()
        return found

    def put_many(self, items: dict[str, str], live: set[str] | None = None) -> None:
        """Store ``items``; with ``live``, also drop entries whose key is not in it."""
        db = self._connect()
        if db is None:
            return
        try:
            db.execute("BEGIN")
            db.executemany("INSERT OR REPLACE INTO blobs VALUES (?, ?)", items.items())
            if live is not None:
                count = db.execute("SELECT count(*) FROM blobs").fetchone()[0]
                if count > len(live) + max(100, len(live) // 4):  # prune now and then, not on every edit
                    db.execute("CREATE TEMP TABLE IF NOT EXISTS live (key TEXT PRIMARY KEY)")
                    db.execute("DELETE FROM live")
                    db.executemany("INSERT OR IGNORE INTO live VALUES (?)", ((k,) for k in live))
                    db.execute("DELETE FROM blobs WHERE key NOT IN (SELECT key FROM live)")
            db.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            try:
                db.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass
            self.on_failure(error)  # (a full disk: the build drops the cache when it ends)

    def close(self) -> None:
        """Close the connection (forked workers must never share it)."""
        if self._db is not None:
            self._db.close()
            self._db = None
