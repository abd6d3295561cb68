"""The render stage, memoised: which pages to render, and which to keep from the last build.

A page's key hashes everything it shows. When the key matches the page
manifest of the previous build and the file there is untouched (same size
and mtime), the old file is reused instead of rendering it again. The render
stage (``render.pages``) is handed only the pages left to render.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from ..publish import ahead
from . import store as cache

if TYPE_CHECKING:  # (light to import: the command line does, before the build's imports, for check_ahead)
    from ..explainers.base import ExplainerBuild
    from ..load.content import Term
    from ..markup.render import RenderedBody
    from ..render.pages import PageRenderer


def write_pages(
    staging,
    renderer: PageRenderer,
    terms: list[Term],
    bodies: Mapping[str, RenderedBody],
    body_keys: Mapping[str, str],
    backlinks: Mapping[str, list[str]],
    explainers: Mapping[str, ExplainerBuild],
    manifest: Mapping[str, tuple],
    jobs: int = 1,
    fill_html: Callable[[list[str]], None] = lambda slugs: None,
    meanwhile: Callable[[], None] = lambda: None,
    keyed: bool = True,
    also: Callable[[Term, RenderedBody], object] | None = None,
    collect: Callable[[list[tuple[str, object]]], None] | None = None,
) -> tuple[dict[str, str], set[str], dict[str, object]]:
    """Render every page into ``staging`` that the previous build cannot give;
    return (relative path -> page key, the paths reused from the previous
    build without rendering, slug -> ``also(term, body)`` for each page
    rendered, or nothing when ``collect`` takes them as they come: see
    ``render.pages.write_term_pages``).

    The pages left to render get their body HTML from ``fill_html`` first,
    then go to the render stage (``render.pages.write_term_pages`` and
    ``write_site_pages``, by ``jobs - 1`` forked
    workers and this process: ``parallel.share``); ``meanwhile`` runs here
    first, while the workers start.
    ``keyed=False`` (no cache to remember them in): no keys, nothing reused.
    """
    from ..render import pages  # (here: see the imports)

    shared = shared_page_key(renderer) if keyed else ""
    card = card_digests(renderer)
    keys: dict[str, str] = {}
    kept: set[str] = set()
    todo: list[Term] = []

    def key_pages() -> None:
        for term in terms:
            keys[f"{term.slug}/index.html"] = page_key(shared, card, term, bodies[term.slug], body_keys[term.slug],
                                                       backlinks[term.slug], explainers.get(term.slug))

    # With no previous pages (a cold build) nothing can be reused: the keys are
    # only remembered, so they are computed while the workers render.
    key_later = keyed and not manifest
    if not keyed or key_later:
        todo = list(terms)
    else:
        key_pages()
        for term in terms:
            relative = f"{term.slug}/index.html"
            if reuse_page(staging, manifest, relative, keys[relative]):
                kept.add(relative)
            else:
                todo.append(term)
    fill_html([term.slug for term in todo])

    def site_pages() -> None:
        # While the render stage's workers render the term pages: the page keys
        # (of a cold build), and which site pages the previous build cannot give.
        if key_later:
            key_pages()
        if keyed:
            everyone = repr([(t.slug, t.title, t.summary, t.aliases) for t in terms])
            keys["index.html"] = cache.key(shared, "index", everyone)
            keys["404.html"] = cache.key(shared, "404")
        render = []
        for relative in pages.SITE_PAGES:
            if keyed and reuse_page(staging, manifest, relative, keys[relative]):
                kept.add(relative)
            else:
                render.append(relative)
        pages.write_site_pages(staging, renderer, render)
        meanwhile()

    beside = pages.write_term_pages(staging, renderer, todo, bodies, backlinks, explainers, jobs=jobs,
                                    meanwhile=site_pages, also=also, collect=collect)
    return keys, kept, beside


def shared_page_key(renderer: PageRenderer) -> str:
    """The part of every page key that is the same across the site: code, config,
    theme (template overrides and assets), asset URLs."""
    return cache.key(cache.code_version(), repr(renderer.config), renderer.theme.digest,
                     repr(sorted(renderer.assets.urls.items())), repr(sorted(renderer.used_in.items())))


def page_key(shared: str, card: Callable[[str], str], term: Term, body: RenderedBody, body_key: str,
             backlinks: list[str], explainer: ExplainerBuild | None) -> str:
    """Hash of everything a term page shows."""
    # Of other terms it shows: related and backlink lists, and the hover cards
    # (and their data) of the terms its body links to.
    linked = sorted({link.slug for link in body.links if link.slug})
    neighbours = "\n".join(card(slug) for slug in (*term.related, *backlinks, *linked))
    return cache.key(
        shared, body_key,
        repr((term.slug, term.title, term.summary, term.aliases, term.related, term.explainer,
              sorted(term.explainer_options.items()))),
        neighbours, repr(backlinks),
        repr(explainer) if explainer else "",
    )


def card_digests(renderer: PageRenderer) -> Callable[[str], str]:
    """slug -> digest of what a link to it shows (title, summary, address), computed once per term."""
    seen: dict[str, str] = {}

    def card(slug: str) -> str:
        if slug not in seen:
            link = renderer.link(slug)
            seen[slug] = cache.key(link.slug, link.title, link.summary, link.href)
        return seen[slug]

    return card


def reuse_page(staging, manifest, relative: str, page_key: str) -> bool:
    """True when the previous build's file for ``relative`` had this key, is untouched, and was kept."""
    previous = manifest.get(relative)
    return (previous is not None and previous[0] == page_key
            and untouched(staging.output / relative, previous) and staging.reuse(relative))


