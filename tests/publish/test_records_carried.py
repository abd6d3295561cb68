"""The tree record after a build that staged into a checked spare: only the
folders the build changed are looked at again (``records._carried``), every
other folder keeps what the claim's check found. Right (it is the tree's own
snapshot), cheap (it looks at the changed folders only) and safe (a folder
changed behind the build's back fails the next check)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from site_builder.build import BuildOptions, build_site
from site_builder.publish import records, staging

from helpers import manifest, term, write_tree

SLUGS = ("alpha", "beta", "gamma", "delta", "epsilon")


def _content(root: Path) -> Path:
    return write_tree(root, {
        "site.toml": 'title = "Records"\npreviews = false\n',
        **{f"terms/{slug}.md": term(slug.title(), f"The {slug}.", f"{slug.title()} prose.\n") for slug in SLUGS},
    })


def _build(content: Path, output: Path, **options) -> None:
    build_site(BuildOptions(content=content, output=output, jobs=1, **options))


def _edit(content: Path, slug: str, number: int) -> None:
    path = content / "terms" / f"{slug}.md"
    path.write_text(path.read_text() + f"\nEdit number {number}.\n")


def _surveys(monkeypatch) -> list:
    """The ``only`` argument of each survey the records make (None: the whole tree)."""
    seen = []
    real = records._survey

    def survey(root, paths, now, before=None, only=None):
        seen.append((root, None if only is None else set(only)))
        return real(root, paths, now, before, only)
    monkeypatch.setattr(records, "_survey", survey)
    return seen


def test_after_an_edit_the_live_record_holds_and_only_the_changed_folders_were_looked_at(tmp_path, monkeypatch):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)  # a spare with its records: edits now stage into it
    for number in range(1, 4):
        seen = _surveys(monkeypatch)
        _edit(content, "beta", number)
        _build(content, output)
        monkeypatch.undo()
        live, spare = records._read_trees(output)
        assert live.holds(output, True), "the record describes the live site as it is"
        assert live.paths == set(manifest(output))
        assert spare.holds(output.parent / ".out.spare", False)
        surveys_of_live = [only for root, only in seen if root == str(output)]
        assert surveys_of_live and all(only is not None for only in surveys_of_live), \
            "the live site is not surveyed whole after an edit"
        looked_at = set().union(*surveys_of_live)
        assert "beta" in looked_at  # the edited page's folder
        assert not looked_at & {"alpha", "gamma", "delta", "epsilon"}, looked_at


def test_a_folder_changed_while_the_build_ran_is_cleared_by_the_next_build(tmp_path, monkeypatch):
    """A file planted in a folder the build does not touch, between its claim and
    its swap, goes live with the tree (no build can see it in time); the record
    keeps the folder's ctime from before, so the next build finds the tree changed
    and clears it out of the spare, instead of trusting it and staging into it."""
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)
    real = staging._exchange

    def exchange(new, current):
        (Path(new) / "gamma" / "planted.txt").write_text("planted during the build")
        real(new, current)
    monkeypatch.setattr(staging, "_exchange", exchange)
    _edit(content, "beta", 1)
    _build(content, output)
    monkeypatch.undo()
    assert (output / "gamma" / "planted.txt").exists()  # the race: live until the next build
    spare = output.parent / ".out.spare"
    for number in range(2, 5):
        _edit(content, "beta", number)
        _build(content, output)
        clean = tmp_path / f"clean-{number}" / "out"
        _build(content, clean, cache=False)
        assert manifest(output) == manifest(clean)
        assert not any(path.name == "planted.txt" for path in spare.rglob("*")), f"edit {number}: the spare kept it"
        shutil.rmtree(clean.parent)
