"""Markdown stage: render every term body, spread over the available cores."""

from __future__ import annotations

import os
from typing import Callable, Sequence

from ..cache import store as cache
from .. import parallel
from ..load.config import SiteConfig
from ..load.content import Term
from .render import BodyRenderer, RenderedBody
from ..names import NameIndex

PARALLEL_THRESHOLD = 200
"""Below this many terms, starting worker processes costs more than it saves."""

_worker: BodyRenderer | None = None
_items: Sequence[tuple[str, str, int]] = ()
"""What forked workers inherit to render: (slug, body, first line); see ``_render``."""


def _init_worker(names: NameIndex, pretty_urls: bool, allow_raw_html: bool) -> None:
    global _worker
    _worker = BodyRenderer(names, pretty_urls, allow_raw_html)


def _render_chunk(bounds: tuple[int, int]) -> list[tuple[str, RenderedBody]]:
    assert _worker is not None
    if parallel.orphaned():  # the build is gone (killed): nobody wants this chunk
        os._exit(1)
    return [(slug, _worker.render(body, line)) for slug, body, line in _items[bounds[0]:bounds[1]]]


def shared_body_key(config: SiteConfig, names: NameIndex) -> str:
    """The part of every body key that is the same across the site: code, config, names."""
    return cache.key(cache.code_version(), repr((config.pretty_urls, config.allow_raw_html)), names.digest_material())


def body_key(shared: str, term: Term) -> str:
    """The cache key of ``term``'s rendered body, given ``shared_body_key``."""
    return cache.key(shared, term.body, str(term.body_line))


def body_keys(terms: list[Term], config: SiteConfig, names: NameIndex) -> dict[str, str]:
    """slug -> cache key of its rendered body: everything the HTML depends on."""
    shared = shared_body_key(config, names)
    return {t.slug: body_key(shared, t) for t in terms}


def render_one(term: Term, names: NameIndex, config: SiteConfig) -> RenderedBody:
    """Render one term's body (in this process)."""
    return BodyRenderer(names, config.pretty_urls, config.allow_raw_html).render(term.body, term.body_line)


def render_bodies(
    terms: list[Term],
    config: SiteConfig,
    jobs: int = 1,
    store: "cache.BuildCache | None" = None,
    names: NameIndex | None = None,
    meanwhile: Callable[[], None] = lambda: None,
) -> tuple[dict[str, RenderedBody], dict[str, str]]:
    """(slug -> rendered body, slug -> body key) for every term, reusing cached bodies.

    ``meanwhile()`` runs in this process while the workers render (before
    rendering, when there are no workers).

    Without a ``store`` nothing is cached, and no keys are computed (the dict is empty).

    Bodies taken from the cache come without their HTML (``html`` is None):
    most pages are reused whole, so their HTML is never needed. ``fill_html``
    fetches it for the pages that are rendered again.
    """
    names = names or NameIndex(terms)
    cached = store.table("markdown") if store is not None else {}
    results: dict[str, RenderedBody] = {}
    keys: dict[str, str] = {}
    if cached:
        keys = body_keys(terms, config, names)
        for term in terms:
            record = cached.get(keys[term.slug])
            if record is not None:
                results[term.slug] = RenderedBody.from_record(record)
        todo = [t for t in terms if t.slug not in results]
        fresh = _render(todo, names, config, jobs, meanwhile=meanwhile)
    else:
        # Nothing to reuse (a cold build): hash the bodies while the workers render
        # them; without a store (--no-cache, check) nothing would keep the keys.
        todo = terms
        def key_all() -> None:
            if store is not None:
                keys.update(body_keys(terms, config, names))
            meanwhile()

        fresh = _render(todo, names, config, jobs, meanwhile=key_all)
    results.update(fresh)
    if store is not None and todo:
        store.save_table("markdown", {keys[slug]: body.to_record() for slug, body in results.items()})
        store.blobs.put_many({keys[slug]: body.html for slug, body in fresh.items()}, live=set(keys.values()))
    return results, keys


def fill_html(slugs: list[str], terms: list[Term], bodies: dict[str, RenderedBody], keys: dict[str, str],
              config: SiteConfig, store: "cache.BuildCache | None") -> None:
    """Give the bodies of ``slugs`` their HTML: from the cache, or rendered again if it lost them."""
    missing = [slug for slug in slugs if bodies[slug].html is None]
    if not missing:
        return
    stored = store.blobs.get_many([keys[slug] for slug in missing]) if store is not None else {}
    for slug in missing:
        bodies[slug].html = stored.get(keys[slug])
    lost = {slug for slug in missing if bodies[slug].html is None}
    if lost:
        again = _render([t for t in terms if t.slug in lost], NameIndex(terms), config, jobs=1)
        for slug, body in again.items():
            bodies[slug].html = body.html


def _render(terms: list[Term], names: NameIndex, config: SiteConfig, jobs: int,
            meanwhile: Callable[[], None] = lambda: None) -> dict[str, RenderedBody]:
    """Render ``terms``' bodies; call ``meanwhile()`` in this process while workers run."""
    items = [(t.slug, t.body, t.body_line) for t in terms]
    # Without fork (Windows) workers would get every body pickled: render here.
    if jobs <= 1 or len(items) < PARALLEL_THRESHOLD or not parallel.can_pool():
        meanwhile()
        renderer = BodyRenderer(names, config.pretty_urls, config.allow_raw_html)
        return {slug: renderer.render(body, line) for slug, body, line in items}
    if any("$" in body for _slug, body, _line in items):
        import latex2mathml.converter  # noqa: F401 - once, before forking, not once per worker
    global _items
    chunk = max(50, len(items) // (jobs * 8))
    bounds = [(i, min(i + chunk, len(items))) for i in range(0, len(items), chunk)]
    results: dict[str, RenderedBody] = {}
    # fork: workers inherit the imported modules and the bodies (set before the
    # first submit forks them), so start-up costs milliseconds and only the
    # bounds of each chunk are sent.
    _items = items
    try:
        with parallel.pool(jobs, _init_worker, (names, config.pretty_urls, config.allow_raw_html)) as pool:
            done = pool.map(_render_chunk, bounds)  # submitted now; collected below
            meanwhile()
            for rendered in done:
                results.update(rendered)
    finally:
        _items = ()
    return results
