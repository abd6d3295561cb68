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
from site_builder.publish import records, snapshot, staging

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

    def survey(root, paths, now, before=None, only=None, **given):
        seen.append((root, None if only is None else set(only)))
        return real(root, paths, now, before, only, **given)
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
    content, output = _planted_during_an_edit(tmp_path, monkeypatch, Path("gamma") / "planted.txt")
    assert (output / "gamma" / "planted.txt").exists()  # the race: live until the next build
    spare = output.parent / ".out.spare"
    for number in _edits_match_a_clean_build(tmp_path, content, output, range(2, 5)):
        assert not any(path.name == "planted.txt" for path in spare.rglob("*")), f"edit {number}: the spare kept it"


def test_an_edit_lists_the_new_site_root_no_more(tmp_path, monkeypatch):
    """The live tree's root entries are carried from the claim's checked listing
    (``records._top_after``: the entries holding a changed file looked up again),
    not listed again: an edit lists two roots (the spare's at its claim, the old
    site's once swapped out), and the record it leaves holds."""
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)
    for number in range(1, 4):
        listed = []
        real = snapshot._entries

        def entries(root_fd, folder):
            if not folder:
                listed.append(os.readlink(f"/proc/self/fd/{root_fd}"))
            return real(root_fd, folder)
        monkeypatch.setattr(snapshot, "_entries", entries)
        _edit(content, "beta", number)
        _build(content, output)
        monkeypatch.undo()
        assert str(output) not in listed, "the new live site's root was listed again"
        assert len(listed) == 2, listed
        live, spare = records._read_trees(output)
        assert live.holds(output, True) and spare.holds(output.parent / ".out.spare", False)


def test_an_entry_planted_at_the_root_while_the_build_ran_is_cleared_by_the_next_build(tmp_path, monkeypatch):
    """As a folder changed between the claim and the swap (above), a file planted at
    the root then is not in the root entries the record carries: the next build
    finds the tree changed and clears it out of both trees."""
    content, output = _planted_during_an_edit(tmp_path, monkeypatch, Path("planted-at-root.txt"))
    live, _spare = records._read_trees(output)
    assert live is None or not live.holds(output, True), "the record does not describe the plant as the site's"
    spare = output.parent / ".out.spare"
    for number in _edits_match_a_clean_build(tmp_path, content, output, range(2, 4)):
        assert not (spare / "planted-at-root.txt").exists(), f"edit {number}: the spare kept it"


def _planted_during_an_edit(tmp_path: Path, monkeypatch, relative: Path) -> tuple[Path, Path]:
    """(content, output) of a site built twice, then edited, with a file planted
    at ``relative`` in the new tree between the edit's claim and its swap."""
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)
    real = staging._exchange

    def exchange(new, current):
        (Path(new) / relative).write_text("planted during the build")
        real(new, current)
    monkeypatch.setattr(staging, "_exchange", exchange)
    _edit(content, "beta", 1)
    _build(content, output)
    monkeypatch.undo()
    return content, output


def _edits_match_a_clean_build(tmp_path: Path, content: Path, output: Path, numbers: range):
    """Edit and rebuild once per number; each time the site equals a clean build of
    the same content, then the number is yielded for the caller's own check."""
    for number in numbers:
        _edit(content, "beta", number)
        _build(content, output)
        clean = tmp_path / f"clean-{number}" / "out"
        _build(content, clean, cache=False)
        assert manifest(output) == manifest(clean)
        yield number
        shutil.rmtree(clean.parent)


def test_the_tree_record_packs_its_names(tmp_path, monkeypatch):
    """The tree record keeps each side's paths as one string and its ctimes and root
    entries as (names, typecode, 64-bit numbers) (``records._pack``): ~200,000
    objects fewer to make and walk at 10,000 realistic terms. The spare's paths,
    the same as the live site's after an edit, are not stored twice (None), and
    both sides read back as the trees they describe."""
    import marshal

    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)
    beta = content / "terms" / "beta.md"
    beta.write_text(beta.read_text() + "\nBeta prose.\n")  # no new word: no new search shard
    _build(content, output)
    data = marshal.loads((output.parent / ".out.tree-record").read_bytes())
    assert isinstance(data["output"]["paths"], str) and "\0" in data["output"]["paths"]
    assert data["spare"]["paths"] is None  # the live site's
    names, code, numbers = data["output"]["ctimes"]
    assert isinstance(names, str) and code == "q" and len(numbers) == 8 * len(names.split("\0"))
    assert data["output"]["listed"][""][1] == "Q"
    monkeypatch.setattr(records, "_last_trees", None)  # read from the file, not this process's memo of what it wrote
    live, spare = records._read_trees(output)
    assert live.paths == set(manifest(output)) and spare.paths is live.paths
    assert live.holds(output, True) and spare.holds(output.parent / ".out.spare", False)
