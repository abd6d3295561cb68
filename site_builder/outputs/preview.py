"""Social preview images: a 1200x630 palette PNG card per page (title, summary, site title).

Drawn with Pillow: FreeType for the glyphs, raqm (HarfBuzz, FriBiDi) for the
runs that need shaping, in the fonts ``fonts`` finds on this system, chosen
per character. The card is made for a small palette: flat colours, and text
antialiased in ``LEVELS`` steps from the background to its colour, so it is
an 8-bit palette PNG. Text coverage goes straight to palette indices (a
glyph's indices are computed once per process, and the coverage of one
colour rises with its index, so overlapping glyphs combine with ``max``).
What every card of a site shares (background, accent bar, site title,
footer) is drawn once per build (``Painter.base``).

Layout (``text_layout``): words measured with the fonts' advances and kerning,
wrapped greedily, an ellipsis where text is cut, right-to-left text ordered
word by word and right-aligned. Plain runs (Latin, Greek, Cyrillic, CJK) are
put together from cached glyphs at their advances and pair kerning; runs that
need shaping (Arabic, Hebrew, Indic scripts, combining marks) are shaped
whole; a drawn word is cached. Emoji are Noto Color Emoji's bitmaps, scaled,
quantised per card into the palette entries the text leaves.

The bytes depend only on the text, the font files (``Painter.key``) and the
versions of Pillow, its libraries, zlib and numpy (``renderer_version``).
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

import numpy as np

from .. import parallel
from ..errors import Problem
from ..explainers.base import PREVIEW_SIZE
from .fonts import EMOJI_SIZE, Face, FontSet, font_set
from .palette_png import Rows
from .text_layout import Layout, direction, visual_order

WIDTH, HEIGHT = PREVIEW_SIZE
LEFT, RIGHT = 96, 1104
BACKGROUND, ACCENT, MUTED, INK = (0xfd, 0xfd, 0xfc), (0x0b, 0x5c, 0xad), (0x55, 0x5d, 0x68), (0x1b, 0x1f, 0x24)
LEVELS = 32
"""Antialiasing steps per text colour."""
COLOURS = (MUTED, INK, ACCENT)
EMOJI_BASE = 1 + LEVELS * len(COLOURS)
"""Palette: 0 the background, then ``LEVELS`` entries per colour, then emoji colours."""
COMPRESS_LEVEL = 1
"""zlib level of the PNG: 1 is ~2x faster than 6 for ~1.35x the bytes (docs/performance.md)."""

UNIT_CACHE = 50_000
"""Drawn words kept per process (then the cache starts again): a few KB each."""

_PALETTE = bytes(BACKGROUND) + b"".join(
    bytes(round(b + (c - b) * level / LEVELS) for b, c in zip(BACKGROUND, colour))
    for colour in COLOURS for level in range(1, LEVELS + 1))
_COMPLEX = re.compile("[\u0300-\u036f\u0483-\u0489\u0590-\u08ff\u0900-\u0dff\u0e00-\u109f\u1100-\u11ff"
                      "\u1700-\u18af\u1a00-\u1aff\u1b00-\u1dff\u200b-\u200f\u202a-\u202e\u2066-\u2069"
                      "\u20d0-\u20ff\ua800-\uabff\ufb1d-\ufdff\ufe00-\ufe2f\ufe70-\ufeff\U00010000-\U0001ffff]")
"""Characters a run needs shaping for: not drawn glyph by glyph."""


@functools.lru_cache(maxsize=1)
def renderer_version() -> str:
    """The versions the card's bytes depend on beside the fonts."""
    import zlib

    import fontTools
    import PIL
    from PIL import features

    libraries = " ".join(f"{name} {features.version(name)}" for name in ("freetype2", "raqm", "fribidi", "harfbuzz"))
    return (f"Pillow {PIL.__version__} {libraries} zlib {zlib.ZLIB_RUNTIME_VERSION} numpy {np.__version__} "
            f"fontTools {fontTools.version}")


