"""The site-wide outputs, memoised: glossary.json, objects.inv, redirects,
sitemap and the preview images are made again only when what they show changed."""

from __future__ import annotations

from ..load.config import SiteConfig
from ..load.content import Term
from ..markup.render import RenderedBody
from ..outputs import LinkingOutputs
from . import store as cache

LINKING_TABLE = "linking"
"""Cache table: key of everything the linking files list -> those files."""

PREVIEWS_TABLE = "previews"
"""Cache table: key of a preview image's inputs -> the PNG (``LinkingOutputs.previews``)."""


def site_files(linking: LinkingOutputs, store: cache.BuildCache, config: SiteConfig, terms: list[Term],
               bodies: dict[str, RenderedBody], jobs: int = 1) -> dict[str, bytes]:
    """relative path -> bytes of every output beside the pages, from the cache where it can
    (previews drawn by ``jobs`` workers when many)."""
    stored = store.table(PREVIEWS_TABLE)
    previews = _UsageDict(stored)
    files = {**linking_files(linking, store, config, terms, bodies), **linking.previews(previews, jobs)}
    if set(previews) != set(stored) or previews.used != set(previews):  # new images, or unused ones
        store.save_table(PREVIEWS_TABLE, {k: previews[k] for k in previews.used})
    return files


def linking_files(linking: LinkingOutputs, store: cache.BuildCache, config: SiteConfig,
                  terms: list[Term], bodies: dict[str, RenderedBody]) -> dict[str, bytes]:
    """glossary.json, objects.inv, redirects, sitemap: rebuilt only when what they
    list changed (names, summaries, related terms, headings and anchors), or the
    config or the code; an edit to a body's prose leaves them alone."""
    if not store.enabled:
        return linking.files()
    inputs = cache.key(cache.code_version(), repr(config), repr([
        (t.slug, t.title, t.summary, t.aliases, t.related, bodies[t.slug].anchors, bodies[t.slug].headings)
        for t in terms
    ]))
    table = store.table(LINKING_TABLE)
    if inputs in table:
        return table[inputs]
    files = linking.files()
    store.save_table(LINKING_TABLE, {inputs: files})
    return files


class _UsageDict(dict):
    """A dict that remembers which keys were read or written, to prune a cache table."""

    def __init__(self, data: dict):
        super().__init__(data)
        self.used: set = set()

    def __contains__(self, key) -> bool:
        if super().__contains__(key):
            self.used.add(key)
            return True
        return False

    def __getitem__(self, key):
        self.used.add(key)
        return super().__getitem__(key)

    def __setitem__(self, key, value) -> None:
        self.used.add(key)
        super().__setitem__(key, value)
