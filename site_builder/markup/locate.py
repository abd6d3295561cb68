"""Finding the line a rendered value was written on, for problems found after
Python-Markdown has lost the lines (a refused link or attribute).

The value is searched for where link syntax can put it: after ``](``, after
``]:``, or as ``href=``/``name=`` in an attribute list that takes effect,
allowing backslash escapes, ``<...>`` and line breaks; code is skipped.
"""

from __future__ import annotations

import re
import string

from .source import CODE_SPAN_RE, outside_fences

_ESCAPABLE = frozenset(string.punctuation)
_VALUE_END = r"(?![^\s)>\"'}])"
"""A written value ends at a space, a line end, ')', '>', a quote or '}' (what
closes a link destination, a reference definition or an attribute list)."""
_IN_ATTRIBUTE_LIST = r"(?P<brace>\{)[^{}\n]*?(?<![\w-])"
"""Inside ``{...}`` on one line, at the start of a name: where attr_list reads
``name=value`` (if the list is where it takes effect: ``_takes_effect``)."""
_DESTINATION = r"(?:\]\(|\]:|" + _IN_ATTRIBUTE_LIST + r"(?i:href)\s*=)\s*<?\s*[\"']?"
"""What precedes a link destination: '](' (inline links, images), ']:' (reference
definitions) or 'href=' in an attribute list (on a link), then optional spaces,
line breaks, '<' and quote."""


class SourceLocator:
    """Finds the line a value of the rendered tree (an href, an attribute) was written on.

    Python-Markdown keeps no positions, and the same value looks different
    in the source: backslash escapes (``alert\\(1\\)``), ``<...>`` around a
    destination, a destination on the line after ``[ref]:`` or after a link
    text spanning lines. So the value is searched where such a value can be
    written, escapes and line breaks allowed, outside code (fenced blocks and
    code spans are blanked first). Each value's occurrences are handed out in
    source order, one per element asking, the last one again when a value is
    asked for more often than written (a reference definition used twice).
    Built only when a problem needs a line: most bodies never build one.
    """

    def __init__(self, lines: list[str], first_line: int):
        self.first_line = first_line
        masked = list(lines)
        outside = {offset for offset, _ in outside_fences(masked)}
        for offset, line in enumerate(masked):
            if offset not in outside:
                masked[offset] = " " * len(line)
            elif "`" in line:
                masked[offset] = CODE_SPAN_RE.sub(lambda m: " " * len(m.group()), line)
        self.text = "\n".join(masked)
        self.handed: dict[tuple[str, str], int] = {}

    def link(self, href: str) -> int | None:
        """The line of the next occurrence of the link destination ``href`` (None: not written)."""
        return self._next(("link", href), _DESTINATION)

    def attribute(self, name: str, value: str) -> int | None:
        """The line of the next ``name=value`` in an attribute list, else of ``value`` as a
        link destination (an image's ``src``); None when neither is written."""
        setter = _IN_ATTRIBUTE_LIST + "(?i:" + re.escape(name) + r")\s*=\s*[\"']?"
        found = self._next(("attribute " + name, value), setter)
        return found if found is not None else self.link(value)

    def _next(self, key: tuple[str, str], before: str) -> int | None:
        value = key[1]
        if not value.strip():
            return None
        if key not in self.handed:
            self.handed[key] = 0
        pattern = re.compile(before + "(?P<value>" + _written(value) + ")" + _VALUE_END)
        starts = [match.start("value") for match in pattern.finditer(self.text)
                  if match.start("brace") < 0 or _takes_effect(self.text, match.start("brace"))]
        if not starts:
            return None
        index = min(self.handed[key], len(starts) - 1)
        self.handed[key] += 1
        return self.first_line + self.text.count("\n", 0, starts[index])


def _takes_effect(text: str, brace: int) -> bool:
    """Whether attr_list applies the ``{...}`` opening at ``brace``: alone on its line
    (after quote or list marks: the block's), right after an inline element's
    closing mark (``[a](b){: ...}``, ``*em*{: ...}``), or ending a heading or a
    table cell. Elsewhere (``word {: ...}`` in a paragraph) it stays text."""
    start = text.rfind("\n", 0, brace) + 1
    end = text.find("\n", brace)
    before, after = text[start:brace], text[text.find("}", brace) + 1:end if end >= 0 else len(text)]
    if not before.strip(" \t>-*+0123456789.)"):
        return True
    if before[-1] in ")*_`]>":
        return True
    heading_or_cell = before.lstrip(" >").startswith("#") or "|" in before
    return before[-1] in " \t" and heading_or_cell and (after.strip(" \t#") in ("", "|") or after.lstrip().startswith("|"))


def _written(value: str) -> str:
    """A pattern for ``value`` as markdown may write it: any punctuation may be
    backslash-escaped, any run of whitespace may be any whitespace (a line break)."""
    parts = []
    for chunk in re.split(r"(\s+)", value.strip()):
        if chunk.isspace():
            parts.append(r"\s+")
        else:
            parts.append("".join("\\\\?" + re.escape(c) if c in _ESCAPABLE else re.escape(c) for c in chunk))
    return "".join(parts)
