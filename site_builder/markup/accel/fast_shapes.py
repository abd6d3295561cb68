"""Common block shapes read without upstream's regexes: one-line hash headings, table rows.

**Headings** ("## Title").
Upstream's ``HashHeaderProcessor`` searches a block with its ``RE`` in
``test()`` and again in ``run()``. That regex's header is a lazy loop of an
alternation (``(?:\\\\.|[^\\\\#]|#+(?=[^#\\n]))*?``) that tries the end of the heading
at every character: 1.5-4 µs for a short heading, twice. ``heading_level``
recognises the commonest heading without it: one line (no '\\n'), no
backslash, not ending in '#', starting with 1 to 6 '#' and then a character
that is not '#'. On such a block ``RE.search`` matches the whole block:
``(?:^|\\n)`` at 0; ``#{1,6}`` (greedy) takes the leading '#'s; the lazy loop
can take every other character (none is a backslash; each is ``[^\\\\#]`` or
in a run of '#' followed by a character that is neither '#' nor '\\n'), and
stops at the first place ``#*(?:\\n|$)`` matches, which is the end: before it
some non-'#' character is always left. So ``run()`` has nothing before or
after the heading and makes ``h<level>`` with the rest of the line, stripped,
as its text: ``add_heading``. The fast loop (``fast_blocks``) takes this path
only when every processor ahead of the hash header's refuses such a block
(``heads_first``). ``tests/markup/accel/test_fast_blocks.py`` compares
``heading_level`` with the regex on generated lines and the parsed trees with
upstream's.

**Table rows**: ``table_split`` (see there), the table processor's ``_split``
on the instance (``fast_blocks.install``).
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from typing import Callable

from markdown import blockprocessors as bp
from markdown.extensions.tables import TableProcessor

_TAGS = ("", "h1", "h2", "h3", "h4", "h5", "h6")

# Processors that refuse a one-line block starting with '#': the empty block's
# (not empty, no leading '\n'), the indented ones (no four leading spaces), the
# table's (needs a second line); see their conditions in ``fast_blocks``.
_REFUSE_HEADINGS = (bp.EmptyBlockProcessor, bp.ListIndentProcessor, bp.CodeBlockProcessor, TableProcessor)


def heads_first(procs: list) -> bp.HashHeaderProcessor | None:
    """The hash header processor of the fast loop's ``procs`` when only refusing ones come before it."""
    for processor, _condition, _run in procs:
        if type(processor) is bp.HashHeaderProcessor:
            return processor
        if type(processor) not in _REFUSE_HEADINGS:
            return None
    return None


def heading_level(block: str) -> int:
    """The level of ``block`` when it is a plain one-line hash heading (see above), else 0."""
    if block[:1] != "#" or "\n" in block or "\\" in block or block[-1] == "#":
        return 0
    level = len(block) - len(block.lstrip("#"))
    return level if level <= 6 else 0


def add_heading(parent: etree.Element, blocks: list[str], level: int) -> None:
    """``HashHeaderProcessor.run(parent, blocks)`` for a block ``heading_level`` gave ``level``."""
    block = blocks.pop(0)
    etree.SubElement(parent, _TAGS[level]).text = block[level:].strip()


def table_split(row: str, stock_split: Callable[[str], list[str]]) -> list[str]:
    """``TableProcessor._split(row)``: the cells of a table row, cut at the pipes outside code.

    Without a backslash (escapes) and with single backticks only, upstream
    pairs the 1st backtick with the 2nd, the 3rd with the 4th... (a last odd
    one stays unpaired) and keeps every pipe outside those pairs: when no pipe
    is inside one, that is every pipe. Else upstream's own ``_split``.
    """
    if "\\" not in row and "``" not in row:
        parts = row.split("`")
        if not any("|" in part for part in parts[1:len(parts) - 1:2]):  # the code of each pair
            return row.split("|")
    return stock_split(row)
