"""The pipeline: load -> validate -> markdown -> compute -> render -> write.

Everything is read and validated before anything is written. Pages are then
rendered into a staging folder beside ``output/`` (never into it) and the
publish stage swaps that folder in atomically; any error stops the build with
``BuildFailed`` and leaves the previous ``output/`` exactly as it was.

A content-addressed cache (``cache/``) lets a rebuild skip parsing,
markdown, explainers, outputs and pages whose inputs did not change. It
wraps the stages rather than being threaded through them: ``cache.terms``
the load, ``cache.bodies`` the markdown, ``cache.explainers`` the compute,
``cache.pages`` and ``cache.outputs`` the render stage; ``cache.incremental``
is the fast path taken when only prose changed, through the same stages.
"""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from . import CACHE_FOLDER, validate
from .cache import bodies as body_cache, incremental
from .cache import explainers as explainer_cache
from .cache import outputs as output_cache
from .cache import pages as page_cache
from .cache import search as search_cache
from .cache import store as cache
from .cache import terms as term_cache
from .integrations.usage import read_usage
from .errors import BuildFailed, Problem
from .explainers import base as explainers
from .load.config import SiteConfig, load_config
from .load.media import read_published
from .load.preload import Preload
from .load.theme import Theme, load_theme
from .markup.images import published as published_media
from .markup.reserved import theme_names
from .load.schema import base_url_problem
from .names import NameIndex
from .outputs import LinkingOutputs
from .parallel import default_jobs
from .publish import InPlace, Staging, ahead, check_output
from .render.pages import compile_templates
from .render.templates import check_templates, theme_environment
from .outputs.site import site_assets, site_renderer


@dataclass
class BuildOptions:
    """What one build is asked to do."""

    content: Path = Path("content")
    output: Path = Path("output")
    config: Path | None = None
    """``site.toml`` anywhere (``--config``); None: ``content/site.toml`` when present."""
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
    """Log how long the stage ``name`` took (the build log, read by benchmarks/bench_ab.py).

    A stage is logged by its package's name (load, validate, markup, explainers,
    render, publish); prepare, search and update are the steps between them.
    Two run inside another and are counted in its time too: validate in markup
    (beside the markdown workers), search in render."""
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    log(f"  {name:<10} {elapsed * 1000:8.1f} ms")


def _raise_if_failing(problems: list[Problem], strict: bool) -> None:
    if any(p.severity == "error" or strict for p in problems):
        raise BuildFailed(problems)  # the warnings too: one run reports everything


def build_site(options: BuildOptions, log: Callable[[str], None] = lambda line: None,
               store: cache.BuildCache | None = None, preloaded: Preload | None = None,
               caller_froze: bool | None = None) -> BuildReport:
    """Run the whole pipeline; raise ``BuildFailed`` with every problem found.

    ``store`` lets a long-lived caller (``serve``) keep the cache in memory
    between builds; by default each build opens the cache folder afresh.
    ``preloaded``: the terms of ``options.content`` being loaded ahead
    (``preload.start``); used when this build would load them from nothing.
    ``caller_froze``: whether the caller froze objects (``gc.freeze``), which
    the build then leaves frozen, unfreezing none of what it froze itself;
    None: asked of ``gc``, whose count walks every frozen object (a caller
    that froze its whole heap, as the command line and serve's worker do, says).
    """
    if caller_froze is None:
        caller_froze = gc.get_freeze_count() > 0
    own = store is None or not options.write
    if own:  # a store of its own (no disk work yet: tables and blobs open on first use)
        store = cache.BuildCache(options.cache_folder() if options.write else None)
    full = False
    try:
        return _build_site(options, log, store, preloaded, check_ahead=own and not options.in_place)
    except BaseException as error:
        full = cache.disk_full(error)
        raise
    finally:
        # The trees' checks made ahead, if any: done or no longer needed. First,
        # so that nothing below that raises leaves the child running.
        ahead.stop()
        if full or store.full:
            # A full disk: the build failed (output/ untouched) or its cache could not
            # be saved. Drop the cache whole, with what this build put in it, so it
            # never stops the next build; it only saves time.
            store.drop()
        if own:
            store.close()  # its SQLite files' descriptors now, not whenever the collector gets to them
        if preloaded is not None:
            preloaded.discard()  # a no-op once its result was taken
        if not caller_froze:
            gc.unfreeze()  # the build froze what it loaded: give a library caller its collector back
        explainers.release(failed=True)  # a no-op unless the build stopped before its explainers stage ended


