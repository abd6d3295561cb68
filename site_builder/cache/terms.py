"""The load stage, memoised: term files whose size and mtime did not change
are not parsed again, and what changed since the last finished build is
worked out for the fast path (``incremental``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import Problem
from ..load import content
from ..load.content import Term
from ..load.preload import Preload
from . import store as cache
from .incremental import Change

TABLE = "terms"
"""Cache table: shown path -> (file stamp, term record), as the last finished build left it."""


@dataclass
class LoadedTerms:
    """The terms of one build, and what changed since the last finished build."""

    terms: list[Term]
    problems: list[Problem]
    change: Change
    remember: Callable[[], None]
    """Save these terms as the last finished build's; call it only when the build finished."""


def load_cached(folder: Path, store: cache.BuildCache, changed: frozenset[str] | None,
                preloaded: Preload | None, meanwhile: Callable[[], None]) -> LoadedTerms:
    """Load the terms of ``folder``, parsing only the files the cache has no record of.

    ``changed``: as ``BuildOptions.changed``. ``preloaded``: the loaders started
    ahead (``preload.start``), used only when this load would start from
    nothing (its result is then exactly this load's); ``meanwhile()`` runs
    while waiting for them.
    """
    previous = store.table(TABLE)
    known = dict(previous)  # updated by this load
    memo = store.memo.setdefault(TABLE, {})
    fresh = not previous and not memo and changed is None
    loaded = None
    if preloaded is not None and fresh and preloaded.content == folder:
        loaded = preloaded.result(meanwhile=meanwhile)
    elif preloaded is not None:
        preloaded.discard()  # not wanted: stop the loaders before they take CPU from this build
    if loaded is not None:
        terms, problems, known = loaded
    else:
        terms, problems = content.load_terms(folder, known, memo=memo, changed=changed)
    reread = {shown for shown, entry in known.items() if entry is not previous.get(shown)}

    def remember() -> None:
        # Only after a successful build: the fast path compares the next
        # build's terms with those the last *finished* build used.
        if reread or set(known) != set(previous):
            store.save_table(TABLE, known)

    change = Change(
        edited=[t for t in terms if t.path in reread],
        previous={shown: entry[1] for shown, entry in previous.items()},
        same_files=set(known) == set(previous),
    )
    return LoadedTerms(terms, problems, change, remember)