class Painter(Layout):
    """Draws the cards of one build; caches glyphs, widths and the shared parts."""

    room = RIGHT - LEFT

    def __init__(self, fonts: FontSet):
        self.fonts = fonts
        self._glyphs: dict = {}
        self._units: dict = {}
        self._widths: dict = {}
        self._advances: dict = {}
        self._bases: dict = {}
        self._identities: dict[int, str] = {}
        self._luts = {colour: self._lut(number) for number, colour in enumerate(COLOURS)}

    @staticmethod
    def _lut(number: int) -> np.ndarray:
        level = (np.arange(256) * LEVELS + 127) // 255
        return np.where(level == 0, 0, 1 + number * LEVELS + level - 1).astype(np.uint8)

    # what a card's bytes depend on

    def key(self, title: str, summary: str, site_title: str, footer: str) -> str:
        """The cache key of a card: its texts, every face drawing them, the renderer's versions."""
        faces = set()
        for text, bold in ((title, True), (summary, False), (site_title, False), (footer, False), ("…", True),
                           ("…", False)):
            for face, _ in self.fonts.itemise(text, bold):
                if face is not None:
                    if id(face) not in self._identities:
                        self._identities[id(face)] = face.identity
                    faces.add(self._identities[id(face)])
        parts = [renderer_version(), *sorted(faces), title, summary, site_title, footer]
        return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()

    # measuring

    def width(self, text: str, size: int, bold: bool) -> float:
        """The advance of ``text`` (one unit, no line break) in pixels."""
        key = (text, size, bold)
        if key not in self._widths:
            self._widths[key] = sum(self._piece(face, run, size)[0] for face, run in self.fonts.itemise(text, bold))
        return self._widths[key]

    def _advance(self, font, text: str) -> float:
        key = (id(font), text)
        if key not in self._advances:
            self._advances[key] = font.getlength(text)
        return self._advances[key]

    def _piece(self, face: Face | None, run: str, size: int) -> tuple[float, str]:
        """(width, how it is drawn: "plain", "shaped" or "emoji") of one run in one face."""
        if face is None:
            from PIL import ImageFont

            return ImageFont.load_default(size).getlength(run), "default"
        font = face.font(size)
        if face.emoji:
            return self._advance(font, run) * size / EMOJI_SIZE, "emoji"
        if _COMPLEX.search(run):
            return self._advance(font, run), "shaped"
        total, previous = 0.0, ""
        for char in run:
            total += self._advance(font, char)
            if previous:
                total += self._advance(font, previous + char) - self._advance(font, previous) - self._advance(font, char)
            previous = char
        return total, "plain"

    # drawing

    def draw_line(self, sheet: "Sheet", line: list, baseline: int, size: int, bold: bool, colour: tuple,
                  rtl: bool) -> None:
        """Draw one wrapped line, left-aligned at LEFT (right-aligned at RIGHT when ``rtl``)."""
        space = self.width(" ", size, bold)
        order = visual_order(line, rtl)
        widths = [self.width(unit, size, bold) for _, unit in line]
        gaps = [0.0] + [space if line[max(a, b)][0] else 0.0 for a, b in zip(order, order[1:])]
        x = (RIGHT - sum(widths[i] for i in order) - sum(gaps)) if rtl else LEFT
        for gap, index in zip(gaps, order):
            x += gap
            image, dx, dy, pictures = self._unit(line[index][1], size, bold, colour)
            if image is not None:
                sheet.blit(image, round(x) + dx, baseline + dy)
            sheet.emoji += [(picture, round(x) + px, baseline + py) for picture, px, py in pictures]
            x += widths[index]

    def _unit(self, unit: str, size: int, bold: bool, colour: tuple):
        """One unit drawn once: (palette indices or None, x and y offsets, emoji placed relative to it)."""
        key = (unit, size, bold, colour)
        if key in self._units:
            return self._units[key]
        runs = self.fonts.itemise(unit, bold)
        if direction(unit) == "rtl":
            runs = runs[::-1]
        placed, emoji, x = [], [], 0.0
        for face, run in runs:
            wide, how = self._piece(face, run, size)
            if how == "plain":
                font = face.font(size)
                pen, previous = x, ""
                for char in run:
                    if previous:
                        pen += self._advance(font, previous + char) - self._advance(font, previous) - self._advance(font, char)
                    glyph, ox, oy = self._glyph(face, size, char, colour, "ltr")
                    placed.append((glyph, round(pen) + ox, oy))
                    pen += self._advance(font, char)
                    previous = char
            elif how == "emoji":
                picture, ox, oy = self._emoji(face, run, size)
                emoji.append((picture, round(x) + ox, oy))
            else:
                glyph, ox, oy = self._glyph(face, size, run, colour, direction(run))
                placed.append((glyph, round(x) + ox, oy))
            x += wide
        placed = [p for p in placed if p[0].size]
        if not placed:
            made = (None, 0, 0, emoji)
        else:
            left, top = min(p[1] for p in placed), min(p[2] for p in placed)
            right, bottom = max(p[1] + p[0].shape[1] for p in placed), max(p[2] + p[0].shape[0] for p in placed)
            image = np.zeros((bottom - top, right - left), np.uint8)
            for glyph, gx, gy in placed:
                target = image[gy - top:gy - top + glyph.shape[0], gx - left:gx - left + glyph.shape[1]]
                np.maximum(target, glyph, out=target)
            made = (image, left, top, emoji)
        if len(self._units) > UNIT_CACHE:
            self._units.clear()
        self._units[key] = made
        return made

    def _glyph(self, face: Face | None, size: int, text: str, colour: tuple, direction: str):
        """(palette indices, x offset, y offset from the baseline) of ``text`` drawn whole."""
        key = (id(face), size, text, colour, direction)
        if key not in self._glyphs:
            from PIL import features

            font = face.font(size) if face is not None else _default_font(size)
            if face is not None and features.check("raqm"):
                mask, (ox, oy) = font.getmask2(text, "L", direction=direction, anchor="ls")
            else:  # no raqm: no shaping, and right-to-left text reversed by hand
                mask, (ox, oy) = font.getmask2(text[::-1] if direction == "rtl" else text, "L", anchor="ls")
            coverage = np.frombuffer(bytes(mask), np.uint8).reshape(mask.size[1], mask.size[0])
            self._glyphs[key] = (self._luts[colour][coverage], ox, oy)
        return self._glyphs[key]

    def _emoji(self, face: Face, text: str, size: int):
        key = (id(face), size, text, "emoji")
        if key not in self._glyphs:
            from PIL import Image, ImageDraw

            font = face.font(size)
            left, top, right, bottom = font.getbbox(text, anchor="ls")
            picture = Image.new("RGBA", (max(1, right - left), max(1, bottom - top)))
            ImageDraw.Draw(picture).text((-left, -top), text, font=font, embedded_color=True, anchor="ls")
            scale = size / EMOJI_SIZE
            picture = picture.resize((max(1, round(picture.width * scale)), max(1, round(picture.height * scale))),
                                     Image.Resampling.LANCZOS)
            self._glyphs[key] = (np.asarray(picture), round(left * scale), round(top * scale))
        return self._glyphs[key]

    def base(self, site_title: str, footer: str) -> "Sheet":
        """What every card with this site title and footer shares, drawn once."""
        key = (site_title, footer)
        if key not in self._bases:
            sheet = Sheet(np.zeros((HEIGHT, WIDTH), np.uint8))
            sheet.canvas[:, :20] = EMOJI_BASE - 1  # the accent bar: ACCENT at full strength
            for text, baseline, size, colour in ((site_title, 104, 34, MUTED), (footer, HEIGHT - 56, 28, ACCENT)):
                for line in self.wrap(text, size, False, 1):
                    self.draw_line(sheet, line, baseline, size, False, colour, False)
            sheet.rows = Rows(sheet.canvas, COMPRESS_LEVEL)
            if len(self._bases) > 8:
                self._bases.clear()
            self._bases[key] = sheet
        return self._bases[key]

    def card(self, title: str, summary: str, site_title: str, footer: str = "") -> bytes:
        """The PNG of one card."""
        base = self.base(site_title, footer)
        sheet = Sheet(base.canvas.copy(), list(base.emoji), base.rows)
        title_size, title_lines = 76, self.wrap(title, 76, True, 2)
        if len(title_lines) > 1:
            title_size, title_lines = 64, self.wrap(title, 64, True, 2)
        y = 104 + 40 + title_size
        for line in title_lines:
            self.draw_line(sheet, line, y, title_size, True, INK, direction(title) == "rtl")
            y += round(title_size * 1.15)
        size, leading = 36, 50
        y += 24
        bottom = HEIGHT - (100 if footer else 60)
        room = max(1, (bottom - y) // leading + 1)
        for line in self.wrap(summary, size, False, room):
            self.draw_line(sheet, line, y, size, False, INK, direction(summary) == "rtl")
            y += leading
        return sheet.encode()


class Sheet:
    """A card being drawn: palette indices, which rows changed since the base, emoji to lay over."""

    def __init__(self, canvas: np.ndarray, emoji: list | None = None, rows: Rows | None = None):
        self.canvas, self.emoji, self.rows = canvas, emoji if emoji is not None else [], rows
        self.changed = np.zeros(HEIGHT, bool)

    def blit(self, glyph: np.ndarray, x: int, y: int) -> None:
        """``canvas = max(canvas, glyph)`` where the glyph lands, clipped to the canvas."""
        height, width = glyph.shape[:2]
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + width, WIDTH), min(y + height, HEIGHT)
        if x0 < x1 and y0 < y1:
            target = self.canvas[y0:y1, x0:x1]
            np.maximum(target, glyph[y0 - y:y1 - y, x0 - x:x1 - x], out=target)
            self.changed[y0:y1] = True

    def encode(self) -> bytes:
        """The palette PNG, emoji quantised into the entries the text leaves."""
        palette = _PALETTE
        if self.emoji:
            palette = _lay_emoji(self.canvas, self.emoji, self.changed)
        return self.rows.encode(self.canvas, self.changed, palette)


