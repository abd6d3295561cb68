"""Markdown stage: render every term body, spread over the available cores.

A plain function from data to data: terms in, rendered bodies out. It knows
nothing of the build cache; ``cache.bodies`` wraps it, rendering only the
bodies it has no entry for.
"""

from __future__ import annotations

import os
from typing import Callable, Sequence

from .. import parallel
from ..load.config import SiteConfig
from ..load.content import Term
from .render import BodyRenderer, RenderedBody
from ..names import NameIndex

PARALLEL_THRESHOLD = 200
"""Below this many terms, starting worker processes costs more than it saves."""

_worker: BodyRenderer | None = None
_items: Sequence[tuple[str, str, int, dict]] = ()
"""What forked workers inherit to render, and this process renders its slices of:
(slug, body, first line, files); see ``render_bodies``."""


def _renderer(names: NameIndex, config: SiteConfig, reserved_ids: frozenset[str]) -> BodyRenderer:
    """The body renderer ``config`` asks for (here, or in a worker)."""
    return BodyRenderer(names, config.pretty_urls, config.allow_raw_html, reserved_ids=reserved_ids,
                        media_mb=config.media_max_mb, autolink_unit=config.autolink_unit_or_none)


def _init_worker(names: NameIndex, config: SiteConfig, reserved_ids: frozenset[str]) -> None:
    global _worker
    _worker = _renderer(names, config, reserved_ids)


def _render_chunk(bounds: tuple[int, int]) -> tuple[tuple[str, str, tuple], ...]:
    """In a worker: a slice's bodies as plain rows, (slug, html, ``RenderedBody.to_record()``).

    Plain values pickle in half the time the dataclass and its ``Link`` tuples
    do, and unpickle and rebuild in 0.4-0.8x (docs/performance.md, "Markdown
    stage (issue 40, seventh round)"); a tuple, where this process's own slices
    are lists, so ``_collected`` knows which to rebuild."""
    assert _worker is not None
    if parallel.orphaned():  # the build is gone (killed): nobody wants this chunk
        os._exit(1)
    return tuple((slug, body.html, body.to_record()) for slug, body in _render_slice(_worker, *bounds))


def _collected(results: dict[str, RenderedBody]) -> Callable[[list | tuple], None]:
    """``parallel.share``'s collect: a slice's bodies into ``results``, a worker's rebuilt from its rows."""
    def collect(slice_result: list | tuple) -> None:
        if isinstance(slice_result, tuple):
            from_record = RenderedBody.from_record
            results.update((slug, from_record(record, html)) for slug, html, record in slice_result)
        else:
            results.update(slice_result)
    return collect


def _render_slice(renderer: BodyRenderer, start: int, end: int) -> list[tuple[str, RenderedBody]]:
    """(slug, rendered body) of ``_items[start:end]``, here or in a worker."""
    return [(slug, renderer.render(body, line, media, slug)) for slug, body, line, media in _items[start:end]]


def render_one(term: Term, names: NameIndex, config: SiteConfig,
               reserved_ids: frozenset[str] = frozenset()) -> RenderedBody:
    """Render one term's body (in this process)."""
    return _renderer(names, config, reserved_ids).render(term.body, term.body_line, term.media, term.slug)


def render_bodies(terms: list[Term], config: SiteConfig, names: NameIndex, jobs: int = 1,
                  meanwhile: Callable[[], None] = lambda: None,
                  reserved_ids: frozenset[str] = frozenset()) -> dict[str, RenderedBody]:
    """slug -> rendered body of every one of ``terms``.

    ``reserved_ids``: ids the pages give elements around the body besides the
    templates' own (the explainers', ``explainers.base.reserved_ids``); no
    heading takes one. With ``jobs`` > 1 and enough terms, ``jobs - 1`` forked
    workers and this process render them (``parallel.share``, in guided slices:
    large first, small at the end, so neither waits long for the other): ``meanwhile()``
    runs here first, while the workers start (before rendering, when there are
    no workers), so the caller's own work overlaps theirs.
    """
    items = [(t.slug, t.body, t.body_line, t.media) for t in terms]
    # Without fork (Windows) workers would get every body pickled: render here.
    if jobs <= 1 or len(items) < PARALLEL_THRESHOLD or not parallel.can_pool():
        meanwhile()
        renderer = _renderer(names, config, reserved_ids)
        return {slug: renderer.render(body, line, media, slug) for slug, body, line, media in items}
    if any("$" in body for _slug, body, _line, _media in items):
        import latex2mathml.converter  # noqa: F401 - once, before forking, not once per worker
    global _items
    # fork: workers inherit the imported modules and the bodies (set before the
    # first submit forks them), so start-up costs milliseconds and only the
    # bounds of each slice are sent.
    _items = items
    try:
        results: dict[str, RenderedBody] = {}
        renderer: list[BodyRenderer] = []  # this process's, made when it takes its first slice

        def here(start: int, end: int) -> list[tuple[str, RenderedBody]]:
            if not renderer:
                renderer.append(_renderer(names, config, reserved_ids))
            return _render_slice(renderer[0], start, end)

        parallel.share(parallel.guided_slices(len(items), jobs), jobs - 1, meanwhile, here, _render_chunk,
                       _collected(results), _init_worker, (names, config, reserved_ids))
    finally:
        _items = ()
    return results

