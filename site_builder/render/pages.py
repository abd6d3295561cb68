"""Render stage: turn terms, rendered bodies and explainers into page files."""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, NamedTuple

import jinja2
import markupsafe

from .. import parallel
from . import templates
from .slices import INDEX, RENDER, indexed_ahead, page_slices  # noqa: F401 (page_slices: tests, benchmarks)
from .assets import AssetStore
from .. import policy
from ..load.config import SiteConfig
from ..load.content import Term
from ..load.theme import Theme
from ..explainers.base import ExplainerBuild
from ..markup.render import RenderedBody


class PageLink(NamedTuple):
    """A link to a term as the templates show it (``item.title``; the package's
    templates unpack it, ``for slug, title, summary, href in related``: a
    tuple's items reach the template without a Jinja attribute lookup each)."""

    slug: str
    title: str
    summary: str
    href: str


make_environment = templates.package_environment
"""The Jinja environment for the packaged templates (``render.templates``)."""


TEMPLATES = templates.TEMPLATES


def compile_templates() -> None:
    """Compile every packaged template now, into this process's environment.

    The build calls it when this process would otherwise wait: while the
    loaders finish (``preload``), or else while the markdown workers run.
    Compiling is ~45 ms that then no longer sits between the markdown and
    the page workers; a second call finds them compiled."""
    environment = make_environment()
    for name in TEMPLATES:
        environment.get_template(name)



FIXED_BLOCKS = ("header", "footer", "back_link")
"""The blocks of a term page (``base.html``'s, ``term.html``'s) that read only
what every term page shares (the site's settings, links and ``root``): each is
rendered once per site instead of on every page (``PageRenderer._fixed_blocks``),
~4 us a page. Rendered from the site's values alone (``_site_values``, none of
a page's own), a block that came to read a page's value is rendered on each
page again (``templates.fixed_blocks``), and a page whose own values name one
the blocks read renders them itself."""


