"""Markdown stage: render every term body, spread over the available cores.

A plain function from data to data: terms in, rendered bodies out. It knows
nothing of the build cache; ``cache.bodies`` wraps it, rendering only the
bodies it has no entry for.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Sequence

from .. import parallel
from ..load.config import SiteConfig
from ..load.content import Term
from .render import BodyRenderer, RenderedBody
from ..names import NameIndex

PARALLEL_THRESHOLD = 200
"""Below this many terms, starting worker processes costs more than it saves."""

RESULT_SWITCH_INTERVAL = 0.0002
"""Seconds (``sys.setswitchinterval``) this process's thread renders before it lets the
pool's result thread run, while the workers render too (Python's default: 0.005).

A worker sends each slice's bodies (~2-3 MB for 1,250) through a pipe that holds
64 KiB, and waits, sending, until this process has read all of it: the pool's
thread reads it one 64 KiB piece at a time and needs the interpreter for each
piece, which this process's rendering held for a whole switch interval. At the
default 5 ms, a worker sat idle ~1 s of a 3.5 s stage at 10,000 terms, and this
process rendered the bodies it did not (docs/performance.md, "Markdown stage
(issue 40, seventh round)"). The thread asks only when a piece is in, so a
shorter interval costs nothing while no result arrives."""

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


def _render_chunk(bounds: tuple[int, int]) -> list[tuple[str, RenderedBody]]:
    assert _worker is not None
    if parallel.orphaned():  # the build is gone (killed): nobody wants this chunk
        os._exit(1)
    return _render_slice(_worker, *bounds)


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

        interval = sys.getswitchinterval()
        sys.setswitchinterval(min(interval, RESULT_SWITCH_INTERVAL))
        try:
            parallel.share(parallel.guided_slices(len(items), jobs), jobs - 1, meanwhile, here, _render_chunk,
                           results.update, _init_worker, (names, config, reserved_ids))
        finally:
            sys.setswitchinterval(interval)
    finally:
        _items = ()
    return results

