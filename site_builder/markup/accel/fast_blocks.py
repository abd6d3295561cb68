"""A faster drop-in for Python-Markdown's block parsing loop, same tree.

``BlockParser.parseBlocks`` hands every block to each blockprocessor's
``test()`` in priority order until one accepts it (and its ``run()`` does not
return False). On every block it first rebuilds the sorted processor list from
the registry, then pays, for a plain paragraph, for all thirteen tests:
regex searches over the whole block (hash header, setext, hr, lists, quote),
the tables extension splitting the block into rows and cells, and the footnote
and reference processors, whose ``test()`` is always True and whose ``run()``
pops the block, searches it and puts it back. That was about a fifth of the
renderer's time.

``FastBlockParser.parseBlocks`` changes four things and nothing else:

* the sorted processor list is taken once per top-level call (a document, or
  one footnote body) instead of once per block. Every processor in it is one
  of the upstream classes below, none of which touches the registry, so the
  list is the one upstream would rebuild on every block;
* before calling a processor it checks a cheap *necessary* condition for that
  processor to accept the block (``POSSIBLE``): for instance a hash header
  needs a line starting with '#', so a block without '#' skips the regex.
  When the condition fails upstream's ``test()`` would return False (or, for
  footnotes and references, ``run()`` would put the block back unchanged and
  return False), and upstream would go on to the next processor: so do we.
  The conditions only read the block, and a skipped ``test()`` has no effect
  that a later call does not overwrite first (the tables processor's
  ``border``, read only by its ``run()`` and ``_split_row()`` after a ``test()``
  that sets it again);
* the list processors' ``run`` is ``fast_lists.run_list``: one-line items set
  directly instead of parsed as documents of their own (see there);
* a one-line hash heading is built directly (``fast_shapes.heading_level``),
  when the processors ahead of the hash header's all refuse such a line.

Why each condition is necessary is written next to it, from the upstream
regex or code; ``tests/markup/accel/test_fast_blocks.py`` checks each one with random
blocks against the upstream processor, and the HTML against the stock
pipeline.

It only runs when the installed Markdown is 3.11 and *every* registered
blockprocessor is exactly one of the known upstream classes, with upstream's
``test``/``run`` and the regexes and tab length the conditions were derived
from. Anything else (a subclass, another extension's processor, a changed
regex) and the whole parse is upstream's own loop, line for line.

``install`` also gives the table processor ``fast_shapes.table_split`` for its
``_split``: the cells of a row without escapes or code holding a pipe, cut
directly (see there); its class, and so the fast loop, stay upstream's.

Depth: how deeply markdown may nest before Python's recursion limit depends on
the stack, and the stock renderer reports a too-deeply-nested document rather
than crashing. The fast loop keeps upstream's frames between nested calls
(``parseBlocks`` -> ``run`` -> [``parseChunk``] -> ``parseBlocks``), and runs
upstream's loop instead when the stack could be within ``_DEPTH_MARGIN``
frames of the limit, so RecursionError and the block quote processor's
``nearing_recursion_limit()`` happen exactly where they do upstream.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Callable

import markdown
from markdown import blockprocessors as bp
from markdown.blockparser import BlockParser
from markdown.extensions.footnotes import FootnoteBlockProcessor
from markdown.extensions.sane_lists import SaneOListProcessor, SaneUListProcessor
from markdown.extensions.tables import TableProcessor

from . import upstream
from .fast_shapes import add_heading, heading_level, heads_first, table_split

# --- necessary conditions, one per processor class --------------------------------
# Each takes the block upstream would pass to test() and returns False only
# when that processor cannot accept it. They are written for tab_length 4.


def empty_possible(block: str) -> bool:
    """EmptyBlockProcessor.test itself: ``not block or block.startswith('\\n')``."""
    return not block or block[0] == "\n"


def indented_possible(block: str) -> bool:
    """ListIndent and CodeBlock: both tests start with ``block.startswith(' ' * 4)``."""
    return block.startswith("    ")


def table_possible(block: str) -> bool:
    """TableProcessor: a second line, and a '|' on the first.

    test() needs ``len(rows) > 1`` (a '\\n') and then either more than one cell
    in the header row, which ``_split`` only makes at a '|' (group 5 of
    RE_CODE_PIPES), or a border, which is a leading '|' or RE_END_BORDER (ending
    in a literal '|'). The header row is the first line, stripped of spaces.
    """
    newline = block.find("\n")
    return newline >= 0 and block.find("|", 0, newline) >= 0


def hashheader_possible(block: str) -> bool:
    """HashHeaderProcessor: RE ``(?:^|\\n)#{1,6}...`` without MULTILINE: '#' first or after a '\\n'."""
    return "#" in block and (block[0] == "#" or "\n#" in block)


