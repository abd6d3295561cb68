"""Resolve what authors write ("Inference", "output tokens", an alias) to a slug."""

from __future__ import annotations

import re
from typing import Iterable, Protocol


class Named(Protocol):
    """Anything with a slug, a title and aliases: a term, or a published glossary's entry."""

    slug: str
    title: str
    aliases: list[str]


def normalise(name: str) -> str:
    """Case-insensitive, whitespace-, hyphen- and underscore-insensitive key."""
    return " ".join(re.split(r"[\s_-]+", name.casefold())).strip()


class NameIndex:
    """Every name a term answers to: its slug, its title and its aliases."""

    def __init__(self, terms: Iterable[Named]):
        self.by_name: dict[str, str] = {}
        self.slugs: set[str] = set()
        for term in terms:
            self.slugs.add(term.slug)
            for name in (term.slug, term.title, *term.aliases):
                self.by_name.setdefault(normalise(name), term.slug)

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
