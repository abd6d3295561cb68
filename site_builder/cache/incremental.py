"""The fast path of a rebuild: only the prose of some terms changed.

The full pipeline recomputes every key, which is cheap per page but adds up
at 10,000 pages. The usual edit, though, changes one term's body and nothing
else: no title, summary, alias or related list, no file added or removed, no
config, template or code change. Then the pages that can differ are known
exactly:

- the edited terms' own pages;
- the pages whose backlink lists gained or lost an edited term;
- any page someone changed by hand in the output (found by size and mtime).

Everything else (other pages, the index, glossary.json, objects.inv,
redirects, previews, assets) shows nothing the edit touched, so it is kept as
it is. If an edited body changes its headings or anchors (which other pages
and the inventories use) or has any problem to report, the fast path steps
aside and the full pipeline runs: it alone reports errors. The problems and
the backlinks are the validate stage's own (``validate.checks.check_body``,
``links_from``), asked about the edited terms only. Tests check that both
paths give the same bytes.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass
from typing import Callable

from ..errors import Problem
from ..load.config import SiteConfig
from ..load.theme import Theme
from ..load.content import RECORD_FIELDS, Term
from ..markup.render import Link, RenderedBody
from ..markup.stage import render_one
from ..names import NameIndex
from ..validate.aliases import held_plan, plan_record, plan_redirects
from ..validate.checks import check_body, check_orphans, links_from
from ..publish import InPlace, WriteStats
from ..render import pages
from ..render.assets import AssetStore
from ..render.templates import theme_environment
from ..outputs.site import site_assets, site_renderer
from . import outputs as output_cache
from . import search as search_cache
from . import store as cache
from .bodies import TABLE as MARKDOWN_TABLE, StoredBody, StoredHtml, body_key, body_mentions, fill_html, packed, \
    stored_html, unpacked
from .pages import card_digests, changed_by_hand, page_key, shared_page_key
from .templates import cache_templates

STATE_TABLE = "site"
"""Cache table with what the fast path needs from the last full or fast build."""

TERMS_STATE_TABLE = "site-terms"
"""Cache table: slug -> (body key, backlinks) of the last full or fast build, apart
from ``STATE_TABLE`` so that an edit saves the few entries it changed
(``save_entries``) instead of the whole state (~12-18 ms at 10,000 terms).
``_TOKEN`` holds the token ``STATE_TABLE``'s ``terms_token`` names: saved with
it (first), so a state and a table of two different builds are never used together."""

_TOKEN = ("token",)  # (a tuple: no slug)


@dataclass
class Change:
    """What the load stage saw change since the last build."""

    edited: list[Term]
    """Terms whose file was read again (their records may or may not differ)."""
    previous: dict[str, tuple]
    """shown path -> the term record the last build used, for the terms in ``edited``."""
    same_files: bool
    """True when no term file was added or removed."""


PROSE_FIELDS = ("body", "body_line")
"""What the fast path may see change. Every other field of a term (title,
summary, aliases, related, ... and any field added later) shows on other
pages or in the cross-term checks, so a change to it means a full build."""

_PROSE_AT = tuple(i for i, name in enumerate(RECORD_FIELDS) if name in PROSE_FIELDS)
_OTHERS_AT = tuple(i for i, name in enumerate(RECORD_FIELDS) if name not in PROSE_FIELDS)


def body_only(change: Change) -> list[Term] | None:
    """The terms whose body changed, or None when anything else changed too."""
    if not change.same_files:
        return None
    changed = []
    for term in change.edited:
        old = change.previous.get(term.path)
        if old is None:
            return None
        new = term.to_record()
        if any(new[i] != old[i] for i in _OTHERS_AT):
            return None
        if any(new[i] != old[i] for i in _PROSE_AT):
            changed.append(term)
    return changed


def remember(store: cache.BuildCache, config: SiteConfig, theme: Theme, body_shared: str, names: NameIndex,
             body_keys: dict[str, str], backlinks: dict[str, list[str]], reserved_ids: frozenset[str],
             used_in: dict | None = None, terms: list[Term] | None = None) -> str:
    """Keep what the next build's fast path needs (``terms``: this build's, for its
    redirect plan, which the fast path takes up instead of planning again); return
    the state's token (``LoadedTerms.remember`` keeps it with these terms' records)."""
    state = {
        "code": cache.code_version(),
        "config": repr(config),
        "theme": theme.digest,
        "reserved_ids": sorted(reserved_ids),
        "used_in": repr(sorted((used_in or {}).items())),
        "body_shared": body_shared,
        "names": (names.by_name, sorted(names.slugs)),
        # this build's preview warnings, which the fast path reports (or steps aside for)
        "previews": store.table(output_cache.PREVIEW_WARNINGS_TABLE) if config.makes_previews else None,
        "redirects": plan_record(terms) if terms is not None else None,
    }
    entries = {slug: (key, backlinks.get(slug)) for slug, key in body_keys.items()}
    entries.update((slug, (None, links)) for slug, links in backlinks.items() if slug not in body_keys)
    kept, kept_entries = dict(store.table(STATE_TABLE)), store.table(TERMS_STATE_TABLE)
    token = kept.pop("terms_token", None)
    if token is not None and kept == state and kept_entries == {**entries, _TOKEN: token}:
        return token
    token = os.urandom(8).hex()
    store.save_table(TERMS_STATE_TABLE, {**entries, _TOKEN: token})  # first: the state names it
    store.save_table(STATE_TABLE, {**state, "terms_token": token})
    return token


def _term_state(store: cache.BuildCache, state: dict) -> tuple[dict, dict[str, str], dict[str, list[str]]] | None:
    """(``TERMS_STATE_TABLE``, the body keys, the backlinks) of the build ``state``
    is from; None when the table is another build's, or missing."""
    entries = store.table(TERMS_STATE_TABLE)
    if state.get("terms_token") is None or entries.get(_TOKEN) != state["terms_token"]:
        return None
    # (Two comprehensions: ~2x quicker at 10,000 entries than one loop filling both.)
    body_keys = {slug: entry[0] for slug, entry in entries.items() if slug != _TOKEN and entry[0] is not None}
    backlinks = {slug: entry[1] for slug, entry in entries.items() if slug != _TOKEN and entry[1] is not None}
    return entries, body_keys, backlinks


