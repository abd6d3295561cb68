"""Markdown stage: render every term body, spread over the available cores."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Sequence

from .config import SiteConfig
from .content import Term
from .markup.render import BodyRenderer, RenderedBody
from .names import NameIndex

PARALLEL_THRESHOLD = 200
"""Below this many terms, starting worker processes costs more than it saves."""

_worker: BodyRenderer | None = None


def _init_worker(names: NameIndex, pretty_urls: bool, allow_raw_html: bool) -> None:
    global _worker
    _worker = BodyRenderer(names, pretty_urls, allow_raw_html)


def _render_chunk(items: Sequence[tuple[str, str, int]]) -> list[tuple[str, RenderedBody]]:
    assert _worker is not None
    return [(slug, _worker.render(body, line)) for slug, body, line in items]


def render_bodies(terms: list[Term], config: SiteConfig, jobs: int | None = None) -> dict[str, RenderedBody]:
    """slug -> rendered body for every term."""
    names = NameIndex(terms)
    items = [(t.slug, t.body, t.body_line) for t in terms]
    if jobs is None:
        jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if jobs <= 1 or len(items) < PARALLEL_THRESHOLD:
        renderer = BodyRenderer(names, config.pretty_urls, config.allow_raw_html)
        return {slug: renderer.render(body, line) for slug, body, line in items}
    chunk = max(50, len(items) // (jobs * 8))
    chunks = [items[i:i + chunk] for i in range(0, len(items), chunk)]
    # fork: workers inherit the imported modules, so start-up costs milliseconds.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    context = multiprocessing.get_context(method)
    results: dict[str, RenderedBody] = {}
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker,
                             initargs=(names, config.pretty_urls, config.allow_raw_html)) as pool:
        for rendered in pool.map(_render_chunk, chunks):
            results.update(rendered)
    return results
