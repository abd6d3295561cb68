"""A Python-Markdown extension: ``[[Term]]`` links into a published glossary.

Any Python-Markdown based site (MkDocs included) enables it with the location
of a glossary's ``glossary.json``::

    markdown.Markdown(extensions=[GlossaryLinkExtension(glossary="https://example.org/glossary/")])

    # mkdocs.yml
    markdown_extensions:
      - site_builder.integrations.mdext:
          glossary: https://example.org/glossary/glossary.json

``[[speculative decoding]]``, ``[[Speculative decoding|the text]]`` and
``[[Inference#two-phases-prefill-and-decode]]`` become links to the entry,
with its summary as the title attribute. Names match as in the glossary
itself: any case, titles, aliases, slugs and simple plurals. An unknown term
or anchor is logged as a warning (logger ``site_builder.integrations.mdext``) and
left as written, or raises ``GlossaryLinkError`` with ``strict: true``.
Code spans and code blocks are left alone.

Options: ``glossary`` (URL or path of glossary.json, or the folder holding it;
read once per process), ``base_url`` (where links point; default: the
glossary's ``base_url``, else the URL it was loaded from), ``strict``
(default false), ``css_class`` (default ``glossary-term``), ``title`` (the
summary as the link's title attribute; default true), ``autolink``
(``"first"``: the first mention of each title or alias is linked too, as
``markup.autolink`` rules; default ``"off"``) and ``autolink_unit``
(``"page"`` or ``"section"``: what "first" counts in).

The MkDocs plugin (``mkdocs_plugin.py``) drives this same extension through
three constructor arguments that are not options: ``source`` (the glossary it
read for this build), ``report`` (problems, instead of logging or raising) and
``linked`` (each term a link was made to, for its hover-card data).
"""

from __future__ import annotations

import logging
import xml.etree.ElementTree as etree
from typing import Callable

from markdown.extensions import Extension
from markdown.inlinepatterns import InlineProcessor

from ..markup import autolink
from ..markup.source import WIKILINK_RE
from .published import PublishedGlossary, PublishedTerm, load_glossary, resolve_link, split_target

logger = logging.getLogger(__name__)

PRIORITY = 175
"""After code spans (190) and escapes (180), before links (160)."""


class GlossaryLinkError(ValueError):
    """Raised in strict mode for a ``[[...]]`` link the glossary cannot resolve."""


class _WikiLinkProcessor(InlineProcessor):
    def __init__(self, extension: "GlossaryLinkExtension", md):
        super().__init__(WIKILINK_RE.pattern, md)
        self.extension = extension

    def handleMatch(self, m, data):
        target = m.group(1)
        text = (m.group(2) or split_target(target)[0]).strip()
        link = self.extension.link_for(target, text, m.group(0))
        if link is None:
            return None, None, None
        return link, m.start(0), m.end(0)


class GlossaryLinkExtension(Extension):
    """``[[Term]]`` and ``[[Term|text]]`` links to a published glossary."""

    def __init__(self, *, source: Callable[[], PublishedGlossary] | None = None,
                 report: Callable[[str, str], None] | None = None,
                 linked: Callable[[PublishedTerm], None] | None = None, **kwargs):
        # Not options (mkdocs.yml cannot give a callable): what the MkDocs plugin hands in.
        self._source, self._report, self._linked = source, report, linked
        self.config = {
            "glossary": ["", "URL or path of the glossary's glossary.json (or the folder holding it)"],
            "base_url": ["", "where links point; default: the glossary's base_url, else where glossary.json was loaded from"],
            "strict": [False, "raise GlossaryLinkError for an unknown term or anchor (default: log a warning)"],
            "css_class": ["glossary-term", "class attribute of the generated links"],
            "title": [True, "set the entry's summary as the link's title attribute (turn off when hover cards show it)"],
            "autolink": ["off", '"first": link the first mention of each term or alias (default "off")'],
            "autolink_unit": ["page", '"page" or "section" (each ## heading): what "first" counts in'],
        }
        super().__init__(**kwargs)
        self._matcher: tuple[PublishedGlossary, autolink.TermMatcher, dict[str, str]] | None = None

    @property
    def glossary(self) -> PublishedGlossary:
        """The configured glossary, loaded on first use."""
        if self._source is not None:
            return self._source()
        location = self.getConfig("glossary")
        if not location:
            raise GlossaryLinkError("the glossary links extension needs the 'glossary' option (URL or path of glossary.json)")
        return load_glossary(location)

    def extendMarkdown(self, md):
        md.inlinePatterns.register(_WikiLinkProcessor(self, md), "glossary_wikilink", PRIORITY)
        mode, unit = self.getConfig("autolink") or "off", self.getConfig("autolink_unit") or "page"
        if mode not in ("off", "first") or unit not in autolink.UNITS:
            raise GlossaryLinkError(f'autolink must be "off" or "first" (not {mode!r}) and autolink_unit '
                                    f'"page" or "section" (not {unit!r})')
        if mode == "first":
            autolink.register(md, autolink.AutolinkProcessor(md, self._names, self._autolink, self._target_of, unit))

    def _names(self) -> autolink.TermMatcher:
        """The titles and aliases of the glossary, as an autolink matcher (made once per glossary read)."""
        glossary = self.glossary
        if self._matcher is None or self._matcher[0] is not glossary:
            entries = [(name, term.slug) for term in glossary.terms.values() for name in (term.title, *term.aliases)]
            base = self.getConfig("base_url") or None
            hrefs = {glossary.href(term, "", base): term.slug for term in glossary.terms.values()}
            self._matcher = (glossary, autolink.TermMatcher(entries), hrefs)
        return self._matcher[1]

    def _autolink(self, slug: str, text: str) -> etree.Element | None:
        glossary = self.glossary
        term = glossary.terms[slug]
        return None if glossary.url_problem(term) else self._element(term, text, "")

    def _target_of(self, link: etree.Element) -> str | None:
        """The glossary term an existing link goes to: one of ours, or a URL of its page."""
        if link.get("data-term"):
            return link.get("data-term")
        self._names()
        return self._matcher[2].get((link.get("href") or "").split("#")[0]) if self._matcher else None

    def link_for(self, target: str, text: str, written: str) -> etree.Element | None:
        """The ``<a>`` for one ``[[...]]``; None (after a warning) when it does not resolve."""
        glossary = self.glossary
        term, anchor, problem = resolve_link(glossary, target, written)
        if term is None:
            return self._problem(f"{problem} (not in {glossary.source})", written)
        if problem:
            return self._problem(problem, written)
        return self._element(term, text, anchor)

    def _element(self, term: PublishedTerm, text: str, anchor: str) -> etree.Element:
        glossary = self.glossary
        element = etree.Element("a")  # resolve_link refused an entry whose URL fails the scheme rule
        element.set("href", glossary.href(term, anchor, self.getConfig("base_url") or None))
        if self.getConfig("title"):
            element.set("title", term.summary)
        if self.getConfig("css_class"):
            element.set("class", self.getConfig("css_class"))
        element.set("data-term", term.slug)
        element.text = text
        if self._linked is not None:
            self._linked(term)
        return element

    def _problem(self, message: str, written: str) -> None:
        if self._report is not None:
            self._report(message, written)
            return None
        if self.getConfig("strict"):
            raise GlossaryLinkError(message)
        logger.warning(message)
        return None


def makeExtension(**kwargs) -> GlossaryLinkExtension:  # noqa: N802 - Python-Markdown's name
    """Entry point for ``extensions=["site_builder.integrations.mdext"]`` and mkdocs.yml."""
    return GlossaryLinkExtension(**kwargs)
