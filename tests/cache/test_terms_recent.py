"""The load cache's two tables (``cache.terms``): an edit saves the few entries
it read again (``terms-recent``) over the whole table (``terms``, ~20 MB at
10,000 terms), which is saved again only when files come or go or many changed."""

from __future__ import annotations

from pathlib import Path

from site_builder.build import BuildOptions, build_site
from site_builder.cache import store as cache, terms as term_cache
from site_builder.load import content as loading

from helpers import manifest, term, write_tree

SLUGS = [f"t{number:02d}" for number in range(8)]


def _content(root: Path) -> Path:
    return write_tree(root, {
        "site.toml": 'title = "Recent"\npreviews = false\n',
        **{f"terms/{slug}.md": term(slug.upper(), f"Term {slug}.", f"Body of {slug}.\n") for slug in SLUGS},
    })


def _build(content: Path, output: Path, **options):
    return build_site(BuildOptions(content=content, output=output, jobs=1, **options))


def _saved(monkeypatch) -> list[str]:
    names: list[str] = []
    real = cache.BuildCache.save_table

    def save_table(self, name, data):
        names.append(name)
        return real(self, name, data)
    monkeypatch.setattr(cache.BuildCache, "save_table", save_table)
    return names


def _edit(content: Path, slug: str, text: str) -> None:
    path = content / "terms" / f"{slug}.md"
    path.write_text(path.read_text() + f"\n{text}\n")


def test_an_edit_saves_the_recent_entries_and_the_next_build_reads_them(tmp_path, monkeypatch):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    saved = _saved(monkeypatch)
    _edit(content, "t03", "An edit.")
    _build(content, output)
    assert term_cache.RECENT in saved and term_cache.TABLE not in saved, saved
    # Read back: the edited file's entry comes from the recent table, none is read again
    # (once its stamp has settled; made so here by waiting SETTLED_NS out).
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)
    _edit(content, "t03", "Another edit.")
    _build(content, output)
    read = []
    real_load = loading.load_term_file
    monkeypatch.setattr(loading, "load_term_file", lambda file, stamp, *reuse: read.append(file.shown) or real_load(file, stamp, *reuse))
    _build(content, output)
    assert read == []
    clean = tmp_path / "clean" / "out"
    _build(content, clean, cache=False)
    assert manifest(output) == manifest(clean)


def test_files_added_or_many_edits_save_the_whole_table_again(tmp_path, monkeypatch):
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)  # only the edited files are read again
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    saved = _saved(monkeypatch)
    (content / "terms" / "new.md").write_text(term("New", "A new term.", "New body.\n"))
    _build(content, output)
    assert term_cache.TABLE in saved
    monkeypatch.setattr(term_cache, "RECENT_MOST", 2)
    for number, slug in enumerate(SLUGS):
        del saved[:]
        _edit(content, slug, f"Edit {number}.")
        _build(content, output)
        assert (term_cache.TABLE in saved) == (number >= 2), (number, saved)  # the third edited file since the base
        if term_cache.TABLE in saved:
            break
    clean = tmp_path / "clean" / "out"
    _build(content, clean, cache=False)
    assert manifest(output) == manifest(clean)


def test_recent_entries_over_another_base_are_not_read(tmp_path):
    """A build stopped between saving a new whole table and its (empty) recent
    table leaves recent entries naming the old base: they are not laid over the
    new, and the next build starts cold (the new table alone could be stale)."""
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    folder = output.parent / ".site_builder_cache"
    _edit(content, "t01", "An edit.")
    _build(content, output)
    stale = (folder / f"{term_cache.RECENT}.table").read_bytes()  # over the first base, with t01's entry
    (content / "terms" / "new.md").write_text(term("New", "A new term.", "New body.\n"))
    _build(content, output)  # a new base
    (folder / f"{term_cache.RECENT}.table").write_bytes(stale)
    store = cache.BuildCache(folder)
    assert term_cache._previous(store) == ({}, None, {})  # cold: neither table is read
    _edit(content, "t01", "A second edit.")
    _build(content, output)
    clean = tmp_path / "clean" / "out"
    _build(content, clean, cache=False)
    assert manifest(output) == manifest(clean)


def test_a_lost_or_damaged_recent_table_starts_cold_not_stale(tmp_path):
    """Without the recent table over its base, the whole table is older than the
    last finished build: read alone, a reverted edit would look like no change
    and the pages it reached would keep the edit. The build starts cold instead."""
    for damage in ("missing", "garbage"):
        content = _content(tmp_path / damage / "content")
        # Search off: its own cache would notice the summary and hide the stale load cache.
        (content / "site.toml").write_text('title = "Recent"\npreviews = false\nsearch = false\n')
        output = tmp_path / damage / "site" / "out"
        _build(content, output)
        path = content / "terms" / "t02.md"
        original = path.read_text()
        path.write_text(original.replace("Term t02.", "Term t02 EDITED."))
        _build(content, output)  # the summary edit: its entry goes to the recent table
        recent = output.parent / ".site_builder_cache" / f"{term_cache.RECENT}.table"
        if damage == "missing":
            recent.unlink()
        else:
            recent.write_bytes(b"not a table")
        path.write_text(original + "\nA body edit.\n")  # the summary reverted, and a body edit
        _build(content, output)
        clean = tmp_path / damage / "clean" / "out"
        _build(content, clean, cache=False)
        assert manifest(output) == manifest(clean), damage
        assert "EDITED" not in (output / "index.html").read_text()