def untouched(path, previous: tuple) -> bool:
    """Whether the file at ``path`` still has the size and mtime recorded in
    ``previous`` (a page-manifest entry): nobody edited the output by hand."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return (info.st_size, info.st_mtime_ns) == tuple(previous[1:3])


def remember_files(store: cache.BuildCache, output: Path, manifest: dict, fresh: dict[str, str],
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


def check_ahead(output, store: cache.BuildCache, jobs: int | None = None) -> bool:
    """Start the trees' checks ahead (``publish.ahead``) for a build into ``output``,
    with the look for pages changed by hand among them (the page manifest is read
    here: the build reads it next anyway, from the store); ``publish.ahead.stop``
    ends it. False when they are not made ahead (no core free for them, a small
    site, no tree record). ``jobs``: the processes the build may run at once
    (``--jobs``; None: one per core); with one, it has no core to give the child."""
    global _ahead_manifest
    _ahead_manifest = None
    if not ahead.early(output) and not _idle_core(jobs):  # (forked early: by the command line, cli._check_early)
        return False
    manifest = store.table("pages")
    _ahead_manifest = manifest
    return ahead.start(output, functools.partial(changed_by_hand, output, manifest, set()) if manifest else None)


def _idle_core(jobs: int | None = None) -> bool:
    """Whether a core is likely free for the child: fewer tasks runnable right now
    (this build counted) than cores this build may use: those this process may
    run on, at most ``jobs``, at most the whole cores of its cgroup's CPU quota
    (a container given one core of a larger machine sees all its cores). From
    Linux's /proc/loadavg; elsewhere the last minute's load average, which also
    counts what ran a minute ago: a benchmark's own builds just before. On busy
    cores the child only shares them with the build, and costs ~10 % more CPU
    than the checks made in process (docs/performance.md, "One-body edit (issue
    40, seventh round)"): the build then checks in process, as before."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    cores = min(cores, jobs or cores, _quota_cores() or cores)
    if cores < 2:
        return False
    try:
        with open("/proc/loadavg", "rb") as handle:
            runnable = int(handle.read().split()[3].partition(b"/")[0])
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        try:
            runnable = os.getloadavg()[0]
        except OSError:
            return False
    return runnable < cores


def _quota_cores(path: str = "/sys/fs/cgroup/cpu.max") -> int | None:
    """The whole cores a cgroup (v2) CPU quota allows (``200000 100000``: 2), at
    least 1; None without a quota (``max``) or a file to say so."""
    try:
        with open(path, "rb") as handle:
            quota, period = handle.read().split()[:2]
        if quota == b"max":
            return None
        return max(1, int(quota) // int(period))
    except (OSError, ValueError, ZeroDivisionError):
        return None


_ahead_manifest: dict | None = None
"""The page manifest the look made ahead went by (``check_ahead``)."""


def changed_by_hand(output, manifest: dict[str, tuple], skip: set[str]) -> list[str]:
    """The files of ``manifest`` (but ``skip``) whose size or mtime is not the one
    recorded, or that are gone: as ``cache.pages.untouched`` says of each, but
    each looked up from one open descriptor of the output folder (at 25,000
    files, two parts of a path to resolve each time instead of the whole path).
    Taken from the look made ahead (``check_ahead``) when it was made for this
    very manifest."""
    made = ahead.extra(output) if manifest is _ahead_manifest else None
    if isinstance(made, list):
        return [relative for relative in made if relative not in skip]
    found = []
    try:
        folder = os.open(output, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # the output folder itself is gone or replaced: every file counts as changed
        return [relative for relative in manifest if relative not in skip]
    try:
        for relative, previous in manifest.items():
            if relative in skip:
                continue
            try:
                info = os.stat(relative, dir_fd=folder)
            except OSError:
                found.append(relative)
                continue
            if (info.st_size, info.st_mtime_ns) != tuple(previous[1:3]):
                found.append(relative)
    finally:
        os.close(folder)
    return found
