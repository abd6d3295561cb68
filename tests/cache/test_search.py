"""The search index, cached and updated in place (cache/search.py): a one-body
edit re-indexes that page alone, changes only the shards its words are in,
keeps the fast path, and gives the bytes of a clean build."""

from __future__ import annotations

import bisect
import json
import shutil
from pathlib import Path
from typing import Mapping

import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.cache import search as search_cache
from site_builder.outputs import search_text

from helpers import manifest, term, write_tree


def make_content(root: Path) -> Path:
    files = {f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary of term {i}.",
                                        f"Body {i} about tokens and drafts.\n\n## Part\n\nMore words.\n")
             for i in range(12)}
    files["site.toml"] = 'title = "Search cache test"\n'
    return write_tree(root, files)


def build(content: Path, output: Path, **options) -> list[str]:
    log: list[str] = []
    build_site(BuildOptions(content=content, output=output, jobs=1, **options), log.append)
    return log


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def search_files(output: Path) -> dict[str, bytes]:
    return {k: v for k, v in manifest(output).items() if k.startswith("search/")}


@pytest.fixture
def site(tmp_path: Path):
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    build(content, output)
    return content, output


def clean(content: Path, tmp_path: Path) -> Path:
    out = tmp_path / "clean" / "out"
    shutil.rmtree(out.parent, ignore_errors=True)
    build(content, out, cache=False)
    return out


@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("change", [
    ("Body 3 about", "Body 3 rather about"),     # a word in a shard that exists
    ("Body 3 about", "Body 3 quixotic about"),   # a new shard
    ("More words.", "More."),                    # a word gone from this page, kept by others
    ("tokens and drafts", "tokens and"),         # counts change
])
def test_a_body_edit_takes_the_fast_path_and_changes_only_its_shards(site, tmp_path, monkeypatch, change, in_place):
    content, output = site
    before = search_files(output)
    indexed: list[str] = []
    original = search_cache.page_record
    monkeypatch.setattr(search_cache, "page_record",
                        lambda config, stem, term, body: (indexed.append(term.slug), original(config, stem, term, body))[1])
    edit(content / "terms/t03.md", *change)
    log = build(content, output, in_place=in_place)
    assert any("fast path" in line for line in log), log
    assert indexed == ["t03"]  # that page re-indexed, not the site
    after = search_files(output)
    assert after == search_files(clean(content, tmp_path))
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    old_words = {w for w in search_text.words(change[0])}
    new_words = {w for w in search_text.words(change[1])}
    stems = {search_text.Stemmer("en")(w) for w in old_words ^ new_words} | {"drafts"[:2]}
    assert changed <= {"search/index.json"} | {f"search/t/{s[:2]}.json" for s in stems | old_words | new_words}
    assert changed and not any(k.startswith("search/d/") for k in changed)


def test_a_word_gone_from_the_whole_site_removes_its_shard_on_the_fast_path(tmp_path):
    content = make_content(tmp_path / "content")
    edit(content / "terms/t05.md", "More words.", "More zebras.")
    output = tmp_path / "site" / "out"
    build(content, output)
    build(content, output)
    assert (output / "search" / "t" / "ze.json").exists()
    edit(content / "terms/t05.md", "More zebras.", "More words.")
    log = build(content, output, in_place=True)
    assert any("fast path" in line for line in log), log
    assert not (output / "search" / "t" / "ze.json").exists()
    assert "ze" not in json.loads((output / "search" / "index.json").read_text())["keys"]
    assert search_files(output) == search_files(clean(content, tmp_path))


def test_a_summary_edit_is_a_full_build_that_reindexes_only_that_page(site, tmp_path, monkeypatch):
    # (A title edit renames a link target: every body's key changes, so every page is rendered and indexed again.)
    content, output = site
    indexed: list[str] = []
    original = search_cache.page_record
    monkeypatch.setattr(search_cache, "page_record",
                        lambda config, stem, term, body: (indexed.append(term.slug), original(config, stem, term, body))[1])
    edit(content / "terms/t07.md", "summary: Summary of term 7.", "summary: Another summary, of term 7.")
    log = build(content, output)
    assert any(line.strip().startswith("search") for line in log), log  # its own stage in the build log
    assert indexed == ["t07"]
    assert search_files(output) == search_files(clean(content, tmp_path))


