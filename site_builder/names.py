"""Resolve what authors write ("Inference", "output tokens", an alias) to a slug."""

from __future__ import annotations

import re
from typing import Iterable, Protocol


class Named(Protocol):
    """Anything with a slug, a title and aliases: a term, or a published glossary's entry."""

    slug: str
    title: str
    aliases: list[str]


SEPARATORS = re.compile(r"[\s_-]+")
"""What one space stands for in a name's key: runs of whitespace, hyphens and underscores."""


def normalise(name: str) -> str:
    """Case-insensitive, whitespace-, hyphen- and underscore-insensitive key."""
    folded = name.casefold()
    if folded.isascii():
        # Every slug, and most titles and aliases: str.split splits where \s
        # does (the same characters, str.isspace) at a quarter of the regex's
        # cost, hyphens and underscores made spaces first; a name is keyed some
        # 45,000 times a 10,000-term build (the slugs in ``NameIndex``, in the
        # serial part between the load and the markdown workers).
        if "-" in folded or "_" in folded:
            folded = folded.replace("-", " ").replace("_", " ")
        return " ".join(folded.split())
    return " ".join(SEPARATORS.split(folded)).strip()


class NameIndex:
    """Every name a term answers to: its slug, its title and its aliases."""

    def __init__(self, terms: Iterable[Named], dropped: Iterable[Named] = ()):
        """``dropped``: term files that did not load (``load.content.Dropped``).
        Their names resolve too, after every loaded term's, so a link to one is
        not an "unknown term" in every page that has it: the file's own
        problem says what is wrong, once (``validate.check_dropped``)."""
        self.by_name: dict[str, str] = {}
        self.slugs: set[str] = set()
        for group in (terms, dropped):
            for term in group:
                self.slugs.add(term.slug)
                for name in (term.slug, term.title, *term.aliases):
                    if key := normalise(name):  # a title that failed its check is ""
                        self.by_name.setdefault(key, term.slug)

    @classmethod
    def from_parts(cls, by_name: dict[str, str], slugs: list[str]) -> "NameIndex":
        """An index rebuilt from a saved ``by_name`` and slug list (see ``incremental``)."""
        index = cls(())
        index.by_name = dict(by_name)
        index.slugs = set(slugs)
        return index

    def resolve(self, name: str) -> str | None:
        """The slug ``name`` refers to, trying simple plurals last; None when unknown."""
        key = normalise(name)
        if key in self.by_name:
            return self.by_name[key]
        candidates = [key + "s"]
        for suffix, replacement in (("ies", "y"), ("es", ""), ("s", "")):
            if key.endswith(suffix):
                candidates.append(key[: -len(suffix)] + replacement)
        for candidate in candidates:
            if candidate in self.by_name:
                return self.by_name[candidate]
        return None

    def digest_material(self) -> str:
        """A stable text of the whole mapping, for cache keys."""
        return "\n".join(f"{k}\t{v}" for k, v in sorted(self.by_name.items()))


SPHINX_INVENTORY_LINE = re.compile(r"(.+?)\s+(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)")
"""How Sphinx splits an ``objects.inv`` line (``sphinx.util.inventory``, 1.x to 9.x):
name, role, priority, URI, display name. The name is matched lazily, so a name
with spaces that holds ``<word> <integer>`` ends early, and the rest of the line
becomes another entry (``Model std:label -1 //evil.example/pwn x``)."""


def inventory_name(name: str) -> str:
    """``name`` as ``objects.inv`` writes a term: lower case, whitespace collapsed."""
    return " ".join(name.lower().split())


def inventory_name_problem(name: str) -> tuple[str, bool] | None:
    """Why a title or alias cannot be a term in ``objects.inv`` (None: it can), and
    whether its line would forge another entry (Sphinx reads a role with a ':' as
    one; without, it skips the line and the name only goes missing)."""
    written = inventory_name(name)
    match = SPHINX_INVENTORY_LINE.match(f"{written} std:term -1 slug/ -")
    if match is not None and match.group(1) == written:
        return None
    forges = match is not None and ":" in match.group(2)
    found = f"{match.group(1)!r} with role {match.group(2)!r}" if match else "no entry"
    return (f"Sphinx would read it in objects.inv as {found}, since a word followed by a number "
            "ends a name there; write the number otherwise (e.g. with a hyphen)", forges)
