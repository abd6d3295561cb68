"""The load cache keeps the bodies apart (``cache.terms.BODIES``): its whole
table holds each body's digest, and a term made from it reads its body only
when asked, so an edit on the fast path reads none of the unchanged bodies.
A lost or damaged bodies table, or one from another save, is never trusted
for another text than the digest says."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.cache import incremental, store as cache, terms as term_cache
from site_builder.errors import BuildFailed
from site_builder.load.content import Term

from helpers import manifest, term, write_tree

SLUGS = [f"t{number:02d}" for number in range(6)]


def _content(root: Path) -> Path:
    return write_tree(root, {
        "site.toml": 'title = "Bodies"\npreviews = false\n',
        **{f"terms/{slug}.md": term(slug.upper(), f"Term {slug}.", f"Body of {slug}, see [[T00]].\n")
           for slug in SLUGS},
    })


def _build(content: Path, output: Path, **options):
    return build_site(BuildOptions(content=content, output=output, jobs=1, **options))


def _same_as_clean(content: Path, output: Path, tmp_path: Path, name: str) -> None:
    clean = tmp_path / name / "out"
    _build(content, clean, cache=False)
    assert manifest(output) == manifest(clean)


def _bodies_read(monkeypatch) -> list[str]:
    """The shown paths whose kept bodies a build reads."""
    read: list[str] = []
    real = term_cache._KeptBodies.body
    monkeypatch.setattr(term_cache._KeptBodies, "body",
                        lambda self, shown, path, digest: read.append(shown) or real(self, shown, path, digest))
    return read


def test_the_whole_table_keeps_digests_and_an_edit_reads_no_other_body(tmp_path, monkeypatch):
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)  # only the edited file is read again
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    folder = output.parent / ".site_builder_cache"
    table = (folder / f"{term_cache.TABLE}.table").read_bytes()
    assert b"Body of t03" not in table  # undone, the whole table holds every body again
    assert b"Body of t03" in (folder / f"{term_cache.BODIES}.table").read_bytes()
    path = content / "terms" / "t03.md"
    path.write_text(path.read_text() + "\nA first edit.\n")
    _build(content, output)  # the first edit after a full build also lays down the spare tree (a full build)
    read = _bodies_read(monkeypatch)
    tables: list[str] = []
    real_table = cache.BuildCache.table
    monkeypatch.setattr(cache.BuildCache, "table", lambda self, name: tables.append(name) or real_table(self, name))
    path.write_text(path.read_text() + "\nAn edit.\n")
    report = _build(content, output)
    assert report.written > 0 and read == [] and term_cache.BODIES not in tables, (read, tables)
    _same_as_clean(content, output, tmp_path, "clean")


def test_a_full_build_over_a_warm_cache_reads_the_kept_bodies(tmp_path, monkeypatch):
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    read = _bodies_read(monkeypatch)
    path = content / "terms" / "t02.md"
    path.write_text(path.read_text().replace("title: T02", "title: T02 renamed"))  # not the fast path's
    _build(content, output)
    # every other body, from the bodies table (t02 was read from its file)
    assert sorted(Path(shown).name for shown in read) == [f"{slug}.md" for slug in SLUGS if slug != "t02"]
    _same_as_clean(content, output, tmp_path, "clean")


@pytest.mark.parametrize("damage", ["missing", "garbage", "another save"])
def test_a_lost_or_damaged_bodies_table_reads_the_files_not_stale_text(tmp_path, monkeypatch, damage):
    """Its bodies are taken only from the save the whole table names, or when their
    digest is the record's; else from the term file, when it still holds that text."""
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    bodies = output.parent / ".site_builder_cache" / f"{term_cache.BODIES}.table"
    if damage == "missing":
        bodies.unlink()
    elif damage == "garbage":
        bodies.write_bytes(b"not a table")
    else:  # another save's bodies table, with other texts under the same paths
        store = cache.BuildCache(bodies.parent)
        saved = store.table(term_cache.BODIES)
        store.save_table(term_cache.BODIES, {"base": "another", "bodies": {
            shown: body.replace("Body of", "STALE body of") for shown, body in saved["bodies"].items()}})
    path = content / "terms" / "t02.md"
    path.write_text(path.read_text().replace("title: T02", "title: T02 renamed"))  # a full build: every body
    _build(content, output)
    assert not any("STALE" in (output / slug / "index.html").read_text() for slug in SLUGS)
    _same_as_clean(content, output, tmp_path, "clean")


def test_a_body_neither_kept_nor_in_its_file_fails_the_build(tmp_path, monkeypatch):
    """The cache lost its copy and the file changed since the load stamped it: the
    term cannot be built as it was loaded, and no other text is put in its place."""
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    store = cache.BuildCache(output.parent / ".site_builder_cache")
    loaded = term_cache.load_cached(content, store, None, None, lambda: None)
    store.tables[term_cache.BODIES] = {}  # lost
    kept = {t.slug: t for t in loaded.terms}
    assert kept["t01"].body == "Body of t01, see [[T00]].\n"  # read from its file again: the same text
    path = content / "terms" / "t04.md"
    path.write_text(path.read_text() + "\nChanged meanwhile.\n")
    with pytest.raises(BuildFailed) as failure:
        kept["t04"].body
    assert "changed while the build was running" in failure.value.problems[0].message
    assert failure.value.problems[0].path.endswith("t04.md")


def test_a_file_saved_unchanged_is_no_body_edit(tmp_path, monkeypatch):
    """The last record's body is a digest; it still compares equal to the same text."""
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    path = content / "terms" / "t03.md"
    text = path.read_text()
    path.write_text(text)
    os.utime(path, ns=(1, 1))  # another stamp, the same bytes
    loaded = term_cache.load_cached(content, cache.BuildCache(output.parent / ".site_builder_cache"),
                                    None, None, lambda: None)
    assert [t.slug for t in loaded.change.edited] == ["t03"]
    assert incremental.body_only(loaded.change) == []
    path.write_text(text + "\nAn edit.\n")
    loaded = term_cache.load_cached(content, cache.BuildCache(output.parent / ".site_builder_cache"),
                                    None, None, lambda: None)
    assert [t.slug for t in incremental.body_only(loaded.change)] == ["t03"]


def test_a_term_with_its_body_kept_is_a_term(tmp_path, monkeypatch):
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    loaded = term_cache.load_cached(content, cache.BuildCache(output.parent / ".site_builder_cache"),
                                    None, None, lambda: None)
    kept = loaded.terms[1]
    assert isinstance(kept, term_cache._KeptTerm) and "body" not in vars(kept)
    plain = Term.from_record(kept.to_record())
    assert kept.body == "Body of t01, see [[T00]].\n"
    assert kept == plain and plain == kept
    again = pickle.loads(pickle.dumps(kept))
    assert type(again) is Term and again == plain
