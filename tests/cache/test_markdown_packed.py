"""The markdown table keeps each body's record packed (``bodies.packed``:
whether it has problems, and the record's bytes): an edit's fast path loads the
table without making every record's lists, and unpacks only the records it
looks at; its output is a clean build's."""

from __future__ import annotations

from pathlib import Path

from site_builder import CACHE_FOLDER
from site_builder.build import BuildOptions, build_site
from site_builder.cache import bodies, incremental, store

from helpers import clean_build_manifest, logged_build as _build, manifest, term, write_tree

COUNT = 30


def _content(root: Path) -> Path:
    files = {f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i}, see [[Term {(i + 1) % COUNT}]].\n")
             for i in range(COUNT)}
    files["site.toml"] = 'title = "Packed"\npreviews = false\n'
    return write_tree(root, files)


def test_the_table_keeps_records_packed_and_an_edit_unpacks_few(tmp_path, monkeypatch):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)
    table = store.BuildCache(output.parent / CACHE_FOLDER).table(bodies.TABLE)
    assert len(table) == COUNT
    for entry in table.values():
        has_problems, raw = entry
        assert has_problems is False and isinstance(raw, bytes)
        assert isinstance(bodies.unpacked(entry), tuple)
    unpacked = []
    real = incremental.unpacked

    def counted(entry):
        unpacked.append(entry)
        return real(entry)
    monkeypatch.setattr(incremental, "unpacked", counted)
    path = content / "terms" / "t07.md"
    path.write_text(path.read_text() + "\nAn edited line.\n")
    assert any("fast path" in line for line in _build(content, output))
    assert 0 < len(unpacked) <= 6, len(unpacked)  # the edited body's old record, the anchors its link names...
    assert manifest(output) == clean_build_manifest(content, tmp_path)


def test_a_body_with_problems_is_flagged_and_sends_an_edit_to_the_full_build(tmp_path):
    """A body's own warning (an <h1> in a body) is seen from the flag alone: the
    fast path steps aside, and the full build reports it again."""
    content = _content(tmp_path / "content")
    (content / "terms" / "t03.md").write_text(term("Term 3", "Summary 3.", "# A top heading\n\nBody 3.\n"))
    output = tmp_path / "site" / "out"
    assert build_site(BuildOptions(content=content, output=output, jobs=1)).warnings
    _build(content, output)  # a spare with its record: an edit could take the fast path
    table = store.BuildCache(output.parent / CACHE_FOLDER).table(bodies.TABLE)
    assert [entry[0] for entry in table.values()].count(True) == 1
    path = content / "terms" / "t07.md"
    path.write_text(path.read_text() + "\nAn edited line.\n")
    log: list[str] = []
    again = build_site(BuildOptions(content=content, output=output, jobs=1), log.append)
    assert not any("fast path" in line for line in log)
    assert any("start body headings at ##" in p.message for p in again.warnings)


def test_a_full_build_over_a_warm_cache_unpacks_with_the_collector_paused(tmp_path, monkeypatch):
    """A full build that reuses the cached bodies unpacks every record: with the
    collector paused (its lists are long-lived and hold no cycles), and to the
    same site as a clean build."""
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    collector = []
    real = bodies.unpacked

    def watched(entry):
        collector.append(__import__("gc").isenabled())
        return real(entry)
    monkeypatch.setattr(bodies, "unpacked", watched)
    path = content / "terms" / "t05.md"  # a summary shows on other pages: a full build, the bodies' keys unchanged
    path.write_text(path.read_text().replace("Summary 5.", "Another summary."))
    assert not any("fast path" in line for line in _build(content, output))
    assert len(collector) == COUNT and not any(collector), collector
    assert manifest(output) == clean_build_manifest(content, tmp_path)


def test_a_record_marshal_refuses_is_pickled_instead():
    """A record holding a str subclass (Python-Markdown's AtomicString) cannot
    be marshalled: it is kept pickled, and reads back equal, not a failed build."""
    from markdown.util import AtomicString

    plain = ("<p>x</p>", ["a"], [], (("h", "Heading"),))
    odd = ("<p>x</p>", [AtomicString("a")], [("problem", 3)], (("h", "Heading"),))
    assert bodies.unpacked(bodies.packed(plain)) == plain and len(bodies.packed(plain)) == 2
    entry = bodies.packed(odd)
    assert entry[0] is True and len(entry) == 3
    assert bodies.unpacked(entry) == odd
    assert bodies.unpacked(None) is None
