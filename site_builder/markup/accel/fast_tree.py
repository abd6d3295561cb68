"""Faster drop-ins for Python-Markdown's tree, pre- and postprocessors, same output.

Each class below subclasses the stock processor and either skips work that
provably cannot change anything, or does the same work with less Python
overhead. Why each gives byte-identical results:

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

``FastAttrListTreeprocessor`` (attr_list)
    Every regex it applies (block, header and inline forms) contains a
    literal ``{``; when no text or tail anywhere in the tree has one (one
    C-level ``itertext()`` join, which also yields comments' text) it cannot
    change anything.

``FastUnescapeTreeprocessor`` (unescape)
    Its regex needs STX; without STX in any text, tail or attribute value it
    only re-sets attributes to the values they already have.

``FastPrettifyTreeprocessor`` (prettify)
    The same recursion as stock, with ``md.is_block_level`` answered from a
    per-run cache (it depends only on the tag) and without re-entering a
    method per element.

``fast_html_string`` (the serializer)
    The same output as ``markdown.serializers.to_html_string`` (same escape
    functions, same attribute order and boolean-attribute rule), written as a
    recursion that appends to one list. Trees with anything but plain string
    tags (comments, processing instructions, ``QName``), or too deep for the
    recursion, are handed to the stock serializer whole.

``FastNormalizeWhitespace``, ``FastFencedBlockPreprocessor``, ``FastRawHtmlPostprocessor``
    Skip a regex that cannot match: ``(?<=\\n) +\\n`` needs " \\n"; a fenced
    block needs "```" or "~~~"; a stash placeholder needs STX.

Everything is installed only on Markdown 3.11 and only in place of the exact
stock class it was written against; anything else keeps its processor.
"""

from __future__ import annotations

import functools
import html
import re
import xml.etree.ElementTree as etree

import markdown
from markdown import serializers, util
from markdown.extensions.attr_list import AttrListTreeprocessor
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.extensions.footnotes import FootnotePostprocessor
from markdown.extensions import toc
from markdown.extensions.toc import TocTreeprocessor, remove_fnrefs, render_inner_html, strip_tags, unique
from markdown.postprocessors import AndSubstitutePostprocessor, RawHtmlPostprocessor
from markdown.preprocessors import NormalizeWhitespace
from markdown.treeprocessors import PrettifyTreeprocessor, UnescapeTreeprocessor

from . import upstream

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


# --- toc -------------------------------------------------------------------------


class FastTocTreeprocessor(TocTreeprocessor):
    """``TocTreeprocessor`` that skips the table itself when there is no marker to replace."""

    def run(self, doc: etree.Element) -> None:
        """Set heading ids exactly as stock; build the table only for a ``[TOC]`` marker."""
        if not self._shortcut_holds():
            return super().run(doc)
        marker = self.marker
        # replace_marker only replaces an element whose text (stripped) is the
        # marker; with the marker nowhere in the tree's text there is none.
        if marker and marker in "".join(doc.itertext()):
            return super().run(doc)
        is_header = self.header_rgx.match
        header_tags: dict = {}  # tag -> whether stock treats it as a heading
        used_ids = set()
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
        return None

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


# --- attr_list, unescape, prettify --------------------------------------------------


class FastAttrListTreeprocessor(AttrListTreeprocessor):
    """``AttrListTreeprocessor`` that returns at once when no text in the tree has a '{'."""

    def run(self, doc: etree.Element) -> None:
        """Stock ``run()``, unless no text or tail holds '{' (then it would change nothing)."""
        tail = doc.tail
        if "{" in "".join(doc.itertext()) or (tail and "{" in tail):
            super().run(doc)


class FastUnescapeTreeprocessor(UnescapeTreeprocessor):
    """``UnescapeTreeprocessor`` that returns at once when nothing holds STX."""

    def run(self, root: etree.Element) -> None:
        """Stock ``run()``, unless no text, tail or attribute value holds STX."""
        if STX in "".join(root.itertext()):
            return super().run(root)
        for elem in root.iter():
            attrib = elem.attrib
            if attrib:
                for value in attrib.values():
                    if value is not None and STX in value:
                        return super().run(root)
        return None


