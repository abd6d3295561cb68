"""Fonts for the preview cards (``preview``): found on this system at build time,
chosen per character.

Nothing is shipped. The fonts are looked up by file name in the system's font
folders (``FONT_DIRS``; ``$SITE_BUILDER_FONT_DIRS``, a ``os.pathsep``-separated
list, replaces them): Debian's ``fonts-noto-core``, ``fonts-noto-cjk`` and
``fonts-noto-color-emoji`` first, then DejaVu, then Liberation. Each style
(regular, bold) is a chain of faces; every run of characters is drawn in the
first face whose ``cmap`` maps them (read with fontTools), so Latin, Greek and
Cyrillic come from Noto Sans, Arabic and Hebrew from Noto Sans Arabic and
Hebrew, Chinese, Japanese and Korean from Noto Sans CJK (the face of the
site's ``language``), emoji from Noto Color Emoji. A character no face maps
is drawn as the first face's .notdef box, visibly, and noted in
``FontSet.missing`` for the build to warn about once.

A face's identity (path, collection index, size and mtime of the file) goes
into every preview's cache key: another font gives another image.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

FONT_DIRS_ENV = "SITE_BUILDER_FONT_DIRS"
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts",
             "/Library/Fonts", "/System/Library/Fonts", "~/Library/Fonts", "C:/Windows/Fonts")

CJK = "cjk"
"""Stands for the Noto Sans CJK collection's face of the site's language."""

CHAINS = {
    False: ("NotoSans-Regular.ttf", "NotoSansArabic-Regular.ttf", "NotoSansHebrew-Regular.ttf",
            ("NotoSansCJK-Regular.ttc", CJK), "NotoColorEmoji.ttf", "DejaVuSans.ttf", "LiberationSans-Regular.ttf"),
    True: ("NotoSans-Bold.ttf", "NotoSansArabic-Bold.ttf", "NotoSansHebrew-Bold.ttf",
           ("NotoSansCJK-Bold.ttc", CJK), "NotoColorEmoji.ttf", "DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf"),
}
"""The faces tried in order, regular (False) and bold (True); missing files are skipped.
After them come the other Noto Sans faces installed (Devanagari, Thai, Armenian...)."""

CJK_FACES = {"ja": 0, "ko": 1, "zh": 2, "zh-cn": 2, "zh-sg": 2, "zh-hans": 2, "zh-tw": 3, "zh-hant": 3,
             "zh-hk": 4, "zh-mo": 4}
"""Noto Sans CJK .ttc face by language tag: JP, KR, SC, TC, HK (JP otherwise)."""

EMOJI_SIZE = 109
"""Noto Color Emoji is a bitmap font with one strike: it opens at this size only."""

_EXTRA = re.compile(r"NotoSans[A-Z][A-Za-z]*-(Regular|Bold)\.ttf$")

# Characters that belong to the cluster before them: combining marks, joiners,
# variation selectors, emoji modifiers and tags, the keycap mark.
_JOINING = re.compile("[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed"
                      "\u200c\u200d\u20d0-\u20ff\ufe00-\ufe0f\ufe20-\ufe2f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]")


@dataclass
class Face:
    """One font file (one face of a collection) and what it maps, read when first asked."""

    path: str
    index: int = 0
    emoji: bool = False
    _cmap: frozenset | None = None
    _data: bytes | None = None
    _fonts: dict = field(default_factory=dict)

    @property
    def identity(self) -> str:
        """What makes this face's output: the file (path, size, mtime) and the face in it."""
        try:
            info = os.stat(self.path)
            return f"{self.path}#{self.index}:{info.st_size}:{info.st_mtime_ns}"
        except OSError:
            return f"{self.path}#{self.index}:-"

    def covers(self, code: int) -> bool:
        if self._cmap is None:
            from fontTools.ttLib import TTFont  # ~30 ms to import: only when a card is drawn

            try:
                with TTFont(self.path, fontNumber=self.index, lazy=True) as font:
                    self._cmap = frozenset(font.getBestCmap() or ())
            except Exception:  # a damaged or unreadable font file maps nothing  # noqa: BLE001
                self._cmap = frozenset()
        return code in self._cmap

    def font(self, size: int):
        """The Pillow font at ``size`` px (an emoji face: at ``EMOJI_SIZE``, to be scaled)."""
        size = EMOJI_SIZE if self.emoji else size
        if size not in self._fonts:
            from PIL import ImageFont, features

            if self._data is None:
                # From memory, not from the path: forked workers then share no
                # file offset, and every size shares the one copy (``_Bytes``).
                self._data = Path(self.path).read_bytes()
            engine = ImageFont.Layout.RAQM if features.check("raqm") else ImageFont.Layout.BASIC
            self._fonts[size] = ImageFont.truetype(_Bytes(self._data), size, index=self.index, layout_engine=engine)
        return self._fonts[size]


