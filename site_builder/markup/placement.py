"""Where an explainer's figure goes in a term body: the marker, the opening section.

A page reads in the author's order. By default the figure comes after the
body's opening section, the text before its first heading, so a reader meets
a plain introduction before any control. An author who wants it elsewhere
writes the marker, ``<!-- explainer -->``, on a line of its own between blank
lines. Markdown with raw HTML off never gives that line any other meaning (it
would show as text), and with raw HTML on it is a comment: either way it can
be found in the source without guessing.

The markdown stage records the place as an offset into the body's HTML
(``RenderedBody.opening``) for every body, knowing nothing of explainers; the
render stage splits the body there when the page has a figure. Three steps,
each a plain function:

1. ``mark`` (source lines): the marker line becomes ``SENTINEL``, a paragraph
   no source can write (Python-Markdown strips STX and ETX from the source
   before this pass runs);
2. ``place`` (the element tree, last): without a marker, a sentinel paragraph
   goes in before the first top-level heading;
3. ``split`` (the HTML): the sentinel paragraph comes out again, leaving the
   offset. Without a marker the HTML is byte for byte what it was before.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from typing import Callable

from .source import outside_fences

MARKER = "<!-- explainer -->"
"""What an author writes, on a line of its own, where the explainer's figure goes."""

MARKER_RE = re.compile(r"<!--[ \t]*explainer[ \t]*-->[ \t]*$")
"""The marker line: at the start of a line (indented, it would be code or a
list's text), spaces inside the comment allowed."""

SENTINEL = "\x02sitebuilderexplainer\x03"
"""The text the marker line becomes: STX and ETX never reach this pass from a source."""

_SPLIT = f"<p>{SENTINEL}</p>"
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_CUT = "\x02"  # where the split was, kept through _tidy (not whitespace, so never stripped)


def has_marker(line: str) -> bool:
    """A cheap necessary condition for ``mark`` to find anything on ``line`` (a
    marker is looked for line by line, and most bodies have none)."""
    return "explainer" in line and "<!--" in line


def mark(lines: list[str], first_line: int) -> tuple[int | None, list[tuple[int, str]]]:
    """Replace the marker line in ``lines`` (in place) by ``SENTINEL``.

    Returns (the marker's line in the file or None, problems as (line, message)).
    A second marker, or one without a blank line (or the body's edge) on
    both sides, is an error at its line; markers in fenced code are text."""
    found: int | None = None
    problems: list[tuple[int, str]] = []
    for offset, line in outside_fences(lines):
        if not MARKER_RE.match(line):
            continue
        number = first_line + offset
        if found is not None:
            problems.append((number, f"a second explainer marker {MARKER} (the first is on line {found}): "
                                     "the figure goes in one place"))
            continue
        before = lines[offset - 1] if offset else ""
        after = lines[offset + 1] if offset + 1 < len(lines) else ""
        if before.strip() or after.strip():
            problems.append((number, f"the explainer marker {MARKER} must stand alone, "
                                     "with a blank line before and after it"))
        found = number
        lines[offset] = SENTINEL
    return found, problems


def place(root: etree.Element) -> None:
    """For a body without a marker: put the sentinel paragraph before the first
    top-level heading (none: the whole body is the opening section)."""
    for index, child in enumerate(root):
        if child.tag in _HEADINGS:
            holder = etree.Element("p")
            holder.text = SENTINEL
            holder.tail = "\n"
            root.insert(index, holder)
            return


def split(html: str, tidy: Callable[[str], str]) -> tuple[str, int | None, bool]:
    """(the HTML without the sentinel, passed through ``tidy`` (which strips the
    ends and shortens runs of blank lines); the offset of the explainer's place or None
    for the end of the body; False when a marker was found nested inside
    other markup (a list, a quote, an HTML block), where no figure can go)."""
    at = html.find(_SPLIT)
    if at < 0:
        nested = SENTINEL in html
        return tidy(html.replace(SENTINEL, "")) if nested else tidy(html), None, not nested
    end = at + len(_SPLIT)
    if html.startswith("\n", end):
        end += 1  # the sentinel's own line break
    whole = tidy(html[:at] + _CUT + html[end:])
    cut = whole.index(_CUT)
    head, rest = whole[:cut], whole[cut + 1:]
    if not head:
        rest = rest.lstrip("\n")
    elif rest.strip() == "":
        rest = ""
    return head + rest, len(head), True
