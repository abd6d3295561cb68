"""Load stage: front matter parsing and per-file problems."""

from pathlib import Path

from site_builder.load.content import find_term_files, load_terms, read_term
from site_builder.load.front_matter import split_front_matter

from helpers import term, write_tree


def test_reads_fields_and_body_line(tmp_path: Path):
    write_tree(tmp_path, {"terms/x-y.md": term("X Y", "A  summary\n  folded.", "Body\n", aliases=["xy"], related=["z"])})
    terms, problems = load_terms(tmp_path)
    assert problems == []
    (t,) = terms
    assert (t.slug, t.title, t.summary, t.aliases, t.related) == ("x-y", "X Y", "A summary folded.", ["xy"], ["z"])
    assert t.body == "Body\n"
    assert t.body_line == 8  # ---, title, summary (two lines), aliases, related, ---, then the body


def test_unknown_key_is_a_warning_with_its_line(tmp_path: Path):
    write_tree(tmp_path, {"terms/a.md": "---\ntitle: A\nsumary: typo\nsummary: S\n---\n"})
    terms, problems = load_terms(tmp_path)
    assert len(terms) == 1
    (problem,) = problems
    assert problem.severity == "warning" and problem.line == 3
    assert "did you mean 'summary'" in problem.message


def test_missing_title_and_summary(tmp_path: Path):
    write_tree(tmp_path, {"terms/a.md": "---\naliases: [x]\n---\nbody\n"})
    terms, problems = load_terms(tmp_path)
    # kept, flagged by its errors, so the later stages check its aliases and body too
    assert [(t.slug, t.title, t.summary, t.aliases) for t in terms] == [("a", "", "", ["x"])]
    assert sorted(p.message for p in problems) == ["missing required field 'summary'", "missing required field 'title'"]


def test_malformed_yaml_points_at_the_line(tmp_path: Path):
    write_tree(tmp_path, {"terms/a.md": "---\ntitle: A\nsummary: [unclosed\nrelated: x\n---\n"})
    _, problems = load_terms(tmp_path)
    (problem,) = problems
    assert problem.message.startswith("malformed YAML front matter")
    assert problem.line in (4, 5)


def test_not_utf8_names_the_line(tmp_path: Path):
    write_tree(tmp_path, {"terms/a.md": b"---\ntitle: A\nsummary: caf\xe9\n---\n"})
    _, problems = load_terms(tmp_path)
    (problem,) = problems
    assert problem.line == 3 and "not valid UTF-8" in problem.message


def test_bad_file_name_and_missing_front_matter(tmp_path: Path):
    write_tree(tmp_path, {"terms/Bad Name.md": term("A", "B"), "terms/plain.md": "no front matter\n"})
    _, problems = load_terms(tmp_path)
    messages = sorted(p.message for p in problems)
    assert any("not a valid slug" in m for m in messages)
    assert any("missing front matter" in m for m in messages)


def test_unclosed_front_matter():
    _, _, _, problem = split_front_matter("---\ntitle: x\n", "a.md")
    assert problem is not None and "not closed" in problem.message


def test_symlink_outside_content_is_refused(tmp_path: Path):
    outside = tmp_path / "secret.md"
    outside.write_text(term("Secret", "Outside."))
    content = tmp_path / "content"
    (content / "terms").mkdir(parents=True)
    (content / "terms" / "secret.md").symlink_to(outside)
    terms, problems = load_terms(content)
    assert terms == [] and "outside the content folder" in problems[0].message


def test_crlf_and_bom_are_accepted(tmp_path: Path):
    path = tmp_path / "a.md"
    path.write_bytes("\ufeff---\r\ntitle: A\r\nsummary: S\r\n---\r\nBody\r\n".encode())
    t, problems = read_term(path, "a.md")
    assert problems == [] and t.body == "Body\n"


def test_watcher_hints_match_a_relative_content_folder(tmp_path, monkeypatch):
    # serve passes the watcher's absolute paths; the folder may be given relative.
    write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "First.", "Old alpha.\n"),
        "terms/deeper/beta.md": term("Beta", "Second.", "Old beta.\n"),
    })
    monkeypatch.chdir(tmp_path)
    files, problems = find_term_files(Path("content"))
    assert problems == []
    assert [(f.shown, f.absolute) for f in files] == [
        ("content/terms/alpha.md", str(tmp_path / "content" / "terms" / "alpha.md")),
        ("content/terms/deeper/beta.md", str(tmp_path / "content" / "terms" / "deeper" / "beta.md"))]


def test_printable_names_shortcut_agrees_with_the_escaping_pattern():
    from site_builder.load.content import UNPRINTABLE_RE, _printable

    for code in range(0x110000):
        char = chr(code)
        escaped = UNPRINTABLE_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), char)
        assert _printable(char) == escaped, hex(code)


def test_content_path_through_a_symlink_and_dotdot_reads_the_folder_the_os_reaches(tmp_path, monkeypatch):
    # Regression (review): "sym/../content" is other/content when sym -> other/x,
    # not the ./content a textual normalisation would give.
    write_tree(tmp_path / "other" / "content", {"terms/real.md": term("Real", "The one.", "Real.\n")})
    (tmp_path / "other" / "x").mkdir()
    write_tree(tmp_path / "content", {"terms/lexical.md": term("Lexical", "Not this.", "No.\n")})
    (tmp_path / "sym").symlink_to(tmp_path / "other" / "x")
    monkeypatch.chdir(tmp_path)
    terms, problems = load_terms(Path("sym/../content"))
    assert [t.slug for t in terms] == ["real"] and not problems


def test_a_term_record_round_trips_field_by_field():
    from dataclasses import fields

    from site_builder.load.content import RECORD_FIELDS, Term

    # Every field a different value: a record in another order than the fields cannot round-trip.
    term = Term(slug="s", title="T", summary="S.", body="b", path="p.md", body_line=7, aliases=["a"],
                related=["r"], explainer="x", field_lines={"title": 2})
    record = term.to_record()
    assert Term.from_record(record) == term
    assert RECORD_FIELDS == tuple(f.name for f in fields(Term))
    assert dict(zip(RECORD_FIELDS, record)) == {f.name: getattr(term, f.name) for f in fields(Term)}


def test_front_matter_messages_are_worded_as_documented(tmp_path: Path):
    write_tree(tmp_path, {"terms/a.md": "---\ntitle: [A]\nsummary: S\nnotes: x\nsummary: T\n---\n"})
    _, problems = load_terms(tmp_path)
    assert sorted((p.line, p.message) for p in problems) == [
        (2, "'title' must be text, not a list"),
        (4, "unknown front matter key 'notes' (known: title, summary, aliases, related, explainer, preview_image)"),
        (5, "'summary' is given twice (first on line 3); YAML would keep only the last"),
    ]
