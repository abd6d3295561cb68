"""The pipeline: load -> validate -> markdown -> compute -> render -> write.

Everything is read and validated before anything is written. Pages are then
rendered into a staging folder beside ``output/`` (never into it) and the
write stage swaps that folder in atomically; any error stops the build with
``BuildFailed`` and leaves the previous ``output/`` exactly as it was.

A content-addressed cache (``cache/``) lets a rebuild skip parsing,
markdown, explainers and pages whose inputs did not change. It wraps the
stages (``cache.bodies`` the markdown stage, ``cache.pages`` the render
stage) rather than being threaded through them.
"""

from __future__ import annotations

import gc
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from . import CACHE_FOLDER, validate
from .cache import bodies as body_cache, incremental
from .cache import pages as page_cache
from .cache import store as cache
from .errors import BuildFailed, Problem
from .explainers import base as explainers
from .load import content
from .load.config import SiteConfig, load_config
from .load.preload import Preload
from .names import NameIndex
from .outputs import Linker
from .publish import InPlace, Staging, check_output
from .render.assets import AssetStore
from .render.pages import compile_templates
from .render.site import site_assets, site_renderer


@dataclass
class BuildOptions:
    """What one build is asked to do."""

    content: Path = Path("content")
    output: Path = Path("output")
    base_url: str | None = None
    strict: bool = False
    write: bool = True
    """False for ``check``: validate everything, write nothing."""
    jobs: int | None = None
    """Worker processes for markdown and pages; None: one per core."""
    cache: bool = True
    """False: ignore and do not update the build cache."""
    changed: frozenset[str] | None = None
    """(``serve``) absolute paths of the term files that may have changed since the
    last finished build, as the file watcher saw them; None: check every file."""
    in_place: bool = False
    """True (``serve`` only): the fast path (``incremental``) writes the pages it
    renders straight into the output instead of staging a whole new tree; each
    file is replaced atomically, the site as a whole is not. Full builds stage."""

    def cache_folder(self) -> Path | None:
        """Where the build cache lives: beside the output folder."""
        return self.output.absolute().parent / CACHE_FOLDER if self.cache else None


@dataclass
class BuildReport:
    """What a finished build did; printed as the build log."""

    terms: int = 0
    written: int = 0
    unchanged: int = 0
    warnings: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
    cache_failure: str | None = None
    """Why the build cache could not be saved (the site itself was built), or None."""


@contextmanager
def _stage(name: str, log: Callable[[str], None]) -> Iterator[None]:
    """Log how long the stage ``name`` took (the build log, read by benchmarks/bench_ab.py)."""
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    log(f"  {name:<9} {elapsed * 1000:8.1f} ms")


def _raise_if_failing(problems: list[Problem], strict: bool) -> None:
    if any(p.severity == "error" or strict for p in problems):
        raise BuildFailed(problems)  # the warnings too: one run reports everything


def build_site(options: BuildOptions, log: Callable[[str], None] = lambda line: None,
               store: cache.BuildCache | None = None, preloaded: Preload | None = None) -> BuildReport:
    """Run the whole pipeline; raise ``BuildFailed`` with every problem found.

    ``store`` lets a long-lived caller (``serve``) keep the cache in memory
    between builds; by default each build opens the cache folder afresh.
    ``preloaded``: the terms of ``options.content`` being loaded ahead
    (``preload.start``); used when this build would load them from nothing.
    """
    caller_froze = gc.get_freeze_count() > 0
    try:
        return _build_site(options, log, store, preloaded)
    finally:
        if preloaded is not None:
            preloaded.discard()  # a no-op once its result was taken
        if not caller_froze:
            gc.unfreeze()  # the build froze what it loaded: give a library caller its collector back


