"""The load cache keeps each term's record packed (``cache.kept._pack``): a term
made from it holds its slug, file and explainer, and unpacks the rest when a
field is first asked for, so an edit unpacks the records of the few terms it
looks into. The fast path runs only over the site state the records were saved
with (``LoadedTerms.plan``), and takes that state's redirect plan up on trust."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.cache import kept, store as cache, terms as term_cache
from site_builder.load.content import Term, read_term
from site_builder.validate import aliases

from helpers import manifest, term, write_tree

SLUGS = [f"t{number:02d}" for number in range(30)]


@pytest.fixture(autouse=True)
def _settled(monkeypatch):
    monkeypatch.setattr(term_cache, "SETTLED_NS", 0)  # the files here are seconds old at most


def _content(root: Path, search: bool = True) -> Path:
    files = {f"terms/{slug}.md": term(slug.upper(), f"Term {slug}.", f"Body of {slug}, see [[T00]].\n",
                                      aliases=[f"Alias {slug}"]) for slug in SLUGS}
    files["terms/t02.md"] = term("T02", "Term t02.", "Body of t02.\n", aliases=["Other two"])
    files["site.toml"] = f'title = "Packed"\npreviews = false\nsearch = {str(search).lower()}\n'
    return write_tree(root, files)


def _build(content: Path, output: Path, **options) -> tuple[list[str], object]:
    log: list[str] = []
    report = build_site(BuildOptions(content=content, output=output, jobs=1, **options), log.append)
    return log, report


def _same_as_clean(content: Path, output: Path, tmp_path: Path, name: str) -> None:
    clean = tmp_path / name / "out"
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert manifest(output) == manifest(clean)


def _loaded(content: Path, output: Path) -> term_cache.LoadedTerms:
    return term_cache.load_cached(content, cache.BuildCache(output.parent / ".site_builder_cache"),
                                  None, None, lambda: None)


def test_terms_made_from_the_table_unpack_on_first_use_and_equal_the_files(tmp_path):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    loaded = _loaded(content, output)
    assert len(loaded.terms) == len(SLUGS)
    for made in loaded.terms:
        assert "_packed" in made.__dict__ and "title" not in made.__dict__, made.__dict__.keys()
        assert made.slug and made.path and "_packed" in made.__dict__  # what every term is asked: no unpacking
    first = loaded.terms[3]
    read, _problems = read_term(Path(content / "terms" / f"{first.slug}.md"), first.path)
    assert first.title == read.title and "_packed" not in first.__dict__
    assert first.aliases == read.aliases and first.field_lines == read.field_lines and first.body == read.body
    assert first == read and first.to_record() == read.to_record()
    copy = pickle.loads(pickle.dumps(loaded.terms[4]))  # a plain Term, every field there
    assert type(copy) is Term and copy == Term.from_record(read_term(Path(content / "terms" / "t04.md"),
                                                                     copy.path)[0].to_record())
    changed = loaded.terms[5]
    changed.summary = "set before any unpacking"
    assert changed.summary == "set before any unpacking" and changed.title == "T05"  # not overwritten by the record


def test_an_edit_unpacks_only_the_records_it_looks_into(tmp_path, monkeypatch):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)  # a spare with its record
    unpacked = []
    real = kept.marshal.loads
    counting = type("marshal", (), {"loads": staticmethod(lambda data: unpacked.append(1) or real(data)),
                                    "dumps": staticmethod(kept.marshal.dumps)})
    monkeypatch.setattr(kept, "marshal", counting)
    path = content / "terms" / "t07.md"
    path.write_text(path.read_text() + "\nAn edited line.\n")
    log, _report = _build(content, output)
    assert any("fast path" in line for line in log), log
    assert 0 < len(unpacked) <= 4, len(unpacked)  # of 30: the edited term's old record, its page's and links' own
    _same_as_clean(content, output, tmp_path, "clean")


def test_a_packed_term_with_media_is_read_again_when_its_image_changes(tmp_path, monkeypatch):
    from site_builder.load import media

    monkeypatch.setattr(media, "SETTLED_NS", 0)
    content = write_tree(tmp_path / "content", {
        "site.toml": 'title = "Media"\npreviews = false\n',
        "terms/t00.md": term("T00", "Term t00.", "Body ![a dot](../media/dot.svg)\n"),
        "terms/t01.md": term("T01", "Term t01.", "Body of t01.\n"),
        "media/dot.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>\n',
    })
    output = tmp_path / "site" / "out"
    _build(content, output)
    loaded = _loaded(content, output)
    assert all("_packed" in made.__dict__ for made in loaded.terms)
    assert loaded.change.edited == []
    assert _stored(output)["t00"][2] and not kept._no_media(_stored(output)["t00"])  # its media kept apart, looked at
    (content / "media" / "dot.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"/>\n')
    loaded = _loaded(content, output)
    assert [made.slug for made in loaded.change.edited] == ["t00"]  # its record no longer current: read again


def _stored(output: Path) -> dict:
    """slug -> the packed record ``TABLE`` holds."""
    table = cache.BuildCache(output.parent / ".site_builder_cache").table(term_cache.TABLE)
    return {entry[1][0]: entry[1] for shown, entry in table.items() if isinstance(shown, str)}


class _Stopped(Exception):
    pass


def test_an_edit_after_a_build_stopped_between_its_state_and_its_terms_is_a_full_build(tmp_path, monkeypatch):
    """The site state was saved, the terms' records were not: the records are an
    older build's. A file then put back as those records say, its body edited,
    looks like a body edit to them, but the live pages (the redirects above all)
    are the stopped build's: the fast path must not keep them. (Without a search
    index: its own record would send the edit to the full build too.)"""
    content = _content(tmp_path / "content", search=False)
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)
    old = (content / "terms" / "t02.md").read_text()
    (content / "terms" / "t02.md").write_text(old.replace("Other two", "Renamed two"))

    def stopped(*args, **kwargs):
        raise _Stopped()
    with monkeypatch.context() as patch:
        patch.setattr(term_cache, "_save", stopped)
        with pytest.raises(_Stopped):
            _build(content, output)
    assert (output / "renamed-two" / "index.html").exists()  # published before the stop
    (content / "terms" / "t02.md").write_text(old + "\nAn edited line.\n")
    log, _report = _build(content, output)
    assert not any("fast path" in line for line in log), log
    assert not (output / "renamed-two").exists() and (output / "other-two" / "index.html").exists()
    _same_as_clean(content, output, tmp_path, "clean")
    # and the next edit, over the state and records of that full build, takes the fast path
    monkeypatch.setattr(aliases, "_last_plan", None)  # as in a new process
    keys = []
    real_key = aliases.plan_key
    monkeypatch.setattr(aliases, "plan_key", lambda terms: keys.append(len(terms)) or real_key(terms))
    (content / "terms" / "t02.md").write_text(old + "\nAnother edited line.\n")
    log, _report = _build(content, output)
    assert any("fast path" in line for line in log), log
    assert keys == []  # the plan taken up on trust
    _same_as_clean(content, output, tmp_path, "clean2")
