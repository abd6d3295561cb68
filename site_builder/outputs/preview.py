"""Social preview images: a 1200x630 PNG card per page (title, summary, site title).

The card is an SVG composed here and rasterised by ``vl_convert.svg_to_png``
in the font vl-convert bundles (Liberation Sans), so the bytes depend only on
the text and the vl-convert version. Text is wrapped with Liberation Sans'
advance widths (metric-compatible with Arial). About 50 ms per image on one
core, so ``previews = false`` in site.toml turns them off for large sites.
"""

from __future__ import annotations

import functools
import hashlib
from html import escape

from ..explainers.base import PREVIEW_SIZE

WIDTH, HEIGHT = PREVIEW_SIZE
LEFT, RIGHT = 96, 1104
FONT = "Liberation Sans"

# Advance widths in 1/1000 em for ASCII 32..126 (Liberation Sans = Arial metrics).
_REGULAR = [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
            556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
            1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
            667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
            333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
            556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584]
_BOLD = [278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
         556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
         975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
         667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
         333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
         611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584]


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Estimated rendered width of ``text`` in pixels."""
    table = _BOLD if bold else _REGULAR
    total = 0
    for char in text:
        code = ord(char)
        if 32 <= code <= 126:
            total += table[code - 32]
        elif code >= 0x2E80:  # CJK and wider: about one em
            total += 1000
        else:
            total += 600
    return total * size / 1000


def wrap(text: str, size: float, width: float, max_lines: int, bold: bool = False) -> list[str]:
    """Greedy word wrap into at most ``max_lines``; the last line ends in an ellipsis when cut."""
    lines: list[str] = []
    current = ""
    words = text.split()
    for index, word in enumerate(words):
        candidate = f"{current} {word}".strip()
        if text_width(candidate, size, bold) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = word
        while text_width(current, size, bold) > width:  # one word wider than the line
            cut = len(current)
            while cut > 1 and text_width(current[:cut], size, bold) > width:
                cut -= 1
            lines.append(current[:cut])
            current = current[cut:]
        if len(lines) >= max_lines:
            return _ellipsize(lines[:max_lines], size, width, bold)
    if current:
        lines.append(current)
    if len(lines) > max_lines:
        return _ellipsize(lines[:max_lines], size, width, bold)
    return lines


def _ellipsize(lines: list[str], size: float, width: float, bold: bool) -> list[str]:
    last = lines[-1]
    while last and text_width(last + " …", size, bold) > width:
        last = last.rsplit(" ", 1)[0] if " " in last else last[:-1]
    return lines[:-1] + [last.rstrip(" ,;:") + " …"]


def card_svg(title: str, summary: str, site_title: str, footer: str = "") -> str:
    """The SVG of one card; every text is XML-escaped."""
    usable = RIGHT - LEFT
    title_size = 76
    title_lines = wrap(title, title_size, usable, 2, bold=True)
    if len(title_lines) > 1:
        title_size = 64
        title_lines = wrap(title, title_size, usable, 2, bold=True)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#fdfdfc"/>',
        f'<rect width="20" height="{HEIGHT}" fill="#0b5cad"/>',
        f'<text x="{LEFT}" y="104" font-family="{FONT}" font-size="34" fill="#555d68">{escape(site_title, quote=False)}</text>',
    ]
    y = 104 + 40 + title_size
    for line in title_lines:
        parts.append(f'<text x="{LEFT}" y="{y}" font-family="{FONT}" font-weight="bold" font-size="{title_size}" fill="#1b1f24">{escape(line, quote=False)}</text>')
        y += round(title_size * 1.15)
    summary_size, leading = 36, 50
    y += 24
    bottom = HEIGHT - (100 if footer else 60)
    room = max(1, (bottom - y) // leading + 1)
    for line in wrap(summary, summary_size, usable, room):
        parts.append(f'<text x="{LEFT}" y="{y}" font-family="{FONT}" font-size="{summary_size}" fill="#1b1f24">{escape(line, quote=False)}</text>')
        y += leading
    if footer:
        parts.append(f'<text x="{LEFT}" y="{HEIGHT - 56}" font-family="{FONT}" font-size="28" fill="#0b5cad">{escape(footer, quote=False)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def png_key(svg: str) -> str:
    """A cache key for the PNG of ``svg``: the SVG and the rasteriser's version."""
    return hashlib.sha256(f"{_rasteriser_version()}\n{svg}".encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=1)
def _rasteriser_version() -> str:
    # Looked up once: a metadata lookup costs ~0.4 ms, once per card otherwise.
    from importlib import metadata  # here, not at the top: it costs ~20 ms to import

    try:
        return metadata.version("vl-convert-python")
    except metadata.PackageNotFoundError:  # pragma: no cover - installed some other way
        return "unknown"


def render_png(svg: str) -> bytes:
    """Rasterise an SVG card (imported lazily: vl-convert takes a while to load)."""
    import vl_convert

    return vl_convert.svg_to_png(svg)
