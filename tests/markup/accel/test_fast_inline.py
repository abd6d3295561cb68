"""The fast inline treeprocessor: its short cuts can never change a byte of HTML.

Three kinds of checks: every necessary condition in ``TRIGGERS`` holds whenever
its regex finds a match (so the table cannot lie); BodyRenderer renders exactly
what it would with Python-Markdown's own InlineProcessor, on the synthetic
corpus, the repo's content and generated markdown; and the inline stage leaves
the same tree and processor state (texts, tails and their types, children,
parent_map, ancestors, stash) as upstream's, mostly-plain documents included,
where the whole-string short cuts do most of the work.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

import markdown
import pytest

from helpers import FIXTURES, REPO, requires_fast
from hypothesis import example, given
from hypothesis import strategies as st
from markdown import inlinepatterns, util
from markdown.treeprocessors import InlineProcessor

from markdown_pairs import DOCUMENT, FUZZ, LEAF, PAIRS, STATE_PAIRS, Pair, corpus, load_terms, wrap  # noqa: F401  (corpus: a fixture)
from site_builder.markup.accel import fast_inline, inline_triggers
from site_builder.markup.accel.fast_inline import TRIGGERS, FastInlineProcessor, trigger_for
from site_builder.markup.render import BodyRenderer
from site_builder.names import NameIndex

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


@requires_fast(fast_inline)
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
    own_instance_regex = Custom(inlinepatterns.LINK_RE)
    own_instance_regex.getCompiledRegExp = lambda: re.compile("x")
    assert trigger_for(own_instance_regex) is None
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


def test_keys_stand_for_their_substrings_and_placeholders_hold_none():
    """What _Snapshot.candidates relies on: a pattern without any of its keys cannot match, before or
    after __handleInline has swapped matched text for placeholders."""
    placeholder_chars = set(util.INLINE_PLACEHOLDER % "0123456789")
    for trigger in TRIGGERS.values():
        for needle in trigger[0]:
            key = inline_triggers._key(needle)
            assert key and key in needle
            assert not placeholder_chars & set(key), needle
            assert key.strip() if len(key) == 1 else not key.strip()  # one non-space char, or all whitespace


@requires_fast(fast_inline)
def test_candidates_and_whole_string_checks():
    snapshot = BodyRenderer(NameIndex([]), allow_raw_html=True).md.treeprocessors["inline"]._snapshot()
    names = [type(p).__name__ for p in snapshot.patterns]
    picked = lambda text: [names[i] for i in snapshot.candidates(text)]  # noqa: E731
    assert picked("plain prose; a: b/c @ d > e\nsecond line") == []
    assert picked("a `b` *c*") == ["BacktickInlineProcessor", "DelimiterProcessor"]
    assert picked("x  \ny") == ["SubstituteTagInlineProcessor"]
    assert "FootnoteInlineProcessor" in picked("[^1]") and "LinkInlineProcessor" in picked("[^1]")
    assert not snapshot.busy("plain prose")
    assert snapshot.busy("text " + util.INLINE_PLACEHOLDER % "0001")
    assert not snapshot.busy(util.STX + "wzxhzdk:3" + util.ETX)  # raw HTML stash: not ours to expand


@requires_fast(fast_inline)
def test_snapshot_follows_the_registry():
    md = BodyRenderer(NameIndex([]), allow_raw_html=True).md
    inline = md.treeprocessors["inline"]
    first = inline._snapshot()
    assert inline._snapshot() is first  # reused while nothing changes
    assert first.busy is not None
    # Now a pattern we cannot reason about: always tried, and no whole-string skips.
    md.inlinePatterns["entity"].compiled_re = re.compile(inlinepatterns.ENTITY_RE, re.IGNORECASE)
    second = inline._snapshot()
    assert second is not first and second.busy is None and second.any_key is None
    entity = second.patterns.index(md.inlinePatterns["entity"])
    assert second.candidates("plain prose") == (entity,)
    md.inlinePatterns.deregister("html")
    third = inline._snapshot()
    assert third is not second and len(third.patterns) == len(second.patterns) - 1


# --- (b) byte-identical HTML -----------------------------------------------------------

@pytest.mark.parametrize("raw", [False, True])
def test_same_html_on_the_synthetic_corpus(corpus, raw):
    names, bodies = load_terms(corpus)
    assert len(bodies) == 300
    pair = Pair(names, allow_raw_html=raw)
    for _, body, line in bodies:
        pair.check(body, line)


CONTENT_FILES = sorted(FIXTURES.rglob("content/**/*.md")) + sorted((REPO / "content").rglob("*.md"))


@pytest.mark.parametrize("raw", [False, True])
@pytest.mark.parametrize("pretty", [False, True])
def test_same_html_on_the_repo_content(raw, pretty):
    assert CONTENT_FILES, "no content found"
    names, bodies = load_terms(CONTENT_FILES)
    pair = Pair(names, allow_raw_html=raw, pretty_urls=pretty)
    for _, body, line in bodies:
        pair.check(body, line)


# Generated markdown (markdown_pairs.DOCUMENT): inline constructs, nested, inside the block
# constructs they appear in.

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


# --- (c) the tree the inline stage leaves, not just the HTML ----------------------------

# Plain prose around inline constructs: most text nodes and tails carry no pattern's
# key, and take the fast processor's whole-string short cut.
PROSE = st.lists(st.sampled_from(["plain", "words", "here.", "a, b;", "x > y", "me@home", "1/2", "end"]),
                 min_size=1, max_size=5).map(" ".join)
MOSTLY_PLAIN_LINE = st.lists(st.one_of(PROSE, PROSE, PROSE, LEAF, wrap(st.one_of(PROSE, LEAF)), wrap(wrap(PROSE))),
                             min_size=1, max_size=6).map(" ".join)
MOSTLY_PLAIN = st.lists(st.one_of(
    MOSTLY_PLAIN_LINE,
    st.lists(MOSTLY_PLAIN_LINE, min_size=2, max_size=3).map("\n".join),  # multi-line paragraphs
    MOSTLY_PLAIN_LINE.map(lambda s: "## " + s.replace("\n", " ")),
    st.lists(MOSTLY_PLAIN_LINE, min_size=1, max_size=3).map(lambda ls: "\n".join("- " + l for l in ls)),
    st.lists(MOSTLY_PLAIN_LINE, min_size=1, max_size=2).map(lambda ls: "1. " + ls[0] + "".join("\n    - " + l for l in ls)),
    st.tuples(MOSTLY_PLAIN_LINE, MOSTLY_PLAIN_LINE).map(
        lambda t: "| h | k |\n|---|---|\n| " + t[0].replace("|", "\\|") + " | " + t[1].replace("|", "\\|") + " |"),
    MOSTLY_PLAIN_LINE.map(lambda s: "[^1]: " + s),
    MOSTLY_PLAIN_LINE.map(lambda s: s + "\n{: .c }"),
), min_size=1, max_size=6).map("\n\n".join)


PLAIN_EXAMPLES = [
    "Plain prose only.\n\n## A heading\n\n- one\n- two\n\n| a | b |\n|---|---|\n| c | d |",
    "Before `code` after, and *em* then a tail, **strong** tail, [link](inference.md) tail.",
    "- item `x` tail\n    - nested *y* tail\n        - deeper plain\n\nTrailing paragraph.",
    "Math $x^2$ and $a_1 * b_2$ in prose, then plain.\n\n$$\nE = mc^2\n$$",
    "A note[^1] and plain tail.\n\n[^1]: The note *body* with `code` and plain end.",
    "Text with <b>raw</b> html and <span>more</span> plain.\n\n<div>\nblock plain\n</div>",
    "A paragraph\nover lines  \nwith a break and plain\nlines.",
    "Entity &amp; here; AT&T plain; a < b > c; me@example.org; <http://example.org/x>.",
    "## Heading `code` tail {: #h .c }\n\nPlain {: .x } para.\n{: #p }",
    "[[Inference]] and [[output tokens|outputs]] plain tails, [[Nobody]] too.",
    "_x_y_ snake_case and 2*3*4 then plain \\* escaped \\_ and `a\\`.",
    # Placeholders inside what a pattern built: __processElementText must expand them.
    "*a `b` c* and [`x` y](inference.md) and **s `t` u** plain.",
    # The strong's tail is handled from em_strong's index on, then again by run() from
    # the first pattern: that second pass is what turns <b> and &amp; there into HTML.
    "***a** <b>x</b> &amp; `c`* plain tail.",
    "*a **b** c <i>d</i> e* and **f *g* <br/> h**.",
    # (Found by fuzzing.) run()'s own pass over a tail matches here: the link after the
    # <a>'s inner elements is only found when run() reaches that tail.
    "<em>[![[x](<a b>)](i.png)](inference.md)</em>\n[[** ``][ref]](inference.md) `[<em>[x]( 'bad' )</em>][ref]` "
    "![![_(paren)_](i.png)](i.png) <em>![`{: #i .c }`](i.png)</em> ![![![:](i.png)](i.png)](i.png)",
]


@requires_fast(fast_inline)
@pytest.mark.parametrize("raw", [False, True])
@pytest.mark.parametrize("body", PLAIN_EXAMPLES)
def test_same_tree_state_on_examples(body, raw):
    STATE_PAIRS[raw].check(body)


@requires_fast(fast_inline)
@FUZZ
@given(body=st.one_of(MOSTLY_PLAIN, DOCUMENT), raw=st.booleans())
def test_same_tree_state_on_generated_markdown(body, raw):
    """Text, tails, children order and types, parent_map, ancestors and stash, after the inline stage."""
    STATE_PAIRS[raw].check(body)


@FUZZ
@given(body=MOSTLY_PLAIN, raw=st.booleans())
@example(body=PLAIN_EXAMPLES[1], raw=False)
@example(body=PLAIN_EXAMPLES[5], raw=True)
@example(body=PLAIN_EXAMPLES[5], raw=False)
def test_same_html_on_mostly_plain_markdown(body, raw):
    PAIRS[raw].check(body, 2)


class Highlight(inlinepatterns.InlineProcessor):
    """A pattern the fast processor knows nothing about (==text== to <mark>)."""

    def handleMatch(self, m, data):
        el = etree.Element("mark")
        el.text = m.group(1)
        return el, m.start(0), m.end(0)


def _with_highlight(fast: bool) -> markdown.Markdown:
    md = markdown.Markdown(extensions=["footnotes", "attr_list", "tables"])
    md.inlinePatterns.register(Highlight(r"==(.+?)=="), "highlight", 65)
    if fast:
        assert fast_inline.install(md)
    return md


HIGHLIGHT = {fast: _with_highlight(fast) for fast in (False, True)} if fast_inline.ENABLED else {}


@requires_fast(fast_inline)
@FUZZ
@given(body=st.one_of(MOSTLY_PLAIN, MOSTLY_PLAIN.map(lambda s: s.replace("plain", "==hi *there*==")), DOCUMENT))
@example(body="plain ==hi *there*== tail\n\n- `a` ==b== c")
def test_an_unknown_pattern_is_always_tried(body):
    assert trigger_for(HIGHLIGHT[True].inlinePatterns["highlight"]) is None
    html = {}
    for fast, md in HIGHLIGHT.items():
        md.reset()
        html[fast] = md.convert(body)
    assert html[True] == html[False]


@requires_fast(fast_inline)
def test_the_unknown_pattern_is_in_use():
    md = HIGHLIGHT[True]
    md.reset()
    assert md.convert("plain ==hi *there*== tail") == "<p>plain <mark>hi <em>there</em></mark> tail</p>"