def test_a_damaged_search_cache_is_a_cold_one(site, tmp_path):
    content, output = site
    (output.parent / ".site_builder_cache" / search_cache.BLOBS).write_bytes(b"not sqlite")
    edit(content / "terms/t02.md", "Body 2", "Body two")
    build(content, output)
    assert search_files(output) == search_files(clean(content, tmp_path))


def test_forked_indexing_gives_the_same_bytes(tmp_path, monkeypatch):
    content = make_content(tmp_path / "content")
    monkeypatch.setattr(search_cache, "PARALLEL_PAGES", 2)
    output = tmp_path / "site" / "out"
    build_site(BuildOptions(content=content, output=output, jobs=2))
    assert search_files(output) == search_files(clean(content, tmp_path))
    # The stems the workers made are kept for the next build (and its fast path).
    from site_builder.cache import store
    table = store.BuildCache(output.parent / ".site_builder_cache").table(search_cache.TABLE)
    assert table["stems"]["drafts"] == "draft"


def test_a_fast_path_that_fails_to_write_leaves_the_index_state_as_it_was(site, tmp_path, monkeypatch):
    from site_builder import publish

    content, output = site
    edit(content / "terms/t04.md", "Body 4 about", "Body 4 zany about")
    original = publish.Staging.commit

    def broken(self, prune=True):
        raise OSError("disk full")

    monkeypatch.setattr(publish.Staging, "commit", broken)
    with pytest.raises(OSError):
        build(content, output)
    monkeypatch.setattr(publish.Staging, "commit", original)
    build(content, output)
    assert search_files(output) == search_files(clean(content, tmp_path))


def test_edits_in_a_row_keep_their_entries_in_the_table_until_a_full_build_stores_them(site, tmp_path, monkeypatch):
    content, output = site
    cache_folder = output.parent / ".site_builder_cache"
    blobs = cache_folder / search_cache.BLOBS
    wal = cache_folder / (search_cache.BLOBS + "-wal")
    store_before = (blobs.read_bytes(), wal.read_bytes() if wal.exists() else b"")
    for i, (slug, old, new) in enumerate([("t03", "Body 3 about", "Body 3 quixotic about"),
                                          ("t03", "quixotic", "zealous"),
                                          ("t08", "Body 8 about", "Body 8 zealous about")]):
        edit(content / f"terms/{slug}.md", old, new)
        log = build(content, output)
        assert any("fast path" in line for line in log), (i, log)
        assert search_files(output) == search_files(clean(content, tmp_path)), i
    # The fast path wrote nothing to the store (no commit, no checkpoint): its entries are in the table.
    assert (blobs.read_bytes(), wal.read_bytes() if wal.exists() else b"") == store_before
    from site_builder.cache import store
    table = store.BuildCache(cache_folder).table(search_cache.TABLE)
    assert set(table["pending"]) == {_key_of(table, "t03"), _key_of(table, "t08")}  # t03's first edit is gone
    # A full build (a summary edit) moves them into the store and indexes only the page it changed.
    indexed: list[str] = []
    original = search_cache.page_record
    monkeypatch.setattr(search_cache, "page_record",
                        lambda config, stem, term, body: (indexed.append(term.slug), original(config, stem, term, body))[1])
    edit(content / "terms/t01.md", "summary: Summary of term 1.", "summary: Another summary, of term 1.")
    build(content, output)
    assert indexed == ["t01"]
    assert "pending" not in store.BuildCache(cache_folder).table(search_cache.TABLE)
    edit(content / "terms/t08.md", "zealous", "quixotic")
    log = build(content, output)
    assert any("fast path" in line for line in log), log
    assert search_files(output) == search_files(clean(content, tmp_path))


