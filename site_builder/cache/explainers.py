"""The explainers stage, memoised: an explainer's build is kept by code version.

An explainer's output depends only on the code (its version is part of
``cache.code_version``, ``cache/code.py``), the page it sits on, the options the term sets and
whether the site makes preview images, so those are its key; the
assets it added are kept with it and replayed on a hit.
"""

from __future__ import annotations

from types import MappingProxyType

from ..explainers import base as explainers
from ..load.content import Term
from ..render.assets import AssetStore
from . import code
from . import store as cache

TABLE = "explainers"
"""Cache table: key -> (the explainer's build, the assets it added)."""


def _key(term: Term, previews: bool) -> str:
    # previews: a build without them has no preview image to keep for one with them
    # options: a term's explainer options change what its build step makes
    return cache.key(cache.code_version(), term.explainer, term.slug, "previews" if previews else "",
                     repr(sorted(term.explainer_options.items())))


def reserved_ids(store: cache.BuildCache) -> frozenset[str]:
    """``explainers.reserved_ids()``; with a cache folder, kept with the code
    version's stamps (``code.reserved_ids``): a one-body edit then imports no
    explainer and scans no distribution's entry points."""
    return code.reserved_ids(store.folder) if store.enabled else explainers.reserved_ids()


def uncached(terms: list[Term], store: cache.BuildCache, previews: bool) -> set[str]:
    """The explainers some term names whose build is not in the cache: the ones
    ``build_cached`` will run (what ``explainers.prepare`` gets ready)."""
    table = store.table(TABLE)
    return {term.explainer for term in terms if term.explainer and _key(term, previews) not in table}


def build_cached(term: Term, assets: AssetStore, store: cache.BuildCache,
                 previews: bool) -> explainers.ExplainerBuild:
    """Build the explainer ``term`` names (or take it from the cache), adding its
    assets to ``assets``; ``previews``: whether the site makes preview images
    (``ExplainerContext.previews``)."""
    table = store.table(TABLE)
    entry_key = _key(term, previews)
    hit = table.get(entry_key)
    if hit is not None:
        built, added = hit
        for name, data in added.items():
            assets.add(name, data)
        return built
    added: dict[str, bytes] = {}

    def add_asset(name: str, data: bytes) -> str:
        added[name] = data
        return assets.add(name, data)

    options, _problems = explainers.REGISTRY[term.explainer].options_for(term.explainer_options)  # (validate reported them)
    context = explainers.ExplainerContext(slug=term.slug, root="../", add_asset=add_asset, previews=previews,
                                          options=MappingProxyType(options))
    built = explainers.build(term.explainer, context)
    store.save_table(TABLE, {**table, entry_key: (built, added)})
    return built