class PageRenderer:
    """Renders every page of one site from already validated inputs."""

    used_in: Mapping = {}
    """slug -> pages of other sites that link to it (set by ``outputs.site.site_renderer``; in the page keys)."""

    def __init__(self, config: SiteConfig, terms: list[Term], assets: AssetStore,
                 page_extras: Callable[[Term | None], dict] = lambda term: {}, theme: Theme | None = None):
        self.config = config
        self.terms = {term.slug: term for term in terms}
        self.assets = assets
        self.theme = theme or Theme()
        self.overrides = self.theme.templates
        self.env = templates.theme_environment(self.overrides, self.theme.digest)
        self._term_template = self.env.get_template("term.html")
        # Compiled here, before the page workers fork: term.html extends it, and
        # each worker would otherwise compile its own copy on its first page.
        self.env.get_template("base.html")
        self.index_page = "" if config.pretty_urls else "index.html"
        self.page_extras = page_extras
        """Extra template values for a term page (None: the index): social meta tags,
        JSON-LD, hover-card scripts (``site_builder.outputs.LinkingOutputs.page_extras``)."""
        self._links: dict[str, PageLink] = {}
        self._site_wide: dict[str, dict] = {}
        self._fixed: dict | None = None
        self._fixed_reads: frozenset[str] = frozenset()  # the names the blocks in _fixed read

    def term_href(self, slug: str) -> str:
        """Root-relative URL of a term page."""
        return f"{slug}/{self.index_page}"

    def link(self, slug: str) -> PageLink:
        """A template-ready link to ``slug`` (one per slug: a term is linked
        from many pages, and ``PageLink`` is immutable)."""
        found = self._links.get(slug)
        if found is None:
            term = self.terms[slug]
            found = self._links[slug] = PageLink(slug, term.title, term.summary, self.term_href(slug))
        return found

    def absolute(self, path: str) -> str:
        """Absolute URL of a root-relative path, or "" when no base URL is set."""
        return self.config.base_url + path if self.config.base_url else ""

    def _common(self, root: str) -> dict:
        """The template values every page at ``root`` starts from, as a new
        dict: the site's (``_site_values``) and the defaults of a page's own
        (``_page_defaults``), worked out once per ``root`` (each term page has
        the same), with new lists each time (a template may change what it is given)."""
        shared = self._site_wide.get(root)
        if shared is None:  # the values, and which of them are lists (each page gets its own)
            values = {**self._site_values(root), **self._page_defaults()}
            shared = self._site_wide[root] = (values, [name for name, value in values.items() if type(value) is list])
        values, lists = shared
        context = dict(values)
        for name in lists:
            context[name] = list(values[name])
        return context

    def _site_values(self, root: str) -> dict:
        """What every term page (at ``root``) shows the same: the only values the
        blocks rendered once (``FIXED_BLOCKS``) are given."""
        return {
            "site": self.config,
            "root": root,
            "assets": self.assets.urls,
            "index_page": self.index_page,
            "search_box": True,  # (not on the 404 page without a base URL: not_found_page sets its own)
            "content_security_policy": markupsafe.Markup(policy.meta_policy()),  # checked: no quote, < or &
            "direction": "rtl" if templates.right_to_left(self.config.language) else "ltr",
            "theme_stylesheets": [self.assets.urls[templates.theme_asset(name)] for name in self.config.extra_css],
            "theme_scripts": [self.assets.urls[templates.theme_asset(name)] for name in self.config.extra_js],
            "logo": self.assets.urls[templates.theme_asset(self.config.logo)] if self.config.logo else "",
            "header_links": [(text, templates.link_href(url, root)) for text, url in self.config.header_links],
            "footer_links": [(text, templates.link_href(url, root)) for text, url in self.config.footer_links],
        }

    @staticmethod
    def _page_defaults() -> dict:
        """A page's own values (its URL, scripts, meta tags, hover cards) before the page sets them."""
        return {
            "stylesheets": [],
            "scripts": [],
            "canonical": "",
            "meta_tags": [],
            "json_ld": "",
            "card_scripts": [],
            "card_data": "",
            "card_stylesheets": [],
        }

    def _fixed_blocks(self) -> dict:
        """The term pages' blocks that render the same on every page
        (``FIXED_BLOCKS``), rendered once from the site's values alone: when the
        site replaces neither ``term.html`` nor ``base.html``, so that the page's
        template is the package's and extends the package's ``base.html`` (what
        an override does with its blocks, it may do with any value of the page)."""
        if self._fixed is None:
            self._fixed = {}
            if not {"term.html", "base.html"} & set(self.overrides):
                chain = [self._term_template, self.env.get_template("base.html")]
                defaults = self._page_defaults()
                site = {name: value for name, value in self._common("../").items() if name not in defaults}
                self._fixed, self._fixed_reads = templates.fixed_blocks(chain, FIXED_BLOCKS, site)
        return self._fixed

    def term_page(self, term: Term, body: RenderedBody, backlinks: list[str], explainer: ExplainerBuild | None) -> bytes:
        """The HTML of one term page."""
        fixed = self._fixed if self._fixed is not None else self._fixed_blocks()
        context = self._common("../")
        html = body.html
        # The figure goes after the body's opening section, or where its marker
        # says (markup.placement); without a figure the body stays whole.
        cut = (len(html) if body.opening is None else body.opening) if explainer else 0
        own = dict(
            term=term,
            opening_html=html[:cut],
            body_html=html[cut:],
            related=[self.link(slug) for slug in term.related],
            backlinks=[self.link(slug) for slug in backlinks],
            explainer_html=explainer.html if explainer else "",
            canonical=self.absolute(f"{term.slug}/"),
        )
        if explainer:
            own["scripts"] = explainer.scripts
            own["stylesheets"] = explainer.stylesheets
        own.update(self.page_extras(term))
        context.update(own)
        if fixed and not self._fixed_reads.isdisjoint(own):
            fixed = None  # this page gives its own value to a name the blocks read: it renders them itself
        return templates.render(self._term_template, context, self.overrides, fixed).encode("utf-8")

    def index_page_html(self) -> bytes:
        """The A-Z index of every term with its summary."""
        groups: dict[str, list] = {}
        keyed = sorted(((sort_key(term.title), term) for term in self.terms.values()), key=lambda pair: pair[0])
        for key, term in keyed:
            letter = _filed_under(key[0])
            groups.setdefault(letter, []).append({
                "title": term.title,
                "summary": term.summary,
                "href": self.term_href(term.slug),
                "names": " ".join([term.slug, *term.aliases]),
                "aliases": term.aliases,
            })
        context = self._common("")
        context["groups"] = [
            {"letter": letter, "id": "other" if letter == "#" else letter.lower(), "terms": items}
            for letter, items in sorted(groups.items(), key=lambda kv: (kv[0] == "#", kv[0]))
        ]
        context["canonical"] = self.absolute("")
        context.update(self.page_extras(None))
        return templates.render(self.env.get_template("index.html"), context, self.overrides).encode("utf-8")

    def not_found_page(self) -> bytes:
        """404.html; uses absolute links when the base URL is known (it is served at any depth)."""
        root = self.config.base_url or ""
        context = self._common(root)
        context["search_box"] = bool(root)  # without a base URL it cannot tell where search/ is
        return templates.render(self.env.get_template("404.html"), context, self.overrides).encode("utf-8")