def setext_possible(block: str) -> bool:
    """SetextHeaderProcessor: ``RE.match`` of ``^.*?\\n(?:=+|-+)...``.

    '.' does not match '\\n', so the '\\n' is the block's first one and the
    second line must start with '=' or '-'.
    """
    newline = block.find("\n")
    return newline >= 0 and block.startswith(("=", "-"), newline + 1)


_HR_CHARS = " -_*"


def hr_possible(block: str) -> bool:
    """HRProcessor: SEARCH_RE (MULTILINE) must match a whole line.

    From ``^`` to ``[ ]*$`` the match is ``[ ]{0,3}`` then runs of one marker
    ('-', '_' or '*') separated by up to two spaces, then spaces: so some line
    (``$`` ends a line only at '\\n' or the end) is made of ' ', '-', '_' and
    '*' alone, with at least one marker.
    """
    if "-" not in block and "_" not in block and "*" not in block:
        return False
    if "\n" not in block:
        return not block.strip(_HR_CHARS)
    for line in block.split("\n"):
        if line and not line.strip(_HR_CHARS):
            return True
    return False


def _lead(block: str) -> str:
    """The block's first character after its leading spaces ('' if none)."""
    first = block[:1]
    if first == " ":
        first = block.lstrip(" ")[:1]
    return first


def olist_possible(block: str) -> bool:
    """OList and SaneOList: ``RE.match`` of ``^[ ]{0,3}\\d+\\.[ ]+(.*)``: spaces, then a ``\\d``
    (a Unicode decimal digit, for which ``str.isdigit()`` is True)."""
    return _lead(block).isdigit()


def ulist_possible(block: str) -> bool:
    """UList and SaneUList: ``RE.match`` of ``^[ ]{0,3}[*+-][ ]+(.*)``: a marker, then a space."""
    stripped = block.lstrip(" ")
    return stripped[:1] in ("*", "+", "-") and stripped[1:2] == " "


def quote_possible(block: str) -> bool:
    """BlockQuoteProcessor: RE ``(^|\\n)[ ]{0,3}>[ ]?(.*)`` consumes a '>'.

    On one line (no '\\n') only at its start, after spaces.
    """
    return ">" in block and ("\n" in block or _lead(block) == ">")


def footnote_possible(block: str) -> bool:
    """FootnoteBlockProcessor: test() is True; run() returns False, block put back, unless RE matches.

    RE ``^[ ]{0,3}\\[\\^([^\\]]*)\\]:`` consumes '[^' and then ']:'.
    """
    return "[" in block and "[^" in block and "]:" in block and _line_may_start(block, "[")


def reference_possible(block: str) -> bool:
    """ReferenceProcessor: test() is True; run() returns False, block put back, unless RE matches.

    RE ``^[ ]{0,3}\\[([^\\[\\]]*)\\]:`` consumes a '[' and then ']:'.
    """
    return "[" in block and "]:" in block and _line_may_start(block, "[")


def _line_may_start(block: str, mark: str) -> bool:
    """Could a line start with ``mark`` after spaces (``^`` in MULTILINE)? Exact for one line."""
    return "\n" in block or _lead(block) == mark


def paragraph_only(block: str) -> bool:
    """True only when every condition above fails: the block can only be a paragraph.

    One line, not empty, not starting with a space, '#', '>', a digit, or '['
    with a ']:' after it; a start of '*+-_' only without a space after it (a
    list marker) and with more than rule characters (hr). Most list items and
    many paragraphs are such lines: they skip the thirteen checks.
    """
    if not block or "\n" in block:
        return False
    first = block[0]
    if first in " #>" or first.isdigit() or (first == "[" and "]:" in block):
        return False
    if first in "*+-_":
        return block[1:2] != " " and bool(block.strip(_HR_CHARS))
    return True


# --- which processors the conditions are for --------------------------------------

_U = re.UNICODE
_M = re.MULTILINE | re.UNICODE

