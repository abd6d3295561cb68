"""Render one term's markdown body to HTML, with its anchors and outgoing links.

The result depends only on the body, the site config and the name index, never
on another term's page, so it can be computed in parallel and cached by those
inputs.
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass, field
from html import unescape as unescape_html
from typing import Callable, NamedTuple

import markdown
from markdown.extensions import Extension
from markdown.extensions.attr_list import AttrListExtension
from markdown.extensions.fenced_code import FencedCodeExtension
from markdown.extensions.footnotes import FootnoteExtension
from markdown.extensions.sane_lists import SaneListExtension
from markdown.extensions.tables import TableExtension
from markdown.extensions.toc import TocExtension, slugify_unicode
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AMP_SUBSTITUTE

from ..names import NameIndex
from ..urls import is_safe_url
from . import autolink, images, placement
from .hrefs import href_target, plain_target
from .accel import fast_blocks, fast_inline, fast_tree, registries  # here: forked workers inherit them imported
from .attributes import check_attribute_lists, check_url_attribute, guard_fences, id_line, off_prefix, record_attribute_lists
from .reserved import reserved
from .locate import SourceLocator
from .page_ids import HOLDER_TAG, ReleasePageIds, ReservePageIds
from .source import FENCE_RE, outside_fences, prepare_source


def __getattr__(name: str):
    """``PAGE_IDS``: ids the templates and scripts give elements around a body, read from
    those files (``markup.reserved``, which also reserves prefixes such as ``letter-``):
    a heading named "Related terms" gets ``related-terms_1``; setting one by hand is an
    error. The explainers' ids are handed in by the build (``BodyRenderer(reserved_ids=)``).
    Made when first asked, not at import: the cache layer may hand in what
    ``reserved()`` reads (``markup.reserved.take_reserved``) before then."""
    if name == "PAGE_IDS":
        return reserved().ids
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_REPEAT = re.compile(r"_\d+$")  # toc's suffix for a repeated heading: never in an id the page makes
_as_link = tuple.__new__  # Link(*fields) without the per-call overhead of NamedTuple.__new__


class Link(NamedTuple):
    """An internal link found in a body: to ``slug`` (None: this page) and ``anchor``."""

    slug: str | None
    anchor: str
    line: int


@dataclass
class RenderedBody:
    """A term body turned into HTML, plus what validation needs to know about it."""

    html: str
    """The body's HTML."""
    anchors: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    problems: list[tuple] = field(default_factory=list)
    """``(line, message)`` for an error, ``(line, message, "warning")`` for a warning."""
    headings: list[tuple[int, str, str]] = field(default_factory=list)
    """(level, id, text) of every heading, for a table of contents."""
    opening: int | None = None
    """Characters of ``html`` before the place an explainer's figure goes (the
    marker, or the first heading); None: after the whole body (``placement``)."""
    marker_line: int | None = None
    """The line of the explainer marker, when the body has one."""

    def to_record(self) -> tuple:
        """Everything but the HTML, as plain values for the build cache."""
        return (self.anchors, [tuple(link) for link in self.links], self.problems, self.headings,
                self.opening, self.marker_line)

    @classmethod
    def from_record(cls, record: tuple, html: str) -> "RenderedBody":
        """The body ``to_record`` described (its HTML given separately)."""
        anchors, links, problems, headings, opening, marker_line = record
        return cls(html, anchors, [_as_link(Link, link) for link in links],
                   [tuple(p) for p in problems], [tuple(h) for h in headings], opening, marker_line)


class _State:
    """Per-document state shared by the extension's processors."""

    def __init__(self, names: NameIndex, first_line: int, pretty_urls: bool, resolve: Callable[[str], object]):
        self.names = names
        self.resolve = resolve  # names.resolve, remembered by the renderer (``BodyRenderer.resolve``)
        self.first_line = first_line
        self.pretty_urls = pretty_urls
        self.result = RenderedBody(html="")
        self.link_lines: dict[str, list[int]] = {}
        self.links_placed: dict[str, int] = {}  # href -> how many of its link_lines are taken
        self.source: list[str] = []
        self.prepared: list[str] = []  # the source after the line-aware pass (same lines)
        self._locator: SourceLocator | None = None
        self.stashed: list = []  # Python-Markdown's stash: what its placeholders stand for
        self.set_by_lists: list = []  # (element, its attributes before) for each attribute list applied
        self.level_one: list[tuple[int, str]] | None = None  # found on the first <h1> (rare)
        self.h1_seen = 0

    def locate(self) -> SourceLocator:
        """Where values were written in the source; built when a problem first needs a line (rare)."""
        if self._locator is None:
            self._locator = SourceLocator(self.prepared, self.first_line)
        return self._locator


