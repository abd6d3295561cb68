"""The cached load's look at the term files made by a child forked before the
imports (``cache.early``): taken only for the very table the build reads, and
what it says is what the build's own look would have found."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from site_builder import CACHE_FOLDER
from site_builder.cache import early, store, terms

from helpers import clean_build_manifest, logged_build, manifest, term, write_tree


def _content(root: Path, count: int = 8) -> Path:
    files = {f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i}, see [[Term {(i + 1) % count}]].\n")
             for i in range(count)}
    files["terms/sub/inner.md"] = term("Inner", "In a folder.", "Inner body.\n")
    files["site.toml"] = 'title = "Early"\npreviews = false\n'
    return write_tree(root, files)


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A built site (twice: the second lays the spare down), the look always forked."""
    monkeypatch.setattr(early, "idle_core", lambda jobs=None: True)  # whatever the machine's load
    monkeypatch.setattr(terms, "SETTLED_NS", 0)  # the files' stamps kept though just written
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    logged_build(content, output)
    logged_build(content, output)
    yield content, output
    early.stop()


def _edit(path: Path, line: str = "An edited line.") -> None:
    path.write_text(path.read_text() + f"\n{line}\n")


def _own_load_forbidden(monkeypatch) -> list:
    calls = []
    real = terms._load_changed

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)
    monkeypatch.setattr(terms, "_load_changed", counted)
    return calls


def test_an_edit_takes_the_look_and_builds_the_same_site(site, tmp_path, monkeypatch):
    content, output = site
    own = _own_load_forbidden(monkeypatch)
    _edit(content / "terms" / "t03.md")
    _edit(content / "terms" / "sub" / "inner.md")
    assert early.start(content, output.parent / CACHE_FOLDER)
    log = logged_build(content, output)
    assert own == [], "the build found and stamped the files itself"
    assert any("fast path: 2 body edit(s)" in line for line in log), log
    assert manifest(output) == clean_build_manifest(content, tmp_path)
    early.stop()
    own.clear()  # (the clean build loads by itself)
    # And the next edit (the table now has recent entries over it) too.
    _edit(content / "terms" / "t05.md", "Another line.")
    assert early.start(content, output.parent / CACHE_FOLDER)
    assert any("fast path: 1 body edit(s)" in line for line in logged_build(content, output))
    assert own == []
    assert manifest(output) == clean_build_manifest(content, tmp_path)


def test_the_look_names_exactly_the_files_to_read_again(site):
    content, output = site
    _edit(content / "terms" / "t01.md")
    looked = early.look(content, store.BuildCache(output.parent / CACHE_FOLDER, any_code=True))
    assert looked is not None
    _signatures, _path_prefix, _shown_prefix, order, redo = looked
    assert order is None  # the table's own order
    assert [shown.rsplit("/", 1)[-1] for _place, _path, shown, _absolute, _root in redo] == ["t01.md"]


def test_a_look_made_on_another_table_is_not_taken(site, tmp_path, monkeypatch):
    content, output = site
    own = _own_load_forbidden(monkeypatch)
    _edit(content / "terms" / "t02.md")
    assert early.start(content, output.parent / CACHE_FOLDER)
    answer = early._running.answer()  # the child's answer, made on the table as it was
    early._running = None
    table = output.parent / CACHE_FOLDER / f"{terms.TABLE}.table"
    shutil.copyfile(table, f"{table}.copy")
    os.replace(f"{table}.copy", table)  # the same bytes, another file: as another build's save
    monkeypatch.setattr(early, "take", lambda content: answer)
    log = logged_build(content, output)
    assert own == [content], "the look was taken for another table file"
    assert any("fast path: 1 body edit(s)" in line for line in log)
    assert manifest(output) == clean_build_manifest(content, tmp_path)


@pytest.mark.parametrize("change", ["added", "removed", "symlinked", "not a file"])
def test_anything_unusual_is_left_to_the_build(site, tmp_path, change):
    content, output = site
    terms_dir = content / "terms"
    if change == "added":
        (terms_dir / "t99.md").write_text(term("Ninety-nine", "Late.", "Late body.\n"))
    elif change == "removed":
        (terms_dir / "t07.md").unlink()
    elif change == "symlinked":
        (terms_dir / "t07.md").unlink()
        (terms_dir / "t07.md").symlink_to(terms_dir / "t06.md")
    else:
        (terms_dir / "t07.md").unlink()
        (terms_dir / "t07.md").mkdir()
    assert early.look(content, store.BuildCache(output.parent / CACHE_FOLDER, any_code=True)) is None


def test_no_look_without_a_free_core_or_a_table(tmp_path, monkeypatch):
    monkeypatch.setattr(early, "idle_core", lambda jobs=None: False)
    content = _content(tmp_path / "content")
    assert not early.start(content, tmp_path / CACHE_FOLDER)
    monkeypatch.setattr(early, "idle_core", lambda jobs=None: True)
    assert early.look(content, store.BuildCache(tmp_path / CACHE_FOLDER, any_code=True)) is None  # no table
    assert early.start(content, tmp_path / CACHE_FOLDER)
    assert early.take(content) is None  # the child answered None
    assert early._running is None


def test_the_child_writes_nothing(site):
    content, output = site
    folder = output.parent / CACHE_FOLDER
    before = {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}
    cache = store.BuildCache(folder, any_code=True)
    cache.save_table(terms.TABLE, {})
    assert {path.name: path.stat().st_mtime_ns for path in folder.iterdir()} == before