# class -> (condition or None for "always test it", {attribute: (regex source, flags)}).
# The regex sources are upstream 3.11's, written out so that a processor whose
# regex differs (another release, another tab_length, a patched instance) is
# not recognised.
KNOWN: dict[type, tuple[Callable[[str], bool] | None, dict[str, tuple[str, int]]]] = {
    bp.EmptyBlockProcessor: (empty_possible, {}),
    bp.ListIndentProcessor: (indented_possible, {"INDENT_RE": (r"^(([ ]{4})+)", _U)}),
    bp.CodeBlockProcessor: (indented_possible, {}),
    TableProcessor: (table_possible, {
        "RE_CODE_PIPES": (r"(?:(\\\\)|(\\`+)|(`+)|(\\\|)|(\|))", _U),
        "RE_END_BORDER": (r"(?<!\\)(?:\\\\)*\|$", _U),
    }),
    bp.HashHeaderProcessor: (hashheader_possible, {
        "RE": (r"(?:^|\n)(?P<level>#{1,6})(?P<header>(?:\\.|[^\\#]|#+(?=[^#\n]))*?)#*(?:\n|$)", _U),
    }),
    bp.SetextHeaderProcessor: (setext_possible, {"RE": (r"^.*?\n(?:=+|-+)[ ]*(\n|$)", _M)}),
    bp.HRProcessor: (hr_possible, {
        "SEARCH_RE": (r"^[ ]{0,3}(?=(?P<atomicgroup>(-+[ ]{0,2}){3,}|(_+[ ]{0,2}){3,}|(\*+[ ]{0,2}){3,}))"
                      r"(?P=atomicgroup)[ ]*$", _M),
    }),
    bp.OListProcessor: (olist_possible, {"RE": (r"^[ ]{0,3}\d+\.[ ]+(.*)", _U)}),
    SaneOListProcessor: (olist_possible, {"RE": (r"^[ ]{0,3}\d+\.[ ]+(.*)", _U)}),
    bp.UListProcessor: (ulist_possible, {"RE": (r"^[ ]{0,3}[*+-][ ]+(.*)", _U)}),
    SaneUListProcessor: (ulist_possible, {"RE": (r"^[ ]{0,3}[*+-][ ]+(.*)", _U)}),
    bp.BlockQuoteProcessor: (quote_possible, {"RE": (r"(^|\n)[ ]{0,3}>[ ]?(.*)", _U)}),
    FootnoteBlockProcessor: (footnote_possible, {"RE": (r"^[ ]{0,3}\[\^([^\]]*)\]:[ ]*(.*)$", _M)}),
    bp.ReferenceProcessor: (reference_possible, {
        "RE": (r'''^[ ]{0,3}\[([^\[\]]*)\]:[ ]*(?:\n[ ]*)?([^\s]+)[ ]*(?:\n[ ]*)?((["\'])(.*)\4[ ]*|\((.*)\)[ ]*)?$''', _M),
    }),
    bp.ParagraphProcessor: (None, {}),
}

# The methods the conditions were derived from, as imported: a class patched later is not recognised.
_UPSTREAM_METHODS = {cls: (cls.test, cls.run) for cls in KNOWN}


def condition_for(processor: object) -> tuple[bool, Callable[[str], bool] | None]:
    """``(known, condition)`` for a blockprocessor; ``known`` False means: do not use the fast loop.

    Known means exactly one of the upstream classes in ``KNOWN``, with its
    class's own ``test``/``run``, tab length 4 and the expected regexes.
    """
    cls = type(processor)
    entry = KNOWN.get(cls)
    if entry is None or (cls.test, cls.run) != _UPSTREAM_METHODS[cls]:
        return False, None
    state = getattr(processor, "__dict__", {})
    if "test" in state or "run" in state or getattr(processor, "tab_length", None) != 4:
        return False, None
    condition, regexes = entry
    for attribute, (source, flags) in regexes.items():
        compiled = getattr(processor, attribute, None)
        if not isinstance(compiled, re.Pattern) or compiled.pattern != source or compiled.flags != flags:
            return False, None
    return True, condition


# --- the loop ------------------------------------------------------------------------

# Frames kept free below the recursion limit before the fast loop hands over to
# upstream's (see the module docstring). Nested parsing adds at most three
# frames per level with the known processors; the margin covers the deepest
# test()/run() below a level, ours or upstream's, many times over.
_DEPTH_MARGIN = 200
_FRAMES_PER_LEVEL = 3


def _stack_depth() -> int:
    """Python frames on the stack, counting the caller's."""
    depth, frame = 0, sys._getframe(1)
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


_LISTS = (bp.OListProcessor, bp.UListProcessor, SaneOListProcessor, SaneUListProcessor)


