"""A faster drop-in for the toc extension's treeprocessor: heading ids as stock, no unused table.

``FastTocTreeprocessor`` (toc)
    Stock ``run()`` does three things: gives every heading without an ``id``
    one (slugified from the heading's rendered text, made unique against all
    ids in the document), removes ``data-toc-label`` attributes, and builds a
    table of contents that it serializes into ``md.toc`` / ``md.toc_tokens``
    and puts in place of a paragraph holding only the marker (``[TOC]``).
    Nothing in this project reads ``md.toc`` or ``md.toc_tokens``, so when no
    childless element's text contains the marker (checked in the same walk
    that collects the ids) the table is neither built nor serialized;
    otherwise stock ``run()`` does everything. The ids come from the same
    calls in the same order (``slugify``, ``unique`` with the same
    ``used_ids`` and counters). A heading's name is only computed when it
    needs an id; for a heading that is plain text (no children, none of
    ``& < > STX ETX`` in it) it is ``' '.join(text.split())``, which is what
    serializing, unescaping (needs STX), the known postprocessors (each needs
    STX), ``strip_tags`` (needs '<') and ``html.unescape`` (needs '&') reduce
    it to. Other headings go through stock ``render_inner_html``. Rendering a
    name, and the ``data-toc-label`` clean-up, have no side effects with the
    known postprocessors, which is checked on every run (else: stock). The
    slug of a name is remembered across pages when ``slugify`` is one of
    markdown's own (pure) functions; ``unique()`` still runs every time.
"""

from __future__ import annotations

import functools
import html
import re
import xml.etree.ElementTree as etree

from markdown import serializers, util
from markdown.extensions.footnotes import FootnotePostprocessor
from markdown.extensions import toc
from markdown.extensions.toc import TocTreeprocessor, remove_fnrefs, render_inner_html, strip_tags, unique
from markdown.postprocessors import AndSubstitutePostprocessor, RawHtmlPostprocessor

from .fast_passes import FastRawHtmlPostprocessor
from .fast_serializer import fast_html_string

STX, ETX = util.STX, util.ETX

# Characters that serializing, unescaping, the known postprocessors, strip_tags
# or html.unescape would act on: a heading text free of them is its own name.
_NOT_PLAIN = re.compile("[&<>" + STX + ETX + "]")


_MISSING = object()
# Pure functions of their arguments, so their results can be remembered.
_PURE_SLUGIFY = (toc.slugify, toc.slugify_unicode)
_LOWER_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))


@functools.lru_cache(maxsize=4096)  # headings repeat across pages ("Related", "See also")
def _pure_slug(name: str, sep: str, slugify) -> str:
    return slugify(html.unescape(name), sep)


class FastTocTreeprocessor(TocTreeprocessor):
    """``TocTreeprocessor`` that skips the table itself when there is no marker to replace."""

    fixed_subtree: tuple[etree.Element, frozenset[str], int] | None = None
    """(holder, its children's ids, its number of children): a holder the caller appends as
    the tree's last child just before this runs (``markup.page_ids``): no id of its own, one
    childless child per id, no heading tag. When it is there its ids are taken, not walked."""

    def run(self, doc: etree.Element) -> None:
        """Set heading ids exactly as stock; build the table only for a ``[TOC]`` marker."""
        if not self._shortcut_holds():
            return super().run(doc)
        fixed = self.fixed_subtree
        known = fixed is not None and len(doc) > 0 and doc[-1] is fixed[0] and len(fixed[0]) == fixed[2]
        if known:
            del doc[-1]  # its ids are taken as known; it has no text and no heading: not walked
        try:
            # replace_marker only replaces an element whose text (stripped) is the
            # marker; with the marker nowhere in the tree's text there is none.
            marked = self.marker and self.marker in "".join(doc.itertext())
            if not marked:
                self._set_ids(doc, fixed[1] if known else ())
        finally:
            if known:
                doc.append(fixed[0])
        return super().run(doc) if marked else None

    def _set_ids(self, doc: etree.Element, known_ids) -> None:
        """What stock ``run()`` does to the headings of ``doc`` when there is no marker; ``known_ids``: ids
        of a subtree taken out of ``doc`` (stock would find them in it)."""
        is_header = self.header_rgx.match
        header_tags: dict = {}  # tag -> whether stock treats it as a heading
        used_ids = set(known_ids)
        headings = []
        missing = _MISSING
        for el in doc.iter():
            ident = el.get("id", missing)  # get(), not attrib: that would make a dict per element
            if ident is not missing:
                used_ids.add(ident)
            tag = el.tag
            header = header_tags.get(tag)
            if header is None:
                header = header_tags[tag] = bool(isinstance(tag, str) and is_header(tag))
            if header:
                headings.append(el)
        id_counters: dict[str, int] = {}
        for el in headings:
            if self.base_level or el.tag not in _LOWER_HEADINGS:
                self.set_level(el)  # it would set the tag it has
            attrib = el.attrib
            if "id" not in attrib:
                name = _plain_name(el)
                if name is None:
                    name = strip_tags(render_inner_html(remove_fnrefs(el), self.md))
                attrib["id"] = unique(self._slug(name), used_ids, id_counters)
            if "data-toc-label" in attrib:
                # Stock renders the label for the table only, then drops it.
                del attrib["data-toc-label"]

    def _slug(self, name: str) -> str:
        """``self.slugify(html.unescape(name), self.sep)``, remembered for markdown's own slugify functions."""
        if self.slugify not in _PURE_SLUGIFY:
            return self.slugify(html.unescape(name), self.sep)
        return _pure_slug(name, self.sep, self.slugify)

    def _shortcut_holds(self) -> bool:
        """Whether this configuration is one whose stock output the short cut reproduces."""
        if self.use_anchors or self.use_permalinks not in (False, None):
            return False  # headings get links whose text is the rendered name
        if self.md.serializer not in (serializers.to_html_string, fast_html_string):
            return False
        # Rendering a name runs every postprocessor: they must be side-effect
        # free and the identity on text without STX.
        return all(type(pp) in _KNOWN_POSTPROCESSORS for pp in self.md.postprocessors)


def _plain_name(el: etree.Element) -> str | None:
    """The name stock ``run()`` computes for a heading of plain text; None for any other."""
    if len(el):
        return None
    for key, value in el.attrib.items():
        # An attribute name is written unescaped before the '>' that
        # render_inner_html looks for; a value holding a placeholder (say an
        # escaped '\>' copied in by attr_list) is unescaped back to '>' there
        # too, and stock then cuts the name at that '>'.
        if not isinstance(key, str) or ">" in key or not isinstance(value, str) or util.STX in value:
            return None
    text = el.text
    if not text:
        return ""
    if not isinstance(text, str) or _NOT_PLAIN.search(text):
        return None
    return " ".join(text.split())


_KNOWN_POSTPROCESSORS = (RawHtmlPostprocessor, FastRawHtmlPostprocessor, FootnotePostprocessor,
                         AndSubstitutePostprocessor)
