"""The rebuild fast path (``incremental.py``): taken exactly when only bodies
changed, and always giving the bytes of a clean build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.errors import BuildFailed

from helpers import REPO, manifest, term, write_tree


def make_content(root: Path) -> Path:
    files = {
        f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary of term {i}.",
                                   f"Body {i} links to [[Term {(i + 1) % 8}]].\n\n## Part\n\nMore.\n",
                                   related=[f"t{(i + 3) % 8:02d}"])
        for i in range(8)
    }
    files["site.toml"] = 'title = "Fast path test"\n'
    return write_tree(root, files)


def build(content: Path, output: Path, in_place: bool = False) -> list[str]:
    log: list[str] = []
    build_site(BuildOptions(content=content, output=output, jobs=1, in_place=in_place), log.append)
    return log


def fast(log: list[str]) -> bool:
    return any("fast path" in line for line in log)


def edit(path: Path, old: str, new: str):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def assert_same_as_clean(content: Path, output: Path, tmp_path: Path):
    clean = tmp_path / "clean" / "out"
    shutil.rmtree(clean.parent, ignore_errors=True)
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert manifest(output) == manifest(clean)


@pytest.fixture
def site(tmp_path: Path):
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    build(content, output)  # now there is a spare with its record
    return content, output


# change -> (fast path expected, pages rendered again)
CHANGES = {
    "prose": (lambda c: edit(c / "terms/t03.md", "More.", "More, and then some."), True),
    "link added": (lambda c: edit(c / "terms/t03.md", "More.", "See [[Term 6]]."), True),
    "link removed": (lambda c: edit(c / "terms/t03.md", "links to [[Term 4]]", "links nowhere"), True),
    "maths": (lambda c: edit(c / "terms/t03.md", "More.", "Then $x^2 + y$."), True),
    "heading": (lambda c: edit(c / "terms/t03.md", "## Part", "## Whole"), False),
    "title": (lambda c: edit(c / "terms/t03.md", "title: Term 3", "title: Term Three\naliases: [Term 3]"), False),
    "new term": (lambda c: (c / "terms/t99.md").write_text(term("Ninety-nine", "New.", "Hi.\n")), False),
    "config": (lambda c: (c / "site.toml").write_text('title = "Renamed"\n'), False),
}


@pytest.mark.parametrize("change", CHANGES)
def test_fast_path_only_for_body_edits_and_equal_to_a_clean_build(site, tmp_path, change):
    content, output = site
    apply, expected = CHANGES[change]
    apply(content)
    log = build(content, output)
    assert fast(log) is expected, log
    assert_same_as_clean(content, output, tmp_path)


def test_a_link_changes_the_backlinks_of_its_target(site, tmp_path):
    content, output = site
    before = (output / "t06" / "index.html").read_text()
    edit(content / "terms/t03.md", "More.", "See [[Term 6]].")
    log = build(content, output)
    assert any("2 page(s) rendered" in line for line in log), log
    after = (output / "t06" / "index.html").read_text()
    assert before != after  # its backlinks list gained Term 3
    assert_same_as_clean(content, output, tmp_path)


def test_a_broken_link_falls_back_and_is_reported(site, tmp_path):
    content, output = site
    before = manifest(output)
    edit(content / "terms/t03.md", "More.", "See [x](t01.md#nowhere).")
    with pytest.raises(BuildFailed) as failure:
        build(content, output)
    assert any("t03.md" in p.path and "nowhere" in p.message for p in failure.value.problems)
    assert manifest(output) == before


def test_hand_edited_output_is_repaired(site, tmp_path):
    content, output = site
    (output / "t05" / "index.html").write_text("vandalised")
    edit(content / "terms/t03.md", "More.", "More prose.")
    log = build(content, output)
    assert fast(log)
    assert_same_as_clean(content, output, tmp_path)
    stylesheet = next((output / "assets").glob("site.*.css"))
    stylesheet.write_text("vandalised")
    edit(content / "terms/t03.md", "More prose.", "Less prose.")
    log = build(content, output)
    assert not fast(log)  # only pages can be re-rendered by the fast path
    assert_same_as_clean(content, output, tmp_path)


def test_many_fast_edits_then_a_full_build(site, tmp_path):
    content, output = site
    for text in ("One.", "Two [[Term 5]].", "Three.", "More."):
        edit(content / "terms/t02.md", (content / "terms/t02.md").read_text().rsplit("\n", 2)[-2], text)
        assert fast(build(content, output))
        assert_same_as_clean(content, output, tmp_path)
    edit(content / "terms/t02.md", "title: Term 2", "title: Term Two\naliases: [Term 2]")
    assert not fast(build(content, output))
    assert_same_as_clean(content, output, tmp_path)


def test_an_undone_edit_takes_its_html_from_the_cache(site, tmp_path):
    content, output = site
    edit(content / "terms/t04.md", "More.", "Edited.")
    assert fast(build(content, output))
    edit(content / "terms/t04.md", "Edited.", "More.")
    assert fast(build(content, output))
    assert_same_as_clean(content, output, tmp_path)


def test_lost_html_is_rendered_again(site, tmp_path):
    content, output = site
    (output.parent / ".site_builder_cache" / "blobs.sqlite").write_bytes(b"not a database")
    edit(content / "terms/t04.md", "More.", "Edited [[Term 1]].")  # t01's page must be rendered again too
    assert fast(build(content, output))
    assert_same_as_clean(content, output, tmp_path)


def test_in_place_fast_path_voids_the_spare_record(site, tmp_path):
    """serve writes in place: afterwards the spare no longer matches the live site,
    and the next staged build must not trust its record."""
    content, output = site
    edit(content / "terms/t03.md", "More.", "Served edit.")
    assert fast(build(content, output, in_place=True))
    assert not (output.parent / ".out.spare-record.json").exists()
    assert_same_as_clean(content, output, tmp_path)
    edit(content / "terms/t03.md", "Served edit.", "Built edit.")
    build(content, output)
    assert_same_as_clean(content, output, tmp_path)
    edit(content / "terms/t05.md", "More.", "Another.")
    assert fast(build(content, output))
    assert_same_as_clean(content, output, tmp_path)


def test_a_failed_build_is_not_the_base_of_the_next_fast_path(site, tmp_path):
    """After a failed build, the fast path compares with the last build that
    finished: an error left in another term must still be reported."""
    content, output = site
    edit(content / "terms/t02.md", "More.", "See [x](t01.md#nowhere).")
    with pytest.raises(BuildFailed):
        build(content, output)
    edit(content / "terms/t05.md", "More.", "Unrelated prose.")
    with pytest.raises(BuildFailed) as failure:
        build(content, output)
    assert any("t02.md" in p.path for p in failure.value.problems)
    edit(content / "terms/t02.md", "See [x](t01.md#nowhere).", "Fixed.")
    build(content, output)
    assert_same_as_clean(content, output, tmp_path)


def test_fast_path_on_the_explainer_page(tmp_path):
    """The real content: a prose edit on the speculative decoding page keeps its
    explainer (data, charts, scripts) and gives the bytes of a clean build."""
    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    output = tmp_path / "site" / "out"
    build(content, output)
    build(content, output)
    page = content / "terms" / "speculative-decoding.md"
    text = page.read_text()
    paragraph = next(line for line in text.split("\n")[8:] if line.startswith(("The ", "This ", "A ")))
    page.write_text(text.replace(paragraph, paragraph + " An added sentence.", 1))
    log = build(content, output)
    assert fast(log), log
    assert "An added sentence." in (output / "speculative-decoding" / "index.html").read_text()
    assert_same_as_clean(content, output, tmp_path)


def test_a_marker_without_an_explainer_falls_back_and_is_reported(site, tmp_path):
    """A prose edit that adds an explainer marker to a term without an explainer
    is not the fast path's to accept: the full build reports it at its line."""
    content, output = site
    before = manifest(output)
    edit(content / "terms/t03.md", "More.", "More.\n\n<!-- explainer -->")
    with pytest.raises(BuildFailed) as failure:
        build(content, output)
    problems = [(p.path, p.line, p.message) for p in failure.value.problems]
    assert problems == [(str(content / "terms/t03.md"), 12, "an explainer marker, but this term names no explainer "
                         "(front matter 'explainer: <name>'): remove the marker or name one")], problems
    assert manifest(output) == before
