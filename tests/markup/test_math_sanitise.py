"""Maths is inert whatever the formula: the MathML the build writes is sanitised
by construction (site_builder/markup/mathml.py), not by latex2mathml.

Each output is parsed as a browser would parse it inside a page (html5lib) and
walked: every element is presentation MathML from the allowlist, no attribute
is an event handler, ``href``, ``style``, ``class`` or ``id``, and a hostile
payload in a text command reads back exactly, as text. The text-like commands
are taken from latex2mathml itself, so a command it learns later is covered.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys

import html5lib
import latex2mathml.commands as commands
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import term, write_tree
from math_payloads import MATH_MODE_ARGUMENTS, PAYLOADS, TEXT_COMMANDS, formula
from site_builder.markup.mathml import ATTRIBUTES, ELEMENTS, ENVIRONMENTS, LatexError, latex_to_mathml

MATHML = "http://www.w3.org/1998/Math/MathML"
XHTML = "http://www.w3.org/1999/xhtml"
XMLNS_ATTRIBUTE = "{http://www.w3.org/2000/xmlns/}xmlns"


def parse(mathml: str):
    """The <math> element as a browser's HTML parser builds it inside a page."""
    document = html5lib.parse(f"<!doctype html><p>{mathml}</p>", namespaceHTMLElements=True)
    paragraph = document.find(f".//{{{XHTML}}}p")
    children = list(paragraph)
    assert [child.tag for child in children] == [f"{{{MATHML}}}math"], "the formula left its <math> element"
    return children[0]


def assert_inert(mathml: str) -> str:
    """Check the parsed formula holds only allowlisted MathML; return its text."""
    math = parse(mathml)
    for element in math.iter():
        namespace, _, name = element.tag.partition("}")
        assert namespace == "{" + MATHML, f"non-MathML element {element.tag} in {mathml}"
        assert name in ELEMENTS, f"<{name}> is not on the allowlist"
        for attribute in element.attrib:
            root_only = attribute in ("alttext", "display", XMLNS_ATTRIBUTE) and element is math
            assert attribute in ATTRIBUTES or root_only, f"attribute {attribute} on <{name}>"
            assert not attribute.lower().startswith("on")
    return "".join(math.itertext())


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("command", TEXT_COMMANDS)
def test_text_commands_write_their_argument_as_text(command, payload):
    mathml = latex_to_mathml(formula(command, payload), display=False)
    text = assert_inert(mathml).replace("\xa0", " ")
    # Read back as text: exactly, but character references decoded (as in any
    # HTML text) and, where a command reads its argument as maths (\\emph),
    # without the spaces maths drops; \\tag adds parentheses.
    expected = html.unescape(payload) if "&#" in payload else payload
    if command in MATH_MODE_ARGUMENTS:
        # (and an apostrophe there is a prime, written ^ in latex2mathml's text)
        expected, text = expected.replace(" ", "").replace("'", "^"), text.replace(" ", "")
    assert expected in text
    for closing in ("</mtext></math>", "<img", "<script"):
        if closing in payload:
            assert closing not in mathml  # escaped, not merely moved


def test_text_commands_cover_what_the_issue_names():
    assert {"\\text", "\\textbf", "\\hbox", "\\mbox", "\\verb", "\\fbox"} <= set(TEXT_COMMANDS)


@pytest.mark.parametrize("display", [False, True])
def test_a_less_than_sign_in_text_still_reads_as_one(display):
    text = assert_inert(latex_to_mathml(r"\text{a < b}", display=display))
    assert text.replace("\xa0", " ") == "a < b"


LINK_AND_STYLE = [
    (r"\href{javascript:alert(1)}{x}", r"\href"),
    (r"\href{https://example.org}{x}", r"\href"),
    (r"\href{data:text/html,<script>alert(1)</script>}{x}", r"\href"),
    (r"\style{color:red}{x}", r"\style"),
    (r"\style{background:url(javascript:alert(1))}{x}", r"\style"),
    (r"\class{evil}{x}", r"\class"),
    (r"\newcommand{\h}{\href{javascript:alert(1)}{x}}\h", r"\href"),
    (r"\def\s{\style{color:red}{y}}\s", r"\style"),
    (r"x + \text{a} \href{javascript:1}{\text{<b>}}", r"\href"),
]


