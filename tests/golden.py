"""What the golden test (tests/site/test_golden.py) and tests/refresh_golden.py share.

The golden site (tests/fixtures/golden/content) is built and compared with
tests/fixtures/golden/expected byte for byte, with two exceptions:

- Its preview cards are drawn with the Noto Sans fonts (``outputs.fonts``
  finds them under ``$SITE_BUILDER_FONT_DIRS`` or the system's font folders).
  Without them the cards are drawn with other faces: the test fails saying so,
  not with a byte diff, and the refresh refuses to record those cards.
- The explainer page (the speculative-decoding term) is compared as a
  normalised subset. Its page is compared byte for byte, with the content
  hashes in its asset names replaced by ``HASH``; its own files (chart specs
  and SVGs from Altair and vl-convert, numpy's data.json, its preview, its
  scripts, the vendored Vega runtime: 1.4 MB that change with those libraries'
  versions and with every edit of the explainer's scripts, which the node and
  browser tests check) are compared by name only, listed in
  ``explainer-files.txt``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from helpers import FIXTURES

GOLDEN = FIXTURES / "golden"
CONTENT = GOLDEN / "content"
EXPECTED = GOLDEN / "expected"
NAMES_ONLY = GOLDEN / "explainer-files.txt"

FONTS = ("NotoSans-Regular.ttf", "NotoSans-Bold.ttf")
"""The faces the golden cards' text is drawn with (fonts-noto-core on Debian)."""

_EXPLAINER_ASSET = re.compile(r"assets/((?:sd-[\w-]+|speculative-decoding|vega-runtime)\.)[0-9a-f]{10}(\.\w+)")
_NAMES_ONLY = re.compile(r"^(?:speculative-decoding/(?!index\.html$).+|assets/(?:sd-[\w-]+|speculative-decoding|vega-runtime)\..+)$")


def missing_fonts() -> list[str]:
    """The golden fonts this machine lacks, where ``outputs.fonts`` looks for them."""
    from site_builder.outputs import fonts

    found = fonts.find_files(fonts.font_folders())
    return [name for name in FONTS if name not in found]


def fonts_reason(missing: list[str]) -> str:
    """Why the golden output cannot be built here, and the mend."""
    return (f"the golden preview cards need the fonts {', '.join(missing)} (not found under "
            "$SITE_BUILDER_FONT_DIRS or the system font folders): install fonts-noto-core "
            "(apt-get install fonts-noto-core); without them the cards are drawn with other faces")


def normalised(name: str) -> str:
    """A file's name with an explainer asset's content hash replaced by HASH."""
    return _EXPLAINER_ASSET.sub(r"assets/\1HASH\2", name)


def names_only(name: str) -> bool:
    """True for the explainer's own files, compared by (normalised) name only."""
    return bool(_NAMES_ONLY.match(name))


def compared(folder: Path) -> dict[str, bytes]:
    """relative path -> bytes of every file compared byte for byte (explainer
    asset hashes normalised in the explainer page)."""
    files = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_file() and not names_only(name):
            data = path.read_bytes()
            if name == "speculative-decoding/index.html":
                data = normalised(data.decode("utf-8")).encode("utf-8")
            files[name] = data
    return files


def listed_names(folder: Path) -> list[str]:
    """The normalised names of the explainer's own files under ``folder``."""
    return sorted(normalised(p.relative_to(folder).as_posix()) for p in folder.rglob("*")
                  if p.is_file() and names_only(p.relative_to(folder).as_posix()))


def record(built: Path) -> None:
    """Make ``built`` the expected output: the compared files, and the names file."""
    if EXPECTED.exists():
        shutil.rmtree(EXPECTED)
    for name, data in compared(built).items():
        target = EXPECTED / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    NAMES_ONLY.write_text("".join(f"{name}\n" for name in listed_names(built)), encoding="utf-8")


def image_difference(expected: Path, actual: Path) -> str:
    """What changed between two PNG files, in words, and a picture of it: the
    actual image with its changed pixels in red, written beside it as
    ``<name>-changed.png``."""
    from PIL import Image, ImageChops

    with Image.open(expected) as old_file, Image.open(actual) as new_file:
        old, new = old_file.convert("RGBA"), new_file.convert("RGBA")
    if old.size != new.size:
        return f"size {old.size[0]}x{old.size[1]} -> {new.size[0]}x{new.size[1]}"
    mask = ImageChops.difference(old, new).convert("L").point(lambda value: 255 if value else 0)
    changed = mask.histogram()[255]
    picture = actual.with_name(f"{actual.stem}-changed.png")
    marked = new.copy()
    marked.paste((255, 0, 0, 255), mask=mask)
    marked.save(picture)
    total = old.size[0] * old.size[1]
    return (f"{changed:,} of {total:,} pixels differ ({changed / total:.2%}), within {mask.getbbox()}; "
            f"changed pixels in red: {picture}")
