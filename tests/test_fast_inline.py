"""The fast inline treeprocessor: its short cuts can never change a byte of HTML.

Two kinds of checks: every necessary condition in ``TRIGGERS`` holds whenever
its regex finds a match (so the table cannot lie), and BodyRenderer renders
exactly what it would with Python-Markdown's own InlineProcessor, on the
synthetic corpus, the repo's content and generated markdown.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import markdown
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown import inlinepatterns
from markdown.treeprocessors import InlineProcessor

from site_builder.content import split_front_matter
from site_builder.markup import fast_inline
from site_builder.markup.fast_inline import TRIGGERS, FastInlineProcessor, trigger_for
from site_builder.markup.render import BodyRenderer
from site_builder.names import NameIndex

ROOT = Path(__file__).resolve().parent.parent
MAKE_CORPUS = Path(__file__).resolve().parents[1] / "benchmarks" / "make_corpus.py"

FUZZ = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@dataclass
class T:
    slug: str
    title: str
    aliases: list = field(default_factory=list)


# --- (a) the table of necessary conditions --------------------------------------

PUNCTUATION = "`\\[]()!<>&;#*_^:/@.-+=\"' \n\t\x02\x03"
RICH_TEXT = st.text(alphabet=st.sampled_from(list(PUNCTUATION) + list("aAxzZ0159")), max_size=40)
SNIPPETS = ["`code`", "``a ` b``", "\\\\`x`", "\\*", "\\\\", "[^1]", "[^]", "[x](y)", "[x][r]", "![a](b)",
            "<http://x.y/z>", "<a@b.c>", "a  \nb", "<b>", "</i>", "<!-- c -->", "<?pi?>",
            "<![CDATA[x]]>", "&amp;", "&#12;", "&#x1F;", "*x*", "**x**", "_x_", "__x__"]


def holds(trigger: tuple[tuple[str, ...], ...], data: str, start: int) -> bool:
    """The condition as FastInlineProcessor evaluates it."""
    return all(any(data.find(needle, start) >= 0 for needle in group) for group in trigger)


@pytest.mark.parametrize("source", sorted(TRIGGERS), ids=repr)
@FUZZ
@given(data=st.data())
def test_trigger_holds_whenever_the_regex_matches(source, data):
    compiled = re.compile(source, re.DOTALL | re.UNICODE)  # as inlinepatterns.InlineProcessor compiles it
    middle = data.draw(st.one_of(RICH_TEXT, st.sampled_from(SNIPPETS), st.from_regex(compiled)), label="middle")
    text = data.draw(RICH_TEXT, label="before") + middle + data.draw(RICH_TEXT, label="after")
    start = data.draw(st.integers(0, len(text)), label="start")
    # __applyPattern only calls handleMatch for what finditer(data, startIndex) yields.
    if next(compiled.finditer(text, start), None) is not None:
        assert holds(TRIGGERS[source], text, start)


@pytest.mark.parametrize("source", sorted(TRIGGERS), ids=repr)
def test_every_trigger_is_exercised(source):
    """The property above is not vacuous: each regex matches one of the snippets."""
    compiled = re.compile(source, re.DOTALL | re.UNICODE)
    assert any(compiled.search(snippet) for snippet in SNIPPETS)


def test_triggers_are_keyed_by_the_upstream_regexes():
    for name in ("BACKTICK_RE", "ESCAPE_RE", "LINK_RE", "REFERENCE_RE", "IMAGE_LINK_RE", "IMAGE_REFERENCE_RE",
                 "AUTOLINK_RE", "AUTOMAIL_RE", "LINE_BREAK_RE", "HTML_RE", "ENTITY_RE"):
        assert getattr(inlinepatterns, name) in TRIGGERS, name


@pytest.mark.skipif(not fast_inline.ENABLED, reason="fast inline processor disabled on this Markdown")
@pytest.mark.parametrize("raw", [False, True])
def test_every_pattern_of_the_pipeline_has_a_trigger(raw):
    """Otherwise the speed-up would quietly shrink (never the output)."""
    md = BodyRenderer(NameIndex([]), allow_raw_html=raw).md
    assert isinstance(md.treeprocessors["inline"], FastInlineProcessor)
    assert md.treeprocessors.get_index_for_name("inline") == 1  # after footnote (50), as stock at 20
    names = [item.name for item in md.inlinePatterns._priority]
    assert {"backtick", "escape", "footnote", "link", "entity", "em_strong"} <= set(names)
    assert ("html" in names) == raw
    assert [name for name in names if trigger_for(md.inlinePatterns[name]) is None] == []


def test_unknown_or_changed_patterns_are_always_tried():
    class Custom(inlinepatterns.InlineProcessor):
        pass

    class OwnRegex(inlinepatterns.InlineProcessor):
        def getCompiledRegExp(self):
            return re.compile("x")

    assert trigger_for(Custom(r"\[\[x")) is None
    assert trigger_for(OwnRegex(inlinepatterns.LINK_RE)) is None
    ignorecase = Custom(inlinepatterns.LINK_RE)
    ignorecase.compiled_re = re.compile(inlinepatterns.LINK_RE, re.IGNORECASE)
    assert trigger_for(ignorecase) is None
    assert trigger_for(inlinepatterns.SimpleTagPattern(r"(\*)([^\*]+)\*", "em")) is None  # old style
    assert trigger_for(Custom(inlinepatterns.LINK_RE)) == (("[",),)


def test_install_falls_back_when_upstream_is_not_compatible(monkeypatch):
    monkeypatch.setattr(fast_inline, "ENABLED", False)
    md = markdown.Markdown()
    assert fast_inline.install(md) is False
    assert type(md.treeprocessors["inline"]) is InlineProcessor


# --- (b) byte-identical HTML -----------------------------------------------------------

def stock(names: NameIndex, **settings) -> BodyRenderer:
    """A BodyRenderer with Python-Markdown's own processors throughout (the reference)."""
    return BodyRenderer(names, fast=False, **settings)


