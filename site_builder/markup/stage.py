"""Markdown stage: render every term body, spread over the available cores.

A plain function from data to data: terms in, rendered bodies out. It knows
nothing of the build cache; ``cache.bodies`` wraps it, rendering only the
bodies it has no entry for.
"""

from __future__ import annotations

import mmap
import os
import pickle
from typing import Callable, Sequence

from .. import parallel
from ..load.config import SiteConfig
from ..load.content import Term
from .render import BodyRenderer, Link, RenderedBody
from ..names import NameIndex

PARALLEL_THRESHOLD = 200
"""Below this many terms, starting worker processes costs more than it saves."""

_worker: BodyRenderer | None = None
_items: Sequence[tuple[str, str, int, dict]] = ()
"""What forked workers inherit to render, and this process renders its slices of:
(slug, body, first line, files); see ``render_bodies``."""
_as_link = tuple.__new__  # Link(*fields) without the per-call overhead of NamedTuple.__new__
_result_files: dict[int, int] = {}
"""Slice start -> the in-memory file a worker writes that slice's bodies to (``_sent``)."""


def _renderer(names: NameIndex, config: SiteConfig, reserved_ids: frozenset[str]) -> BodyRenderer:
    """The body renderer ``config`` asks for (here, or in a worker)."""
    return BodyRenderer(names, config.pretty_urls, config.allow_raw_html, reserved_ids=reserved_ids,
                        media_mb=config.media_max_mb, autolink_unit=config.autolink_unit_or_none)


def _init_worker(names: NameIndex, config: SiteConfig, reserved_ids: frozenset[str]) -> None:
    global _worker
    _worker = _renderer(names, config, reserved_ids)


def _render_chunk(bounds: tuple[int, int]) -> list[tuple[str, RenderedBody]] | int:
    assert _worker is not None
    if parallel.orphaned():  # the build is gone (killed): nobody wants this chunk
        os._exit(1)
    return _sent(_render_slice(_worker, *bounds), bounds[0])


def _sent(rendered: list[tuple[str, RenderedBody]], start: int) -> list[tuple[str, RenderedBody]] | int:
    """In a worker: ``rendered`` written to the slice's result file, and its size (what
    the pool sends back); ``rendered`` itself where there is no such file.

    Through the pool, a slice's bodies (~2-3 MB for 1,250) go down a pipe that holds
    64 KiB, read one piece at a time by the build process's pool thread, which needs
    the interpreter for each piece while the build process renders: the worker waited,
    sending, ~1 s of a 3.5 s stage at 10,000 terms (docs/performance.md, "Markdown
    stage (issue 40, seventh round)"). Written to a file it costs the worker a copy
    in memory, and the build process reads it at once (``_received``)."""
    descriptor = _result_files.get(start)
    if descriptor is None:
        return rendered
    # As plain tuples: pickling the dataclass and its NamedTuple links cost ~2x (dumps)
    # and ~2.5x (loads and rebuilding) of these, ~14 us a body on this machine.
    rows = [(slug, body.html, body.anchors, [tuple(link) for link in body.links], body.problems, body.headings,
             body.opening, body.marker_line) for slug, body in rendered]
    data = pickle.dumps(rows, pickle.HIGHEST_PROTOCOL)
    with memoryview(data) as view:
        written = 0
        while written < len(data):
            written += os.pwrite(descriptor, view[written:], written)
    return len(data)


def _received(result: list[tuple[str, RenderedBody]] | int, start: int) -> list[tuple[str, RenderedBody]]:
    """In the build process: a slice's bodies, from a worker's ``_sent`` or rendered here.
    Its file is emptied then (its memory freed, though other workers hold it open too)."""
    if not isinstance(result, int):
        return result
    descriptor = _result_files[start]
    try:
        with mmap.mmap(descriptor, result, access=mmap.ACCESS_READ) as mapped:
            rows = pickle.loads(mapped)
    finally:
        os.ftruncate(descriptor, 0)
    return [(slug, RenderedBody(html, anchors, [_as_link(Link, link) for link in links], problems, headings,
                                opening, marker_line))
            for slug, html, anchors, links, problems, headings, opening, marker_line in rows]


def _result_file() -> int | None:
    """An in-memory file no path leads to, or None where there is none (not Linux)."""
    try:
        return os.memfd_create("site_builder-markup", os.MFD_CLOEXEC)
    except (AttributeError, OSError):  # pragma: no cover - no memfd: the pool's pipe carries the bodies
        return None


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
    # fork: workers inherit the imported modules, the bodies and the result files
    # (set before the first submit forks them), so start-up costs milliseconds, only
    # the bounds of each slice are sent, and only the size of its bodies comes back.
    _items = items
    cuts = parallel.guided_slices(len(items), jobs)
    try:
        for start, _end in cuts:
            descriptor = _result_file()
            if descriptor is None:
                break
            _result_files[start] = descriptor
        results: dict[str, RenderedBody] = {}
        renderer: list[BodyRenderer] = []  # this process's, made when it takes its first slice

        def here(start: int, end: int) -> list[tuple[str, RenderedBody]]:
            if not renderer:
                renderer.append(_renderer(names, config, reserved_ids))
            return _render_slice(renderer[0], start, end)

        collected = iter(cuts)  # share collects in the slices' order

        def collect(result: list[tuple[str, RenderedBody]] | int) -> None:
            results.update(_received(result, next(collected)[0]))

        parallel.share(cuts, jobs - 1, meanwhile, here, _render_chunk, collect, _init_worker,
                       (names, config, reserved_ids))
    finally:
        _items = ()
        for descriptor in _result_files.values():
            os.close(descriptor)
        _result_files.clear()
    return results

