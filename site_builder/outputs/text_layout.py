"""Line layout of the preview cards: where a line may break, greedy wrapping with
an ellipsis, and the order of words in right-to-left and mixed lines.

Measuring is the subclass's (``Layout.width``: ``preview.Painter`` asks the
fonts). The bidi is python-bidi's (the Rust crate unicode-bidi, UAX #9 in
full: paragraph level, weak and neutral types, numbers, isolates): it
resolves each character's embedding level over the whole line, a word takes
the highest level of its characters, and the words are reordered by those
levels (UAX #9's L2, word by word). Within a word, raqm (FriBiDi and
HarfBuzz) orders and shapes the characters.
"""

from __future__ import annotations

import re
import unicodedata

import bidi

BREAK_ANYWHERE = re.compile("[\u2e80-\u2fff\u3001-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                             "\uf900-\ufaff\uff01-\uff60\U00020000-\U0003ffff]")
NO_BREAK_BEFORE = set("、。，．：；！？）」』】〕〉》｝ーぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ…")
NO_BREAK_AFTER = set("（「『【〔〈《｛")


def direction(text: str) -> str:
    """"rtl" or "ltr": the paragraph direction of ``text`` (UAX #9's P2 and P3, by
    python-bidi), "ltr" when it has no strong character."""
    return "rtl" if bidi.get_base_level(text) == 1 else "ltr"


_LEVELS = re.compile(r"levels: \[(.*?)\n    \]", re.S)
_LEVEL = re.compile(r"Level\(\s*(\d+),?\s*\)")


def embedding_levels(text: str, rtl: bool) -> list[int]:
    """Each character's resolved embedding level in ``text``, a paragraph of
    direction "rtl" if ``rtl`` else "ltr" (UAX #9 up to I2, by python-bidi)."""
    if not text:
        return []
    # python-bidi gives the levels only as its debug text: one per UTF-8 byte.
    report = bidi.get_display(text, base_dir="R" if rtl else "L", debug=True)
    found = _LEVELS.search(report)
    per_byte = [int(level) for level in _LEVEL.findall(found.group(1))] if found else []
    encoded = [len(char.encode("utf-8")) for char in text]
    if len(per_byte) != sum(encoded):
        raise RuntimeError(f"python-bidi {bidi.VERSION}: unexpected debug report for {text!r}")
    levels, offset = [], 0
    for size in encoded:
        levels.append(per_byte[offset])
        offset += size
    return levels


def units(text: str) -> list[tuple[str, str]]:
    """(separator, unit) pairs a line may break between: words, and each Chinese or
    Japanese character (punctuation kept with the character it belongs to)."""
    found: list[tuple[str, str]] = []
    for word in text.split():
        separator, current = " " if found else "", ""
        if word.isascii():
            found.append((separator, word))
            continue
        for char in word:
            if current and BREAK_ANYWHERE.match(char) or (current and BREAK_ANYWHERE.match(current[-1])):
                if char not in NO_BREAK_BEFORE and current[-1] not in NO_BREAK_AFTER:
                    found.append((separator, current))
                    separator, current = "", ""
            current += char
        found.append((separator, current))
    return found


_MOVING = {"R", "AL", "AN", "RLE", "RLO", "RLI", "LRE", "LRO", "LRI", "FSI", "PDF", "PDI"}
"""Bidi classes that can give a character of a left-to-right paragraph a level above 0."""


def _moves(unit: str) -> bool:
    return any(unicodedata.bidirectional(char) in _MOVING for char in unit)


def visual_order(line: list[tuple[str, str]], rtl: bool) -> list[int]:
    """Left-to-right order of a line's (separator, unit) pairs in a paragraph of
    direction "rtl" if ``rtl`` else "ltr": levels resolved over the whole line
    by python-bidi, each unit at the highest level of its characters, then
    UAX #9's L2 on the units (from the highest level down to the lowest odd
    one, every run of units at that level or above reversed)."""
    if not rtl and all(unit.isascii() or not _moves(unit) for _, unit in line):
        # A left-to-right paragraph without a character of those classes: every level
        # resolves to 0 (a number after the start or Latin text reads left to right).
        return list(range(len(line)))
    text, spans = "", []
    for index, (separator, unit) in enumerate(line):
        text += separator if index else ""
        spans.append((len(text), len(text) + len(unit)))
        text += unit
    levels = embedding_levels(text, rtl)
    unit_levels = [max(levels[start:end], default=int(rtl)) for start, end in spans]
    order = list(range(len(line)))
    lowest_odd = min((level for level in unit_levels if level % 2), default=None)
    if lowest_odd is None:  # as UAX #9's reference implementation: no odd level, nothing reversed
        return order
    for level in range(max(unit_levels), lowest_odd - 1, -1):
        index = 0
        while index < len(order):
            if unit_levels[order[index]] >= level:
                end = index
                while end < len(order) and unit_levels[order[end]] >= level:
                    end += 1
                order[index:end] = order[index:end][::-1]
                index = end
            else:
                index += 1
    return order


class Layout:
    """Wrapping, for a class that measures: ``width(unit, size, bold)`` in pixels."""

    room = 1008.0
    """The width of a line in pixels."""

    def width(self, text: str, size: int, bold: bool) -> float:
        raise NotImplementedError

    def wrap(self, text: str, size: int, bold: bool, max_lines: int, room: float | None = None) -> list[list]:
        """Greedy wrap into at most ``max_lines`` lines of (separator, unit); cut text ends in "…"."""
        room = self.room if room is None else room
        space = self.width(" ", size, bold)
        lines: list[list] = []
        current: list = []
        used = 0.0
        pending = units(text)
        while pending:
            separator, unit = pending.pop(0)
            wide = self.width(unit, size, bold)
            gap = space if current and separator else 0.0
            if used + gap + wide <= room:
                current.append((separator, unit))
                used += gap + wide
                continue
            if current:
                lines.append(current)
                current, used = [], 0.0
                if len(lines) == max_lines:
                    return self._ellipsize(lines, size, bold, room)
            if wide > room:  # one unit wider than the line: cut it where it fits
                cut = self._cut(unit, size, bold, room)
                pending.insert(0, ("", unit[cut:]))
                unit, wide = unit[:cut], self.width(unit[:cut], size, bold)
            current, used = [(separator, unit)], wide
        if current:
            lines.append(current)
        return lines

    def _cut(self, unit: str, size: int, bold: bool, room: float) -> int:
        cut = len(unit) - 1
        while cut > 1 and (self.width(unit[:cut], size, bold) > room or unicodedata.combining(unit[cut])):
            cut -= 1
        return max(1, cut)

    def _ellipsize(self, lines: list[list], size: int, bold: bool, room: float) -> list[list]:
        last = list(lines[-1])
        while True:
            separator = "" if last and BREAK_ANYWHERE.match(last[-1][1][-1]) else " "
            candidate = last + [(separator if last else "", "…")]
            if not last or self.line_width(candidate, size, bold) <= room:
                return lines[:-1] + [candidate]
            separator, unit = last.pop()
            trimmed = unit.rstrip(",;:")
            if trimmed and trimmed != unit:
                last.append((separator, trimmed))

    def line_width(self, line: list, size: int, bold: bool) -> float:
        space = self.width(" ", size, bold)
        return sum(self.width(unit, size, bold) + (space if index and separator else 0.0)
                   for index, (separator, unit) in enumerate(line))