def _build_site(options: BuildOptions, log: Callable[[str], None], store: cache.BuildCache,
                preloaded: Preload | None, check_ahead: bool = False) -> BuildReport:
    started = time.perf_counter()
    if options.write:
        check_output(options.output)  # refuse a folder we may not replace before any work (or cache write)
        store.check()  # and a plant in the cache folder (files.RefusedPath)
    found_ids: list[frozenset[str]] = []  # the explainers' reserved ids, once looked up

    def overlap() -> None:  # work to do while waiting for workers (the loaders, then the markdown workers)
        if options.write:
            compile_templates()
        if not found_ids:  # (~15-20 ms, imports and entry points: else between the load and the markdown workers)
            found_ids.append(explainer_cache.reserved_ids(store))

    with _stage("load", log), cache.collector_paused():
        if check_ahead and options.write and store.enabled:
            # The trees' checks (~3 stats per output file: the spare, the live site,
            # pages changed by hand) made on the other core while this one loads
            # (a process's own cache only: serve's worker keeps its trees in memory).
            page_cache.check_ahead(options.output, store, options.jobs)
        config, problems = load_config(options.content, options.config)
        if options.base_url is not None and (wrong := base_url_problem(options.base_url)) is not None:
            problems.append(Problem("--base-url", None, wrong))  # no line: it was given on the command line
        else:
            config = config.with_base_url(options.base_url)
        theme, theme_problems = load_theme(options.content, config, options.config)
        problems += theme_problems
        used_in, usage_problems = read_usage(options.content, config.usage_files)  # "Used in" on term pages
        problems += usage_problems
        if theme.templates:  # a syntax error in an override is a content error, found before any work
            problems += check_templates(theme_environment(theme.templates, theme.digest), theme.templates)
        loaded = term_cache.load_cached(options.content, store, options.changed, preloaded, meanwhile=overlap)
        terms = loaded.terms
        problems += loaded.problems
        # What is loaded now lives until the end; the collector need not scan it
        # again and again (at 10,000 terms each full collection costs tens of ms).
        # Frozen before the collector is back on: the allocations counted while
        # it was paused made its first collection after that a full one, over
        # everything just loaded (~0.1 s of a 10,000-term edit).
        gc.freeze()
    # the ids explainers give elements beside a body, and those of the site's own templates and scripts
    if not found_ids:  # (no loaders were waited for)
        found_ids.append(explainer_cache.reserved_ids(store))
    reserved = found_ids[0] | theme_names(theme.templates, theme.assets)

    fast = _fast_path(options, store, config, theme, loaded, problems, reserved, log, used_in)
    if fast is not None:
        fast.seconds = time.perf_counter() - started
        return fast

    # A fresh explainer build waits on workers and imports: start them now,
    # so they run while the build validates and renders the bodies.
    fresh = explainer_cache.uncached(terms, store, config.makes_previews)
    if fresh and not any(p.severity == "error" or options.strict for p in problems):
        # (not when the load already failed the build: the stages below only report)
        # The prepare steps import large libraries (Altair: tens of thousands of
        # objects, no cyclic garbage) that live until the end, as what was loaded:
        # the collector walked them ~100 ms. Frozen before it runs again, or its
        # first young collection walks them all. (Workers forked meanwhile start
        # with it paused: they are short-lived.)
        with _stage("prepare", log), cache.collector_paused():
            explainers.prepare(fresh, options.jobs or default_jobs())
            gc.freeze()

    # No stage stops early: validate and markup run on every term that loaded
    # (a term whose front matter has errors too), so one run reports every
    # problem; the build stops once, below, before anything is written.
    dropped = loaded.dropped

    def validate_terms() -> None:
        # Run while the markdown workers start (the markup stage's meanwhile):
        # nothing there needs its findings, and this process then takes fewer
        # of the bodies, instead of the workers waiting for it (0.1-0.3 s at
        # 10,000 terms, docs/performance.md, "Load and validate stages (issue 40, sixth round)").
        overlap()
        with _stage("validate", log):
            problems.extend(validate.check_terms(terms, dropped))
            problems.extend(validate.check_aliases(terms))
            if not terms and not any(p.severity == "error" for p in problems):
                problems.append(Problem(str(options.content / "terms"), None, "no term files (*.md) found"))

    with _stage("markup", log):
        names = NameIndex(terms, dropped)
        bodies, body_keys = body_cache.render_cached(terms, config, names,
                                                     store=store if options.write and store.enabled else None,
                                                     jobs=options.jobs or default_jobs(), meanwhile=validate_terms,
                                                     reserved_ids=reserved)
        problems += validate.check_links(terms, bodies, dropped)
        problems += validate.check_dropped(terms, bodies, dropped)
        backlinks = validate.backlinks(terms, bodies)
        problems += validate.check_orphans(terms, backlinks) if config.report_orphans else []
        _raise_if_failing(problems, options.strict)
    report = BuildReport(terms=len(terms), warnings=[p for p in problems if p.severity == "warning"])

    def search_index(jobs: int) -> dict[str, bytes]:
        with _stage("search", log):
            return search_cache.index_files(
                store, config, terms, bodies, body_keys,
                fill_html=lambda slugs: body_cache.fill_html(slugs, bodies), jobs=jobs)

    # The search index needs the bodies and nothing after them. A fresh
    # explainers stage mostly waits for its converter worker (its charts):
    # made first, the index takes the place of part of that wait (~0.1-0.2 s of
    # a first build). Otherwise each page's entries are made beside the page,
    # by the page workers, and the files from them once the pages are done
    # (below): indexing was a stage of its own after the render stage, its
    # single-process part idling a core (docs/performance.md, "Search off the
    # critical path").
    searched = search_index(options.jobs or default_jobs()) if fresh and options.write else None

    assets = site_assets(theme)
    with _stage("explainers", log):
        built = {term.slug: explainer_cache.build_cached(term, assets, store, config.makes_previews)
                 for term in terms if term.explainer}
        explainers.release()  # before the render stage forks its workers

    if not options.write:
        # What the preview cards would warn about, found without drawing them.
        fonts = LinkingOutputs(config, terms, bodies, backlinks, built, assets).font_problems() if config.makes_previews else []
        _raise_if_failing(problems + fonts, options.strict)
        report.warnings += fonts
        report.seconds = time.perf_counter() - started
        return report

    with _stage("render", log):
        # What the stages so far made (the bodies above all) lives until the end:
        # out of the collector's sight, as the load's (above). Else each full
        # collection this process makes while it renders, hands the search entries
        # on and assembles them walked it all again: five or so at 10,000 terms,
        # ~0.1-0.4 s each (docs/performance.md, "Render stage and search tail").
        gc.freeze()
        staging = Staging(options.output)
        try:
            renderer, linking = site_renderer(config, terms, bodies, backlinks, built, assets, theme, used_in)
            manifest = store.table("pages")

            def site_files() -> None:  # while forked workers render the term pages
                for relative, data in {**assets.files, **output_cache.site_files(linking, store, config, terms, bodies,
                                                                                 options.jobs or default_jobs())}.items():
                    staging.add(relative, data)
                for relative, path in published_media(terms, config.media_max_mb).items():  # docs/content.md
                    staging.add(relative, read_published(path, relative))

            indexer = (search_cache.Indexer(store, config, terms, body_keys, bodies)
                       if searched is None and search_cache.enabled(config) else None)
            fresh, reused, entries = page_cache.write_pages(
                staging, renderer, terms, bodies, body_keys, backlinks, built, manifest,
                jobs=options.jobs or default_jobs(), keyed=store.enabled,
                fill_html=lambda slugs: body_cache.fill_html(slugs, bodies),
                meanwhile=site_files, also=indexer.entries if indexer is not None else None,
                collect=indexer.take if indexer is not None else None)  # assembled as the slices come in
            if indexer is not None:
                with _stage("search", log):  # what is left of it: the files from the pages' entries
                    searched = indexer.files(bodies, lambda slugs: body_cache.fill_html(slugs, bodies),
                                             options.jobs or default_jobs(), made=entries)
            for relative, data in (searched or {}).items():
                staging.add(relative, data)
            # Known only once the previews are made (which characters no font
            # has): under --strict it fails the build as any warning does,
            # before anything is written.
            _raise_if_failing(problems + linking.preview_problems, options.strict)
        except BaseException:
            staging.abort()
            raise
        report.warnings += linking.preview_problems

    with _stage("publish", log):
        stats = staging.commit()
        page_cache.remember_files(store, options.output, manifest, fresh, reused, staging.paths)
        state = incremental.remember(store, config, theme, body_cache.shared_body_key(config, names, reserved),
                                     names, body_keys, backlinks, reserved, used_in, terms) if store.enabled else None
        loaded.remember(state)  # (after the state: a build stopped between the two is never trusted)
    report.written, report.unchanged = stats.written, stats.unchanged
    report.cache_failure = store.failure
    report.seconds = time.perf_counter() - started
    return report


