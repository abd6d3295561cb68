"""An edit's fast path takes up the last build's redirect plan (saved with the
fast path's state, ``validate.aliases.adopt_plan``) instead of planning again,
and only when the fields a plan reads are those it was made from."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from site_builder.build import BuildOptions, build_site
from site_builder.validate import aliases

from helpers import manifest, term, write_tree


def _content(root: Path) -> Path:
    files = {f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i}.\n", aliases=[f"Other name {i}"])
             for i in range(6)}
    files["terms/t06.md"] = term("Term 6", "Summary 6.", "Body 6.\n", aliases=["assets"])  # a warning: no redirect
    files["site.toml"] = 'title = "Plans"\npreviews = false\n'
    return write_tree(root, files)


def _build(content: Path, output: Path, **options) -> tuple[list[str], object]:
    log: list[str] = []
    report = build_site(BuildOptions(content=content, output=output, jobs=1, **options), log.append)
    return log, report


def test_an_edit_takes_up_the_last_plan_and_matches_a_clean_build(tmp_path, monkeypatch):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)  # a spare with its record
    monkeypatch.setattr(aliases, "_last_plan", None)  # as in a new process
    made = []
    real = aliases._plan
    monkeypatch.setattr(aliases, "_plan", lambda terms: made.append(len(terms)) or real(terms))
    keys = []  # plan_key goes over every term (~10 ms at 10,000): not made, the records being the plan's own
    real_key = aliases.plan_key
    monkeypatch.setattr(aliases, "plan_key", lambda terms: keys.append(len(terms)) or real_key(terms))
    path = content / "terms" / "t02.md"
    path.write_text(path.read_text() + "\nAn edited line.\n")
    log, report = _build(content, output)
    assert any("fast path" in line for line in log), log
    assert made == [], "the fast path planned the redirects again"
    assert keys == [], "the plan's key was made, though the terms' records were saved with the plan (cache.terms)"
    assert [p.message for p in report.warnings if "'assets'" in p.message], "the plan's warning is reported"
    assert (output / "other-name-3" / "index.html").exists()
    clean = tmp_path / "clean" / "out"
    shutil.rmtree(clean.parent, ignore_errors=True)
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert manifest(output) == manifest(clean)


def test_a_plan_is_taken_up_only_for_the_fields_it_was_made_from(monkeypatch):
    from site_builder.load.content import Term

    terms = [Term(slug=f"t{i}", title=f"T {i}", summary="", body="", path=f"terms/t{i}.md", body_line=4,
                  aliases=[f"Alias {i}"], field_lines={"aliases": 3}) for i in range(3)]
    record = aliases.plan_record(terms)
    monkeypatch.setattr(aliases, "_last_plan", None)
    assert aliases.adopt_plan(terms, record) == aliases._plan(terms)
    assert aliases.plan_redirects(terms) == aliases._plan(terms)
    monkeypatch.setattr(aliases, "_last_plan", None)
    other = [replace(terms[0], aliases=["Alias 9"]), *terms[1:]]
    assert aliases.adopt_plan(other, record) is None and aliases._last_plan is None
    assert aliases.adopt_plan(terms, None) is None and aliases.adopt_plan(terms, ("x", [], [])) is None


def test_a_plan_taken_up_is_made_of_tuples():
    """15,000 redirects at 10,000 realistic terms, made again in every edit's process:
    as tuples (``tuple.__new__``), not frozen dataclasses (``__init__`` setting each field)."""
    from site_builder.load.content import Term

    terms = [Term(slug=f"t{i}", title=f"T {i}", summary="", body="", path=f"terms/t{i}.md", body_line=4,
                  aliases=[f"Alias {i}"], field_lines={"aliases": 3}) for i in range(3)]
    plan = aliases.adopt_plan(terms, aliases.plan_record(terms))
    assert plan is not None and plan[0] == aliases._plan(terms)[0]
    assert all(type(redirect) is aliases.Redirect and isinstance(redirect, tuple) for redirect in plan[0])
    assert plan[0][0].source == "alias-0" and plan[0][0].target == "t0"


def test_a_plan_is_taken_up_whatever_the_strings_objects(monkeypatch):
    """The same values, held by other string objects (interned, shared, or not), as
    an edit's process loads them from the cache: the same key's digest."""
    import sys

    from site_builder.load.content import Term

    def terms(make):
        return [Term(slug=make(f"t{i}"), title=make(f"T {i}"), summary="", body="", path=make(f"terms/t{i}.md"),
                     body_line=4, aliases=[make(f"Alias {i}"), make(f"T {i}")], field_lines={"aliases": 3})
                for i in range(3)]

    record = aliases.plan_record(terms(lambda text: "".join(list(text))))  # fresh, not interned
    monkeypatch.setattr(aliases, "_last_plan", None)
    assert aliases.adopt_plan(terms(sys.intern), record) is not None


def test_a_held_plan_is_taken_without_its_key_only_inside_its_block_and_for_the_same_terms(monkeypatch):
    from site_builder.load.content import Term

    terms = [Term(slug=f"t{i}", title=f"T {i}", summary="", body="", path=f"terms/t{i}.md", body_line=4,
                  aliases=[f"Alias {i}"], field_lines={"aliases": 3}) for i in range(3)]
    record = aliases.plan_record(terms)
    monkeypatch.setattr(aliases, "_last_plan", None)
    keys = []
    real_key = aliases.plan_key
    monkeypatch.setattr(aliases, "plan_key", lambda terms: keys.append(len(terms)) or real_key(terms))
    with aliases.held_plan(terms, record) as plan:
        assert plan == aliases._plan(terms)
        assert aliases.plan_redirects(list(terms)) == plan and len(keys) == 1  # the same objects: no key
        copies = [replace(t) for t in terms]  # equal, but other objects: keyed (and the same plan)
        assert aliases.plan_redirects(copies) == plan and len(keys) == 2
    terms[0].aliases = ["Alias 9"]  # after the block: a change is seen
    assert aliases.plan_redirects(terms) == aliases._plan(terms) and len(keys) == 3
    assert [r.source for r in aliases.plan_redirects(terms)[0]][0] == "alias-1"
    with aliases.held_plan(terms, record) as plan:  # the record no longer fits: nothing held
        assert plan is None and aliases._held is None