@functools.lru_cache(maxsize=8)
def _default_font(size: int):
    from PIL import ImageFont

    return ImageFont.load_default(size)


def _lay_emoji(canvas: np.ndarray, emoji: list, changed: np.ndarray) -> bytes:
    """Emoji composited over the background and quantised into the palette entries left."""
    from PIL import Image

    background = np.array(BACKGROUND, np.float32)
    strips = []
    for picture, _, _ in emoji:
        alpha = picture[..., 3:4].astype(np.float32) / 255
        strips.append((picture[..., :3] * alpha + background * (1 - alpha)).round().astype(np.uint8))
    height = max(strip.shape[0] for strip in strips)
    sheet = np.concatenate([np.pad(s, ((0, height - s.shape[0]), (0, 0), (0, 0)), mode="edge") for s in strips], axis=1)
    quantised = Image.fromarray(sheet, "RGB").quantize(256 - EMOJI_BASE, method=Image.Quantize.MEDIANCUT,
                                                       dither=Image.Dither.NONE)
    indices = np.asarray(quantised).astype(np.uint16) + EMOJI_BASE
    used = quantised.getpalette()[: 3 * (int(indices.max()) - EMOJI_BASE + 1)]
    column = 0
    for (picture, x, y), strip in zip(emoji, strips):
        width = strip.shape[1]
        mask = picture[..., 3] > 0
        glyph = np.where(mask, indices[:strip.shape[0], column:column + width], 0).astype(np.uint8)
        height_, width_ = glyph.shape
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + width_, WIDTH), min(y + height_, HEIGHT)
        if x0 < x1 and y0 < y1:
            target = canvas[y0:y1, x0:x1]
            piece, inside = glyph[y0 - y:y1 - y, x0 - x:x1 - x], mask[y0 - y:y1 - y, x0 - x:x1 - x]
            target[inside] = piece[inside]
            changed[y0:y1] = True
        column += width
    return _PALETTE + bytes(used)


