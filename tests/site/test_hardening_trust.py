"""Smaller trust holes (issue 17, part 4), each checked through real builds.

1. A control character written as an escape (YAML ``"\\0"``, ``"\\x07"``, TOML
   ``"\\u0000"``) is an error at its key's line, in every string of the front
   matter and of ``site.toml``, lists and mappings included.
2. A repeated ``related`` slug or alias is a warning (an error with
   ``--strict``) and listed once.
3. A refused link is reported at the line its destination is written on,
   whatever the markdown construct around it.

Every case asserts the exact ``path:line: message`` lines, the exit status,
and that a failed build leaves the previous output/ byte for byte.
"""

from __future__ import annotations

import contextlib
import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import site_builder
from site_builder.cli import main

from helpers import manifest, write_tree

PACKAGE_ROOT = Path(site_builder.__file__).resolve().parent.parent
GOOD = "---\ntitle: Good\nsummary: A valid term.\n---\nA body.\n"
CONFIG = "previews = false\n"
CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]
"""Every character refused: C0 but tab and line feed, DEL, C1."""
PROBLEM_RE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<message>.*)$")


# --- running a build ---------------------------------------------------------------

_template: Path | None = None


def _good_site() -> Path:
    """A content folder with a good site built from it, made once and copied per case."""
    global _template
    if _template is None:
        root = Path(tempfile.mkdtemp(prefix="trust-template-"))
        write_tree(root / "content", {"site.toml": CONFIG, "terms/good.md": GOOD})
        status, err = _run(root, [])
        assert status == 0, err
        _template = root
    return _template


