"""Line layout of the preview cards: where a line may break, greedy wrapping with
an ellipsis, and the order of words in right-to-left and mixed lines.

Measuring is the subclass's (``Layout.width``: ``preview.Painter`` asks the
fonts). The bidi is two-level, word by word: a paragraph takes the direction
of its first strong character (UAX #9's P2), a word without one takes that of
the words around it when they agree (N1), else the paragraph's; a number after
left-to-right text reads with it (W7); words of one direction stay together,
a right-to-left group reversed. Within a word, raqm (FriBiDi and HarfBuzz)
orders and shapes the characters.
"""

from __future__ import annotations

import re
import unicodedata

BREAK_ANYWHERE = re.compile("[\u2e80-\u2fff\u3001-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                             "\uf900-\ufaff\uff01-\uff60\U00020000-\U0003ffff]")
NO_BREAK_BEFORE = set("、。，．：；！？）」』】〕〉》｝ーぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ…")
NO_BREAK_AFTER = set("（「『【〔〈《｛")


def direction(text: str) -> str | None:
    """"rtl" or "ltr" from the first strong character, None without one."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind == "L":
            return "ltr"
        if kind in ("R", "AL"):
            return "rtl"
    return None


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


def visual_order(directions: list[str | None], rtl: bool) -> list[int]:
    """Left-to-right order of a line's units: neutrals between two units of one
    direction take it, others the paragraph's; runs of one direction stay together."""
    paragraph = "rtl" if rtl else "ltr"
    resolved = list(directions)
    for index, direction in enumerate(directions):
        if direction == "en":  # a number after left-to-right text reads with it (UAX #9's W7)
            before = next((d for d in reversed(directions[:index]) if d in ("ltr", "rtl")), paragraph)
            resolved[index] = direction = "ltr" if before == "ltr" else None
        if direction is None:
            before = next((d for d in reversed(resolved[:index]) if d in ("ltr", "rtl")), paragraph)
            after = next((d for d in directions[index + 1:] if d in ("ltr", "rtl")), paragraph)
            resolved[index] = before if before == after else paragraph
    groups: list[tuple[str, list[int]]] = []
    for index, direction in enumerate(resolved):
        if groups and groups[-1][0] == direction:
            groups[-1][1].append(index)
        else:
            groups.append((direction, [index]))
    ordered = [members if direction == "ltr" else members[::-1] for direction, members in groups]
    return [index for members in (ordered[::-1] if rtl else ordered) for index in members]


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