class _Bytes:
    """A file-like object whose ``read()`` returns the same bytes object every time."""

    def __init__(self, data: bytes):
        self.data = data

    def read(self) -> bytes:
        return self.data


@dataclass
class FontSet:
    """The face chains of one language, and the characters no face could draw."""

    regular: list[Face]
    bold: list[Face]
    missing: dict[str, str] = field(default_factory=dict)
    """A character no face maps -> the first text it was seen in."""

    def chain(self, bold: bool) -> list[Face]:
        return self.bold if bold else self.regular

    def itemise(self, text: str, bold: bool = False) -> list[tuple[Face, str]]:
        """``text`` split into runs, each with the first face that maps all of it."""
        chain = self.chain(bold)
        if not chain:  # no font found at all: Pillow's own (ASCII only)
            for char in text:
                if not (char.isascii() or char.isspace()):
                    self.missing.setdefault(char, text)
            return [(None, text)] if text else []
        first = chain[0]
        if text.isascii() and all(first.covers(ord(c)) for c in set(text)):
            return [(first, text)] if text else []
        runs: list[tuple[Face, str]] = []
        face, start = None, 0
        for position, char in enumerate(text):
            if face is not None and (char.isspace() or _JOINING.match(char)):
                continue  # stays with the run before it
            emoji = text[position + 1:position + 2] == "\ufe0f"  # an emoji presentation asked for
            chosen = self._face_for(chain, char, emoji, text)
            if chosen is not face:
                if face is not None:
                    runs.append((face, text[start:position]))
                face, start = chosen, position
        if face is not None:
            runs.append((face, text[start:]))
        return runs

    def _face_for(self, chain: list[Face], char: str, emoji: bool, text: str) -> Face:
        code = ord(char)
        if char.isspace():
            return chain[0]
        if emoji:
            for face in chain:
                if face.emoji and face.covers(code):
                    return face
        for face in chain:
            if face.covers(code):
                return face
        if unicodedata.category(char) in ("Cf", "Cc"):  # invisible formatting: nothing to draw
            return chain[0]
        self.missing.setdefault(char, text)
        return chain[0]  # its .notdef box: visibly a missing character


def font_folders() -> list[Path]:
    """Where fonts are looked for: ``$SITE_BUILDER_FONT_DIRS``, else ``FONT_DIRS``."""
    chosen = os.environ.get(FONT_DIRS_ENV)
    folders = chosen.split(os.pathsep) if chosen else list(FONT_DIRS)
    if sys.platform == "win32" and not chosen:  # pragma: no cover
        folders.append(os.path.join(os.environ.get("WINDIR", "C:/Windows"), "Fonts"))
    return [Path(os.path.expanduser(folder)) for folder in folders if folder]


def find_files(folders: list[Path]) -> dict[str, str]:
    """File name -> path of every font file under ``folders`` (the first of each name)."""
    found: dict[str, str] = {}
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                if name.lower().endswith((".ttf", ".otf", ".ttc")):
                    found.setdefault(name, os.path.join(root, name))
    return found


_sets: dict[tuple, FontSet] = {}


def font_set(language: str = "en") -> FontSet:
    """The fonts of this system for ``language``, found once per process and font path."""
    folders = font_folders()
    cjk = CJK_FACES.get(language.lower(), CJK_FACES.get(language.lower().split("-")[0], 0))
    key = (tuple(map(str, folders)), cjk)
    if key not in _sets:
        files = find_files(folders)
        chains = {}
        for bold, names in CHAINS.items():
            chain = []
            for entry in names:
                name, index = entry if isinstance(entry, tuple) else (entry, 0)
                if name in files:
                    chain.append(Face(files[name], cjk if index == CJK else index, emoji="Emoji" in name))
            style = "Bold" if bold else "Regular"
            chosen = {face.path for face in chain}
            chain += [Face(path) for name, path in sorted(files.items())
                      if _EXTRA.match(name) and name.endswith(f"-{style}.ttf") and path not in chosen]
            chains[bold] = chain
        _shared_faces(chains[False], chains[True])
        _sets[key] = FontSet(chains[False], chains[True])
    return _sets[key]


def _shared_faces(regular: list[Face], bold: list[Face]) -> None:
    """One Face object for a file both chains use (the emoji font): one copy in memory."""
    by_path = {(face.path, face.index): face for face in regular}
    bold[:] = [by_path.get((face.path, face.index), face) for face in bold]