@pytest.mark.parametrize("source, command", LINK_AND_STYLE)
def test_link_and_style_commands_are_errors_naming_the_command(source, command):
    with pytest.raises(LatexError) as raised:
        latex_to_mathml(source, display=False)
    assert str(raised.value).startswith(f"{command} is not allowed in maths")


@pytest.mark.parametrize("source", [
    r"\color{red\" onmouseover=\"alert(1)}{x}",
    r"\color{url(javascript:alert(1))}{x}",
    r"\colorbox{red;background:url(x)}{y}",
])
def test_attribute_values_from_the_formula_must_look_like_lengths_or_colours(source):
    with pytest.raises(LatexError, match="invalid value"):
        latex_to_mathml(source, display=False)


@pytest.mark.parametrize("source", [r"\hspace{1em\" onload=\"x}", r"\rule{1em}{2em\"><img src=x>}", r"\kern{1em<x>}"])
def test_lengths_keep_only_what_is_a_length(source):
    try:
        mathml = latex_to_mathml(source, display=False)
    except LatexError:
        return
    assert_inert(mathml)
    body = mathml.split(">", 1)[1]  # after <math ... alttext="the source">
    assert "onload" not in body and "<img" not in body


def test_colours_and_lengths_still_work():
    mathml = latex_to_mathml(r"\color{#c00}{x} \colorbox{yellow}{y} \hspace{2em} \raise{1em}{z}", display=True)
    assert_inert(mathml)
    assert 'mathcolor="#c00"' in mathml and 'mathbackground="yellow"' in mathml and 'width="2em"' in mathml


def _sample_sources(name: str) -> list[str]:
    return [name + args for args in ("", "{x}", "{a}{b}", "{red}{x}", "{2em}", "[2]{x}", " x", "{a}{b}{c}", "{3}{\\hat x}")] + [
        f"\\begin{{{name[1:]}}}a&b\\\\c&d\\end{{{name[1:]}}}",
        # Infix and table commands (unknown environments are errors since issue 31):
        f"{{a {name} b}}", f"{{a {name}{{2pt}} b}}", f"{{a {name}(){{2pt}} b}}",
        f"\\begin{{array}}{{cc}}{name} a&b\\\\c&d\\end{{array}}",
        f"\\begin{{matrix}}a&b{name} c&d\\end{{matrix}}", f"{name}{{(}}{{)}}{{0pt}}{{1}}{{a}}{{b}}",
        "\\begin{matrix}a\\end{matrix}" if name in ("\\begin", "\\end") else name,
        *(sample for sample in _WHOLE_SAMPLES if re.search(re.escape(name) + "(?![A-Za-z])", sample))]


_WHOLE_SAMPLES = ("\\left( a \\middle| b \\right)", "\\sum\\nolimits_a b", "\\root 3 \\of x",
                  "\\genfrac(){0pt}{1}{a}{b}")
"""Commands that only convert in a whole construct; each is a sample only for the commands it names."""


KNOWN_COMMANDS = sorted({value for value in vars(commands).values() if isinstance(value, str) and value.startswith("\\")})


@pytest.mark.parametrize("name", KNOWN_COMMANDS)
def test_every_command_latex2mathml_knows_gives_inert_maths_or_an_error(name):
    converted = 0
    for source in _sample_sources(name):
        try:
            mathml = latex_to_mathml(source, display=False)
        except LatexError:
            continue
        assert_inert(mathml)
        converted += 1
    if name not in (r"\href", r"\style", r"\class"):
        assert converted, f"{name}: no sample converted"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>&\"'=/!-[]a;#x1 ")), max_size=40))
def test_any_text_argument_stays_text(payload):
    try:
        mathml = latex_to_mathml(f"\\text{{{payload}}}", display=False)
    except LatexError:
        return
    assert_inert(mathml)


