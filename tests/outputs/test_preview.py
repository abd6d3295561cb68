"""The preview cards (site_builder/outputs/preview.py, fonts.py, palette_png.py):
every script is drawn in a font that has it (not empty, not .notdef boxes),
wrapping uses the fonts' real widths, the bytes are deterministic, a missing
font is warned about once, and previews are made only where they can be used.

They need Pillow, fontTools and Debian's Noto fonts (fonts-noto-core,
fonts-noto-cjk, fonts-noto-color-emoji): skipped here without them, failed
under CI (``helpers.under_ci``), which installs them (.ci/run).
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from helpers import REPO, term, under_ci, write_tree

NEEDED_FONTS = ("NotoSans-Regular.ttf", "NotoSans-Bold.ttf", "NotoSansArabic-Bold.ttf", "NotoSansHebrew-Bold.ttf",
                "NotoSansCJK-Bold.ttc", "NotoColorEmoji.ttf")
BASE = "https://example.org/glossary/"
WIDTH, HEIGHT, RIGHT = 1200, 630, 1104
TITLE_ROWS = slice(130, 310)
SCRIPTS = {
    "Latin": "Speculative decoding",
    "Greek": "Αποκωδικοποίηση",
    "Cyrillic": "Декодирование",
    "CJK": "推测解码",
    "Arabic": "فك التشفير",
    "Hebrew": "פענוח ספקולטיבי",
    "emoji": "🚀👩‍💻",
}
MISSING_CHARACTER = "\U0010fffd"
"""A private-use character no font maps: drawn as the .notdef box."""


def _missing_requirements() -> list[str]:
    try:
        import fontTools  # noqa: F401
        import PIL  # noqa: F401
    except ImportError as exc:
        return [f"Python package {exc.name}"]
    from site_builder.outputs.fonts import find_files, font_folders

    found = find_files(font_folders())
    return [name for name in NEEDED_FONTS if name not in found]


@pytest.fixture(scope="module")
def painter():
    missing = _missing_requirements()
    if missing:
        message = f"preview dependencies missing: {', '.join(missing)} (pip install Pillow fonttools; " \
                  "apt-get install fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji)"
        if under_ci():
            pytest.fail(message)
        pytest.skip(message)
    from site_builder.outputs import preview

    return preview.painter("en")


def pixels(png: bytes):
    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def ink(region) -> int:
    """How many pixels of ``region`` are not the background."""
    return int(((region - [0xfd, 0xfd, 0xfc]) != 0).any(axis=-1).sum())


def title_region(painter, title: str):
    return pixels(painter.card(title, "", "", ""))[TITLE_ROWS, 90:]


def test_the_preview_dependencies_are_installed(painter):
    assert not _missing_requirements()  # (the fixture fails under CI, skips elsewhere)


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_script_is_drawn_and_not_as_boxes(painter, script):
    title = SCRIPTS[script]
    drawn = title_region(painter, title)
    assert ink(drawn) > 500, f"{script}: nothing drawn"
    assert not painter.fonts.missing.keys() & set(title), f"{script}: a character no font has"
    boxes = title_region(painter, MISSING_CHARACTER * len(title))
    assert (drawn != boxes).any()
    box = title_region(painter, MISSING_CHARACTER)
    for char in dict.fromkeys(c for c in title if not c.isspace() and c != "\u200d"):
        assert (title_region(painter, char) != box).any(), f"{script}: {char!r} is drawn as the .notdef box"


def test_two_cjk_titles_give_different_images(painter):
    first, second = title_region(painter, "推测解码"), title_region(painter, "语言模型")
    assert ink(first) > 500 and ink(second) > 500
    assert (first != second).any()


def test_emoji_keep_their_colours(painter):
    drawn = title_region(painter, "🚀")
    colours = {tuple(p) for p in drawn.reshape(-1, 3)}
    assert len(colours) > 20  # not one flat silhouette


def test_right_to_left_titles_end_at_the_right_margin(painter):
    drawn = pixels(painter.card(SCRIPTS["Hebrew"], "", "", ""))[TITLE_ROWS, 40:]
    columns = ((drawn - [0xfd, 0xfd, 0xfc]) != 0).any(axis=(0, 2)).nonzero()[0] + 40
    assert columns.max() > RIGHT - 20 and columns.min() > 300  # right-aligned, not from the left


@pytest.mark.parametrize("text, rtl, shown", [
    ("Speculative decoding at 2 steps", False, "Speculative decoding at 2 steps"),
    # A number after Hebrew joins the right-to-left run (UAX #9's W7 applies after Latin only).
    ("abc שלום 12 def", False, "abc 12 שלום def"),
    ("שלום עולם abc def", True, "abc def עולם שלום"),
    ("פענוח 2 שלבים", True, "שלבים 2 פענוח"),
    ("فك ٣ مرات", True, "مرات ٣ فك"),
    ("abc def", True, "abc def"),  # a wrapped right-to-left title's Latin line keeps its order
    ("abc (שלום) עולם def", False, "abc עולם (שלום) def"),
])
def test_mixed_lines_put_words_in_the_order_browsers_show(text, rtl, shown):
    from site_builder.outputs.text_layout import units, visual_order

    line = units(text)
    assert " ".join(line[i][1] for i in visual_order(line, rtl)) == shown


def test_wrapping_uses_the_real_widths(painter):
    narrow = painter.wrap("ill " * 60, 36, False, 1)[0]
    wide = painter.wrap("WWW " * 60, 36, False, 1)[0]
    assert len(narrow) > 2 * len(wide)
    assert painter.line_width(narrow, 36, False) <= RIGHT - 96


def test_a_long_title_wraps_into_two_lines_ellipsised_within_the_margin(painter):
    title = "Extraordinarily long speculative decoding title words " * 4
    lines = painter.wrap(title, 64, True, 2)
    assert len(lines) == 2 and lines[-1][-1][1] == "…"
    for title in (title, "W" * 80, "推测解码" * 20, "فك التشفير " * 20):
        drawn = pixels(painter.card(title, "Summary words " * 40, "Site", BASE))
        beyond = drawn[100:HEIGHT - 90, RIGHT + 1:]
        assert ink(beyond) == 0, f"ink beyond x={RIGHT}: {title[:20]!r}"
        assert ink(drawn[TITLE_ROWS, 96:RIGHT]) > 1000


def test_the_same_card_gives_the_same_bytes_here_and_in_a_fresh_process(painter):
    texts = ("Déterminisme 推测 🚀", "A summary, שלום, мир.", "Site", "example.org/")
    first, second = painter.card(*texts), painter.card(*texts)
    assert first == second
    code = ("import hashlib, sys; from site_builder.outputs import preview; "
            f"print(hashlib.sha256(preview.painter('en').card(*{texts!r})).hexdigest())")
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert fresh.stdout.strip() == hashlib.sha256(first).hexdigest()


def test_the_key_names_the_fonts_and_pillow(painter):
    from site_builder.outputs import preview

    assert "Pillow " in preview.renderer_version()
    key = painter.key("推测", "x", "Site", "")
    assert key != painter.key("Latin", "x", "Site", "")  # other text, other faces
    assert key == painter.key("推测", "x", "Site", "")


def test_the_png_is_valid_and_its_checksums_combine(painter):
    from site_builder.outputs.palette_png import adler32_combine

    a, b = os.urandom(5000), os.urandom(70000)
    assert adler32_combine(zlib.adler32(a), zlib.adler32(b), len(b)) == zlib.adler32(a + b)
    png = painter.card("Checksums", "Every chunk's CRC and the stream's Adler-32.", "Site", BASE)
    position, idat = 8, b""
    while position < len(png):
        length, kind = struct.unpack(">I4s", png[position:position + 8])
        data = png[position + 8:position + 8 + length]
        assert struct.unpack(">I", png[position + 8 + length:position + 12 + length])[0] == zlib.crc32(kind + data)
        idat += data if kind == b"IDAT" else b""
        position += 12 + length
    raw = zlib.decompress(idat)  # checks the Adler-32
    assert len(raw) == HEIGHT * (WIDTH + 1)


def test_workers_draw_the_same_bytes(painter, monkeypatch):
    from site_builder.outputs import preview

    monkeypatch.setattr(preview, "PARALLEL_PREVIEWS", 2)
    todo = {str(i): (f"Card {i} 推测", f"Summary {i}.", "Site", "") for i in range(6)}
    assert preview.render_all(painter, todo, jobs=2) == preview.render_all(painter, todo, jobs=1)


# builds: the missing-font warning, and when previews are made


def build(tmp_path: Path, site_toml: str, terms: dict[str, str] | None = None):
    from site_builder.build import BuildOptions, build_site

    content = write_tree(tmp_path / "content", {"site.toml": site_toml, **(terms or {
        "terms/a.md": term("Alpha", "The first."), "terms/b.md": term("Beta", "The second.")})})
    output = tmp_path / "out"
    return build_site(BuildOptions(content=content, output=output, jobs=1, cache=False)), output


def test_a_missing_font_is_drawn_as_boxes_and_warned_about_once(painter, tmp_path, monkeypatch):
    from site_builder.outputs import fonts

    only_dejavu = tmp_path / "fonts"
    only_dejavu.mkdir()
    for face in fonts.font_set("en").regular + fonts.font_set("en").bold:
        if Path(face.path).name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):
            (only_dejavu / Path(face.path).name).symlink_to(face.path)
    monkeypatch.setenv(fonts.FONT_DIRS_ENV, str(only_dejavu))
    report, output = build(tmp_path, f'base_url = "{BASE}"\n', {
        "terms/a.md": term("推测解码", "草稿模型"), "terms/b.md": term("语言模型", "目标模型"),
        "terms/c.md": term("Plain", "Latin only.")})
    warnings = [str(p) for p in report.warnings if "no installed font" in p.message]
    assert len(warnings) == 1, report.warnings
    assert "U+63A8" in warnings[0] and "fonts-noto-cjk" in warnings[0]
    assert ink(pixels((output / "a/preview.png").read_bytes())[TITLE_ROWS]) > 500  # boxes: visible


def test_a_missing_font_fails_a_strict_build_and_writes_nothing(painter, tmp_path):
    # No font maps a plane-16 private-use character; under --strict the warning
    # fails the build like any other, cold or with the cards already cached.
    from site_builder.build import BuildOptions, build_site
    from site_builder.errors import BuildFailed

    content = write_tree(tmp_path / "content", {"site.toml": f'base_url = "{BASE}"\n',
                                                "terms/a.md": term(f"Alpha {MISSING_CHARACTER}", "The first."),
                                                "terms/b.md": term("Beta", "The second.")})
    output = tmp_path / "out"
    report = build_site(BuildOptions(content=content, output=output, jobs=1))
    assert [p for p in report.warnings if "no installed font" in p.message]
    before = {path: path.read_bytes() for path in output.rglob("*") if path.is_file()}
    (tmp_path / "content" / "terms" / "b.md").write_text(term("Beta", "The second, edited."))
    for cache in (True, False):
        with pytest.raises(BuildFailed) as failed:
            build_site(BuildOptions(content=content, output=output, jobs=1, strict=True, cache=cache))
        assert any("no installed font" in p.message and "U+10FFFD" in p.message for p in failed.value.problems)
        assert {path: path.read_bytes() for path in output.rglob("*") if path.is_file()} == before
    # check draws no card, but finds the same characters: a warning, an error under --strict
    checked = build_site(BuildOptions(content=content, output=output, write=False))
    assert [p for p in checked.warnings if "no installed font" in p.message and "U+10FFFD" in p.message]
    with pytest.raises(BuildFailed) as failed:
        build_site(BuildOptions(content=content, output=output, write=False, strict=True))
    assert any("no installed font" in p.message for p in failed.value.problems)


def test_previews_are_made_only_where_they_can_be_used(painter, tmp_path):
    cases = {"no base_url": ("", False), "base_url": (f'base_url = "{BASE}"\n', True),
             "previews = true": ("previews = true\n", True),
             "previews = false": (f'base_url = "{BASE}"\npreviews = false\n', False),
             "a relative base_url": ('base_url = "/glossary/"\n', False)}
    for name, (toml, made) in cases.items():
        report, output = build(tmp_path / name.replace(" ", "-"), toml)
        assert (output / "a/preview.png").exists() is made, name
        assert (output / "preview.png").exists() is made, name
        assert ('property="og:image"' in (output / "a/index.html").read_text()) is made, name


def test_previews_must_be_true_false_or_auto(tmp_path):
    from site_builder.load.config import SiteConfig, load_config

    assert SiteConfig().previews == "auto" and not SiteConfig().makes_previews
    assert SiteConfig(base_url=BASE).makes_previews and SiteConfig(previews=True).makes_previews
    assert not SiteConfig(base_url=BASE, previews=False).makes_previews
    for value, ok in (('"auto"', True), ("true", True), ('"yes"', False), ("1", False)):
        (tmp_path / "site.toml").write_text(f"previews = {value}\n")
        config, problems = load_config(tmp_path)
        assert (not problems) is ok, (value, problems)
        if not ok:
            assert "'previews' must be true, false or \"auto\"" in problems[0].message
