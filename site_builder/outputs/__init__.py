"""Outputs beside the pages: every route a docs author takes to the glossary.

- permalinks ``/<slug>/`` and a redirect page for every alias (``redirects``);
- ``glossary.json``, the versioned machine-readable index (``glossary_json``);
- ``objects.inv`` for Sphinx intersphinx (``inventory``);
- ``_headers`` for static hosts (``hosting``);
- hover cards, here and on any site (``cards``, static/glossary-cards.js);
- sitemap.xml, robots.txt, JSON-LD, Open Graph tags and preview images
  (``discovery``, ``preview``).

What other sites run (the Markdown extension, ``check --links-in``) is in
``site_builder.integrations``.

The validate stage checks aliases (``validate.aliases.check_aliases``); the build hands
``LinkingOutputs.page_extras`` to the page renderer, then adds ``LinkingOutputs.files()`` and
``LinkingOutputs.previews()`` to the output.
"""

from __future__ import annotations

import functools
from typing import Mapping

from ..errors import Problem
from ..render.assets import AssetStore
from ..load.config import SiteConfig
from ..load.content import Term
from ..explainers.base import ExplainerBuild
from .hosting import headers_file
from ..load.media import published_preview
from ..markup.render import RenderedBody
from . import cards, discovery
from .glossary_json import Entry, glossary_json, make_entry, redirect_sources
from .inventory import objects_inv
from .redirects import plan_redirects, redirect_page

__all__ = ["LinkingOutputs"]

PREVIEW = "preview.png"


class _CardItems(dict):
    """slug -> ``cards.card_item`` of its term, made when first asked for: once
    in a process, though each page that links to the term has it. Looked up as
    ``items[slug]`` from C (``map(items.__getitem__, ...)``): a miss alone runs Python."""

    def __init__(self, entry):
        super().__init__()
        self._entry = entry

    def __missing__(self, slug: str) -> str:
        found = self[slug] = cards.card_item(self._entry(slug))
        return found