def rebuild(store: cache.BuildCache, config: SiteConfig, theme: Theme, terms: list[Term], changed: list[Term],
            writer, explainer: Callable[[Term, AssetStore], object], strict: bool,
            log: Callable[[str], None], reserved_ids: frozenset[str] = frozenset(), used_in: dict | None = None,
            saved_with: str | None = None) -> tuple[WriteStats, list[Problem], str | None] | None:
    """Update only what a body-only edit touches; return (write stats, warnings, the
    state's token, for ``LoadedTerms.remember``), or None (having written nothing)
    when the full pipeline must run instead.

    It chooses the pages to render again; the markup stage renders the edited
    bodies and the render stage (``render.pages.write_term_pages``) those pages, as
    in a full build. ``reserved_ids``: as for ``markup.stage.render_bodies``.
    ``saved_with``: ``cache.terms.LoadedTerms.plan``, the token of the state the
    terms' records were saved with: any other state's, and the full pipeline runs."""
    with cache.collector_paused():
        state = store.table(STATE_TABLE)
        manifest = store.table("pages")
        markdown = store.table(MARKDOWN_TABLE)
        # As the build does with what it loaded: frozen before the collector is
        # back on, or its first collection walks every object of these tables
        # (~0.05-0.08 s at 10,000 terms) to find no garbage (plain values).
        gc.freeze()
    if (not state or state.get("config") != repr(config) or state.get("code") != cache.code_version()
            or state.get("theme") != theme.digest
            or state.get("reserved_ids") != sorted(reserved_ids) or not manifest
            or state.get("used_in") != repr(sorted((used_in or {}).items()))):
        return None  # another config, theme, or other code, templates or explainers than the last build's
    if not writer.can_keep(set(manifest)):
        return None  # no record of the spare, or it disagrees with the manifest: the full build sorts it out
    # The preview cards are kept, unseen: their warnings come from the record
    # of the build that drew them. Under --strict any warning fails the build,
    # which the full pipeline does (as a build without the cache would).
    previews = output_cache.recorded_preview_warnings(store, config, state.get("previews"))
    if previews is None or (strict and previews):
        return None
    term_state = _term_state(store, state)
    if term_state is None:
        return None
    token = state["terms_token"]
    if saved_with != token:
        # The terms' records are not those this state was saved with (nor records
        # later fast paths left after it): a build stopped between its state and
        # its terms, whose pages (redirects, listings) the state would keep.
        return None
    entries, body_keys, backlinks = term_state  # (backlinks' entries are replaced, never changed in place)
    if set(body_keys) != {t.slug for t in terms}:
        return None
    if any(entry[0] for entry in map(markdown.get, body_keys.values()) if entry is not None):
        return None  # a body with warnings: the full build reports them again (and fails under --strict)
    names = NameIndex.from_parts(*state["names"])

    # Markdown for the edited bodies, and what it changes elsewhere.
    fetch = stored_html(terms, body_keys, config, store, reserved_ids)
    fresh: dict[str, RenderedBody] = {}
    mentions = body_mentions(config, names)
    for term in changed:
        key = body_key(state["body_shared"], term, mentions)
        old = unpacked(markdown.get(body_keys[term.slug]))
        if old is None:
            return None
        record = unpacked(markdown.get(key))
        body = StoredBody.kept(record, term.slug, fetch) if record is not None else \
            render_one(term, names, config, reserved_ids)
        old_body = _CachedBody(old)
        if body.anchors != old_body.anchors or body.headings != old_body.headings:
            return None  # other pages' links and the inventories depend on these
        def anchors_of(slug: str, term: Term = term, body: RenderedBody = body) -> list[str]:
            return body.anchors if slug == term.slug else _anchors(markdown, body_keys, slug)
        if check_body(term, body, anchors_of):
            return None  # a problem (the validate stage's own checks): the full build reports it
        before = links_from(term, old_body, body_keys)
        after = links_from(term, body, body_keys)
        for target in before - after:
            backlinks[target] = [s for s in backlinks[target] if s != term.slug]
        for target in after - before:
            backlinks[target] = sorted({*backlinks[target], term.slug})
        body_keys[term.slug] = key
        fresh[term.slug] = body
        affected = before ^ after
        for target in affected:
            if target not in fresh:
                fresh[target] = None  # re-rendered with its cached body
    by_slug = {t.slug: t for t in terms}

    # Which files to render again: the edited pages, the changed backlink lists,
    # and any file changed by hand (pages only; anything else: full build).
    output = writer.output
    redo = {f"{slug}/index.html" for slug in fresh}
    for relative in changed_by_hand(output, manifest, redo):
        slug = relative[:-len("/index.html")] if relative.endswith("/index.html") else None
        if slug not in by_slug or manifest[relative][0] is None:
            return None
        redo.add(relative)
        fresh.setdefault(slug, None)

    if not all(key in markdown for slug, key in body_keys.items() if fresh.get(slug) is None):
        return None
    bodies = _Bodies(markdown, body_keys, fetch)
    bodies.update((slug, body) for slug, body in fresh.items() if body is not None)
    assets = site_assets(theme)
    built = {t.slug: explainer(t, assets) for t in terms if t.explainer}
    # The last build's redirect plan, when made from these same fields (the
    # renderer's linking outputs and the warnings below ask for it).
    # (Held: nothing below changes a term, so the linking outputs take the plan without its key.)
    # Taken on trust: these records were saved with this state (above), and only
    # prose changed since (``body_only``), so its key is not made (~5 ms at 10,000
    # terms, and it would unpack every record: ``cache.kept._pack``).
    with held_plan(terms, state.get("redirects"), trusted=True) as plan:
        cache_templates(store.folder, theme_environment(theme.templates, theme.digest))  # (compiled by an earlier build)
        renderer, _linking = site_renderer(config, terms, bodies, backlinks, built, assets, theme, used_in)
    # The cross-term checks' only warnings (redirects, orphans), and the cards'
    # (the plan's problems as taken up: its key is not made again).
    orphans = check_orphans(terms, backlinks) if config.report_orphans else []
    warnings = (plan or plan_redirects(terms))[1] + orphans + previews
    if strict and warnings:
        return None
    redo_slugs = sorted(relative[:-len("/index.html")] for relative in redo)
    fill_html(redo_slugs, bodies)
    # The search shards the edited pages' words are in (read back from the live output).
    edited_bodies = {term.slug: bodies[term.slug] for term in changed if term.slug in fresh}
    searched = search_cache.update(store, config, by_slug, edited_bodies, body_keys, _reader(output))
    if searched is None:
        return None
    search, remember_search = searched
    redo |= set(search)
    shared = shared_page_key(renderer)
    card = card_digests(renderer)
    keys = {f"{slug}/index.html": page_key(shared, card, by_slug[slug], bodies[slug], body_keys[slug],
                                           backlinks[slug], built.get(slug))
            for slug in redo_slugs}
    # The explainers of the pages rendered again are written with them (the
    # same bytes: their build is cached by code version); the site pages are kept.
    redo_built = {slug: built[slug] for slug in redo_slugs if slug in built}
    redo |= {f"{slug}/{name}" for slug, done in redo_built.items() for name in done.files}

    # Nothing written so far: from here on the fast path is committed.
    pages.write_term_pages(writer, renderer, [by_slug[slug] for slug in redo_slugs], bodies, backlinks, redo_built)
    for relative, data in search.items():
        if data is not None:
            writer.add(relative, data)
        elif isinstance(writer, InPlace):  # a staged tree simply leaves it out
            os.unlink(os.path.join(output, relative))
    writer.keep(set(manifest) - redo)
    stats = writer.commit(prune=False)
    remember_search()

    # The tables: only the entries that changed are written (``save_entries``).
    updated, removed = {}, []
    for relative, page in keys.items():
        info = os.stat(os.path.join(output, relative))
        updated[relative] = (page, info.st_size, info.st_mtime_ns)
    for relative, data in search.items():
        if data is None:
            removed.append(relative)
            continue
        info = os.stat(os.path.join(output, relative))
        updated[relative] = (None, info.st_size, info.st_mtime_ns)
    store.save_entries("pages", updated, removed)
    new_bodies = {body_keys[slug]: body for slug, body in fresh.items()
                  if body is not None and not isinstance(body, StoredHtml)}  # rendered here, not read back
    if any(key not in markdown for key in new_bodies):
        live = set(body_keys.values())
        store.save_entries(MARKDOWN_TABLE, {key: packed(body.to_record()) for key, body in new_bodies.items()},
                           [key for key in markdown if key not in live])
        store.blobs.put_many({key: body.html for key, body in new_bodies.items()}, live=live)
    # Only ``fresh``'s entries can differ: the edited terms (their body keys) and
    # every target of a link they added or dropped (their backlinks) are in it.
    changed_entries = {slug: (body_keys[slug], backlinks.get(slug)) for slug in fresh
                       if entries.get(slug) != (body_keys[slug], backlinks.get(slug))}
    store.save_entries(TERMS_STATE_TABLE, changed_entries)  # the state itself is the same
    log(f"  fast path: {len(changed)} body edit(s), {len(redo_slugs)} page(s) rendered")
    return stats, warnings, token