class _SourcePass(Preprocessor):
    def __init__(self, md, state_ref):
        super().__init__(md)
        self.state_ref = state_ref

    def run(self, lines):
        state = self.state_ref()
        state.source = lines
        out, scan = prepare_source(lines, state.first_line, self.md.htmlStash.store, state.resolve)
        state.result.problems.extend(scan.problems)
        if "explainer" in "\n".join(out) and any(placement.has_marker(line) for line in out):  # join: one scan
            state.result.marker_line, found = placement.mark(out, state.first_line)
            state.result.problems.extend(found)
        state.link_lines = scan.link_lines
        state.prepared = out
        state.stashed = self.md.htmlStash.rawHtmlBlocks
        return out


class _LinkPass(Treeprocessor):
    """Rewrites links to ``slug.md`` into page URLs and records anchors (runs last).

    Without raw HTML it also removes what ``{: attr_list}`` may not set (``attributes``),
    and always links, images and ids that break the scheme rule or the page's ids.
    """

    def __init__(self, md, state_ref, page_ids: frozenset[str], strip_attributes: bool = True,
                 explainer_ids: frozenset[str] = frozenset()):
        super().__init__(md)
        self.state_ref = state_ref
        self.page_ids = page_ids
        self.strip_attributes = strip_attributes
        self.explainer_ids = explainer_ids

    def run(self, root):
        state = self.state_ref()
        result = state.result
        strip = self.strip_attributes
        page_ids = self.page_ids
        holder = root.find(HOLDER_TAG)
        if holder is not None:
            root.remove(holder)
        if result.marker_line is None:
            placement.place(root)  # the explainer's default place: before the first heading
        if strip and state.set_by_lists:
            check_attribute_lists(state, self.explainer_ids)
        id_prefix = reserved().id_prefix
        for element in root.iter():
            if not element.attrib:
                continue  # every step below starts from an attribute (most elements have none)
            ident = element.get("id")
            if ident:
                if ident in page_ids:  # set by hand ({: #main }): two elements would share it
                    result.problems.append((id_line(state, ident),
                                            f"id {ident!r} is already used by the page around the body"))
                    del element.attrib["id"]  # the page's element stays the only one
                elif id_prefix(ident) and not _REPEAT.search(ident):  # "letter-a", "search-option-3" (the page's)
                    ident = off_prefix(element, ident, state, id_prefix(ident), root)
                if element.get("id"):
                    result.anchors.append(ident)
            if element.tag == "img" and element.get("src") is not None:
                check_url_attribute(element, "src", state)
                images.place_image(element, state)
            if element.tag == "a" and element.get("href") is not None:
                self._rewrite(element, state)
            if element.tag in ("th", "td") and element.get("style", "").startswith("text-align:"):
                # A class, not a style attribute: a strict CSP (style-src 'self') blocks those.
                align = element.attrib.pop("style").split(":", 1)[1].strip().rstrip(";")
                element.set("class", f"align-{align}")
            if element.tag in ("h2", "h3", "h4", "h5", "h6") and element.get("id"):
                text = "".join(element.itertext()).strip()
                result.headings.append((int(element.tag[1]), ident, text))
            elif element.tag == "h1":
                if state.level_one is None:
                    state.level_one = _level_one_headings(state.source)
                found = state.level_one
                line, text = found[state.h1_seen] if state.h1_seen < len(found) else (0, "#")
                state.h1_seen += 1
                result.problems.append((state.first_line + line, f"level-1 heading {text!r} makes a second <h1> "
                                        "on the page, whose title is its <h1>: start body headings at ##", "warning"))

    def _rewrite(self, element: etree.Element, state: _State) -> None:
        href = element.get("href", "")
        target = plain_target(href)  # "slug.md": safe, and read without urlsplit (most links)
        if target is None:
            read = href
            if "&" in href or AMP_SUBSTITUTE in href:
                # As written (the serializer turns the placeholder back into "&"), and as
                # the browser reads it: character references decoded (an e-mail autolink's
                # "&#109;&#97;..." is "mailto:...", "&#106;avascript:" is "javascript:").
                href = href.replace(AMP_SUBSTITUTE, "&")
                read = unescape_html(href)
            if not is_safe_url(href):
                # Whatever else the URL holds (a host: "javascript://x/%0a..."): the scheme decides.
                state.result.problems.append((_refused_link_line(state, href), f"link with unsupported scheme: {href}"))
                del element.attrib["href"]  # inert even where the build's refusal is not the last word
                return
            target = href_target(read)
            if target is None:
                return
        _scheme, path, anchor, slug, fragment = target
        if not path:
            if anchor:
                state.result.links.append(_as_link(Link, (None, anchor, _link_line(state, href))))
            return
        if slug is None and images.link_file(element, read, state):
            return  # a file beside the term (markup.images)
        if slug is None or slug not in state.names.slugs:
            what = f"unknown term '{slug}'" if slug else "a file that is not a term (links go to other terms as slug.md, or to external URLs)"
            state.result.problems.append((_refused_link_line(state, href), f"link to {what}: {href}"))
            return
        state.result.links.append(_as_link(Link, (slug, anchor, _link_line(state, href))))
        page = f"../{slug}/" + ("" if state.pretty_urls else "index.html")
        element.set("href", page + (f"#{fragment}" if fragment else ""))
        element.set("data-term", slug)
        classes = element.get("class", "")
        element.set("class", (classes + " term-link").strip())


