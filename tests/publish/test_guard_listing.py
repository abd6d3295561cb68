"""``check_output`` refuses a non-empty folder without the marker, and does not list
a built site to find out that it is not empty (an edit ran it twice over 10,000 to
25,000 entries)."""

from __future__ import annotations

import pathlib

import pytest

from site_builder.publish import PublishError, check_output
from site_builder.publish.guard import MARKER


def test_a_built_site_is_not_listed(tmp_path, monkeypatch):
    output = tmp_path / "out"
    output.mkdir()
    (output / MARKER).write_text("built")
    for index in range(50):
        (output / f"page-{index}").mkdir()
    listed = []
    real = pathlib.Path.iterdir
    monkeypatch.setattr(pathlib.Path, "iterdir", lambda self: listed.append(self) or real(self))
    check_output(output)
    assert output not in listed


def test_a_folder_without_the_marker_is_refused_and_an_empty_one_is_not(tmp_path):
    output = tmp_path / "out"
    output.mkdir()
    check_output(output)  # empty: a first build may use it
    (output / "notes.txt").write_text("mine")
    with pytest.raises(PublishError, match="not built by site_builder"):
        check_output(output)