class Pair:
    """A BodyRenderer and a stock one with the same names and settings, reused like in a build."""

    def __init__(self, names: NameIndex, **settings):
        self.ours = BodyRenderer(names, **settings)
        self.stock = stock(names, **settings)

    def check(self, body: str, first_line: int = 1):
        expected = self.stock.render(body, first_line)
        actual = self.ours.render(body, first_line)
        assert actual.html == expected.html
        assert actual == expected  # anchors, links, problems, headings too
        return actual


def load_terms(paths: list[Path]) -> tuple[NameIndex, list[tuple[str, str, int]]]:
    terms, bodies = [], []
    for path in paths:
        front, body, line, problem = split_front_matter(path.read_text(encoding="utf-8"), path.name)
        assert problem is None, problem
        meta = yaml.safe_load(front) or {}
        terms.append(T(path.stem, str(meta.get("title", path.stem)), [str(a) for a in meta.get("aliases") or []]))
        bodies.append((path.name, body, line))
    return NameIndex(terms), bodies


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> list[Path]:
    out = tmp_path_factory.mktemp("corpus")
    subprocess.run([sys.executable, str(MAKE_CORPUS), "300", str(out), "--flavor", "plain"], check=True)
    return sorted(out.glob("*.md"))


@pytest.mark.parametrize("raw", [False, True])
def test_same_html_on_the_synthetic_corpus(corpus, raw):
    names, bodies = load_terms(corpus)
    assert len(bodies) == 300
    pair = Pair(names, allow_raw_html=raw)
    for _, body, line in bodies:
        pair.check(body, line)


CONTENT_FILES = sorted((ROOT / "tests" / "fixtures").rglob("content/**/*.md")) + sorted((ROOT / "content").rglob("*.md"))


@pytest.mark.parametrize("raw", [False, True])
@pytest.mark.parametrize("pretty", [False, True])
def test_same_html_on_the_repo_content(raw, pretty):
    assert CONTENT_FILES, "no content found"
    names, bodies = load_terms(CONTENT_FILES)
    pair = Pair(names, allow_raw_html=raw, pretty_urls=pretty)
    for _, body, line in bodies:
        pair.check(body, line)


# Generated markdown: inline constructs, nested, inside the block constructs they appear in.

WORD = st.sampled_from(["token", "Inference", "draft", "a", "x_y", "snake_case_word", "2*3", "end.", "(paren)",
                        "https://example.org", "me@example.org", "LLM inference", "caf\u00e9"])
STRAY = st.sampled_from(["*", "**", "_", "__", "`", "``", "[", "]", "(", ")", "!", "<", ">", "&", ";", "\\", "^",
                         "#", "|", ":", "{", "}", "$", "  \n", "\n", " ", "***", "___", "[^", "![", "<!--", "-->"])