def _link_line(state: _State, href: str) -> int:
    """The line of the link to ``href`` met next in the tree: the source pass's
    lines for it, in order (the last again for a reference used twice)."""
    written = state.link_lines.get(href)
    if written:
        placed = state.links_placed.get(href, 0)
        state.links_placed[href] = placed + 1
        return written[min(placed, len(written) - 1)]
    if href.startswith("#"):
        return state.first_line  # footnote marks and their back links: never written as such
    found = state.locate().link(href)
    return found if found is not None else state.first_line


def _refused_link_line(state: _State, href: str) -> int:
    """The line a refused link's destination is written on, whatever the construct
    (inline, reference definition, attribute list, footnote, table, quote, list)."""
    found = state.locate().link(href)
    return found if found is not None else _link_line(state, href)


_ATX_H1 = re.compile(r" {0,3}(?:> ?)*#(?!#)[ \t]*(.*?)[ \t#]*$")
_SETEXT_H1 = re.compile(r" {0,3}(?:> ?)*=+[ \t]*$")


def _level_one_headings(source: list[str]) -> list[tuple[int, str]]:
    """(offset, text as written) of each level-1 heading in the body's source, in order (``# text``, also
    quoted, or ``text`` over ``===``), outside fenced code: the n-th <h1> of the tree is the n-th of these."""
    found = []
    for offset, line in outside_fences(source):
        if heading := _ATX_H1.match(line):
            found.append((offset, heading.group(1)))
        elif offset and _SETEXT_H1.match(line) and source[offset - 1].strip() and not FENCE_RE.match(source[offset - 1]):
            found.append((offset - 1, source[offset - 1].strip()))
    return found


class GlossaryExtension(Extension):
    """Maths, wikilinks and link rewriting for term bodies."""

    def __init__(self, state_ref, allow_raw_html: bool, page_ids: frozenset[str] | None = None,
                 explainer_ids: frozenset[str] = frozenset()):
        super().__init__()
        self.state_ref = state_ref
        self.allow_raw_html = allow_raw_html
        self.page_ids = reserved().ids if page_ids is None else page_ids  # (None: PAGE_IDS)
        self.explainer_ids = explainer_ids

    def extendMarkdown(self, md):
        # After normalize_whitespace (30), which strips the placeholder markers, and
        # before fenced_code (25), which collapses lines: line numbers still hold.
        md.preprocessors.register(_SourcePass(md, self.state_ref), "glossary_source", 29)
        # Around toc (5): the page's ids, which headings must avoid (``markup.page_ids``).
        md.treeprocessors.register(ReservePageIds(md, self.page_ids), "glossary_reserve_ids", 6)
        md.treeprocessors.register(ReleasePageIds(md), "glossary_release_ids", 4)
        md.treeprocessors.register(_LinkPass(md, self.state_ref, self.page_ids, not self.allow_raw_html,
                                             self.explainer_ids), "glossary_links", 0)
        if not self.allow_raw_html:
            # Without these two, raw HTML is escaped and shows as text.
            md.preprocessors.deregister("html_block")
            md.inlinePatterns.deregister("html")