_painters: dict[int, Painter] = {}


def painter(language: str = "en") -> Painter:
    """The painter of this process for the fonts of ``language`` (its caches outlive a build)."""
    fonts = font_set(language)
    if id(fonts) not in _painters:
        _painters[id(fonts)] = Painter(fonts)
    return _painters[id(fonts)]


PARALLEL_PREVIEWS = 64
"""From this many cards to draw, forked workers draw them."""

_shared: tuple | None = None  # what forked workers inherit (see render_all)


def render_all(painter: Painter, todo: dict[str, tuple], jobs: int = 1) -> dict[str, bytes]:
    """key -> PNG of every card in ``todo`` (key -> its texts), in ``jobs`` forked workers when many."""
    global _shared
    items = list(todo.items())
    if not items:
        return {}
    first_key, first = items[0]
    done = {first_key: painter.card(*first)}  # here first: the workers inherit the fonts and glyphs it loaded
    rest = items[1:]
    if jobs > 1 and len(rest) >= PARALLEL_PREVIEWS and parallel.can_pool():
        for texts in {texts[2:] for _, texts in rest}:
            painter.base(*texts)
        _shared = (painter, [texts for _, texts in rest])
        step = max(1, -(-len(rest) // (jobs * 4)))
        bounds = [(start, min(start + step, len(rest))) for start in range(0, len(rest), step)]
        try:
            with parallel.pool(jobs) as pool:
                drawn = [png for chunk in pool.map(_render_slice, bounds) for png in chunk]
        finally:
            _shared = None
    else:
        drawn = [painter.card(*texts) for _, texts in rest]
    done.update((key, png) for (key, _), png in zip(rest, drawn))
    return done


def _render_slice(bounds: tuple[int, int]) -> list[bytes]:
    """In a forked worker: the PNGs of one slice of the cards to draw."""
    painter, cards = _shared
    return [painter.card(*texts) for texts in cards[bounds[0]:bounds[1]]]


def missing_font_problems(missing: dict[str, str], wanted: list[tuple[str, str, tuple]]) -> list[Problem]:
    """One warning for every character no installed font has (drawn as a box), at the first file using one."""
    if not missing:
        return []
    where = next((source for _, source, texts in wanted if any(c in t for c in missing for t in texts)), "site.toml")
    named = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip() for c in sorted(missing)[:5])
    more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
    return [Problem(where, None, f"preview images: no installed font has {len(missing)} character(s) used here "
                                 f"({named}{more}); they show as boxes. Install fonts that have them, e.g. Debian's "
                                 "fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji", "warning")]