class FastPrettifyTreeprocessor(PrettifyTreeprocessor):
    """``PrettifyTreeprocessor`` with ``is_block_level`` cached per run."""

    def run(self, root: etree.Element) -> None:
        """Add the same line breaks as stock ``run()``."""
        is_block_level = self.md.is_block_level
        cache: dict = {}

        # Stock _prettifyETree, line for line, with is_block_level looked up in
        # ``cache`` first. The lookups are written out, not put in a helper:
        # a helper would add a stack frame per level, and a tree that stock
        # just manages to prettify at the recursion limit would then fail here.
        # (Element tags are strings or the Comment/PI functions: all hashable.)
        def prettify(elem: etree.Element) -> None:
            tag = elem.tag
            try:
                blocky = cache[tag]
            except KeyError:
                blocky = cache[tag] = is_block_level(tag)
            if blocky and tag not in ("code", "pre"):
                if (not elem.text or not elem.text.strip()) and len(elem):
                    first = elem[0].tag
                    try:
                        first_blocky = cache[first]
                    except KeyError:
                        first_blocky = cache[first] = is_block_level(first)
                    if first_blocky:
                        elem.text = "\n"
                for e in elem:
                    child = e.tag
                    try:
                        child_blocky = cache[child]
                    except KeyError:
                        child_blocky = cache[child] = is_block_level(child)
                    if child_blocky:
                        prettify(e)
            if not elem.tail or not elem.tail.strip():
                elem.tail = "\n"

        prettify(root)
        for br in root.iter("br"):
            if not br.tail or not br.tail.strip():
                br.tail = "\n"
            else:
                br.tail = "\n%s" % br.tail
        for pre in root.iter("pre"):
            if len(pre) and pre[0].tag == "code":
                code = pre[0]
                if not len(code) and code.text is not None:
                    code.text = util.AtomicString(code.text.rstrip() + "\n")


# --- serializer --------------------------------------------------------------------


class _Unusual(Exception):
    """A tree the fast serializer leaves to the stock one."""


_escape_cdata = serializers._escape_cdata
_escape_attrib_html = serializers._escape_attrib_html
_BOOLEAN = serializers.BOOLEAN_ATTRIBUTES["html"]
_HTML_EMPTY = serializers.HTML_EMPTY
_RAW_TEXT = ("script", "style")


def fast_html_string(element: etree.Element) -> str:
    """``markdown.serializers.to_html_string(element)``, with less overhead per element."""
    data: list[str] = []
    try:
        _serialize(data.append, element)
    except (_Unusual, RecursionError):
        return serializers.to_html_string(element)
    return "".join(data)


def _serialize(write, el: etree.Element) -> None:
    """Write ``el``, its subtree and its tail as stock ``_serialize_html`` does for "html"."""
    tag = el.tag
    if tag.__class__ is not str:
        raise _Unusual  # Comment, ProcessingInstruction, None, QName: stock handles those
    try:
        start, end, raw = _TAG_PARTS[tag]
    except KeyError:
        start, end, raw = _tag_parts(tag)
    attrib = el.attrib
    if attrib:
        parts = [start[:-1]]  # "<tag", the attributes go before its ">"
        for k, v in sorted(el.items()):  # lexical order, as stock
            if k.__class__ is not str or (v is not None and v.__class__ is not str):
                raise _Unusual
            if v is None:
                parts.append(f" {k}")
            else:
                v = _escape_attrib_html(v)
                if k == v and k in _BOOLEAN:
                    parts.append(f" {v}")
                else:
                    parts.append(f' {k}="{v}"')
        parts.append(">")
        write("".join(parts))
    else:
        write(start)
    text = el.text
    if text:
        # _escape_cdata only acts on these three; skipping the call is what saves time.
        if not raw and ("&" in text or "<" in text or ">" in text):
            text = _escape_cdata(text)
        write(text)
    for child in el:
        _serialize(write, child)
    if end:
        write(end)
    tail = el.tail
    if tail:
        if "&" in tail or "<" in tail or ">" in tail:
            tail = _escape_cdata(tail)
        write(tail)


_TAG_PARTS: dict[str, tuple[str, str | None, bool]] = {}


def _tag_parts(tag: str) -> tuple[str, str | None, bool]:
    """("<tag>", "</tag>" or None for a void element, whether the text is written raw)."""
    lower = tag.lower()
    parts = (f"<{tag}>", None if lower in _HTML_EMPTY else f"</{tag}>", lower in _RAW_TEXT)
    if len(_TAG_PARTS) < 1000:  # markdown uses a few dozen tags
        _TAG_PARTS[tag] = parts
    return parts


# --- pre- and postprocessors ----------------------------------------------------------