def test_the_page_workers_make_the_entries_and_the_files_are_a_single_process_builds(tmp_path, monkeypatch):
    """With forked page workers, each page's entries are made beside the page
    (issue 40: no indexing stage after the render stage), so the search step
    indexes nothing itself; the files are byte for byte those of a build
    in one process; and a full rebuild that renders every page again (the
    site's title changed) reads their unchanged entries from the cache."""
    from site_builder.render import pages

    count = pages.PARALLEL_PAGES
    content = write_tree(tmp_path / "content", {
        **{f"terms/t{i:03d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i} about drafts and tokens {i % 7}.\n")
           for i in range(count)},
        "site.toml": 'title = "Workers index"\n'})
    asked: list[int] = []
    original = search_cache._records
    monkeypatch.setattr(search_cache, "_records",
                        lambda config, todo, *rest: (asked.append(len(todo)), original(config, todo, *rest))[1])
    build_site(BuildOptions(content=content, output=tmp_path / "two" / "out", jobs=2))
    assert asked == [0]  # every page's entries came from the workers
    build(content, tmp_path / "one" / "out", cache=False)
    assert search_files(tmp_path / "two" / "out") == search_files(tmp_path / "one" / "out") != {}
    indexed: list[str] = []
    monkeypatch.setattr(search_cache, "page_record",
                        lambda config, stem, t, body: indexed.append(t.slug) or search_text.record(t.title, [], "", [], stem))
    (content / "site.toml").write_text('title = "Workers index, renamed"\n')  # every page again, no entry changed
    log: list[str] = []
    report = build_site(BuildOptions(content=content, output=tmp_path / "two" / "out", jobs=2), log.append)
    assert any(line.split()[0] == "render" for line in log), log  # a full build, not the fast path
    assert report.written >= count  # every term page rendered again (the title is in each)
    assert indexed == []
    assert search_files(tmp_path / "two" / "out") == search_files(tmp_path / "one" / "out")


def test_an_edit_saves_only_what_it_changed_beside_the_table_and_the_next_edit_reads_it(site, tmp_path, monkeypatch):
    """The fast path leaves ``search.table`` as the full build wrote it: the moved
    keys, the words' counts, the pending entries and the new stems go to the file
    of recent entries, which the next edit reads with it (its old entries found
    under the moved key, its new word stemmed from the memo, not the stemmer)."""
    from site_builder.cache import store

    content, output = site
    cache_folder = output.parent / ".site_builder_cache"
    whole = (cache_folder / f"{search_cache.TABLE}.table").read_bytes()
    before = _key_of(store.BuildCache(cache_folder).table(search_cache.TABLE), "t05")
    edit(content / "terms/t05.md", "Body 5 about", "Body 5 quixotic about")
    assert any("fast path" in line for line in build(content, output))
    assert (cache_folder / f"{search_cache.TABLE}.table").read_bytes() == whole
    table = store.BuildCache(cache_folder).table(search_cache.TABLE)
    moved = _key_of(table, "t05")
    assert moved != before and set(table["pending"]) == {moved}
    assert table["stems+"]["quixotic"] == search_text.Stemmer("en")("quixotic")
    assert _key_of(table, "t06") == table["keys"][6 * search_cache.KEY_LENGTH:7 * search_cache.KEY_LENGTH]
    stemmed: list[str] = []
    original = search_text.Stemmer.__call__
    monkeypatch.setattr(search_text.Stemmer, "__call__",
                        lambda self, word: (stemmed.append(word) if word not in self.stems else None,
                                            original(self, word))[1])
    edit(content / "terms/t05.md", "quixotic", "quixotic quixotic")
    assert any("fast path" in line for line in build(content, output))
    assert "quixotic" not in stemmed
    assert search_files(output) == search_files(clean(content, tmp_path))
    assert set(store.BuildCache(cache_folder).table(search_cache.TABLE)["pending"]) == \
        {_key_of(store.BuildCache(cache_folder).table(search_cache.TABLE), "t05")}


def _key_of(table: Mapping, slug: str) -> str | None:
    """The entry key the search table has for page ``slug`` (None: none), as ``update`` reads it."""
    if slug in table.get("moved", {}):
        return table["moved"][slug]
    slugs = table.get("slugs", [])
    doc = bisect.bisect_left(slugs, slug)
    size = search_cache.KEY_LENGTH
    return table["keys"][doc * size:(doc + 1) * size] if doc < len(slugs) and slugs[doc] == slug else None
