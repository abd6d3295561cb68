"""Regression (found in review): the spare tree's record vs files added to output/ by hand."""

from __future__ import annotations

from pathlib import Path

from site_builder.build import BuildOptions, build_site

from helpers import clean_build_manifest, manifest, term, write_tree


def _content(root: Path) -> Path:
    return write_tree(root, {
        "site.toml": 'title = "Review"\n',
        "terms/alpha.md": term("Alpha", "First.", "Alpha links to [[Beta]].\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
    })


def _build(content: Path, output: Path) -> None:
    build_site(BuildOptions(content=content, output=output, jobs=1))


def test_stray_file_in_output_comes_back_two_builds_later(tmp_path):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)  # a spare with its record
    (output / "stray.txt").write_text("left here by hand")
    _build(content, output)
    assert manifest(output) == clean_build_manifest(content, tmp_path)  # the stray file is gone
    _build(content, output)
    assert manifest(output) == clean_build_manifest(content, tmp_path)  # and stays gone (it came back before the fix)
