"""An edit's fast path saves the body keys and backlinks it changed as entries of
``site-terms`` (``incremental.TERMS_STATE_TABLE``), not the whole ``site`` state,
and a state and a per-term table of two different builds are never used together."""

from __future__ import annotations

from pathlib import Path

from site_builder import CACHE_FOLDER
from site_builder.build import BuildOptions, build_site
from site_builder.cache import incremental

from helpers import clean_build_manifest, manifest, term, write_tree


def _content(root: Path) -> Path:
    files = {f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i}.\n") for i in range(6)}
    files["site.toml"] = 'title = "Entries"\npreviews = false\n'
    return write_tree(root, files)


def _build(content: Path, output: Path, **options) -> list[str]:
    log: list[str] = []
    build_site(BuildOptions(content=content, output=output, jobs=1, **options), log.append)
    return log


def _edit(content: Path, line: str) -> None:
    path = content / "terms" / "t02.md"
    path.write_text(path.read_text() + f"\n{line}\n")


def test_an_edit_saves_entries_not_the_whole_state(tmp_path):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)  # a spare with its record
    cache = output.parent / CACHE_FOLDER
    state = cache / f"{incremental.STATE_TABLE}.table"
    before = state.read_bytes(), state.stat().st_mtime_ns
    _edit(content, "An edited line with [[Term 4]].")  # a new backlink of t04 too
    assert any("fast path" in line for line in _build(content, output))
    assert (state.read_bytes(), state.stat().st_mtime_ns) == before, "the fast path saved the whole state"
    assert (cache / f"{incremental.TERMS_STATE_TABLE}.recent.table").exists()
    from site_builder.cache import store

    again = store.BuildCache(cache)  # as the next process reads them: the new backlink is kept
    _entries, _keys, backlinks = incremental._term_state(again, again.table(incremental.STATE_TABLE))
    assert backlinks["t04"] == ["t02"], backlinks
    assert manifest(output) == clean_build_manifest(content, tmp_path)
    _edit(content, "Another edited line.")  # the entries saved are read back, with their table
    assert any("fast path" in line for line in _build(content, output))
    assert manifest(output) == clean_build_manifest(content, tmp_path)


def test_a_per_term_table_of_another_build_is_not_used(tmp_path):
    """A crash between ``remember``'s two saves leaves the per-term table of one
    build beside the state of another: the fast path then steps aside."""
    from site_builder.cache import store as cache

    store = cache.BuildCache(tmp_path / "cache")
    store.save_table(incremental.TERMS_STATE_TABLE, {"a": ("key-a", ["b"]), "b": ("key-b", []),
                                                     incremental._TOKEN: "one"})
    again = cache.BuildCache(tmp_path / "cache")  # as the next process reads it
    assert incremental._term_state(again, {"terms_token": "two"}) is None
    assert incremental._term_state(again, {}) is None
    _entries, body_keys, backlinks = incremental._term_state(again, {"terms_token": "one"})
    assert body_keys == {"a": "key-a", "b": "key-b"} and backlinks == {"a": ["b"], "b": []}