def _build_site(options: BuildOptions, log: Callable[[str], None], store: cache.BuildCache | None,
                preloaded: Preload | None) -> BuildReport:
    report = BuildReport()
    started = time.perf_counter()
    problems: list[Problem] = []
    if options.write:
        check_output(options.output)  # refuse a folder we may not replace before any work (or cache write)
    if store is None or not options.write:
        store = cache.BuildCache(options.cache_folder() if options.write else None)

    with _stage("load", log), cache.collector_paused():
        config, found = load_config(options.content)
        config = config.with_base_url(options.base_url)
        problems += found
        previous = store.table("terms")  # as the last finished build left it
        known = dict(previous)  # updated by this load
        memo = store.memo.setdefault("terms", {})
        # The loaders ran exactly this load (from nothing), only earlier.
        fresh = not previous and not memo and options.changed is None
        loaded = None
        if preloaded is not None and fresh and preloaded.content == options.content:
            loaded = preloaded.result(meanwhile=compile_templates if options.write else lambda: None)
        elif preloaded is not None:
            preloaded.discard()  # not wanted: stop the loaders before they take CPU from this build
        if loaded is not None:
            terms, found, known = loaded
        else:
            terms, found = content.load_terms(options.content, known, memo=memo, changed=options.changed)
        problems += found
        reread = {shown for shown, entry in known.items() if entry is not previous.get(shown)}

        def remember_terms() -> None:
            # Only after a successful build: the fast path compares the next
            # build's terms with those the last *finished* build used.
            if reread or set(known) != set(previous):
                store.save_table("terms", known)

        change = incremental.Change(
            edited=[t for t in terms if t.path in reread],
            previous={shown: entry[1] for shown, entry in previous.items()},
            same_files=set(known) == set(previous),
        )
    report.terms = len(terms)
    # What is loaded now lives until the end; the collector need not scan it
    # again and again (at 10,000 terms each full collection costs tens of ms).
    gc.freeze()

    # Only prose changed since the last finished build: the fast path. The
    # cross-term checks would find what they found then (nothing: it finished).
    writer = None
    edited = incremental.body_only(change) if options.write and store.enabled else None
    if edited is not None and not any(p.severity == "error" or options.strict for p in problems):
        with _stage("update", log):
            writer = InPlace(options.output) if options.in_place else Staging(options.output)
            try:
                result = incremental.rebuild(store, config, terms, edited, writer,
                                             lambda term, assets: _explainer(term, assets, store),
                                             options.strict, log, explainers.reserved_ids())
            except BaseException:
                writer.abort()
                raise
        if result is None:
            writer.release()  # untouched: the full build below claims it again when it writes
            writer = None
        else:
            stats, warnings = result
            remember_terms()
            report.warnings = [p for p in problems if p.severity == "warning"] + warnings
            report.written, report.unchanged = stats.written, stats.unchanged
            report.cache_failure = store.failure
            report.seconds = time.perf_counter() - started
            return report

    with _stage("validate", log):
        problems += validate.check_terms(terms)
        problems += validate.check_aliases(terms)
        if not terms and not any(p.severity == "error" for p in problems):
            problems.append(Problem(str(options.content / "terms"), 1, "no term files (*.md) found"))
        _raise_if_failing(problems, options.strict)

    with _stage("markdown", log):
        names = NameIndex(terms)
        reserved = explainers.reserved_ids()  # the ids explainers give elements beside a body
        bodies, body_keys = body_cache.render_cached(terms, config, names,
                                                     store=store if options.write and store.enabled else None,
                                                     jobs=options.jobs or default_jobs(),
                                                     meanwhile=compile_templates if options.write else lambda: None,
                                                     reserved_ids=reserved)
        problems += validate.check_links(terms, bodies)
        _raise_if_failing(problems, options.strict)
        backlinks = validate.backlinks(terms, bodies)
    report.warnings = [p for p in problems if p.severity == "warning"]

    assets = site_assets()

    with _stage("compute", log):
        built = {
            term.slug: _explainer(term, assets, store)
            for term in terms if term.explainer
        }

    if not options.write:
        report.seconds = time.perf_counter() - started
        return report

    with _stage("render", log):
        staging = Staging(options.output)
        try:
            renderer, linker = site_renderer(config, terms, bodies, backlinks, built, assets)
            manifest = store.table("pages")

            def site_files() -> None:
                # Runs while forked workers render the term pages.
                stored = store.table("previews")
                previews = _UsageDict(stored)
                for relative, data in {**assets.files, **_linking_files(linker, store, config, terms, bodies),
                                       **linker.previews(previews)}.items():
                    staging.add(relative, data)
                if set(previews) != set(stored) or previews.used != set(previews):  # new images, or unused ones
                    store.save_table("previews", {k: previews[k] for k in previews.used})

            fresh, reused = page_cache.write_pages(
                staging, renderer, terms, bodies, body_keys, backlinks, built, manifest,
                jobs=options.jobs or default_jobs(), keyed=store.enabled,
                fill_html=lambda slugs: body_cache.fill_html(slugs, terms, bodies, body_keys, config, store,
                                                             reserved),
                meanwhile=site_files)
        except BaseException:
            staging.abort()
            raise

    with _stage("write", log):
        stats = staging.commit()
        _remember_files(store, options.output, manifest, fresh, reused, staging.paths)
        if store.enabled:
            incremental.remember(store, config, body_cache.shared_body_key(config, names, reserved), names,
                                 body_keys, backlinks, reserved)
        remember_terms()
    report.written, report.unchanged = stats.written, stats.unchanged
    report.cache_failure = store.failure
    report.seconds = time.perf_counter() - started
    return report