def sort_key(title: str) -> tuple[str, str]:
    """Alphabetical, case- and accent-insensitive."""
    if title.isascii():
        # What the general case gives ASCII: casefold() is lower(), NFKD leaves
        # it as it is and it has no combining marks. Most titles, at a tenth of the cost.
        return title.lower(), title
    folded = unicodedata.normalize("NFKD", title.casefold())
    return ("".join(c for c in folded if not unicodedata.combining(c)), title)


def initial(title: str) -> str:
    """The letter a title is filed under; "#" for digits and symbols."""
    return _filed_under(sort_key(title)[0])


def _filed_under(folded: str) -> str:
    first = folded[:1].upper()
    return first if first.isalpha() and first.isascii() else "#"


PARALLEL_PAGES = 200
"""From this many term pages to render, forked workers render them."""

SITE_PAGES = ("index.html", "404.html")
"""The pages beside the term pages, in the order they are written."""

_shared_state: tuple | None = None  # what forked workers inherit (see write_pages)


def write_pages(
    staging,
    renderer: PageRenderer,
    todo: list[Term],
    bodies: Mapping[str, RenderedBody],
    backlinks: Mapping[str, list[str]],
    explainers: Mapping[str, ExplainerBuild],
    jobs: int = 1,
) -> None:
    """Render the term pages of ``todo``, the explainers' files and the site
    pages (index, 404) into ``staging``: ``write_term_pages``, with the site
    pages written while its workers render."""
    write_term_pages(staging, renderer, todo, bodies, backlinks, explainers, jobs=jobs,
                     meanwhile=lambda: write_site_pages(staging, renderer))


def write_site_pages(staging, renderer: PageRenderer, which: Iterable[str] = SITE_PAGES) -> None:
    """Render the site pages ``which`` (of ``SITE_PAGES``: index, 404) into ``staging``."""
    render = {"index.html": renderer.index_page_html, "404.html": renderer.not_found_page}
    for relative in which:
        staging.add(relative, render[relative]())


