"""The load stage, memoised: term files whose size and mtime did not change
are not parsed again, and what changed since the last finished build is
worked out for the fast path (``incremental``)."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import BuildFailed, Problem
from ..load import content
from ..load.content import RECORD_FIELDS, Term
from ..load.preload import Preload
from . import store as cache
from .incremental import Change

TABLE = "terms"
"""Cache table: shown path -> (file stamp, term record, problems, names of a
dropped file), as the last finished build left it (with ``RECENT`` over it).
Each record holds its body's digest (``_digest``), the body being in ``BODIES``."""

BODIES = "terms-bodies"
"""Cache table: {"base": the ``TABLE`` tag it was saved with, "bodies": shown
path -> body}. Kept apart from ``TABLE`` (~90 % of its bytes: ~19 MB at 10,000
realistic terms) and read only when a build asks a term made from ``TABLE``
for its body (a full build over a warm cache); an edit on the fast path never
does, so it no longer unmarshals every body (``_KeptTerm``)."""

RECENT = "terms-recent"
"""Cache table: {"base": the ``TABLE`` it goes over (its ``_BASE`` tag), "entries":
shown path -> the entry that replaces the base's}: what builds since the base
was saved read again. At 10,000 terms ``TABLE`` is several MB even with its
bodies kept apart (``BODIES``): an edit saves this small table instead of
marshalling and writing all of it."""

_BASE = ("base",)
"""Key of ``TABLE``'s tag (a tuple: no shown path); ``RECENT`` names the tag it goes over."""

RECENT_MOST = 64
"""``RECENT`` holds at most this many entries (or 1 % of the files): past that,
``TABLE`` is saved whole again."""


@dataclass
class LoadedTerms:
    """The terms of one build, and what changed since the last finished build."""

    terms: list[Term]
    problems: list[Problem]
    dropped: list[content.Dropped]
    """Term files that gave no term (``content.gather_dropped``)."""
    change: Change
    remember: Callable[[], None]
    """Save these terms as the last finished build's; call it only when the build finished."""


SETTLED_NS = 2_000_000_000
"""A file changed this recently (ns) is read again next time even if its stamp
looks the same: a second edit within one timestamp tick would not show."""


def load_cached(folder: Path, store: cache.BuildCache, changed: frozenset[str] | None,
                preloaded: Preload | None, meanwhile: Callable[[], None]) -> LoadedTerms:
    """Load the terms of ``folder``, parsing only the files the cache has no record of.

    ``changed``: as ``BuildOptions.changed``. ``preloaded``: the loaders started
    ahead (``preload.start``), used only when this load would start from
    nothing (its result is then exactly this load's); ``meanwhile()`` runs
    while waiting for them.
    """
    previous, base, recent = _previous(store)
    kept = _KeptBodies(store, base)
    memo = store.memo.setdefault(TABLE, {})
    fresh = not previous and not memo and changed is None
    loaded = None
    if preloaded is not None and fresh and preloaded.content == folder:
        loaded = preloaded.result(meanwhile=meanwhile)
    elif preloaded is not None:
        preloaded.discard()  # not wanted: stop the loaders before they take CPU from this build
    known = dict(previous)  # updated by this load
    if loaded is not None:
        # (their stamps are as old as the loaders' start, at the latest)
        _record(known, [entry for entry in loaded if isinstance(entry, content.LoadedFile)], preloaded.started_ns)
    else:
        loaded = _load_changed(folder, known, memo, changed, kept)
    terms, problems = content.gather_terms(loaded)
    reread = {shown for shown, entry in known.items() if entry is not previous.get(shown)}
    same_files = len(known) == len(previous) and known.keys() == previous.keys()

    def remember() -> None:
        # Only after a successful build: the fast path compares the next
        # build's terms with those the last *finished* build used.
        if reread or not same_files:
            _save(store, known, base, {**recent, **{shown: known[shown] for shown in reread}},
                  same_files=same_files, kept=kept)

    # Only the edited terms' records are compared (``body_only``): the others are not copied.
    before = {shown: _comparable(previous[shown][1]) for shown in reread if shown in previous}
    change = Change(
        edited=[t for t in terms if t.path in reread] if reread else [],
        previous=before,
        same_files=same_files,
    )
    return LoadedTerms(terms, problems, content.gather_dropped(loaded), change, remember)


def _previous(store: cache.BuildCache) -> tuple[dict, str | None, dict]:
    """(the entries the last finished build left, the tag of the ``TABLE`` under
    them, the ``RECENT`` entries over it)."""
    table = store.table(TABLE)
    base = table.get(_BASE)
    previous = {shown: entry for shown, entry in table.items() if shown != _BASE}
    if base is None:
        return previous, None, {}
    over = store.table(RECENT)
    recent = over.get("entries")
    if over.get("base") != base or not isinstance(recent, dict):
        # No recent table over this base (missing, damaged, or over another
        # one: a build stopped between the two saves of ``_save``): the base
        # alone may be older than the last finished build, and the fast path
        # would compare against it (a reverted edit would look like none).
        # Start cold, as a missing cache does: never stale.
        return {}, None, {}
    previous.update(recent)
    return previous, base, recent