def _reader(output) -> Callable[[str], bytes]:
    def read(relative: str) -> bytes:
        with open(os.path.join(output, relative), "rb") as handle:
            return handle.read()
    return read


class _Bodies(dict):
    """slug -> body: the fresh ones, and cached ones made when first looked up."""

    def __init__(self, markdown: dict, body_keys: dict[str, str], fetch: Callable[[list[str]], dict[str, str]]):
        super().__init__()
        self.markdown, self.body_keys, self.fetch = markdown, body_keys, fetch

    def __missing__(self, slug: str) -> "_CachedBody":
        body = self[slug] = _CachedBody(unpacked(self.markdown[self.body_keys[slug]]), slug, self.fetch)
        return body

    def get(self, slug, default=None):
        return self[slug] if slug in self.body_keys else default


class _CachedBody(StoredHtml):
    """A cached body's record read as a ``RenderedBody``; converted only where it is
    read (the fast path looks at the anchors of all 10,000 and the links of a few);
    its HTML read from the store when asked for (``StoredHtml``)."""

    __slots__ = ("_record", "_html", "_slug", "_fetch")

    def __init__(self, record: tuple, slug: str = "", fetch: Callable[[list[str]], dict[str, str]] | None = None):
        self._record = record
        self._html, self._slug, self._fetch = None, slug, fetch

    @property
    def anchors(self) -> list[str]:
        return self._record[0]

    @property
    def links(self) -> list[Link]:
        return [Link(*link) for link in self._record[1]]

    @property
    def problems(self) -> list[tuple[int, str]]:
        return [tuple(p) for p in self._record[2]]

    @property
    def headings(self) -> list[tuple[int, str, str]]:
        return [tuple(h) for h in self._record[3]]

    @property
    def opening(self) -> int | None:
        return self._record[4]

    @property
    def marker_line(self) -> int | None:
        return self._record[5]


def _anchors(markdown: dict, body_keys: dict[str, str], slug: str) -> list[str]:
    record = unpacked(markdown.get(body_keys.get(slug, "")))
    return record[0] if record is not None else []
