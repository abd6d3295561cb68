"""An 8-bit palette PNG writer that compresses only the rows a card changed.

zlib is most of a preview's cost: Pillow's PNG encoder takes ~3.5 ms for a
1200x630 card at level 1. The rows every card of a build shares (the site
title's, the footer's, the blank ones between lines) are compressed once
(``Rows``) and their deflate segments reused: each segment is compressed on
its own and ends in a full flush, so segments simply concatenate, and the
stream's Adler-32 is combined from each segment's (``adler32_combine``). The
rows a card drew on are compressed for it. Same rows, same zlib, same bytes.

Why hand-written (issue 33): it earns its place. A whole card (layout,
glyphs and PNG) takes 0.36-0.37x the CPU it takes with Pillow's PNG encoder
at the same zlib level, on either corpus mix (0.70 against 1.89 ms on the
simple mix, 0.66 against 1.83 ms on the realistic one): about 11 s of CPU
saved at 10,000 terms. ``python benchmarks/bench_previews.py --encoders --sizes``
(docs/performance.md, "Both corpus mixes and the hand-written code").
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_FINAL = b"\x03\x00"
"""An empty final block with fixed codes: ends a stream of full-flushed segments."""
_MOD = 65521


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of A + B from those of A and B (zlib's adler32_combine)."""
    remainder = second_length % _MOD
    low = first & 0xFFFF
    high = (remainder * low) % _MOD
    low = (low + (second & 0xFFFF) + _MOD - 1) % _MOD
    high = (high + (first >> 16) + (second >> 16) + _MOD - remainder) % _MOD
    return low | (high << 16)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))


def _segment(raw: bytes, level: int) -> tuple[bytes, int, int]:
    """(deflate data ending in a full flush, Adler-32 of ``raw``, its length)."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(raw) + compressor.flush(zlib.Z_FULL_FLUSH), zlib.adler32(raw), len(raw)


def _raw(rows: np.ndarray) -> bytes:
    """Scanlines: filter type 0 (none) before each row."""
    lines = np.zeros((rows.shape[0], rows.shape[1] + 1), np.uint8)
    lines[:, 1:] = rows
    return lines.tobytes()


class Rows:
    """The rows shared by every card drawn over one ``base`` (palette indices), compressed once per run of them."""

    def __init__(self, base: np.ndarray, level: int = 1):
        self.base, self.level = base, level
        self._segments: dict[tuple[int, int], tuple[bytes, int, int]] = {}

    def encode(self, canvas: np.ndarray, changed: np.ndarray, palette: bytes) -> bytes:
        """The PNG of ``canvas``, whose rows outside ``changed`` (a bool per row) are the base's."""
        height, width = canvas.shape
        parts, adler = [b"\x78\x01"], 1
        edges = np.flatnonzero(np.diff(np.concatenate(([False], changed, [False])).astype(np.int8)))
        start = 0
        for begin, end in zip(edges[::2], edges[1::2]):
            for first, last, own in ((start, begin, False), (begin, end, True)):
                if first == last:
                    continue
                if own:
                    data, check, length = _segment(_raw(canvas[first:last]), self.level)
                else:
                    data, check, length = self._shared(first, last)
                parts.append(data)
                adler = adler32_combine(adler, check, length)
            start = end
        if start < height:
            data, check, length = self._shared(start, height)
            parts.append(data)
            adler = adler32_combine(adler, check, length)
        parts += [_FINAL, struct.pack(">I", adler)]
        header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
        return (_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"PLTE", palette)
                + _chunk(b"IDAT", b"".join(parts)) + _chunk(b"IEND", b""))

    def _shared(self, first: int, last: int) -> tuple[bytes, int, int]:
        key = (first, last)
        if key not in self._segments:
            if len(self._segments) > 4096:
                self._segments.clear()
            self._segments[key] = _segment(_raw(self.base[first:last]), self.level)
        return self._segments[key]