def _save(store: cache.BuildCache, known: dict, base: str | None, recent: dict, same_files: bool,
          kept: "_KeptBodies") -> None:
    """Save ``known`` as the last finished build's entries: as ``RECENT`` over the
    same base when the files are the same and few changed since the base; else
    as a new ``TABLE`` with its ``BODIES`` (then ``RECENT`` over it, empty).
    Without a ``RECENT`` over its base (a build stopped between the saves, a
    file lost or damaged) the ``TABLE`` is not read either: the next build
    starts cold. (``RECENT``'s few entries keep their bodies.)"""
    if base is not None and same_files and len(recent) <= max(RECENT_MOST, len(known) // 100):
        store.save_table(RECENT, {"base": base, "entries": recent})
        return
    tag = os.urandom(8).hex()
    if not store.enabled:  # kept in memory only (``serve`` after its folder was refused): nothing to split
        store.save_table(TABLE, {**known, _BASE: tag})
        store.save_table(RECENT, {"base": tag, "entries": {}})
        return
    table, bodies = {}, {}
    for shown, entry in known.items():
        record = entry[1]
        if record is not None and len(record) == len(RECORD_FIELDS):
            body = record[_BODY_AT]
            if isinstance(body, bytes):  # kept apart last time: carried over from the last BODIES
                digest, body = body, kept.stored(shown, body)
                if body is None:
                    continue  # lost: left out, so the next build reads the file again
            else:
                digest = _digest(body)
            bodies[shown] = body
            entry = (entry[0], (*record[:_BODY_AT], digest, *record[_BODY_AT + 1:]), *entry[2:])
        table[shown] = entry
    # BODIES first: if the build stops before RECENT names this tag, neither is read.
    store.save_table(BODIES, {"base": tag, "bodies": bodies})
    store.save_table(TABLE, {**table, _BASE: tag})
    store.save_table(RECENT, {"base": tag, "entries": {}})


def _load_changed(folder: Path, known: dict, memo: dict, changed: frozenset[str] | None,
                  kept: "_KeptBodies") -> list[content.LoadedFile | Problem]:
    """The load stage's files, each read again only when it may have changed.

    ``known``: shown path -> (stamp, term record, problem records) as the last
    finished build left them; a file whose stamp is the same is not read again
    (like git's index). Updated in place with what was read, and pruned of
    files that are gone. ``memo`` (kept in memory by ``serve``) maps a record
    to the ``LoadedFile`` made from it last time, so an unchanged term is not
    built again. ``changed`` (from ``serve``'s watcher): the only absolute
    paths that can differ from ``known``; the others are not even looked at
    (symlinks always are). ``kept``: where the bodies kept apart are read.
    """
    files, loaded = content.find_term_files(folder)
    slots: list[content.LoadedFile | Problem | None] = list(loaded)
    todo: list[tuple[int, content.TermFile, tuple]] = []
    seen: set[str] = set()
    for file in files:
        if file.refused is not None:
            slots.append(file.refused)
            continue
        hit = known.get(file.shown)
        # A term's images are stamped on their own: the record is kept only while
        # they are as they were. (A record without any: nothing to stamp, no call.)
        if hit is not None and not _no_media(hit[1]) and not content.record_is_current(hit[1]):
            hit = None
        # Trusting the watcher needs no settled timestamps: it has watched since
        # before the last finished build read these files.
        if changed is not None and hit is not None and not file.symlinked and file.absolute not in changed:
            slots.append(_from_record(file, hit, memo, kept))
            seen.add(file.shown)
            continue
        stamp = content.stamp_term_file(file)
        if stamp is None:
            continue
        if isinstance(stamp, Problem):
            slots.append(stamp)
            continue
        seen.add(file.shown)
        if hit is not None and hit[0] == stamp:
            slots.append(_from_record(file, hit, memo, kept))
        else:
            todo.append((len(slots), file, stamp))
            slots.append(None)
    stamped_ns = time.time_ns()
    read = []
    for index, file, stamp in todo:
        slots[index] = entry = content.load_term_file(file, stamp)
        read.append(entry)
    _record(known, read, stamped_ns)
    for gone in set(known) - seen:
        del known[gone]
    return slots  # type: ignore[return-value]  (every None was filled)


def _record(known: dict, read: list[content.LoadedFile], stamped_ns: int) -> None:
    """Record the files just read in ``known``; the stamp only of those older
    than ``SETTLED_NS`` when stamped (``stamped_ns`` or later): a younger one
    is read again next time."""
    settled_before = stamped_ns - SETTLED_NS
    for entry in read:
        stamp = entry.stamp
        settled = max(stamp[1], stamp[2]) < settled_before
        known[entry.shown] = (stamp if settled else None, entry.term.to_record() if entry.term is not None else None,
                              [(p.path, p.line, p.message, p.severity) for p in entry.problems], entry.names)


def _from_record(file: content.TermFile, hit: tuple, memo: dict, kept: "_KeptBodies") -> content.LoadedFile:
    """The file a cache record describes (the same objects as last time, if remembered)."""
    shown = file.shown
    remembered = memo.get(shown)
    if remembered is not None and remembered[0] is hit:
        return remembered[1]
    record = hit[1]
    if record is None:
        term = None
    elif len(record) == len(RECORD_FIELDS) and isinstance(record[_BODY_AT], bytes):
        term = _KeptTerm.made(record, kept, file.path)
    else:
        term = Term.from_record(record)
    problems = hit[2]
    result = content.LoadedFile(shown, hit[0], term, tuple([Problem(*p) for p in problems]) if problems else (),
                                tuple(hit[3]))
    memo[shown] = (hit, result)
    return result


_BODY_AT = RECORD_FIELDS.index("body")
_MEDIA_AT = RECORD_FIELDS.index("media")
_FIELDS = len(RECORD_FIELDS)


def _no_media(record: tuple | None) -> bool:
    """True for a term record that refers to no file (most): it is current without a look."""
    return record is not None and len(record) == _FIELDS and not record[_MEDIA_AT]


def _digest(body: str) -> bytes:
    """What ``TABLE`` keeps of a body: enough to tell it from any other."""
    return hashlib.blake2b(body.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class _KeptBodies:
    """The bodies ``TABLE``'s records keep apart (``BODIES``), read on the first
    request: once per build, and only by a build that asks for one."""

    def __init__(self, store: cache.BuildCache, base: str | None):
        self._store = store
        self._base = base
        self._bodies: dict | None = None
        self._same_base = False

    def stored(self, shown: str, digest: bytes) -> str | None:
        """The body of ``shown`` with this digest, from ``BODIES``; None when it is not there."""
        if self._bodies is None:
            table = self._store.table(BODIES)
            bodies = table.get("bodies")
            self._bodies = bodies if isinstance(bodies, dict) else {}
            self._same_base = self._base is not None and table.get("base") == self._base
        body = self._bodies.get(shown)
        if not isinstance(body, str):
            return None
        # Saved with this TABLE (one tag, one save): that body. Else (a BODIES
        # lost, damaged, or newer than its TABLE) only when it is the same text.
        return body if self._same_base or _digest(body) == digest else None

    def body(self, shown: str, path: str, digest: bytes) -> str:
        """The body of ``shown``: from ``BODIES``, else read from its file again, when
        it is still the same text. Never another: the rest of its term came from
        the same record. A file changed since this build stamped it, when the
        cache lost its body too, fails the build (it cannot be built as it was)."""
        body = self.stored(shown, digest)
        if body is None:
            term, _problems, _names = content.read_term_file(Path(path), shown)
            body = term.body if term is not None else None
            if body is None or _digest(body) != digest:
                raise BuildFailed([Problem(shown, None, "changed while the build was running (and the build "
                                                        "cache lost its copy): build again")])
        return body


class _KeptTerm(Term):
    """A ``Term`` made from a ``TABLE`` record whose body is kept apart: the body
    is read (``_KeptBodies.body``) when first asked for, so a build that needs
    none of the unchanged bodies (an edit on the fast path) reads none.
    Everything else about it is a ``Term``'s: equal to one with the same
    fields, pickled as one."""

    @classmethod
    def made(cls, record: tuple, kept: _KeptBodies, path: str) -> "_KeptTerm":
        """The term of ``record`` (its body a digest), read from ``path`` if need be."""
        term = cls(*record)  # (a Term's own __init__: ~2x quicker than filling its fields here)
        fields = term.__dict__
        fields["_kept"] = (kept, path, fields.pop("body"))  # the digest, out of ``body``: read on first use
        return term

    def __getattr__(self, name: str):
        fields = self.__dict__
        if name != "body" or "_kept" not in fields:
            raise AttributeError(name)
        kept, path, digest = fields["_kept"]
        fields["body"] = body = kept.body(self.path, path, digest)
        del fields["_kept"]
        return body

    def __eq__(self, other: object) -> bool:
        return self.to_record() == other.to_record() if isinstance(other, Term) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  (as a Term's: mutable)

    def __reduce__(self):
        return Term.from_record, (self.to_record(),)


class _KeptBody:
    """A body kept apart, as its digest, in the last build's record of an edited
    term (``Change.previous``): equal to the body it was made from and to no
    other, so ``incremental.body_only`` still tells a changed body from a file
    saved unchanged."""

    __slots__ = ("digest",)

    def __init__(self, digest: bytes):
        self.digest = digest

    def __eq__(self, other: object) -> bool:
        return _digest(other) == self.digest if isinstance(other, str) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return _digest(other) != self.digest if isinstance(other, str) else NotImplemented

    __hash__ = None  # type: ignore[assignment]


def _comparable(record: tuple | None) -> tuple | None:
    """``record`` with a body kept apart as a ``_KeptBody``, which compares with a body."""
    if record is None or len(record) != len(RECORD_FIELDS) or not isinstance(record[_BODY_AT], bytes):
        return record
    return (*record[:_BODY_AT], _KeptBody(record[_BODY_AT]), *record[_BODY_AT + 1:])
