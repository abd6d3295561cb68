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


def _render_chunk(bounds: tuple[int, int]) -> list[tuple[str, RenderedBody]]:
    assert _worker is not None
    if parallel.orphaned():  # the build is gone (killed): nobody wants this chunk
        os._exit(1)
    return [(slug, _worker.render(body, line, media, slug)) for slug, body, line, media in _items[bounds[0]:bounds[1]]]


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
    workers and this process render them (``_shared_render``): ``meanwhile()``
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
        rendered = _shared_render(len(items), jobs - 1, meanwhile, lambda: _renderer(names, config, reserved_ids),
                                  (names, config, reserved_ids))
    finally:
        _items = ()
    return {slug: body for part in rendered for slug, body in part}


SHARE_PER_SLICE = 4
"""Each slice is this fraction (1 / ``SHARE_PER_SLICE``) of the bodies left for each
rendering process (``slice_bounds``): large slices first, small ones at the end."""

SMALLEST_SLICE = 20
"""Bodies in the last slices (~10-20 ms of work): what one process may finish after the other."""

OUTSTANDING_PER_WORKER = 2
"""Slices handed to each worker ahead: one to render, one queued, so it never waits."""


def _shared_render(count: int, workers: int, meanwhile: Callable[[], None], here: Callable[[], BodyRenderer],
                   initargs: tuple) -> list[list[tuple[str, RenderedBody]]]:
    """Render the ``count`` bodies of ``_items`` with ``workers`` forked workers
    and this process: each slice's (slug, rendered body) pairs, in order.

    As the page stage does (``render.pages._shared_render``): this process forks
    ``workers`` (``jobs - 1``), runs ``meanwhile()``, then renders slices itself,
    taking the next slice no worker was given after topping the workers up to
    ``OUTSTANDING_PER_WORKER`` slices each. On ``jobs`` cores ``jobs`` busy
    processes do no less than ``jobs`` workers beside a waiting parent, and what
    this process renders is neither pickled by a worker nor unpickled here
    (docs/performance.md, "Markdown stage (issue 40, fourth round)")."""
    bounds = slice_bounds(count, workers + 1)
    futures: dict[int, object] = {}  # slice -> its worker's future
    mine: dict[int, list] = {}  # slice -> its bodies, for those rendered here
    renderer: BodyRenderer | None = None
    taken = 0  # slices handed out so far, to a worker or to this process

    def top_up() -> None:
        nonlocal taken
        running = sum(1 for future in futures.values() if not future.done())
        while taken < len(bounds) and running < workers * OUTSTANDING_PER_WORKER:
            futures[taken] = pool.submit(_render_chunk, bounds[taken])
            taken, running = taken + 1, running + 1

    with parallel.pool(workers, _init_worker, initargs) as pool:
        top_up()  # forks the workers: they start before meanwhile()
        meanwhile()
        while True:
            top_up()
            if taken == len(bounds):
                break
            if renderer is None:
                renderer = here()
            start, end = bounds[taken]
            mine[taken] = [(slug, renderer.render(body, line, media, slug)) for slug, body, line, media in _items[start:end]]
            taken += 1
        return [mine.pop(index) if index in mine else futures.pop(index).result() for index in range(len(bounds))]


def slice_bounds(count: int, processes: int) -> list[tuple[int, int]]:
    """(start, end) of each slice of ``count`` bodies for ``processes`` processes, in order.

    Guided: each slice is a ``1 / SHARE_PER_SLICE`` share of what is left for
    each process, down to ``SMALLEST_SLICE``. At the end one process waits
    for the slices the other still holds (up to ``OUTSTANDING_PER_WORKER``):
    with equal slices large enough to cost nothing to hand over (~300 bodies
    at 10,000 terms) that could be ~0.3 s of wall time on the realistic mix;
    with these, the slices handed out last are a few dozen bodies (39 slices
    at 10,000 terms on two processes)."""
    bounds, start = [], 0
    while start < count:
        step = max(SMALLEST_SLICE, -(-(count - start) // (processes * SHARE_PER_SLICE)))
        bounds.append((start, min(start + step, count)))
        start += step
    return bounds
