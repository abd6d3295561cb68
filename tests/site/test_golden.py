"""The whole output of a small fixture site, compared byte for byte (the
explainer page as a normalised subset: see tests/golden.py).

When a change to the output is intended, refresh with
``python tests/refresh_golden.py`` and review the diff.
"""

import difflib
from pathlib import Path

import pytest

import golden


def test_output_matches_golden(tmp_path: Path, cli):
    missing = golden.missing_fonts()
    if missing:
        pytest.fail(golden.fonts_reason(missing), pytrace=False)
    out = tmp_path / "out"
    status, _, err = cli("build", "--content", golden.CONTENT, "--output", out, "--quiet", "--no-cache")
    assert status == 0, err
    expected, actual = golden.compared(golden.EXPECTED), golden.compared(out)
    assert sorted(actual) == sorted(expected), "file list differs: run python tests/refresh_golden.py if intended"
    listed = golden.NAMES_ONLY.read_text(encoding="utf-8").splitlines()
    assert golden.listed_names(out) == listed, "the explainer's files differ: run python tests/refresh_golden.py if intended"
    differ = []
    for name in expected:
        if expected[name] == actual[name]:
            continue
        if name.endswith(".png"):
            differ.append(f"{name}: {golden.image_difference(golden.EXPECTED / name, out / name)}")
            continue
        old = expected[name].decode(errors="replace").splitlines()
        new = actual[name].decode(errors="replace").splitlines()
        diff = "\n".join(list(difflib.unified_diff(old, new, "expected", "actual", lineterm=""))[:60])
        differ.append(f"{name}:\n{diff}")
    assert not differ, ("differs from the golden output (python tests/refresh_golden.py refreshes):\n"
                        + "\n".join(differ))


def test_a_changed_card_is_shown_as_an_image_difference(tmp_path: Path):
    from PIL import Image

    card = golden.EXPECTED / "cache" / "preview.png"
    changed = tmp_path / "preview.png"
    with Image.open(card) as image:
        image = image.convert("RGBA")
        for x in range(10, 14):
            image.putpixel((x, 20), (1, 2, 3, 255))
        image.save(changed)
    summary = golden.image_difference(card, changed)
    assert summary.startswith("4 of ") and "(10, 20, 14, 21)" in summary, summary
    with Image.open(tmp_path / "preview-changed.png") as picture:
        assert picture.getpixel((11, 20)) == (255, 0, 0, 255)
        assert picture.getpixel((11, 40)) == image.getpixel((11, 40))


def test_without_the_fonts_the_golden_test_and_the_refresh_say_why(tmp_path: Path, monkeypatch):
    import subprocess
    import sys

    from helpers import REPO

    empty = tmp_path / "no-fonts"
    empty.mkdir()
    monkeypatch.setenv("SITE_BUILDER_FONT_DIRS", str(empty))
    assert golden.missing_fonts() == list(golden.FONTS)
    assert "fonts-noto-core" in golden.fonts_reason(golden.missing_fonts())
    before = golden.compared(golden.EXPECTED)
    result = subprocess.run([sys.executable, str(REPO / "tests" / "refresh_golden.py")], capture_output=True, text=True)
    assert result.returncode == 1 and "NotoSans-Regular.ttf" in result.stderr and "refusing" in result.stderr, result
    assert golden.compared(golden.EXPECTED) == before
