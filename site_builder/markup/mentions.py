"""Mentions of terms in markdown source, with their lines: what ``check --links-in
--unlinked`` lints. The same rules as autolinks (``markup.autolink``: its matcher and
opt-out marker), read from the source instead of the parsed tree: front matter,
fences, indented code, headings, ``$$`` maths, code spans, links, images, tags and
URLs are not prose."""

from __future__ import annotations

import re
from typing import Iterator

from .autolink import MARKER_RE, TermMatcher, UnitCount, unmarked
from .source import CODE_SPAN_RE, FENCE_RE


_HEADING_RE = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")
_SETEXT_RE = re.compile(r" {0,3}(?:=+|-+)[ \t]*$")
_NOT_PROSE_RE = re.compile(
    r"!?\[\[[^\]\n]*\]\]"                       # [[wikilinks]]
    r"|!?\[[^\]\n]*\](?:\([^)\n]*\)|\[[^\]\n]*\])"   # [links](url), [links][ref], images
    r"|<!--.*?-->|<[^>\n]*>"                     # comments (the marker is taken first), tags, <autolinks>
    r"|\{[\w.+:-]+\}(?=`)"                         # a MyST role's name (its target is a code span)
    r"|https?://\S+")


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, prose) of each markdown line a mention may be in: outside front
    matter, fences, indented code, headings, ``$$`` maths and reference
    definitions, with code spans, links, images, tags and URLs blanked and the
    opt-out marker as a NUL (``check --links-in`` reads mentions through this)."""
    lines = text.splitlines()
    fence: str | None = None
    in_maths = False
    skip_to = 0
    if lines and lines[0].strip() == "---":  # front matter
        skip_to = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)
    previous_blank = True
    for offset, line in enumerate(lines):
        if offset < skip_to:
            continue
        opened = FENCE_RE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not line[opened.end():].strip():
                fence = None
            continue
        if opened:
            info = line[opened.end():].strip()
            if not re.match(r"\{(?!code|math)[^}\s]+\}", info):  # a MyST directive's body is prose
                fence = opened.group(1)
            continue
        if line.strip() == "$$" or (line.strip().startswith("$$") and not line.strip().endswith("$$")):
            in_maths = not in_maths
            continue
        blank = not line.strip()
        indented = line.startswith(("    ", "\t")) and previous_blank
        previous_blank = blank or (indented and previous_blank)
        if in_maths or blank or indented or _HEADING_RE.match(line) or re.match(r" {0,3}\[[^\]]+\]:", line):
            continue
        if offset + 1 < len(lines) and _SETEXT_RE.match(lines[offset + 1]) and not line.lstrip().startswith(("-", "*")):
            continue  # a setext heading's text
        if "<!--" in line:
            line = MARKER_RE.sub("\x00", line)
        line = CODE_SPAN_RE.sub(lambda m: " " * len(m.group()), line)
        yield offset + 1, _NOT_PROSE_RE.sub(lambda m: " " * len(m.group()), line)


def section_starts(text: str) -> list[int]:
    """The line numbers of the ``##`` headings outside code: where each section begins."""
    starts, fence = [], None
    for offset, line in enumerate(text.splitlines()):
        opened = FENCE_RE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and not line[opened.end():].strip():
                fence = None
            continue
        if opened:
            fence = opened.group(1)
        elif (heading := _HEADING_RE.match(line)) and len(heading.group(1)) == 2:
            starts.append(offset + 1)
    return starts


def source_mentions(text: str, matcher: TermMatcher) -> Iterator[tuple[int, str, str]]:
    """(line, slug, as written) of each mention in markdown source that autolink
    would consider, the one after each opt-out marker left out."""
    unit = UnitCount(set())
    for number, prose in prose_lines(text):
        for start, end, slug in unmarked(prose, matcher.find, unit):
            yield number, slug, prose[start:end]
