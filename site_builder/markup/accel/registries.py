"""Registries that hand out their sorted items without rebuilding the list each time.

Python-Markdown iterates its registries (preprocessors, block processors,
tree processors, inline patterns, postprocessors) several times per body, and
each ``iter(registry)`` builds a fresh list of the items in priority order
(``markdown.util.Registry.__iter__``). Between bodies nothing registers or
deregisters anything, so the list is the same each time: ``FrozenOrderRegistry``
keeps it until the next ``register``/``deregister`` (the only two methods of
3.11.3's ``Registry`` that change its items or their order; ``util.py`` is
under the digest check of ``upstream``), and iterates a tuple of it.

Iterating yields the same items in the same order as stock; nothing else changes.
"""

from __future__ import annotations

import markdown
from markdown import util

from . import upstream

REGISTRIES = ("preprocessors", "treeprocessors", "inlinePatterns", "postprocessors")
"""The ``Markdown`` attributes holding registries (plus ``md.parser.blockprocessors``)."""


class FrozenOrderRegistry(util.Registry):
    """``markdown.util.Registry`` whose iteration reuses one tuple until the next change."""

    _ordered: tuple | None = None

    def __iter__(self):
        ordered = self._ordered
        if ordered is None:
            self._sort()
            ordered = self._ordered = tuple([self._data[k] for k, _p in self._priority])
        return iter(ordered)

    def register(self, item, name: str, priority: float) -> None:
        self._ordered = None
        super().register(item, name, priority)

    def deregister(self, name: str, strict: bool = True) -> None:
        self._ordered = None
        super().deregister(name, strict)


def install(md: markdown.Markdown) -> bool:
    """Make ``md``'s registries ``FrozenOrderRegistry``s (same items, same order); False when none was."""
    if not upstream.matches():
        return False
    registries = [getattr(md, name, None) for name in REGISTRIES]
    registries.append(getattr(getattr(md, "parser", None), "blockprocessors", None))
    installed = False
    for registry in registries:
        if type(registry) is util.Registry:  # exactly stock: a subclass may iterate its own way
            registry.__class__ = FrozenOrderRegistry
            installed = True
    return installed