def _snapshot(parser: BlockParser, processors: list) -> list | None:
    """``[(processor, condition or None, run or None)]`` in priority order, or None if one is not known.

    ``run`` None: the processor's own; a list processor's is ``fast_lists.run_list`` (beside a ParagraphProcessor)."""
    from .fast_lists import run_list  # here: fast_lists imports this module's paragraph_only

    procs = []
    for processor in processors:
        known, condition = condition_for(processor)
        if not known:
            return None
        procs.append((processor, condition, None))
    if any(type(p) is bp.ParagraphProcessor for p in processors):
        procs = [(p, c, functools.partial(run_list, parser, p) if type(p) in _LISTS and p.parser is parser else run)
                 for p, c, run in procs]  # (upstream recurses through its own parser: only when it is this one)
    return procs


class FastBlockParser(BlockParser):
    """``markdown.blockparser.BlockParser`` that skips processors which cannot accept a block."""

    # The starting state; set on the instance as parsing goes.
    _fast_level = 0
    _fast_procs: list | None = None
    _fast_seen: list | None = None
    _fast_room = 0
    _fast_paragraph = None  # the registry's ParagraphProcessor, when every processor is known
    _fast_heading = None  # its HashHeaderProcessor, when those before it refuse a '#' line (fast_shapes)

    def parseBlocks(self, parent, blocks):
        """Upstream's loop, skipping a processor when its necessary condition fails."""
        level = self._fast_level
        if level == 0:
            # A top-level call (a document, a footnote body): take the list
            # now, and how many nested levels fit before the margin.
            current = list(self.blockprocessors)
            ids = list(map(id, current))
            if ids != self._fast_seen:
                # Classified again only when the processors change. By id:
                # a usable snapshot keeps its processors alive, so their ids
                # are not reused (a stale None only means upstream's loop).
                self._fast_seen = ids
                self._fast_procs = _snapshot(self, current)
                paragraphs = [p for p, _, _ in self._fast_procs or () if type(p) is bp.ParagraphProcessor]
                self._fast_paragraph = paragraphs[0] if paragraphs else None
                self._fast_heading = heads_first(self._fast_procs or ())
            self._fast_room = (sys.getrecursionlimit() - _stack_depth() - _DEPTH_MARGIN) // _FRAMES_PER_LEVEL
        procs = self._fast_procs
        self._fast_level = level + 1
        try:
            if procs is None or level >= self._fast_room:
                # Upstream's loop, verbatim.
                while blocks:
                    for processor in self.blockprocessors:
                        if processor.test(parent, blocks[0]):
                            if processor.run(parent, blocks) is not False:
                                break
                return
            paragraph, heading = self._fast_paragraph, self._fast_heading
            while blocks:
                if paragraph is not None and paragraph_only(blocks[0]):
                    # Every processor before it would say no (see paragraph_only);
                    # its test() is True and its run() never returns False.
                    paragraph.run(parent, blocks)
                    continue
                if heading is not None and (level := heading_level(blocks[0])):
                    add_heading(parent, blocks, level)  # the same (fast_shapes)
                    continue
                for processor, possible, run in procs:
                    # Re-read like upstream does: a run() that returned False
                    # may have replaced the first block.
                    block = blocks[0]
                    if possible is not None and not possible(block):
                        continue
                    if processor.test(parent, block):
                        if run is not None:
                            run(parent, blocks)  # run_list: never False, as upstream's list run()
                            break
                        if processor.run(parent, blocks) is not False:
                            break
        finally:
            self._fast_level = level


# Only over the upstream sources this mirrors (see upstream.py).
ENABLED = upstream.matches()


def install(md: markdown.Markdown) -> bool:
    """Make ``md``'s block parser a ``FastBlockParser``.

    Call it after the extensions are loaded. Returns False, changing nothing,
    when the installed Markdown is not one this was written against or the
    parser is not upstream's own class. The registry is read again on every
    document (and classified again when it changed), so a processor
    registered later just means upstream's loop.
    """
    parser = getattr(md, "parser", None)
    if not ENABLED or type(parser) is not BlockParser:
        return False
    parser.__class__ = FastBlockParser  # its class attributes are the starting state
    table = parser.blockprocessors["table"] if "table" in parser.blockprocessors else None
    if type(table) is TableProcessor and condition_for(table)[0] and "_split" not in vars(table):
        stock_split = table._split  # on the instance: the class (and the fast loop's check) stay upstream's
        table._split = lambda row: table_split(row, stock_split)
    return True
