"""Render stage: turn terms, rendered bodies and explainers into page files."""

from __future__ import annotations

import multiprocessing
import unicodedata
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Mapping

import jinja2

from . import cache
from .assets import AssetStore
from .config import SiteConfig
from .content import Term
from .explainers.base import ExplainerBuild
from .markup.render import RenderedBody


@dataclass(frozen=True)
class PageLink:
    """A link to a term as the templates show it."""

    slug: str
    title: str
    summary: str
    href: str


def make_environment() -> jinja2.Environment:
    """The Jinja environment for the packaged templates (autoescaping on)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("site_builder", "templates"),
        autoescape=True,
        trim_blocks=False,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )


class PageRenderer:
    """Renders every page of one site from already validated inputs."""

    def __init__(self, config: SiteConfig, terms: list[Term], assets: AssetStore):
        self.config = config
        self.terms = {term.slug: term for term in terms}
        self.assets = assets
        self.env = make_environment()
        self.index_page = "" if config.pretty_urls else "index.html"
        self.page_extras: Callable[[Term | None], dict] = lambda term: {}
        """Extra template values for a term page (None: the index): social meta tags,
        JSON-LD, hover-card scripts. Set by the build from ``site_builder.linking``."""

    def term_href(self, slug: str) -> str:
        """Root-relative URL of a term page."""
        return f"{slug}/{self.index_page}"

    def link(self, slug: str) -> PageLink:
        """A template-ready link to ``slug``."""
        term = self.terms[slug]
        return PageLink(slug, term.title, term.summary, self.term_href(slug))

    def absolute(self, path: str) -> str:
        """Absolute URL of a root-relative path, or "" when no base URL is set."""
        return self.config.base_url + path if self.config.base_url else ""

    def _common(self, root: str) -> dict:
        return {
            "site": self.config,
            "root": root,
            "assets": self.assets.urls,
            "index_page": self.index_page,
            "stylesheets": [],
            "scripts": [],
            "canonical": "",
            "meta_tags": [],
            "json_ld": "",
            "card_scripts": [],
            "card_data": "",
            "card_stylesheets": [],
        }

    def term_page(self, term: Term, body: RenderedBody, backlinks: list[str], explainer: ExplainerBuild | None) -> bytes:
        """The HTML of one term page."""
        context = self._common("../")
        context.update(
            term=term,
            body_html=body.html,
            related=[self.link(slug) for slug in term.related],
            backlinks=[self.link(slug) for slug in backlinks],
            explainer_html=explainer.html if explainer else "",
            canonical=self.absolute(f"{term.slug}/"),
        )
        if explainer:
            context["scripts"] = explainer.scripts
            context["stylesheets"] = explainer.stylesheets
        context.update(self.page_extras(term))
        return self.env.get_template("term.html").render(context).encode("utf-8")

    def index_page_html(self) -> bytes:
        """The A-Z index of every term with its summary."""
        groups: dict[str, list] = {}
        for term in sorted(self.terms.values(), key=lambda t: sort_key(t.title)):
            letter = initial(term.title)
            groups.setdefault(letter, []).append({
                "title": term.title,
                "summary": term.summary,
                "href": self.term_href(term.slug),
                "names": " ".join([term.slug, *term.aliases]),
            })
        context = self._common("")
        context["groups"] = [
            {"letter": letter, "id": "other" if letter == "#" else letter.lower(), "terms": items}
            for letter, items in sorted(groups.items(), key=lambda kv: (kv[0] == "#", kv[0]))
        ]
        context["canonical"] = self.absolute("")
        context.update(self.page_extras(None))
        return self.env.get_template("index.html").render(context).encode("utf-8")

    def not_found_page(self) -> bytes:
        """404.html; uses absolute links when the base URL is known (it is served at any depth)."""
        root = self.config.base_url or ""
        return self.env.get_template("404.html").render(self._common(root)).encode("utf-8")


def sort_key(title: str) -> tuple[str, str]:
    """Alphabetical, case- and accent-insensitive."""
    folded = unicodedata.normalize("NFKD", title.casefold())
    return ("".join(c for c in folded if not unicodedata.combining(c)), title)


def initial(title: str) -> str:
    """The letter a title is filed under; "#" for digits and symbols."""
    first = sort_key(title)[0][:1].upper()
    return first if first.isalpha() and first.isascii() else "#"


PARALLEL_PAGES = 200
"""From this many terms on, term pages are rendered by forked workers too."""

_shared_state: tuple | None = None  # what forked workers inherit (see write_pages)


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
) -> dict[str, str]:
    """Render every page into ``staging``; return relative path -> page key.

    A page's key hashes everything it shows. When the key matches the
    ``manifest`` of the previous build and the file there is untouched (same
    size and mtime), the old file is reused instead of rendering it again.
    With ``jobs`` > 1 and many terms, forked workers render and write the term
    pages (each into its own folders of the same staging tree).
    """
    global _shared_state
    shared = cache.key(cache.code_version(), repr(renderer.config), repr(sorted(renderer.assets.urls.items())))
    _shared_state = (staging, renderer, terms, bodies, body_keys, backlinks, explainers, manifest, shared)
    try:
        if jobs > 1 and len(terms) >= PARALLEL_PAGES and "fork" in multiprocessing.get_all_start_methods():
            keys: dict[str, str] = {}
            step = max(1, -(-len(terms) // (jobs * 4)))
            bounds = [(start, min(start + step, len(terms))) for start in range(0, len(terms), step)]
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(jobs, mp_context=context) as pool:
                for chunk_keys, paths, written, unchanged in pool.map(_worker_pages, bounds):
                    keys.update(chunk_keys)
                    staging.merge(paths, written, unchanged)
        else:
            keys = _term_pages(0, len(terms))
    finally:
        _shared_state = None
    everyone = repr([(t.slug, t.title, t.summary, t.aliases) for t in terms])
    _emit(staging, manifest, keys, "index.html", cache.key(shared, "index", everyone), renderer.index_page_html)
    _emit(staging, manifest, keys, "404.html", cache.key(shared, "404"), renderer.not_found_page)
    return keys


def _worker_pages(bounds: tuple[int, int]):
    """In a forked worker: render one slice of the term pages; report what was written."""
    staging = _shared_state[0]
    # A worker runs several slices: report only what this one added.
    since = staging.checkpoint()
    keys = _term_pages(*bounds)
    return (keys, *staging.worker_report(since))


def _term_pages(start: int, end: int) -> dict[str, str]:
    staging, renderer, terms, bodies, body_keys, backlinks, explainers, manifest, shared = _shared_state
    keys: dict[str, str] = {}
    for term in terms[start:end]:
        explainer = explainers.get(term.slug)
        body = bodies[term.slug]
        # Everything the page shows of other terms: related and backlink lists,
        # and the hover cards (and their data) of the terms its body links to.
        linked = sorted({link.slug for link in body.links if link.slug})
        neighbours = [renderer.link(slug) for slug in (*term.related, *backlinks[term.slug], *linked)]
        page_key = cache.key(
            shared, body_keys[term.slug],
            repr((term.slug, term.title, term.summary, term.aliases, term.related, term.explainer)),
            repr(neighbours), repr(backlinks[term.slug]),
            repr(explainer) if explainer else "",
        )
        _emit(staging, manifest, keys, f"{term.slug}/index.html", page_key,
              lambda term=term, body=body, explainer=explainer: renderer.term_page(term, body, backlinks[term.slug], explainer))
        if explainer:
            for name, data in explainer.files.items():
                staging.add(f"{term.slug}/{name}", data)
    return keys


def _emit(staging, manifest, keys: dict, relative: str, page_key: str, render: Callable[[], bytes]) -> None:
    keys[relative] = page_key
    previous = manifest.get(relative)
    if previous is not None and previous[0] == page_key and _untouched(staging.output / relative, previous):
        if staging.reuse(relative):
            return
    staging.add(relative, render())


def _untouched(path, previous: tuple) -> bool:
    try:
        info = path.stat()
    except OSError:
        return False
    return (info.st_size, info.st_mtime_ns) == tuple(previous[1:3])