def _fast_path(options: BuildOptions, store: cache.BuildCache, config: SiteConfig, theme: Theme,
               loaded: term_cache.LoadedTerms,
               problems: list[Problem], reserved: frozenset[str], log: Callable[[str], None],
               used_in: dict) -> BuildReport | None:
    """When only prose changed since the last finished build, update just the
    pages it touches (``cache.incremental``) and report; else None, having
    written nothing. The cross-term checks would find what they found then
    (nothing: it finished)."""
    edited = incremental.body_only(loaded.change) if options.write and store.enabled else None
    if edited is None or any(p.severity == "error" or options.strict for p in problems):
        return None
    # The collector paused for the whole update: it makes ~10^5-10^6 containers (the
    # cache tables, the trees' records and path sets) and no cyclic garbage to
    # speak of, and its ~100 young collections walked them for nothing (~20-35 ms
    # of a 10,000-term realistic edit: docs/performance.md, "One-body edit (issue
    # 40, sixth round)"). Frozen before it is back on when the update is done (the
    # build then ends), or its first collection would walk them all at once.
    with _stage("update", log), cache.collector_paused():
        writer = InPlace(options.output) if options.in_place else Staging(options.output)
        try:
            result = incremental.rebuild(store, config, theme, loaded.terms, edited, writer,
                                         lambda term, assets: explainer_cache.build_cached(
                                             term, assets, store, config.makes_previews),
                                         options.strict, log, reserved, used_in, loaded.plan)
        except BaseException:
            writer.abort()
            raise
        if result is not None:
            gc.freeze()
    if result is None:
        writer.release()  # untouched: the full build claims it again when it writes
        return None
    stats, warnings, state = result
    loaded.remember(state)
    return BuildReport(terms=len(loaded.terms), written=stats.written, unchanged=stats.unchanged,
                       warnings=[p for p in problems if p.severity == "warning"] + warnings,
                       cache_failure=store.failure)

