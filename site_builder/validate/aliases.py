"""Aliases are public addresses: which ones get a redirect page, and what stops the others.

Every alias gets ``/<alias-slug>/`` (``outputs.redirects`` writes the page).
An alias slug that is some term's own slug is an error (the redirect would
shadow a real page); one shared by aliases of two different terms is a
warning and gets no redirect (it would be ambiguous); one naming a folder the
build writes itself is a warning. The validate stage reports these
(``check_aliases``); the outputs stage writes the redirects ``plan_redirects`` keeps.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import operator
import re
import unicodedata
from typing import Iterable, Iterator, NamedTuple

from ..load.content import Term
from ..errors import Problem
from ..names import normalise

RESERVED = frozenset({"assets", "embed"})
"""Top-level folders the build writes itself; no redirect may take their place."""


_ASCII_RUN = re.compile(r"[a-z0-9]+")


def alias_slug(name: str) -> str:
    """The URL slug of an alias: ASCII lowercase letters and digits joined by single hyphens."""
    if name.isascii():
        # What the general case gives ASCII (NFKD leaves it as it is, casefold() is
        # lower(), no combining marks), at a fraction of the cost: every build and
        # every edit's fast path slugs every alias (15,000 on the 10,000-term
        # realistic mix; this repository's aliases are ASCII too).
        return "-".join(_ASCII_RUN.findall(name.lower()))
    folded = unicodedata.normalize("NFKD", name.casefold())
    ascii_only = "".join(c for c in folded if not unicodedata.combining(c)).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", ascii_only))


class Redirect(NamedTuple):
    """``/<source>/`` leads to the page of term ``target``.

    A named tuple, not a frozen dataclass: an edit's process takes up the last
    build's plan (``adopt_plan``), 15,000 redirects at 10,000 realistic terms, and
    a frozen dataclass's ``__init__`` (``object.__setattr__`` per field) made them
    ~10x slower than ``tuple.__new__`` (~15-30 ms an edit)."""

    source: str
    target: str
    alias: str


_last_plan: tuple[tuple, list[Redirect], list[Problem]] | None = None
"""(``plan_key`` of the terms, their redirects, their problems) of the last plan made:
a build asks twice (the validate stage's problems, the outputs stage's redirects),
and at 10,000 terms with 15,000 aliases a plan takes ~0.1 s, a key ~10 ms."""


_held: tuple[list[Term], tuple] | None = None
"""(the terms, ``_last_plan``) while a ``held_plan`` block is open."""


def plan_key(terms: list[Term]) -> tuple:
    """Every field of ``terms`` that ``plan_redirects`` reads, in order: two lists of
    terms with equal keys get the same plan."""
    return tuple((term.slug, term.title, term.path, term.field_lines.get("aliases", 2), tuple(term.aliases))
                 for term in terms)


def plan_redirects(terms: Iterable[Term]) -> tuple[list[Redirect], list[Problem]]:
    """The redirects to write, sorted by source, and the problems that stop others."""
    global _last_plan
    terms = list(terms)
    if (_held is not None and _held[1] is _last_plan and len(terms) == len(_held[0])
            and all(map(operator.is_, terms, _held[0]))):
        return list(_last_plan[1]), list(_last_plan[2])  # the same objects, unchanged (``held_plan``)
    key = plan_key(terms)
    if _last_plan is None or _last_plan[0] != key:
        _last_plan = (key, *_plan(terms))
    return list(_last_plan[1]), list(_last_plan[2])  # lists of their own: a caller may add to them


def plan_record(terms: Iterable[Term]) -> tuple[str, list[tuple], list[tuple]]:
    """The plan of ``terms`` as plain values (their key's digest, the redirects, the
    problems), for a later process to take up with ``adopt_plan``."""
    terms = list(terms)
    redirects, problems = plan_redirects(terms)  # keeps the key it made in _last_plan: not made again here
    key = _last_plan[0] if _last_plan[0] is not None else plan_key(terms)  # (None: a plan taken up on trust)
    return (_digest(key), [(r.source, r.target, r.alias) for r in redirects],
            [(p.path, p.line, p.message, p.severity) for p in problems])


def adopt_plan(terms: Iterable[Term], record: tuple | None,
               trusted: bool = False) -> tuple[list[Redirect], list[Problem]] | None:
    """Take up ``record`` (``plan_record``'s) as the plan of ``terms`` when it was
    made from the same values of every field a plan reads (its key's digest), so
    the next ``plan_redirects`` of these terms does not plan again: a one-body
    edit's process would otherwise plan once (~0.1-0.2 s at 10,000 terms with
    15,000 aliases) to find what the last build found. Returns the plan taken up
    (as ``plan_redirects`` would: the caller need not make the key again), or None.

    ``trusted``: the caller knows ``terms`` hold the very values the record was
    made from (``cache.terms``: the records the build that made it left, and only
    prose changed since), so the key is not made (~5-10 ms at 10,000 terms, and
    it would read four fields of every term). Such a plan is held by
    ``held_plan`` only: any later ``plan_redirects`` outside it plans again."""
    global _last_plan
    if not record or len(record) != 3:
        return None
    terms = list(terms)
    key = None if trusted else plan_key(terms)
    if key is not None and _digest(key) != record[0]:
        return None
    _last_plan = (key, list(map(Redirect._make, record[1])), [Problem(*p) for p in record[2]])
    return list(_last_plan[1]), list(_last_plan[2])


@contextlib.contextmanager
def held_plan(terms: list[Term], record: tuple | None,
              trusted: bool = False) -> Iterator[tuple[list[Redirect], list[Problem]] | None]:
    """``adopt_plan(terms, record)``, and while the block is open, ``plan_redirects``
    of these same term objects, in this order, takes that plan without making its
    key again (~10 ms at 10,000 terms): for a caller that changes none of them
    inside the block (an edit's fast path: its linking outputs and its warnings
    ask after the taking up). Any other terms are planned or keyed as ever.
    ``trusted``: as for ``adopt_plan``."""
    global _held
    plan = adopt_plan(terms, record, trusted)
    if plan is None or _last_plan is None:
        yield plan
        return
    _held = (list(terms), _last_plan)
    try:
        yield plan
    finally:
        _held = None


def _digest(key: tuple) -> str:
    # marshal's version 2: the same bytes for equal values. Later versions write a
    # string by whether it is interned, and an object met twice (or referenced
    # elsewhere) as a back-reference: the terms an edit's process loads from the
    # cache share and intern their strings otherwise than the build that saved the
    # plan, and the plan was not taken up.
    return hashlib.sha256(marshal.dumps(key, 2)).hexdigest()


def _plan(terms: list[Term]) -> tuple[list[Redirect], list[Problem]]:
    slugs = {term.slug: term for term in terms}
    claims: dict[str, list[tuple[Term, str]]] = {}
    problems: list[Problem] = []
    for term in terms:
        line = term.field_lines.get("aliases", 2)
        for alias in term.aliases:
            source = alias_slug(alias)
            if not source or source == term.slug:
                continue  # nothing to redirect from, or the page itself
            owner = slugs.get(source)
            if owner is not None and normalise(alias) in {normalise(n) for n in (owner.slug, owner.title, *owner.aliases)}:
                continue  # a duplicate name: validate.check_terms reports it already
            if owner is not None:
                problems.append(Problem(term.path, line, f"alias {alias!r} would redirect /{source}/, which is the page of term '{owner.slug}' ({owner.path}); drop or reword the alias"))
            elif source in RESERVED:
                problems.append(Problem(term.path, line, f"alias {alias!r} would redirect /{source}/, a folder the build uses itself; no redirect is written for it", "warning"))
            else:
                claims.setdefault(source, []).append((term, alias))
    redirects = []
    for source, owners in sorted(claims.items()):
        # (one owner, one target: no set made for each of the ~15,000 aliases at 10,000 realistic terms)
        if len(owners) > 1 and len({term.slug for term, _ in owners}) > 1:
            names = ", ".join(f"{alias!r} ({term.slug})" for term, alias in owners)
            for term, alias in owners:
                problems.append(Problem(term.path, term.field_lines.get("aliases", 2), f"alias {alias!r} shares the redirect /{source}/ with another term's alias: {names}; no redirect is written for it", "warning"))
            continue
        term, alias = owners[0]
        redirects.append(Redirect(source, term.slug, alias))
    return redirects, problems


def check_aliases(terms: Iterable[Term]) -> list[Problem]:
    """The validate-stage half of ``plan_redirects``: only its problems."""
    return plan_redirects(terms)[1]