RESOLVED_NAMES = 4096
"""How many wikilink names each renderer remembers the slug of (``BodyRenderer.resolve``)."""


class BodyRenderer:
    """A reusable Python-Markdown pipeline (one per process: it is not thread-safe)."""

    def __init__(self, names: NameIndex, pretty_urls: bool = False, allow_raw_html: bool = False,
                 fast: bool = True, reserved_ids: frozenset[str] = frozenset(), autolink_unit: str | None = None,
                 media_mb: float = images.DEFAULT_LIMIT_MB):
        """``fast=False``: Python-Markdown's own processors, the reference the fast ones are tested
        against. ``reserved_ids``: ids the page gives elements besides ``PAGE_IDS`` (the explainers');
        headings avoid them, a body may not set them. ``autolink_unit``: "page" or "section" links
        first mentions (``markup.autolink``). ``media_mb``: the largest file a body publishes."""
        self.names, self.page_ids, self.explainer_ids = names, reserved().ids | reserved_ids, reserved_ids
        self.pretty_urls, self.allow_raw_html, self.fast, self.media_mb = pretty_urls, allow_raw_html, fast, media_mb
        self.autolink_unit, self.slug = autolink_unit, None
        # What a [[wikilink]] name resolves to: a pure function of the name while this
        # renderer's index lives (nothing changes a NameIndex once built), and the same
        # names recur across bodies ("See [[Inference]]"): remembered per renderer.
        self.resolve = functools.lru_cache(maxsize=RESOLVED_NAMES)(names.resolve)
        self.state: _State | None = None
        self.md = self._pipeline()

    def _pipeline(self) -> markdown.Markdown:
        # Extension objects, not names: a name makes Python-Markdown scan every
        # installed package's entry points (importlib.metadata, ~40 ms per process).
        md = markdown.Markdown(
            extensions=[
                GlossaryExtension(lambda: self.state, self.allow_raw_html, self.page_ids, self.explainer_ids),
                TocExtension(slugify=slugify_unicode, permalink=False, toc_depth="2-4"),
                TableExtension(), FencedCodeExtension(),
                FootnoteExtension(UNIQUE_IDS=False, BACKLINK_TITLE="Back to reference %d"),
                AttrListExtension(), SaneListExtension(),
            ],
            output_format="html",
        )
        if self.fast:
            # The same HTML for less CPU; each falls back to stock on another Markdown (registries:
            # iterating reuses the sorted items until something registers or deregisters).
            for accel in (fast_inline, fast_tree, fast_blocks, registries):
                accel.install(md)
        if not self.allow_raw_html:
            # On the processors in use, stock or fast: what attribute lists set is checked.
            record_attribute_lists(md, lambda: self.state)
            guard_fences(md, lambda: self.state, self.page_ids, self.explainer_ids)
        autolink.for_bodies(md, self)  # with autolink_unit: first mentions become links to slug.md
        return md

    def render(self, body: str, first_line: int, media: dict | None = None, slug: str | None = None) -> RenderedBody:
        """Render ``body`` whose first line is line ``first_line`` of its file (``media``:
        its ``Term.media``; ``slug``: its page)."""
        self.state, self.slug = _State(self.names, first_line, self.pretty_urls, self.resolve), slug
        self.state.media = images.Context(media, self.media_mb)
        self.md.reset()
        try:
            html = self.md.convert(body)
        except RecursionError:
            # The parser's (and inline processors') state stacks are left mid-document and reset() does
            # not clear them: start a fresh pipeline, or every later body would be parsed wrongly.
            self.md = self._pipeline()
            self.state = None
            return RenderedBody(html="", problems=[(first_line, "markdown is nested too deeply to render")])
        result = self.state.result
        result.html, result.opening, alone = placement.split(html, _tidy)
        if not alone and all(p[0] != result.marker_line for p in result.problems):
            result.problems.append((result.marker_line, f"the explainer marker {placement.MARKER} must be at the "
                                    "top level of the body, not inside a list, a quote or an HTML block"))
        self.state = None
        return result


_BLANK_LINES = re.compile(r"\n{3,}")


def _tidy(html: str) -> str:
    # Extensions (footnotes, fenced code) leave runs of blank lines between blocks: one is enough.
    if "\n\n\n" in html:
        html = _BLANK_LINES.sub("\n\n", html)
    return html.strip() + "\n"