LEAF = st.one_of(
    WORD, STRAY,
    st.sampled_from([
        "`code`", "`` a ` b ``", "`*not em*`", "`<b>`", "\\*", "\\_", "\\[", "\\\\", "\\`", "\\<", "\\&", "\\x",
        "&amp;", "&#35;", "&#x41;", "&copy;", "&bogus", "& x;", "AT&T", "<span>x</span>", "<b>", "</b>",
        "<!-- note -->", "<br/>", "<a href=\"inference.md\">a</a>", "<http://example.org/a?b=c>",
        "<me@example.org>", "[^1]", "[^2]", "[^missing]", "[ref]", "[ref][]", "[text][ref]", "[Ref] [ref]",
        "![alt](img.png \"t\")", "![alt][ref]", "[[Inference]]", "[[output tokens|outputs]]", "[[Nobody]]",
        "$a^2$", "$x_1 * y_2$", "[x](inference.md#top)", "[x](output-tokens.md)", "[x](nowhere.md)",
        "[x](https://example.org \"title\")", "[x](<a b>)", "[x]( 'bad' )", "{: #i .c }", "{: onclick=x }",
    ]),
)


def _wrap(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(st.sampled_from(["*", "**", "_", "__", "***", "*_", "_*"]), inner).map(lambda t: t[0] + t[1] + t[0][::-1]),
        inner.map(lambda s: f"[{s}](inference.md)"),
        inner.map(lambda s: f"[{s}][ref]"),
        inner.map(lambda s: f"![{s}](i.png)"),
        inner.map(lambda s: f"<em>{s}</em>"),
        inner.map(lambda s: f"`{s}`"),
        st.lists(inner, min_size=1, max_size=4).map(" ".join),
        st.lists(inner, min_size=1, max_size=4).map("".join),
    )


INLINE = st.recursive(LEAF, _wrap, max_leaves=12)
LINE = st.lists(INLINE, min_size=1, max_size=8).map(" ".join).map(lambda s: s.replace("\n\n", "\n"))
BLOCK = st.one_of(
    LINE,
    st.lists(LINE, min_size=1, max_size=3).map("\n".join),
    st.tuples(st.sampled_from(["## ", "### ", "#### ", "# "]), LINE).map(lambda t: t[0] + t[1].replace("\n", " ")),
    st.lists(LINE, min_size=1, max_size=4).map(lambda ls: "\n".join("- " + l.replace("\n", " ") for l in ls)),
    st.lists(LINE, min_size=1, max_size=3).map(lambda ls: "\n".join(f"{i}. " + l.replace("\n", " ") for i, l in enumerate(ls, 1))),
    st.lists(LINE, min_size=1, max_size=3).map(lambda ls: "\n".join("> " + l.replace("\n", " ") for l in ls)),
    st.lists(st.tuples(LINE, LINE), min_size=1, max_size=3).map(
        lambda rows: "| a | b |\n|:--|--:|\n" + "\n".join(
            "| " + a.replace("\n", " ").replace("|", "\\|") + " | " + b.replace("\n", " ").replace("|", "\\|") + " |"
            for a, b in rows)),
    LINE.map(lambda s: "```python\n" + s + "\n```"),
    LINE.map(lambda s: "    " + s.replace("\n", "\n    ")),
    LINE.map(lambda s: "[^1]: " + s.replace("\n", " ")),
    LINE.map(lambda s: "[^2]: " + s.replace("\n", "\n    ")),
    st.just("[ref]: https://example.org/ref \"Ref title\""),
    st.just("[Ref]: inference.md#anchor"),
    LINE.map(lambda s: "<div>\n" + s + "\n</div>"),
    LINE.map(lambda s: s.replace("\n", " ") + "\n{: #some-id .a-class }"),
    st.just("[TOC]"),
    st.just("$$\nE = mc^2\n$$"),
    st.just("---"),
)
DOCUMENT = st.lists(BLOCK, min_size=1, max_size=8).map("\n\n".join)

NAMES = NameIndex([T("inference", "Inference", ["LLM inference"]), T("output-tokens", "Output tokens")])
PAIRS = {raw: Pair(NAMES, allow_raw_html=raw) for raw in (False, True)}


@FUZZ
@given(body=DOCUMENT, raw=st.booleans())
@example(body="*a [b `c`](inference.md) **d** e*[^1] &amp; <b>x</b> \\* [[Inference]]\n\n[^1]: A *note*.", raw=True)
@example(body="***a** b* _c __d__ e_ **x*y** *a**b*c**", raw=False)
@example(body="| `a|b` | *c* |\n|---|---|\n| [l](inference.md) | &copy; |", raw=False)
@example(body="[TOC]\n\n## One *two*\n\n### Three `four`", raw=True)
def test_same_html_on_generated_markdown(body, raw):
    PAIRS[raw].check(body, 3)


@FUZZ
@given(body=st.text(alphabet=st.sampled_from(list(PUNCTUATION) + list("ab1|>-{}$")), max_size=200), raw=st.booleans())
def test_same_html_on_punctuation_soup(body, raw):
    PAIRS[raw].check(body, 1)