def test_the_build_reports_a_link_in_maths_at_its_line(tmp_path):
    body = "First line.\n\nSecond paragraph with $\\href{javascript:alert(1)}{x}$ inside.\n"
    content = write_tree(tmp_path / "content", {"terms/evil.md": term("Evil", "A hostile term.", body)})
    result = subprocess.run([sys.executable, "-m", "site_builder", "build", "--content", str(content),
                             "--output", str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    line = 4 + body.splitlines().index("Second paragraph with $\\href{javascript:alert(1)}{x}$ inside.") + 1
    assert f"evil.md:{line}: \\href is not allowed in maths: it makes a link" in result.stderr + result.stdout
    assert not (tmp_path / "out").exists()


# --- lookalikes, environments, column specs, sizes (issue 31) ------------------------------

@pytest.mark.parametrize("source,char", [
    ("\\\u04bbref{https://x.example}{y}", "\u04bb"),  # Cyrillic shha, looks like h
    ("\\\u0441lass{x}{y}", "\u0441"),  # Cyrillic es, looks like c
    ("a + \\\uff53tyle{color:red}{b}", "\uff53"),  # fullwidth s
    ("\\\u00e9", "\u00e9"),
])
def test_a_command_spelled_with_a_lookalike_is_an_error(source, char):
    with pytest.raises(LatexError, match=f"U\\+{ord(char):04X}"):
        latex_to_mathml(source, display=False)


@pytest.mark.parametrize("name", ["script", "style", "aligned", "foo", "array*", " pmatrix"])
def test_an_unknown_environment_is_an_error(name):
    with pytest.raises(LatexError, match="unknown environment"):
        latex_to_mathml(f"\\begin{{{name}}} a & b \\end{{{name}}}", display=True)


@pytest.mark.parametrize("name", sorted(ENVIRONMENTS))
def test_known_environments_still_draw_tables(name):
    spec = "{cc}" if name == "array" else ""
    assert "<mtable" in latex_to_mathml(f"\\begin{{{name}}}{spec} a & b \\\\ c & d \\end{{{name}}}", display=True)


@pytest.mark.parametrize("spec", ["l@{}c", "*{3}{r}", "p{2cm}", "<script>", "c{c}", "", "x"])
def test_junk_array_column_specs_are_errors(spec):
    with pytest.raises(LatexError, match="array column spec"):
        latex_to_mathml(f"\\begin{{array}}{{{spec}}} a \\end{{array}}", display=True)


def test_sane_array_column_specs_work():
    assert 'columnlines="solid"' in latex_to_mathml("\\begin{array}{c|c} a & b \\end{array}", display=True)
    assert "<mtable" in latex_to_mathml("\\begin{array}{ l c r } a & b & c \\end{array}", display=True)


@pytest.mark.parametrize("source,attribute,value", [
    ("\\kern{-9999em} x", "width", "-1em"),
    ("\\hspace{-999em} x", "width", "-1em"),
    ("\\mkern-900mu x", "width", "-1em"),
    ("\\mspace{-999mu} x", "width", "-1em"),
    ("\\hskip -99em x", "width", "-1em"),
    ("\\kern{9999em} x", "width", "50em"),
    ("\\rule{999em}{999em}", "height", "3em"),
    ("\\rule{999em}{999em}", "width", "50em"),
    ("\\kern{-99cm} x", "width", "-1em"),
])
def test_kerns_and_spaces_cannot_draw_over_the_text_around(source, attribute, value):
    assert f'{attribute}="{value}"' in latex_to_mathml(source, display=False)


@pytest.mark.parametrize("source,written", [
    ("\\kern{-0.5em} x", 'width="-0.5em"'), ("\\, x", 'width="0.167em"'), ("\\quad x", 'width="1em"'),
    ("\\hspace{2cm} x", 'width="2cm"'), ("\\mkern-9mu x", 'width="-9mu"'),
])
def test_ordinary_kerns_and_spaces_are_kept_as_written(source, written):
    assert written in latex_to_mathml(source, display=False)
