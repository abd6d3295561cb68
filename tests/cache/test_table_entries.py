"""``BuildCache.save_entries``: a few changed entries of a large table are written
beside it (``<table>.recent.table``), naming the whole save they go with, and read
back with it; the fast path of a body edit saves its tables that way."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from site_builder.build import BuildOptions, build_site
from site_builder.cache import store

from helpers import manifest, term, write_tree

BIG = {f"key-{i:04d}": (i, f"value {i}") for i in range(1000)}


def _fresh(folder: Path) -> store.BuildCache:
    """The cache as the next process opens it."""
    return store.BuildCache(folder)


def test_a_few_entries_are_written_beside_the_table_and_read_back_with_it(tmp_path):
    folder = tmp_path / "cache"
    cache = _fresh(folder)
    cache.save_table("big", dict(BIG))
    whole = (folder / "big.table").read_bytes()
    cache = _fresh(folder)
    cache.save_entries("big", {"key-0001": (1, "changed"), "new": (0, "added")}, ["key-0002"])
    cache = _fresh(folder)
    cache.save_entries("big", {"key-0003": (3, "changed too")}, ["new"])
    assert (folder / "big.table").read_bytes() == whole, "the whole table was written again"
    expected = {**BIG, "key-0001": (1, "changed"), "key-0003": (3, "changed too")}
    del expected["key-0002"]
    assert cache.table("big") == expected
    assert _fresh(folder).table("big") == expected


def test_recent_entries_of_another_save_are_not_read(tmp_path):
    folder = tmp_path / "cache"
    cache = _fresh(folder)
    cache.save_table("big", dict(BIG))
    _fresh(folder).save_entries("big", {"key-0001": (1, "stale")})
    stale = (folder / f"big{store.RECENT}.table").read_bytes()
    _fresh(folder).save_table("big", {**BIG, "key-0001": (1, "whole")})  # e.g. a full build after
    (folder / f"big{store.RECENT}.table").write_bytes(stale)  # as if left by a build killed in between
    assert _fresh(folder).table("big")["key-0001"] == (1, "whole")


def test_past_one_percent_the_whole_table_is_saved(tmp_path):
    folder = tmp_path / "cache"
    cache = _fresh(folder)
    cache.save_table("big", dict(BIG))
    whole = (folder / "big.table").read_bytes()
    changed = {f"key-{i:04d}": (i, "changed") for i in range(store.RECENT_SHARE[0] + 1)}
    _fresh(folder).save_entries("big", changed)
    assert (folder / "big.table").read_bytes() != whole
    assert _fresh(folder).table("big") == {**BIG, **changed}


def test_without_a_whole_save_to_name_the_table_is_saved_whole(tmp_path):
    folder = tmp_path / "cache"
    _fresh(folder).save_entries("new", {"a": 1})
    assert (folder / "new.table").is_file() and not (folder / f"new{store.RECENT}.table").exists()
    assert _fresh(folder).table("new") == {"a": 1}


def test_an_edit_writes_only_the_changed_entries_and_equals_a_clean_build(tmp_path):
    files = {f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i} links [[Term {(i + 1) % 8}]].\n")
             for i in range(8)}
    files["site.toml"] = 'title = "Entries"\npreviews = false\n'
    content = write_tree(tmp_path / "content", files)
    output = tmp_path / "site" / "out"
    for _ in range(2):  # the second: a spare with its record
        build_site(BuildOptions(content=content, output=output, jobs=1))
    folder = output.parent / ".site_builder_cache"
    before = {name: os.stat(folder / f"{name}.table").st_ino for name in ("pages", "markdown")}
    for number in range(3):
        path = content / "terms" / "t03.md"
        path.write_text(path.read_text() + f"\nEdit {number}.\n")
        log: list[str] = []
        build_site(BuildOptions(content=content, output=output, jobs=1), log.append)
        assert any("fast path" in line for line in log), log
    assert {name: os.stat(folder / f"{name}.table").st_ino for name in before} == before, "a whole table written again"
    clean = tmp_path / "clean" / "out"
    shutil.rmtree(clean.parent, ignore_errors=True)
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert manifest(output) == manifest(clean)
    # and a full build after (templates, config...) starts from the tables as the edits left them
    path = content / "terms" / "t05.md"
    path.write_text(path.read_text().replace("Summary 5.", "Summary five."))
    build_site(BuildOptions(content=content, output=output, jobs=1))
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert manifest(output) == manifest(clean)
