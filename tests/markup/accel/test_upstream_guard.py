"""The fast markdown processors install only over the exact upstream sources they mirror."""

from __future__ import annotations

import tomllib

import markdown
import pytest

from helpers import REPO, term, under_ci, write_tree
from site_builder.cli import main

from site_builder.markup.accel import fast_blocks, fast_inline, fast_tree, upstream
from site_builder.markup.render import BodyRenderer
from site_builder.names import NameIndex


def test_the_fast_processors_are_on_exactly_over_the_checked_markdown():
    enabled = {fast_inline.ENABLED, fast_tree.ENABLED, fast_blocks.ENABLED}
    if markdown.__version__ == "3.11.3":
        # The release they were checked against: its files must be the checked
        # ones (else: a patched copy) and the fast processors must be on.
        assert upstream.current_digests() == upstream.SOURCE_DIGESTS
        assert enabled == {True}
    else:
        # Another release (an upgrade: check the fast_* modules against it, then
        # update upstream.SOURCE_DIGESTS): the stock processors must run. Not in
        # CI, which installs the checked release: there this must fail loudly.
        assert not under_ci(), upstream.mismatch_warning()
        assert enabled == {False}


def test_the_fast_extra_pins_the_checked_release():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    extras = project["project"]["optional-dependencies"]
    assert extras["fast"] == [f"markdown=={upstream.CHECKED_RELEASE}"]
    assert "site_builder[fast]" in extras["test"]
    assert not any(d.startswith("markdown=") for d in project["project"]["dependencies"])  # never pinned in the core


def test_a_mismatch_is_a_warning_in_the_build_log(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(upstream, "matches", lambda: False)
    content = write_tree(tmp_path / "content", {"terms/a.md": term("A", "An a.")})
    assert main(["build", "--content", str(content), "--output", str(tmp_path / "out"), "--quiet", "--strict"]) == 0
    warning = capsys.readouterr().err
    assert f"is not the release the fast markdown processors were checked against ({upstream.CHECKED_RELEASE})" in warning
    monkeypatch.setattr(upstream, "matches", lambda: True)
    assert upstream.mismatch_warning() is None


@pytest.mark.parametrize("module", [fast_inline, fast_tree, fast_blocks])
def test_each_fast_module_is_on_exactly_when_upstream_matches(module):
    assert module.ENABLED is upstream.matches()


def test_a_changed_upstream_file_means_no_match(monkeypatch):
    before = upstream.matches()
    changed = dict(upstream.SOURCE_DIGESTS, **{"treeprocessors.py": "0" * 16})
    monkeypatch.setattr(upstream, "SOURCE_DIGESTS", changed)
    upstream.matches.cache_clear()
    try:
        assert upstream.matches() is False
    finally:
        monkeypatch.undo()
        upstream.matches.cache_clear()
    assert upstream.matches() is before


def test_an_unreadable_upstream_file_means_stock_processors(monkeypatch, tmp_path):
    # A Markdown installed without one of its sources (say only .pyc files).
    monkeypatch.setattr(markdown, "__file__", str(tmp_path / "__init__.py"))
    upstream.matches.cache_clear()
    try:
        assert set(upstream.current_digests().values()) == {None}
        assert upstream.matches() is False
    finally:
        monkeypatch.undo()
        upstream.matches.cache_clear()


def test_with_the_guard_off_the_renderer_is_the_stock_one(monkeypatch):
    for module in (fast_inline, fast_tree, fast_blocks):
        monkeypatch.setattr(module, "ENABLED", False)
    md = BodyRenderer(NameIndex([])).md
    stock = BodyRenderer(NameIndex([]), fast=False).md
    assert type(md.parser) is type(stock.parser)
    for registry in ("preprocessors", "treeprocessors", "postprocessors"):
        assert [type(p) for p in getattr(md, registry)] == [type(p) for p in getattr(stock, registry)]
    assert md.serializer is stock.serializer