class LinkingOutputs:
    """The linking outputs of one build, from already validated and rendered terms:
    each page's extras (social tags, JSON-LD, hover-card script), the files beside
    the pages (glossary.json, objects.inv, redirects, sitemap, _headers) and the
    preview images."""

    def __init__(self, config: SiteConfig, terms: list[Term], bodies: Mapping[str, RenderedBody],
                 backlinks: Mapping[str, list[str]], explainers: Mapping[str, ExplainerBuild], assets: AssetStore):
        self.config = config
        self.terms = {term.slug: term for term in terms}
        self.bodies = bodies
        self.backlinks = backlinks
        self.explainers = explainers
        self.assets = assets
        self.redirects, _ = plan_redirects(terms)
        self._sources = redirect_sources(self.redirects)
        self._entries: dict[str, Entry] = {}
        self._card_items = _CardItems(self.entry)
        self.index_page = "" if config.pretty_urls else "index.html"
        self.card_script = assets.add_packaged(cards.SCRIPT)
        self.card_stylesheet = assets.add_packaged(cards.STYLESHEET)
        self.preview_problems: list[Problem] = []
        self._painter = None  # the cards' painter, once preview_cards() has chosen it
        """Warnings of the last ``previews()``: characters no installed font has."""

    @functools.cached_property
    def entries(self) -> list[Entry]:
        """Every term's entry, sorted by slug."""
        return [self.entry(slug) for slug in sorted(self.terms)]

    def entry(self, slug: str) -> Entry:
        """One term's entry, made when first asked for: a rebuild that renders a
        few pages needs a few entries, not 10,000."""
        if slug not in self._entries:
            self._entries[slug] = make_entry(self.terms[slug], self.bodies.get(slug), self._sources.get(slug, ()))
        return self._entries[slug]

    def _absolute(self, path: str) -> str:
        return self.config.base_url + path if self.config.base_url else ""

    def _has_preview(self, slug: str | None) -> bool:
        # an explainer's own preview too only when previews are made: its
        # build was told so (ExplainerContext.previews), and one that drew it
        # anyway is not written
        return self.config.makes_previews

    def _image(self, slug: str | None) -> str | None:
        if not self._has_preview(slug):
            return None
        path = f"{slug}/{PREVIEW}" if slug else PREVIEW
        return self._absolute(path) or PREVIEW  # relative to the page itself

    def linked_slugs(self, slug: str) -> list[str]:
        """The terms a page links to with class ``term-link``: its body, related and backlinks."""
        body = self.bodies.get(slug)
        found = {link.slug for link in body.links if link.slug} if body else set()
        found.update(self.terms[slug].related, self.backlinks.get(slug, ()))
        return sorted(self.terms.keys() & found)  # (goes over found, looking each up in terms)

    def page_extras(self, term: Term | None) -> dict:
        """Template values for a term page (None: the index page); see templates/base.html."""
        config = self.config
        if term is None:
            return {
                "meta_tags": discovery.meta_tags(config, title=config.title, description=config.description,
                                                 kind="website", page_url=self._absolute(""), image=self._image(None)),
                "json_ld": discovery.index_json_ld(config, self.entries),
            }
        entry = self.entry(term.slug)
        extras: dict = {
            "meta_tags": discovery.meta_tags(config, title=entry.title, description=entry.summary, kind="article",
                                             page_url=self._absolute(entry.url), image=self._image(entry.slug)),
            "json_ld": discovery.term_json_ld(config, entry),
        }
        linked = self.linked_slugs(term.slug)
        if linked:
            extras["card_data"] = cards.join_items(map(self._card_items.__getitem__, linked))
            extras["card_scripts"] = [self.card_script]
            extras["card_stylesheets"] = [self.card_stylesheet]
        return extras

    def files(self) -> dict[str, bytes]:
        """glossary.json, objects.inv, _headers, redirects, embed files, and (with a base URL) sitemap and robots.txt."""
        config = self.config
        headings = {slug: [(ident, text) for _, ident, text in body.headings] for slug, body in self.bodies.items()}
        files = {
            "glossary.json": glossary_json(config, self.entries),
            "objects.inv": objects_inv(config.title, "", self.entries, headings),
            "_headers": headers_file(),
            **cards.embed_files(),
        }
        for redirect in self.redirects:
            term = self.terms[redirect.target]
            target = f"../{term.slug}/{self.index_page}"
            canonical = self._absolute(f"{term.slug}/") or f"../{term.slug}/"
            files[f"{redirect.source}/index.html"] = redirect_page(term.title, redirect.alias, config.language, target, canonical)
        if config.base_url:
            files["sitemap.xml"] = discovery.sitemap_xml(config.base_url, self.entries)
            files["robots.txt"] = discovery.robots_txt(config.base_url)
        return files

    def _wanted_previews(self) -> tuple[dict[str, bytes], list[tuple[str, str, tuple[str, str, str, str]]]]:
        """The explainers' own previews (path -> PNG), and the cards to compose:
        (output path, source path, texts); none when the site makes no previews."""
        config = self.config
        if not config.makes_previews:
            return {}, []
        footer = config.base_url.split("://", 1)[-1] if config.base_url else ""
        files: dict[str, bytes] = {}
        wanted: list[tuple[str, str, tuple[str, str, str, str]]] = []
        for entry in self.entries:
            explainer = self.explainers.get(entry.slug)
            if (chosen := published_preview(self.terms[entry.slug])) is not None:  # its front matter's preview_image
                files[f"{entry.slug}/{PREVIEW}"] = chosen
            elif explainer and explainer.preview_png:
                files[f"{entry.slug}/{PREVIEW}"] = explainer.preview_png
            else:
                wanted.append((f"{entry.slug}/{PREVIEW}", self.terms[entry.slug].path,
                               (entry.title, entry.summary, config.title, footer)))
        count = f"{len(self.entries)} term" + ("" if len(self.entries) == 1 else "s")
        wanted.append((PREVIEW, "site.toml", (config.title, config.description, count, footer)))
        return files, wanted

    def _keyed(self, wanted: list) -> tuple[object, list[str], list[Problem]]:
        """The painter, each wanted card's key, and what no installed font has
        (itemising a card's texts for its key notes the characters)."""
        from . import preview  # here: it imports numpy and Pillow, which a build without previews never needs

        painter = preview.painter(self.config.language)
        painter.fonts.missing.clear()
        keys = [painter.key(*texts) for _, _, texts in wanted]
        return painter, keys, preview.missing_font_problems(painter.fonts.missing, wanted)

    def font_problems(self) -> list[Problem]:
        """What ``previews()`` would warn about (characters no installed font has),
        without drawing a card: ``check`` reports it as a build would."""
        _, wanted = self._wanted_previews()
        return self._keyed(wanted)[2] if wanted else []

    def preview_cards(self) -> tuple[dict[str, bytes], dict[str, str], dict[str, tuple]]:
        """The previews to make, as data: (the explainers' own PNGs by path, output
        path -> the key of the card composed for it, key -> that card's texts).
        Equal keys are equal cards (``Painter.key``). Characters no installed
        font has give one warning in ``preview_problems``."""
        files, wanted = self._wanted_previews()
        if not wanted:
            return files, {}, {}
        self._painter, keys, self.preview_problems = self._keyed(wanted)
        cards = {path: key for key, (path, _, _) in zip(keys, wanted)}
        texts = {key: card_texts for key, (_, _, card_texts) in zip(keys, wanted)}
        return files, cards, texts

    def draw_previews(self, texts: Mapping[str, tuple], jobs: int = 1) -> dict[str, bytes]:
        """key -> PNG of each card in ``texts`` (from ``preview_cards``): ~2 ms a
        card (``preview``); many to draw and ``jobs`` > 1: forked workers draw them."""
        if not texts:
            return {}
        from . import preview

        return preview.render_all(self._painter, dict(texts), jobs)

    def previews(self, jobs: int = 1) -> dict[str, bytes]:
        """The 1200x630 PNG previews by path: the explainer's own, else composed when
        they can be used (``SiteConfig.makes_previews``); every card drawn."""
        files, cards, texts = self.preview_cards()
        drawn = self.draw_previews(texts, jobs)
        return {**files, **{path: drawn[key] for path, key in cards.items()}}