class FastNormalizeWhitespace(NormalizeWhitespace):
    """``NormalizeWhitespace`` that skips what cannot match (tabs, blank lines of spaces)."""

    def run(self, lines: list[str]) -> list[str]:
        """The lines stock ``run()`` returns."""
        source = "\n".join(lines)
        if STX in source or ETX in source:
            source = source.replace(STX, "").replace(ETX, "")
        if "\r" in source:
            source = source.replace("\r\n", "\n").replace("\r", "\n")
        source += "\n\n"
        if "\t" in source:
            source = source.expandtabs(self.md.tab_length)
        if " \n" in source:  # the regex ends with one
            source = re.sub(r"(?<=\n) +\n", "\n", source)
        return source.split("\n")


class FastFencedBlockPreprocessor(FencedBlockPreprocessor):
    """``FencedBlockPreprocessor`` that returns at once when there is no fence to find."""

    def run(self, lines: list[str]) -> list[str]:
        """The lines stock ``run()`` returns."""
        if self.checked_for_deps:
            text = "\n".join(lines)
            if "```" not in text and "~~~" not in text:
                return text.split("\n")  # what stock returns when its regex finds nothing
        return super().run(lines)


class FastRawHtmlPostprocessor(RawHtmlPostprocessor):
    """``RawHtmlPostprocessor`` that returns at once when there is no placeholder."""

    def run(self, text: str) -> str:
        """The text stock ``run()`` returns."""
        if STX not in text:
            return text  # both alternatives of its pattern contain STX
        return super().run(text)


_KNOWN_POSTPROCESSORS = (RawHtmlPostprocessor, FastRawHtmlPostprocessor, FootnotePostprocessor,
                         AndSubstitutePostprocessor)


# --- installation --------------------------------------------------------------------

# registry -> name -> (the stock class it must be, the replacement's factory)
_REPLACEMENTS = {
    "treeprocessors": {
        "toc": (TocTreeprocessor, lambda md, old: _copy_into(FastTocTreeprocessor, old)),
        "attr_list": (AttrListTreeprocessor, lambda md, old: FastAttrListTreeprocessor(md)),
        "unescape": (UnescapeTreeprocessor, lambda md, old: FastUnescapeTreeprocessor(md)),
        "prettify": (PrettifyTreeprocessor, lambda md, old: FastPrettifyTreeprocessor(md)),
    },
    "preprocessors": {
        "normalize_whitespace": (NormalizeWhitespace, lambda md, old: FastNormalizeWhitespace(md)),
        "fenced_code_block": (FencedBlockPreprocessor, lambda md, old: _copy_into(FastFencedBlockPreprocessor, old)),
    },
    "postprocessors": {
        "raw_html": (RawHtmlPostprocessor, lambda md, old: FastRawHtmlPostprocessor(md)),
    },
}


def _copy_into(cls, old):
    """A ``cls`` (a subclass of ``type(old)``) with ``old``'s configuration and state."""
    new = cls.__new__(cls)
    new.__dict__.update(old.__dict__)
    return new


def _replace(registry: util.Registry, name: str, new) -> None:
    """Put ``new`` in place of ``registry[name]``, at the same place in the run order."""
    # register() appends after items of equal priority: re-register those that
    # came after the old one so that the order stays as it was.
    order = [(item.name, item.priority) for item in sorted(
        registry._priority, key=lambda item: item.priority, reverse=True)]
    names = [n for n, _ in order]
    index = names.index(name)
    priority = order[index][1]
    registry.register(new, name, priority)
    for later, later_priority in order[index + 1:]:
        if later_priority == priority:
            registry.register(registry[later], later, later_priority)


# Only over the upstream sources these mirror (see upstream.py).
ENABLED = upstream.matches()


def install(md: markdown.Markdown) -> bool:
    """Install the fast processors and serializer into ``md``; False when nothing was installed.

    Call it after the extensions are loaded. A processor that is missing, or
    not exactly the stock class, is left alone; so is a serializer other than
    the stock HTML one.
    """
    if not ENABLED:
        return False
    installed = False
    for registry_name, replacements in _REPLACEMENTS.items():
        registry = getattr(md, registry_name)
        for name, (stock_class, make) in replacements.items():
            if name in registry and type(registry[name]) is stock_class:
                _replace(registry, name, make(md, registry[name]))
                installed = True
    if md.serializer is serializers.to_html_string:
        md.serializer = fast_html_string
        installed = True
    return installed
