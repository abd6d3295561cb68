"""The load stage, memoised: term files whose size and mtime did not change
are not parsed again, and what changed since the last finished build is
worked out for the fast path (``incremental``)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import Problem
from ..load import content
from ..load.content import RECORD_FIELDS, Term
from ..load.preload import Preload
from . import store as cache
from .incremental import Change
# (the records as kept: ``cache.kept``, its own module)
from .kept import BODIES, _BODY_AT, _KeptBodies, _KeptTerm, _comparable, _current, _digest, _no_media, _pack, \
    _PACKED, _unpacked

__all__ = ["BODIES", "RECENT", "TABLE", "LoadedTerms", "load_cached", "_KeptBodies", "_KeptTerm"]

TABLE = "terms"
"""Cache table: shown path -> (file stamp, term record, problems, names of a
dropped file, front matter's digest: ``content.LoadedFile.front``), as the last
finished build left it (with ``RECENT`` over it).
Each record holds its body's digest (``_digest``), the body being in ``BODIES``,
and is kept packed (``_pack``): an edit reads the slug and explainer of every
term, and every field of a few only (``_KeptTerm.packed``)."""

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
    remember: Callable[..., None]
    """Save these terms as the last finished build's; call it only when the build finished,
    with the token of the site state whose redirect plan holds for them (``plan``), if any."""
    plan: str | None = None
    """The token of the site state (``incremental.STATE_TABLE``'s ``terms_token``) the
    last finished build saved these records with (None: not known). The fast path runs
    only over that state (not one a build stopped between its two saves left), and
    takes its redirect plan up without comparing every term's fields."""


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
    plan = store.table(RECENT).get("plan") if base is not None else None
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

    def remember(state: str | None = None) -> None:
        # Only after a successful build: the fast path compares the next
        # build's terms with those the last *finished* build used.
        if reread or not same_files or state != plan:
            _save(store, known, base, {**recent, **{shown: known[shown] for shown in reread}},
                  same_files=same_files, kept=kept, plan=state)

    # Only the edited terms' records are compared (``body_only``): the others are not copied.
    before = {shown: _comparable(_unpacked(previous[shown][1])) for shown in reread if shown in previous}
    change = Change(
        edited=[t for t in terms if t.path in reread] if reread else [],
        previous=before,
        same_files=same_files,
    )
    return LoadedTerms(terms, problems, content.gather_dropped(loaded), change, remember, plan)


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
          kept: "_KeptBodies", plan: str | None = None) -> None:
    """Save ``known`` as the last finished build's entries: as ``RECENT`` over the
    same base when the files are the same and few changed since the base; else
    as a new ``TABLE`` with its ``BODIES`` (then ``RECENT`` over it, empty).
    Without a ``RECENT`` over its base (a build stopped between the saves, a
    file lost or damaged) the ``TABLE`` is not read either: the next build
    starts cold. (``RECENT``'s few entries keep their bodies.) ``plan``: the
    ``LoadedTerms.plan`` these entries go with, kept in ``RECENT``."""
    if base is not None and same_files and len(recent) <= max(RECENT_MOST, len(known) // 100):
        store.save_table(RECENT, {"base": base, "entries": recent, "plan": plan})
        return
    tag = os.urandom(8).hex()
    if not store.enabled:  # kept in memory only (``serve`` after its folder was refused): nothing to split
        store.save_table(TABLE, {**known, _BASE: tag})
        store.save_table(RECENT, {"base": tag, "entries": {}, "plan": plan})
        return
    table, bodies = {}, {}
    for shown, entry in known.items():
        record = _unpacked(entry[1])
        if record is not None and len(record) == len(RECORD_FIELDS):
            body = record[_BODY_AT]
            if isinstance(body, bytes):  # kept apart last time: carried over from the last BODIES
                digest, body = body, kept.stored(shown, body)
                if body is None:
                    continue  # lost: left out, so the next build reads the file again
            else:
                digest = _digest(body)
            bodies[shown] = body
            entry = (entry[0], _pack((*record[:_BODY_AT], digest, *record[_BODY_AT + 1:])), *entry[2:])
        table[shown] = entry
    # BODIES first: if the build stops before RECENT names this tag, neither is read.
    store.save_table(BODIES, {"base": tag, "bodies": bodies})
    store.save_table(TABLE, {**table, _BASE: tag})
    store.save_table(RECENT, {"base": tag, "entries": {}, "plan": plan})


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
        if hit is not None and not _no_media(hit[1]) and not _current(hit[1]):
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
        slots[index] = entry = content.load_term_file(file, stamp, _reusable(known.get(file.shown)))
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
        # (The problems a tuple: marshal loads an empty one as the one empty tuple,
        # where 10,000 empty lists were ~0.7 MB of an edit's load.)
        known[entry.shown] = (stamp if settled else None, entry.term.to_record() if entry.term is not None else None,
                              tuple([(p.path, p.line, p.message, p.severity) for p in entry.problems]), entry.names,
                              entry.front)


def _reusable(entry: tuple | None) -> tuple[bytes, tuple] | None:
    """What ``content.load_term_file`` may take a file's fields from when its front
    matter is unchanged: the front matter's digest and the term's record, of an
    entry whose file gave a term and no problem when read; else None."""
    if entry is None or len(entry) < 5 or not entry[4] or entry[1] is None or entry[2]:
        return None
    record = _unpacked(entry[1])
    return (entry[4], record) if len(record) == len(RECORD_FIELDS) else None


def _from_record(file: content.TermFile, hit: tuple, memo: dict, kept: "_KeptBodies") -> content.LoadedFile:
    """The file a cache record describes (the same objects as last time, if remembered)."""
    shown = file.shown
    remembered = memo.get(shown)
    if remembered is not None and remembered[0] is hit:
        return remembered[1]
    record = hit[1]
    if record is None:
        term = None
    elif len(record) == _PACKED:
        term = _KeptTerm.packed(record, kept, file.path, shown)
    elif len(record) == len(RECORD_FIELDS) and isinstance(record[_BODY_AT], bytes):
        term = _KeptTerm.made(record, kept, file.path)
    else:
        term = Term.from_record(record)
    problems = hit[2]
    result = content.LoadedFile(shown, hit[0], term, tuple([Problem(*p) for p in problems]) if problems else (),
                                tuple(hit[3]), hit[4] if len(hit) > 4 else b"")
    memo[shown] = (hit, result)
    return result
