"""A term file read again with the very front matter it had when its record was
made (an edit of its body) takes its fields from that record instead of
parsing the YAML again (``content.load_term_file``'s ``reuse``); any other
front matter, if only a byte of it differs, is parsed as ever."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.cache import terms as term_cache
from site_builder.load import content as loading

from helpers import manifest, term, write_tree


@pytest.fixture(autouse=True)
def _settled(monkeypatch):
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)  # the files here are seconds old at most


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The files whose front matter PyYAML is asked to parse from now on."""
    parsed: list[str] = []
    real = loading.parse_front_matter
    monkeypatch.setattr(loading, "parse_front_matter", lambda front, shown: parsed.append(Path(shown).name)
                        or real(front, shown))
    return parsed


def _content(root: Path) -> Path:
    files = {f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i}, see [[Term 0]].\n",
                                        aliases=[f"Other {i}"]) for i in range(6)}
    files["site.toml"] = 'title = "Fronts"\npreviews = false\n'
    return write_tree(root, files)


def _build(content: Path, output: Path) -> list[str]:
    log: list[str] = []
    build_site(BuildOptions(content=content, output=output, jobs=1), log.append)
    return log


def _same_as_clean(content: Path, output: Path, tmp_path: Path, name: str) -> None:
    clean = tmp_path / name / "out"
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert manifest(output) == manifest(clean)


def _warm(tmp_path: Path) -> tuple[Path, Path]:
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)
    return content, output


def _warm_then_count(tmp_path: Path, parses: list[str]) -> tuple[Path, Path]:
    warm = _warm(tmp_path)
    parses.clear()  # (the first build parsed every file)
    return warm


def test_a_body_edit_parses_no_front_matter(tmp_path, parses):
    content, output = _warm_then_count(tmp_path, parses)
    path = content / "terms" / "t03.md"
    path.write_text(path.read_text() + "\nAn edited line.\n")
    log = _build(content, output)
    assert any("fast path" in line for line in log), log
    assert parses == []
    path.write_text(path.read_text() + "\nAnother edited line.\n")  # and again: its record holds the digest still
    log = _build(content, output)
    assert any("fast path" in line for line in log), log
    assert parses == []
    _same_as_clean(content, output, tmp_path, "clean")


@pytest.mark.parametrize("change", ["title", "comment", "spacing"])
def test_a_front_matter_changed_in_any_byte_is_parsed_the_body_the_same(tmp_path, parses, change):
    content, output = _warm_then_count(tmp_path, parses)
    path = content / "terms" / "t03.md"
    text = path.read_text()
    changed = {"title": text.replace("title: Term 3", "title: Term Three"),
               "comment": text.replace("summary: Summary 3.", "summary: Summary 3.  # said once"),
               "spacing": text.replace("title: Term 3", "title:  Term 3")}[change]
    assert changed != text and changed.split("\n---\n", 1)[1] == text.split("\n---\n", 1)[1]  # the body as it was
    path.write_text(changed)
    _build(content, output)
    assert parses == ["t03.md"]
    if change == "title":
        assert "Term Three" in (output / "t03" / "index.html").read_text()
    _same_as_clean(content, output, tmp_path, "clean")


def test_only_a_file_read_without_a_problem_lends_its_fields(tmp_path, parses):
    """Its problems (a front matter's warning) are not in its record: a file that had
    any is parsed again, so that they are reported again."""
    content, output = _warm_then_count(tmp_path, parses)
    store_entry = next(entry for shown, entry in _table(output).items() if str(shown).endswith("t04.md"))
    assert store_entry[4] and term_cache._reusable(store_entry) is not None
    warned = (*store_entry[:2], [(store_entry[1][0], 2, "a warning", "warning")], *store_entry[3:])
    assert term_cache._reusable(warned) is None
    assert term_cache._reusable((*store_entry[:4], b"")) is None  # read by a loader (preload): no digest
    assert term_cache._reusable(store_entry[:4]) is None


def _table(output: Path) -> dict:
    from site_builder.cache import store as cache

    return cache.BuildCache(output.parent / ".site_builder_cache").table(term_cache.TABLE)