def _explainer(term, assets: AssetStore, store: cache.BuildCache) -> explainers.ExplainerBuild:
    """Build (or fetch from the cache) the explainer a term names.

    An explainer's output depends only on the code and the page it sits on,
    so the code version is its key; the assets it adds are replayed on a hit.
    """
    table = store.table("explainers")
    entry_key = cache.key(cache.code_version(), term.explainer, term.slug)
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

    context = explainers.ExplainerContext(slug=term.slug, root="../", add_asset=add_asset)
    built = explainers.build(term.explainer, context)
    store.save_table("explainers", {**table, entry_key: (built, added)})
    return built


def _linking_files(linker: Linker, store: cache.BuildCache, config: SiteConfig,
                   terms: list, bodies: dict) -> dict[str, bytes]:
    """glossary.json, objects.inv, redirects, sitemap: rebuilt only when what they
    list changed (names, summaries, related terms, headings and anchors), or the
    config or the code; an edit to a body's prose leaves them alone."""
    if not store.enabled:
        return linker.files()
    inputs = cache.key(cache.code_version(), repr(config), repr([
        (t.slug, t.title, t.summary, t.aliases, t.related, bodies[t.slug].anchors, bodies[t.slug].headings)
        for t in terms
    ]))
    table = store.table("linking")
    if inputs in table:
        return table[inputs]
    files = linker.files()
    store.save_table("linking", {inputs: files})
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


def _remember_files(store: cache.BuildCache, output: Path, manifest: dict, fresh: dict[str, str],
                    reused: set[str], paths: set[str]) -> None:
    """Record every output file's size and mtime, with its page key for pages, so
    the next build reuses a page only if its inputs *and* the file on disk are
    unchanged (and the fast path can tell a hand-edited file). A reused page is
    the very file the manifest describes; only the others are looked at."""
    if not store.enabled:
        return
    kept = {}
    for relative in paths:
        if relative in reused:
            kept[relative] = manifest[relative]
            continue
        try:
            info = os.stat(output / relative)
        except OSError:
            continue
        kept[relative] = (fresh.get(relative), info.st_size, info.st_mtime_ns)
    if kept != manifest:
        store.save_table("pages", kept)


def default_jobs() -> int:
    """Worker processes to use by default: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
