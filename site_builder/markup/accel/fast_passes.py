"""Faster drop-ins for Python-Markdown passes that usually have nothing to do, same output.

``FastAttrListTreeprocessor`` (attr_list)
    Every regex it applies (block, header and inline forms) contains a
    literal ``{``; when no text or tail anywhere in the tree has one (one
    C-level ``itertext()`` join, which also yields comments' text) it cannot
    change anything.

``FastUnescapeTreeprocessor`` (unescape)
    Its regex is ``STX digits ETX`` (what the escape pattern leaves); without a
    match in any text, tail or attribute value it only re-sets texts and
    attributes to equal values.

``FastPrettifyTreeprocessor`` (prettify)
    The same recursion as stock, with ``md.is_block_level`` answered from a
    cache (stock's depends only on the tag and ``md.block_level_elements``:
    kept while that list is unchanged; per run for another ``is_block_level``)
    and without re-entering a method per element.

``FastNormalizeWhitespace``, ``FastFencedBlockPreprocessor``, ``FastRawHtmlPostprocessor``
    Skip a regex that cannot match: ``(?<=\\n) +\\n`` needs " \\n"; a fenced
    block needs "```" or "~~~"; a stash placeholder needs STX (in the page, and
    in each stashed piece of HTML put back).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

import markdown
from markdown import util
from markdown.extensions.attr_list import AttrListTreeprocessor
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.postprocessors import RawHtmlPostprocessor
from markdown.preprocessors import NormalizeWhitespace
from markdown.treeprocessors import PrettifyTreeprocessor, UnescapeTreeprocessor

STX, ETX = util.STX, util.ETX


# --- attr_list, unescape, prettify --------------------------------------------------


class FastAttrListTreeprocessor(AttrListTreeprocessor):
    """``AttrListTreeprocessor`` that returns at once when no text in the tree has a '{'."""

    def run(self, doc: etree.Element) -> None:
        """Stock ``run()``, unless no text or tail holds '{' (then it would change nothing)."""
        tail = doc.tail
        if "{" in "".join(doc.itertext()) or (tail and "{" in tail):
            super().run(doc)


class FastUnescapeTreeprocessor(UnescapeTreeprocessor):
    """``UnescapeTreeprocessor`` that returns at once when nothing holds an escape placeholder."""

    def run(self, root: etree.Element) -> None:
        """Stock ``run()``, unless no text, tail or attribute value holds a match of its regex.

        The texts are searched joined: a match inside one text is a match in
        the join (a join may also make one across two texts: then stock runs,
        as it may). STX alone is not enough: the raw HTML stash's placeholders
        (maths, wikilinks' HTML) hold STX but not ``STX digits ETX``.
        """
        search = self.RE.search
        if STX in (text := "".join(root.itertext())) and search(text):
            return super().run(root)
        for elem in root.iter():
            attrib = elem.attrib
            if attrib:
                for value in attrib.values():
                    if value is not None and STX in value and search(value):
                        return super().run(root)
        return None


class FastPrettifyTreeprocessor(PrettifyTreeprocessor):
    """``PrettifyTreeprocessor`` with ``is_block_level`` cached (per run, or while the block-level list stays)."""

    _block_elements: list | None = None
    _block_cache: dict = {}

    def run(self, root: etree.Element) -> None:
        """Add the same line breaks as stock ``run()``."""
        md = self.md
        is_block_level = md.is_block_level
        if type(md).is_block_level is markdown.Markdown.is_block_level and "is_block_level" not in vars(md):
            # Stock's answer depends only on the tag and md.block_level_elements:
            # kept across runs while that list stays the same.
            elements = md.block_level_elements
            if self._block_elements != elements:
                self._block_elements, self._block_cache = list(elements), {}
            cache = self._block_cache
        else:
            cache = {}

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


class FenceSearch:
    """``FencedBlockPreprocessor.FENCED_BLOCK_RE`` whose ``search`` starts at the first fence.

    A match starts with its opening fence (three backticks or tildes), so none
    starts before the first "```" or "~~~" at or after ``pos``: searching from
    there finds the same match (``^`` and the look-behind read the text before
    the search's start as they would). The pattern begins with ``^``, which the
    regex engine tries at every position of a body's text (twice a body with
    one fence: the text before it, then all after it); ``str.find`` skips there.
    """

    def __init__(self, compiled: re.Pattern):
        self.compiled = compiled
        self.pattern, self.flags, self.groupindex = compiled.pattern, compiled.flags, compiled.groupindex

    def search(self, text: str, pos: int = 0) -> re.Match | None:
        """``compiled.search(text, pos)``."""
        backticks, tildes = text.find("```", pos), text.find("~~~", pos)
        start = tildes if backticks < 0 else backticks if tildes < 0 else min(backticks, tildes)
        return None if start < 0 else self.compiled.search(text, start)


class FastFencedBlockPreprocessor(FencedBlockPreprocessor):
    """``FencedBlockPreprocessor`` that returns at once when there is no fence to find,
    and searches from fence to fence (``FenceSearch``: stock ``run()`` calls
    ``self.FENCED_BLOCK_RE.search``)."""

    FENCED_BLOCK_RE = FenceSearch(FencedBlockPreprocessor.FENCED_BLOCK_RE)

    def run(self, lines: list[str]) -> list[str]:
        """The lines stock ``run()`` returns."""
        if self.checked_for_deps:
            text = "\n".join(lines)
            if "```" not in text and "~~~" not in text:
                return text.split("\n")  # what stock returns when its regex finds nothing
        return super().run(lines)


_STASHED_PREFIX = util.HTML_PLACEHOLDER.split("%s")[0]  # STX "wzxhzdk:"
_STASHED_KEY = re.compile(f"([0-9]+){ETX}")  # the rest of a placeholder, from its key on


def substitute_stashed(text: str, replace) -> str:
    """What stock's ``re.sub(f"<p>{placeholder}</p>|{placeholder}", ...)`` makes of ``text``.

    ``replace(key, wrapped, whole)`` gives each match's replacement: ``key``, the
    digits; ``wrapped``, whether the first alternative (``<p>`` placeholder
    ``</p>``) matched; ``whole``, the text matched. The regex engine cannot skip
    ahead to an alternation that may start with '<' or STX, and a page's HTML
    is full of '<': it tried a match at every tag. Here ``str.find`` goes from
    placeholder to placeholder. A match can only start at a placeholder or at
    the ``<p>`` right before one, not inside the previous match; the first
    alternative is the one taken when both could match.
    """
    find = text.find
    pieces = []
    done = 0  # where the previous match ended
    at = find(_STASHED_PREFIX)
    while at >= 0:
        key = _STASHED_KEY.match(text, at + len(_STASHED_PREFIX))
        if key is None:
            at = find(_STASHED_PREFIX, at + 1)
            continue
        start, end = at, key.end()
        wrapped = at - 3 >= done and text.startswith("<p>", at - 3) and text.startswith("</p>", end)
        if wrapped:
            start, end = at - 3, end + 4
        pieces.append(text[done:start])
        pieces.append(replace(key.group(1), wrapped, text[start:end]))
        done = end
        at = find(_STASHED_PREFIX, end)
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


class FastRawHtmlPostprocessor(RawHtmlPostprocessor):
    """``RawHtmlPostprocessor`` that returns at once when there is no placeholder.

    Otherwise stock ``run()``, its regex's substitution done by
    ``substitute_stashed``, and without searching a stashed piece of HTML for
    placeholders when it holds no STX (both alternatives of the pattern need
    one; most stashed HTML is maths).
    """

    def run(self, text: str) -> str:
        """The text stock ``run()`` returns."""
        if STX not in text:
            return text  # both alternatives of its pattern contain STX
        stash = self.md.htmlStash
        counter, blocks = stash.html_counter, stash.rawHtmlBlocks
        if not counter:
            return text
        to_string, block_level = self.stash_to_string, self.isblocklevel

        def substitute_match(key: str, wrapped: bool, whole: str) -> str:
            if (index := int(key)) >= counter:
                return whole
            html = to_string(blocks[index])
            if wrapped and not block_level(html):
                html = f"<p>{html}</p>"
            return substitute_stashed(html, substitute_match) if STX in html else html

        return substitute_stashed(text, substitute_match)