def _run(root: Path, extra: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = main(["build", "--quiet", "--content", str(root / "content"),
                       "--output", str(root / "output"), *extra])
    return status, err.getvalue()


def build(tmp_path: Path, terms: dict[str, str], config: str = CONFIG, *extra: str,
          cli: bool = False) -> tuple[int, set[tuple[str, int, str]], Path]:
    """Replace the good site's terms (and site.toml), build, and return the exit
    status, the problems as (file name, line, message) and the output folder.
    A failed build must leave the previous output/ exactly as it was."""
    shutil.copytree(_good_site(), tmp_path, dirs_exist_ok=True)
    before = manifest(tmp_path / "output")
    shutil.rmtree(tmp_path / "content" / "terms")
    write_tree(tmp_path / "content", {"site.toml": config, **{f"terms/{n}": t for n, t in terms.items()}})
    if cli:
        result = subprocess.run([sys.executable, "-m", "site_builder", "build", "--quiet", "--content", "content",
                                 "--output", "output", *extra], cwd=tmp_path, capture_output=True, text=True,
                                env={"PYTHONPATH": str(PACKAGE_ROOT), "PATH": "/usr/bin:/bin"}, timeout=60)
        status, err = result.returncode, result.stderr
    else:
        status, err = _run(tmp_path, list(extra))
    assert "Traceback" not in err, err
    problems = set()
    for line in err.splitlines():
        if line.startswith("error: ") and status == 1:
            continue  # the closing summary
        match = PROBLEM_RE.match(line)
        assert match, f"not path:line: message: {line!r}"
        problems.add((Path(match["path"]).name, int(match["line"]), match["message"]))
    if status != 0:
        assert status == 1, err
        assert manifest(tmp_path / "output") == before, "a failed build changed output/"
    return status, problems, tmp_path / "output"


def term(*front: str, body: str = "Body.\n") -> str:
    return "---\n" + "".join(line + "\n" for line in front) + "---\n" + body


def controlled(code: int) -> str:
    return f"U+{code:04X}, which no page can show; remove it"


# --- 1. control characters from escapes ----------------------------------------------

FIELDS = {
    # field as written, with {e} for the escape -> (line of the key, where the message puts it)
    "title": (['title: "Gam{e}ma"', "summary: S."], 2, "'title'"),
    "summary": (["title: T", 'summary: "a{e}b"'], 3, "'summary'"),
    "aliases, flow list": (["title: T", "summary: S.", 'aliases: [fine, "x{e}y"]'], 4, "'aliases' entry 2"),
    "aliases, block list": (["title: T", "summary: S.", "aliases:", "  - fine", '  - "x{e}y"'], 4, "'aliases' entry 2"),
    "aliases, one string": (["title: T", "summary: S.", 'aliases: "x{e}y"'], 4, "'aliases'"),
    "related, flow list": (["title: T", "summary: S.", 'related: [good, "go{e}od"]'], 4, "'related' entry 2"),
    "related, block list": (["title: T", "summary: S.", "related:", '  - "{e}good"'], 4, "'related' entry 1"),
    "explainer": (["title: T", "summary: S.", 'explainer: "speculative-decoding{e}"'], 4, "'explainer'"),
    "unknown key, nested lists": (["title: T", "summary: S.", 'notes: [[a, "b{e}"]]'], 4, "'notes' entry 1 entry 2"),
    "unknown key, mapping value": (["title: T", "summary: S.", 'notes: {{k: "v{e}"}}'], 4, "'notes' key 'k'"),
}


@pytest.mark.parametrize("field", list(FIELDS))
def test_every_control_character_from_a_yaml_escape_is_refused(tmp_path, field):
    """One build per field, one term per refused character: each is an error at the key's line."""
    lines, line, where = FIELDS[field]
    # each its own title: a term with an error is still checked across terms (issue 38)
    terms = {f"c{code:02x}.md": term(*(part.format(e=f"\\x{code:02x}").replace("title: T", f"title: T{code:02x}")
                                       for part in lines)) for code in CONTROLS}
    status, problems, _ = build(tmp_path, {"good.md": GOOD, **terms})
    assert status == 1
    expected = {(f"c{code:02x}.md", line, f"{where} contains the control character {controlled(code)}") for code in CONTROLS}
    if field.startswith("unknown key"):
        expected |= {(name, 4, "warning: unknown front matter key 'notes' (known: title, summary, aliases, related, explainer, preview_image)")
                     for name in terms}
    assert problems == expected


YAML_SPELLINGS = {  # every way YAML writes a control character in a double-quoted string
    "\\0": 0x00, "\\a": 0x07, "\\b": 0x08, "\\v": 0x0B, "\\f": 0x0C, "\\r": 0x0D, "\\e": 0x1B, "\\N": 0x85,
    "\\x01": 0x01, "\\u0002": 0x02, "\\U00000003": 0x03, "\\x7f": 0x7F, "\\u009f": 0x9F, "\\x7F": 0x7F,
}


def test_every_yaml_spelling_of_a_control_character_is_refused(tmp_path):
    names = {f"s{index}.md": spelling for index, spelling in enumerate(YAML_SPELLINGS)}
    terms = {name: term(f'title: "Gam{spelling}ma"', f'summary: "x{spelling}"') for name, spelling in names.items()}
    status, problems, _ = build(tmp_path, {"good.md": GOOD, **terms})
    assert status == 1
    assert problems == {item for name, spelling in names.items() for item in (
        (name, 2, f"'title' contains the control character {controlled(YAML_SPELLINGS[spelling])}"),
        (name, 3, f"'summary' contains the control character {controlled(YAML_SPELLINGS[spelling])}"))}


def test_the_key_itself_and_several_fields_in_one_file(tmp_path):
    text = term('title: "A\\0"', 'summary: "B\\x1b[31m"', 'aliases: ["C\\a"]', 'related: ["D\\b"]', '"ke\\x00y": v')
    status, problems, _ = build(tmp_path, {"good.md": GOOD, "bad.md": text})
    assert status == 1
    assert problems == {
        ("bad.md", 2, f"'title' contains the control character {controlled(0)}"),
        ("bad.md", 3, f"'summary' contains the control character {controlled(0x1B)}"),
        ("bad.md", 4, f"'aliases' entry 1 contains the control character {controlled(0x07)}"),
        ("bad.md", 5, f"'related' entry 1 contains the control character {controlled(0x08)}"),
        # At the quoted key's own line (read from PyYAML's nodes since issue 31; it was line 2).
        ("bad.md", 6, f"front matter key 'ke\\x00y' contains the control character {controlled(0)}"),
        ("bad.md", 6, "warning: unknown front matter key 'ke\\x00y' (known: title, summary, aliases, related, explainer, preview_image)"),
    }


def test_tab_and_line_feed_escapes_stay_legitimate(tmp_path):
    """They are whitespace: collapsed to one space like any other, never refused."""
    status, problems, output = build(tmp_path, {"good.md": GOOD, "gamma.md": term('title: "Gam\\tma"', 'summary: "one\\ntwo"')})
    assert (status, problems) == (0, set())
    page = (output / "gamma" / "index.html").read_text()
    assert "<h1>Gam ma</h1>" in page.replace('<h1 class="term-title">', "<h1>") or ">Gam ma</h1>" in page
    assert "one two" in page


def test_no_control_character_reaches_a_page_through_the_cli(tmp_path):
    status, problems, _ = build(tmp_path, {"good.md": GOOD, "gamma.md": term('title: "Gam\\0ma"', "summary: S.")}, cli=True)
    assert (status, problems) == (1, {("gamma.md", 2, f"'title' contains the control character {controlled(0)}")})


def _site_toml(escape: str) -> str:
    return (f'previews = false\ntitle = "Site{escape}"\ndescription = """two\nlines{escape}"""\nfooter = "{escape}"\n'
            f'language = "en{escape}"\nbase_url = "https://example.org/{escape}"\nnotes = ["x", ["{escape}"]]\n'
            f'[extra]\nkey = "{escape}"\n')


TOML_LINES = [(2, "'title'"), (3, "'description'"), (5, "'footer'"), (6, "'language'"), (7, "'base_url'"),
              (8, "'notes' entry 2 entry 1"), (9, "'extra' key 'key'")]


@pytest.mark.parametrize("code", CONTROLS, ids=lambda code: f"U+{code:04X}")
def test_every_control_character_from_a_toml_escape_is_refused(tmp_path, code):
    status, problems, _ = build(tmp_path, {"good.md": GOOD}, _site_toml(f"\\u{code:04x}"))
    assert status == 1
    assert problems == {("site.toml", line, f"{where} contains the control character {controlled(code)}")
                        for line, where in TOML_LINES}


@pytest.mark.parametrize("spelling,code", [("\\b", 0x08), ("\\f", 0x0C), ("\\r", 0x0D), ("\\e", 0x1B), ("\u0085", 0x85),
                                           ("\u009b", 0x9B), ("\\U0000007f", 0x7F)])
def test_other_toml_spellings_and_raw_c1_characters(tmp_path, spelling, code):
    """TOML refuses C0 and DEL written raw, but takes C1 characters as they are."""
    status, problems, _ = build(tmp_path, {"good.md": GOOD}, f'previews = false\ntitle = "Site{spelling}"\n')
    if spelling == "\\e":  # not a TOML 1.0 escape: tomllib refuses it
        assert status == 1 and {(p[0], p[1]) for p in problems} == {("site.toml", 2)}
        return
    assert (status, problems) == (1, {("site.toml", 2, f"'title' contains the control character {controlled(code)}")})


@pytest.mark.parametrize("key,value,what", [
    ("base_url", "https://example.org/\\nDisallow: /", "0x0A one URL"),
    ("base_url", "https://example.org/ x/", "0x20 one URL"),
    ("language", "en\\tGB", "0x09 one language tag"),
])
def test_one_word_settings_refuse_whitespace(tmp_path, key, value, what):
    """A line break in base_url would write a line of its own into robots.txt."""
    code, kind = what.split(" ", 1)
    status, problems, _ = build(tmp_path, {"good.md": GOOD}, f'previews = false\n{key} = "{value}"\n')
    assert (status, problems) == (1, {("site.toml", 2, f"{key!r} contains whitespace (U+{int(code, 16):04X}); "
                                                       f"it is {kind}, without spaces or line breaks")})


# --- 2. repeated related entries and aliases --------------------------------------

ALPHA = "---\ntitle: Alpha\nsummary: The first.\n---\nA body.\n"
REPEATS = {
    "related twice": (['related: [alpha, alpha]'], {(4, "'related' lists 'alpha' twice; the repeat is ignored")}),
    "related, block list": (["related:", "  - alpha", "  - good", "  - alpha"],
                            {(4, "'related' lists 'alpha' twice; the repeat is ignored")}),
    "related, spaces around": (['related: [alpha, " alpha "]'], {(4, "'related' lists 'alpha' twice; the repeat is ignored")}),
    "related, quoted and plain": (["related: [alpha, 'alpha', \"alpha\"]"],
                                  {(4, "'related' lists 'alpha' twice; the repeat is ignored")}),
    "aliases twice": (["aliases: [first, first]"], {(4, "'aliases' lists 'first' twice; the repeat is ignored")}),
    "aliases, case": (["aliases: [First one, FIRST ONE]"],
                      {(4, "'aliases' lists 'First one' and 'FIRST ONE', the same name; the repeat is ignored")}),
    "aliases, hyphen and underscore": (["aliases: [first-one, first_one, first one]"], {
        (4, "'aliases' lists 'first-one' and 'first_one', the same name; the repeat is ignored"),
        (4, "'aliases' lists 'first-one' and 'first one', the same name; the repeat is ignored")}),
    "alias is the title": (["aliases: [the term, THE-TERM]"], {
        (4, "alias 'the term' is the term's own title; it is ignored"),
        (4, "alias 'THE-TERM' is the term's own title; it is ignored")}),
}


@pytest.mark.parametrize("name", list(REPEATS))
def test_a_repeat_is_a_warning_and_listed_once(tmp_path, name):
    lines, expected = REPEATS[name]
    text = term("title: The Term", "summary: S.", *lines)
    status, problems, output = build(tmp_path, {"good.md": GOOD, "alpha.md": ALPHA, "the-term.md": text})
    assert (status, problems) == (0, {("the-term.md", line, f"warning: {message}") for line, message in expected})
    page = (output / "the-term" / "index.html").read_text()
    if name.startswith("related"):
        related = page[page.index('id="related-terms"'):]
        assert related.count('data-term="alpha"') == 1, related
    else:
        assert page.count("THE-TERM") + page.count("FIRST ONE") + page.count("first_one") == 0


@pytest.mark.parametrize("name", ["related twice", "aliases, case", "alias is the title"])
def test_a_repeat_fails_a_strict_build(tmp_path, name):
    lines, expected = REPEATS[name]
    text = term("title: The Term", "summary: S.", *lines)
    status, problems, _ = build(tmp_path, {"good.md": GOOD, "alpha.md": ALPHA, "the-term.md": text}, CONFIG, "--strict",
                                cli=name == "related twice")
    assert (status, problems) == (1, {("the-term.md", line, f"warning: {message}") for line, message in expected})


def test_related_takes_slugs_not_names(tmp_path):
    """A title, another case or an alias in related is an unknown slug (an error), not a repeat."""
    alpha = "---\ntitle: Alpha\nsummary: The first.\naliases: [first]\n---\nA body.\n"
    text = term("title: The Term", "summary: S.", "related: [alpha, Alpha, first]")
    status, problems, _ = build(tmp_path, {"good.md": GOOD, "alpha.md": alpha, "the-term.md": text})
    assert (status, problems) == (1, {("the-term.md", 4, "related entry 'Alpha' is not a known term slug"),
                                      ("the-term.md", 4, "related entry 'first' is not a known term slug")})


# --- 3. refused links at their own line -----------------------------------------------

SCHEME = "link with unsupported scheme: "
LINKS = {
    # body lines (the body starts at line 5) -> {(line, message)}
    "inline, mid-paragraph": (["Some prose", "goes on", "[a](javascript:alert(1)) here."], {(7, SCHEME + "javascript:alert(1)")}),
    "escaped parentheses": (["Prose", "[a](javascript:alert\\(1\\))"], {(6, SCHEME + "javascript:alert(1)")}),
    "angle brackets and a title": (["Prose", "", "[a](<javascript:alert(2)> \"t\")"], {(7, SCHEME + "javascript:alert(2)")}),
    "upper case, vbscript, file": (["x", "[a](JavaScript:x)", "[b](vbscript:msgbox)", "[c](file:///etc/passwd)"],
                                   {(6, SCHEME + "JavaScript:x"), (7, SCHEME + "vbscript:msgbox"),
                                    (8, SCHEME + "file:///etc/passwd")}),
    "same link twice": (["[a](javascript:x)", "", "text", "", "more", "", "[b](javascript:x)"],
                        {(5, SCHEME + "javascript:x"), (11, SCHEME + "javascript:x")}),
    "text spanning lines": (["[a link", "whose text", "spans lines](javascript:alert(3))"], {(7, SCHEME + "javascript:alert(3)")}),
    "destination on the next line": (["text [a](", "javascript:alert(4))"], {(6, SCHEME + "javascript:alert(4)")}),
    "reference definition": (["[r][ref1] and [again][ref1]", "", "more", "", "[ref1]: javascript:alert(5)"],
                             {(9, SCHEME + "javascript:alert(5)")}),
    "reference definition, destination below": (["[r][ref2]", "", "[ref2]:", "    javascript:alert(6)"],
                                                {(8, SCHEME + "javascript:alert(6)")}),
    "reference definition in a blockquote": (["[r][ref3]", "", "> quoted", "> [ref3]: javascript:alert(7)"],
                                             {(8, SCHEME + "javascript:alert(7)")}),
    "footnote body": (["See[^1] and", "more.", "", "[^1]: a note with", "    [a](javascript:alert(8)) in it"],
                      {(9, SCHEME + "javascript:alert(8)")}),
    "table cell": (["| a | b |", "|---|---|", "| 1 | 2 |", "| 3 | [x](javascript:alert(9)) |"],
                   {(8, SCHEME + "javascript:alert(9)")}),
    "blockquote": (["> a quote", "> that goes on", "> with [q](javascript:alert(10))"], {(7, SCHEME + "javascript:alert(10)")}),
    "nested list item": (["- one", "- two", "    - deeper", "    - [l](javascript:alert(11))"],
                         {(8, SCHEME + "javascript:alert(11)")}),
    "attribute list on a link": (["text", "[z](good.md){: href=\"javascript:alert(12)\" }"],
                                 {(6, SCHEME + "javascript:alert(12)")}),
    "attribute list on a paragraph": (["para", "graph", '{: onclick="evil()" }'],
                                      {(7, "attribute onclick='evil()' is not allowed: scripts and inline styles are not allowed in markdown")}),
    "the same attribute twice": (["one", '{: onclick="x()" }', "", 'onclick="x()" in prose', "", "two",
                                  '{: .c onclick="x()" }'], {
        (6, "attribute onclick='x()' is not allowed: scripts and inline styles are not allowed in markdown"),
        (11, "attribute onclick='x()' is not allowed: scripts and inline styles are not allowed in markdown")}),
    "attribute lists that take effect, after text that does not": ([
        'a {: onclick="y()" } stays text', "", "## Heading {: onclick=\"y()\" }", "", "*em*{: onclick='y()' } text", "",
        "| a | b |", "|---|---|", '| c {: onclick="y()" } | d |'], {
        (7, "attribute onclick='y()' is not allowed: scripts and inline styles are not allowed in markdown"),
        (9, "attribute onclick='y()' is not allowed: scripts and inline styles are not allowed in markdown"),
        (13, "attribute onclick='y()' is not allowed: scripts and inline styles are not allowed in markdown")}),
    "character reference in an attribute": (["para", '{: cite="&#106;avascript:alert(13)" }'],
                                            {(6, "attribute cite='&#106;avascript:alert(13)' is not allowed: attribute lists may set only class, dir, id, "
                                                  "lang, title on <p>")}),
    "character reference in a link": (["text", "[a](&#106;avascript:alert(15))"],
                                       {(6, SCHEME + "&#106;avascript:alert(15)")}),
    "image": (["text", "", "![pic](javascript:alert(14))"],
              {(7, "attribute src='javascript:alert(14)' is not allowed: the scheme 'javascript:' is not allowed "
                   "(only http, https, mailto, tel, ftp or a relative URL)")}),
    "after code holding the same text": (["`[a](javascript:x)` in code", "", "```", "[a](javascript:x)", "```", "",
                                          "[a](javascript:x)"], {(11, SCHEME + "javascript:x")}),
    "not a term, and an unknown term": (["x", "[a](../../etc/passwd)", "[b](nope.md)"], {
        (6, "link to a file that is not a term (links go to other terms as slug.md, or to external URLs): ../../etc/passwd"),
        (7, "link to unknown term 'nope': nope.md")}),
}


@pytest.mark.parametrize("name", list(LINKS))
def test_a_refused_link_names_its_own_line(tmp_path, name):
    body, expected = LINKS[name]
    status, problems, _ = build(tmp_path, {"good.md": GOOD, "links.md": term("title: Links", "summary: S.", body="\n".join(body) + "\n")})
    assert (status, problems) == (1, {("links.md", line, message) for line, message in expected})


def test_every_construct_at_once_through_the_cli(tmp_path):
    """All the cases above in one file, each at its own line, shifted down as one."""
    lines, expected = [], set()
    for body, found in LINKS.values():
        shift = len(lines)
        lines += [*body, "", "<!-- -->", ""]  # a separator that ends every block
        expected |= {(line + shift, message) for line, message in found}
    text = term("title: Links", "summary: S.", body="\n".join(lines) + "\n")
    status, problems, _ = build(tmp_path, {"good.md": GOOD, "links.md": text}, cli=True)
    assert (status, problems) == (1, {("links.md", line, message) for line, message in expected})


def test_a_missing_anchor_written_twice_is_reported_at_both_lines(tmp_path):
    body = "[a](good.md#nowhere)\n\ntext\n\n[b](good.md#nowhere)\n"
    status, problems, _ = build(tmp_path, {"good.md": GOOD, "links.md": term("title: Links", "summary: S.", body=body)})
    assert (status, problems) == (1, {("links.md", 5, "link to missing anchor '#nowhere' in 'good'"),
                                      ("links.md", 9, "link to missing anchor '#nowhere' in 'good'")})


def test_a_script_url_in_angle_brackets_is_not_a_link(tmp_path):
    """Only http(s), ftp and e-mail addresses are autolinks: ``<javascript:...>`` stays text."""
    status, problems, output = build(tmp_path, {"good.md": GOOD, "links.md": term("title: Links", "summary: S.",
                                                                                   body="x <javascript:alert(1)> y\n")})
    assert (status, problems) == (0, set())
    page = (output / "links" / "index.html").read_text()
    assert "&lt;javascript:alert(1)&gt;" in page and 'href="javascript' not in page


def test_a_control_character_under_billion_laughs_anchors_is_found_at_once(tmp_path):
    """Anchors share one list 9^10 times over: each is looked at once, not expanded."""
    anchors = ['a0: &a0 ["\\0", x, x, x, x, x, x, x, x]'] + [
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    status, problems, _ = build(tmp_path, {"good.md": GOOD, "bad.md": term("title: T", "summary: S.", *anchors)})
    assert status == 1
    expected = {("bad.md", 4 + i, f"'a{i}'" + " entry 1" * (i + 1) + f" contains the control character {controlled(0)}")
                for i in range(10)}
    assert {p for p in problems if "control" in p[2]} == expected


def test_an_e_mail_autolink_is_a_link_not_a_problem(tmp_path):
    """Its href is "mailto:..." written as character references: read as the browser reads it."""
    body = "Write to <someone@example.org>, or [me](mailto:me@example.org).\n"
    status, problems, output = build(tmp_path, {"good.md": GOOD, "mail.md": term("title: Mail", "summary: S.", body=body)})
    assert (status, problems) == (0, set())
    assert "&#109;&#97;&#105;&#108;&#116;&#111;&#58;" in (output / "mail" / "index.html").read_text()