def write_term_pages(
    staging,
    renderer: PageRenderer,
    todo: list[Term],
    bodies: Mapping[str, RenderedBody],
    backlinks: Mapping[str, list[str]],
    explainers: Mapping[str, ExplainerBuild],
    jobs: int = 1,
    meanwhile: Callable[[], None] = lambda: None,
    also: Callable[[Term, RenderedBody], object] | None = None,
    collect: Callable[[list[tuple[str, object]]], None] | None = None,
) -> dict[str, object]:
    """Render the term pages of ``todo`` and the explainers' files into ``staging``.

    With ``jobs`` > 1 and many pages, ``jobs - 1`` forked workers render and
    write term pages (each into its own folders of the same staging tree)
    while this process runs ``meanwhile()`` (the site pages, say), then this
    process renders slices of them too (``parallel.share``); otherwise
    ``meanwhile()`` runs after them.

    ``also(term, body)``, when given, runs beside each page where it is
    rendered (in the workers, shared as the pages are): slug -> its result is
    returned, in ``todo``'s order (the search index's entries of each page:
    they need the body alone, and so cost the build no stage of their own).
    ``collect``, when given, gets them instead, in this process, slice by
    slice in ``todo``'s order as they come in (while the workers still render:
    ``parallel.share``), and nothing is returned.
    """
    global _shared_state
    for slug, explainer in sorted(explainers.items()):
        for name, data in explainer.files.items():
            staging.add(f"{slug}/{name}", data)
    _shared_state = (staging, renderer, todo, bodies, backlinks, explainers, also)
    results: dict[str, object] = {}
    take = collect if collect is not None else results.update
    try:
        if jobs > 1 and len(todo) >= PARALLEL_PAGES and parallel.can_pool():
            def merge_slice(done: tuple) -> None:  # a slice's (staging report or None, results)
                if done[0] is not None:
                    staging.merge(*done[0])  # what a worker wrote, before what is made of its results
                take(done[1])

            # With ``collect`` the last pages' entries come first (``indexed_ahead``):
            # what it makes once every page's entries are in then runs here while the
            # worker renders pages, not after the last page with a core idle.
            cuts = (indexed_ahead(len(todo), jobs) if also is not None and collect is not None
                    else page_slices(len(todo), jobs))
            parallel.share(cuts, jobs - 1, meanwhile,
                           lambda *bounds: (None, _term_pages(*bounds)), _worker_pages, merge_slice)
        else:
            take(_term_pages(0, len(todo)))
            meanwhile()
    finally:
        _shared_state = None
    return results


def _worker_pages(bounds: tuple[int, int] | tuple[int, int, int]):
    """In a forked worker: render one slice of the pages to render; report what
    was written, and what ``also`` gave for each page."""
    if parallel.orphaned():  # the build is gone (killed): nobody will swap these pages in
        os._exit(1)
    staging = _shared_state[0]
    # A worker runs several slices: report only what this one added.
    since = staging.checkpoint()
    beside = _term_pages(*bounds)
    return staging.worker_report(since), beside


PAGES_PER_PHASE = 64
"""``_term_pages`` renders this many pages, then writes them, then runs ``also``
on them, instead of doing all three page by page: see there."""


def _term_pages(start: int, end: int, what: int = RENDER | INDEX) -> list[tuple[str, object]]:
    """Render and write the pages ``todo[start:end]``; (slug, ``also(...)``) of each.
    ``what``: ``RENDER``, ``INDEX`` or both (``indexed_ahead``).

    In phases of ``PAGES_PER_PHASE`` pages: each phase's code and data stay
    in the processor's caches for a run of pages instead of being pushed out
    by the other two's (the templates', the kernel's file writing, the search
    entries' regexes and stemmer) on every page. The same work took 0.6-0.8x
    the CPU so (docs/performance.md, "Render stage (issue 40, sixth round)");
    a phase holds its pages' HTML, ~1 MB, until they are written."""
    staging, renderer, todo, bodies, backlinks, explainers, also = _shared_state
    beside = []
    for first in range(start, end, PAGES_PER_PHASE):
        phase = todo[first:min(first + PAGES_PER_PHASE, end)]
        if what & RENDER:
            made = [renderer.term_page(term, bodies[term.slug], backlinks[term.slug], explainers.get(term.slug))
                    for term in phase]
            for term, page in zip(phase, made):
                staging.add(f"{term.slug}/index.html", page)
            del made  # written: not held while the entries are made
        if also is not None and what & INDEX:
            beside += [(term.slug, also(term, bodies[term.slug])) for term in phase]
    return beside
