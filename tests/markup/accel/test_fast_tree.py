"""The fast tree/pre/postprocessors, serializer and source pass: never a byte different.

Three kinds of checks: each fast processor against its stock class on the
same input (trees, lines, text); the whole BodyRenderer against the stock
pipeline on documents aimed at what the short cuts skip (headings, ids,
attribute lists, [TOC], tables, footnotes, raw HTML); and the fast paths of
source.py against the general code they stand in for.
"""

from __future__ import annotations

import copy
import sys
import xml.etree.ElementTree as etree

import markdown
import pytest

from helpers import requires_fast
from hypothesis import example, given
from hypothesis import strategies as st
from markdown import serializers, util
from markdown.extensions.attr_list import AttrListTreeprocessor
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.extensions.toc import TocExtension, TocTreeprocessor
from markdown.postprocessors import RawHtmlPostprocessor
from markdown.preprocessors import NormalizeWhitespace
from markdown.treeprocessors import PrettifyTreeprocessor, UnescapeTreeprocessor

from site_builder.markup.accel import fast_tree
from site_builder.markup import source
from site_builder.markup.render import BodyRenderer
from markdown_pairs import DOCUMENT, FUZZ, LINE, NAMES, Pair

PAIRS = {(raw, pretty): Pair(NAMES, allow_raw_html=raw, pretty_urls=pretty)
         for raw in (False, True) for pretty in (False, True)}

needs_fast = requires_fast(fast_tree)


# --- installation ----------------------------------------------------------------------


@needs_fast
@pytest.mark.parametrize("raw", [False, True])
def test_installed_in_place_of_the_stock_processors(raw):
    stock = BodyRenderer(NAMES, allow_raw_html=raw, fast=False).md
    fast = BodyRenderer(NAMES, allow_raw_html=raw).md
    for registry in ("preprocessors", "treeprocessors", "postprocessors"):
        # Same names, same order: equal priorities keep their registration order.
        assert _order(getattr(fast, registry)) == _order(getattr(stock, registry)), registry
        # The last two, in this order (escaping raw HTML adds autolink's marker remover before them),
        # after the page ids' holder is taken out again.
        last = [fast.treeprocessors.get_index_for_name(n) for n in ("glossary_release_ids", "unescape", "glossary_links")]
        assert last == [7, 8 + (not raw), 9 + (not raw)]
    assert isinstance(fast.treeprocessors["toc"], fast_tree.FastTocTreeprocessor)
    assert isinstance(fast.treeprocessors["attr_list"], fast_tree.FastAttrListTreeprocessor)
    assert isinstance(fast.treeprocessors["unescape"], fast_tree.FastUnescapeTreeprocessor)
    assert isinstance(fast.treeprocessors["prettify"], fast_tree.FastPrettifyTreeprocessor)
    assert isinstance(fast.preprocessors["normalize_whitespace"], fast_tree.FastNormalizeWhitespace)
    assert isinstance(fast.preprocessors["fenced_code_block"], fast_tree.FastFencedBlockPreprocessor)
    assert isinstance(fast.postprocessors["raw_html"], fast_tree.FastRawHtmlPostprocessor)
    assert fast.serializer is fast_tree.fast_html_string
    # The toc keeps its configuration.
    assert fast.treeprocessors["toc"].toc_top == 2 and fast.treeprocessors["toc"].toc_bottom == 4


def _order(registry) -> list[str]:
    """The names in the order the registry runs them."""
    return sorted(registry._data, key=registry.get_index_for_name)


def test_install_falls_back_when_upstream_is_not_compatible(monkeypatch):
    monkeypatch.setattr(fast_tree, "ENABLED", False)
    md = markdown.Markdown(extensions=["toc", "attr_list", "fenced_code"], output_format="html")
    assert fast_tree.install(md) is False
    assert type(md.treeprocessors["toc"]) is TocTreeprocessor
    assert type(md.treeprocessors["attr_list"]) is AttrListTreeprocessor
    assert md.serializer is serializers.to_html_string


@needs_fast
def test_install_leaves_unknown_processors_alone():
    class MyToc(TocTreeprocessor):
        pass

    class MyPrettify(PrettifyTreeprocessor):
        pass

    md = markdown.Markdown(extensions=["toc"])
    md.treeprocessors.register(MyToc(md, TocExtension().getConfigs()), "toc", 5)
    md.treeprocessors.register(MyPrettify(md), "prettify", 10)
    md.serializer = serializers.to_xhtml_string
    assert fast_tree.install(md) is True  # unescape, normalize_whitespace, raw_html
    assert type(md.treeprocessors["toc"]) is MyToc
    assert type(md.treeprocessors["prettify"]) is MyPrettify
    assert md.serializer is serializers.to_xhtml_string
    assert type(md.treeprocessors["unescape"]) is fast_tree.FastUnescapeTreeprocessor


@needs_fast
def test_toc_takes_the_stock_path_when_the_short_cut_does_not_hold():
    md = markdown.Markdown(extensions=["toc"], extension_configs={"toc": {"permalink": True}})
    fast_tree.install(md)
    assert "headerlink" in md.convert("## A")
    md = markdown.Markdown(extensions=["toc"])
    fast_tree.install(md)

    class Odd(markdown.postprocessors.Postprocessor):
        def run(self, text):
            return text.replace("x", "y")

    md.postprocessors.register(Odd(), "odd", 1)
    assert not md.treeprocessors["toc"]._shortcut_holds()
    # Stock renders names (postprocessors included) into md.toc.
    md.convert("## x")
    assert "y" in md.toc


# --- whole renderer, documents aimed at the short cuts -----------------------------------

HEADING_TEXT = st.one_of(
    LINE.map(lambda s: s.replace("\n", " ")),
    st.sampled_from([
        "Section 1", "Related", "Related", "Caf\u00e9 au lait", "  spaced   out  ", "", "x_1", "a & b", "a &amp; b",
        "a < b > c", "`code` span", "*em* and **strong**", "[link](inference.md)", "[[Inference]]", "$x^2$",
        "note[^1]", "&copy; 2024", "\\*escaped\\*", "<b>bold</b>", "Section 1_1", "_1", "-", "[TOC]",
        "tab\there", "\u00a0nbsp\u00a0", "\u2003em space", "Straße", "日本語", "x {: #manual }", "y {: .cls }",
        "z {: data-toc-label='Short *label*' }", "w {: #dup }", "#hash", "trailing ##",
    ]),
)
HEADING = st.tuples(st.sampled_from(["# ", "## ", "### ", "#### ", "##### ", "###### "]), HEADING_TEXT).map("".join)
TREE_BLOCK = st.one_of(
    HEADING, HEADING, LINE,
    st.just("[TOC]"), st.just("  [TOC]  "), st.just("> [TOC]"), st.just("- [TOC]"), st.just("[TOC] and more"),
    st.just("Setext heading\n--------------"),
    st.just("Para with attrs\n{: #para-id .para-class }"),
    st.just("Para {: not-an-attr-list }"), st.just("`{: code }`"), st.just("{braces} in text"),
    st.just("## No colon {#nc .k}"), st.just("Para\n{.lead}"), st.just("*em*{.x} tail and `c`{#cid}"),
    st.just("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |"),
    st.just("| a {: #cell } | b |\n|---|---|\n| `{x}` | *y* {: .em } |"),
    st.just("Footnote ref[^1] and[^2]\n\n[^1]: The *note*.\n[^2]: Other `code`."),
    st.just("<div id=\"dup\">raw</div>"), st.just("<h2>raw heading</h2>"),
    st.just("```\n## not a heading\n[TOC]\n```"), st.just("    ## indented code"),
    st.just("- item {: #li-id }\n- *em* item {: .li-class }"),
    st.just("![img](a.png){: .wide }"), st.just("[x](inference.md){: target=_blank }"),
    st.just("A \\{ escaped brace \\}"), st.just("&#123; entity brace &#125;"),
    st.just("line with br  \nnext"), st.just("Term\n: not a dl"),
)
TREE_DOCUMENT = st.lists(TREE_BLOCK, min_size=1, max_size=10).map("\n\n".join)


@FUZZ
@given(body=TREE_DOCUMENT, raw=st.booleans(), pretty=st.booleans())
@example(body="## A\n\n## A\n\n## A\n\n## A_1\n\n# A_2", raw=False, pretty=False)
@example(body="## Dup {: #a }\n\n## A\n\n### a", raw=True, pretty=True)
@example(body="[TOC]\n\n## One *two*\n\n### Three `four`\n\n#### Five [^1]\n\n[^1]: n", raw=False, pretty=True)
@example(body="## `code` & <b>x</b> &amp; $x^2$ [l](inference.md) [[Inference]] note[^1]\n\n[^1]: f", raw=True,
         pretty=False)
@example(body="## Label {: data-toc-label='Short' }\n\n## Other {: #x data-toc-label='<b>B</b>' }", raw=False,
         pretty=False)
@example(body="## \\[TOC\\]\n\n\\[TOC]\n\n&#91;TOC]", raw=False, pretty=False)
@example(body="## \n\n##\n\n## #\n\n## _1", raw=False, pretty=False)
@example(body="para {: #fn:1 }\n\n## fn:1\n\nref[^1]\n\n[^1]: x", raw=False, pretty=False)
def test_same_output_on_heading_heavy_documents(body, raw, pretty):
    PAIRS[raw, pretty].check(body, 2)


@FUZZ
@given(body=DOCUMENT, raw=st.booleans(), pretty=st.booleans())
def test_same_output_on_generated_markdown(body, raw, pretty):
    PAIRS[raw, pretty].check(body, 1)


@pytest.mark.parametrize("raw", [False, True])
@pytest.mark.parametrize("pretty", [False, True])
@pytest.mark.parametrize("body", [
    "## Section\n\n## Section\n\n## Section\n\n### Section",
    "## Title {: #custom .cls }\n\nText {: #para .lead }\n\nMore\n{: #more }",
    "## Long *heading* {: data-toc-label='Short' }\n\n## Plain {: data-toc-label=\"<i>x</i>\" }",
    "[TOC]\n\n## A\n\n### B\n\n## C [^1]\n\n[^1]: Note.",
    "Intro\n\n  [TOC]  \n\n## Only",
    "| Left | Centre | Right |\n|:-----|:------:|------:|\n| `a` | *b* | [c](inference.md) |",
    "Text[^a] and[^b].\n\n[^a]: First.\n[^b]: Second with `code`.\n\n## After notes",
    "<section id=\"sec\">raw</section>\n\n## sec\n\n<h2 id=\"x\">x</h2>\n\n## x",
    "## Caf\u00e9 \u2014 na\u00efve\n\n## \u65e5\u672c\u8a9e\n\n## Stra\u00dfe",
    "## Maths $a^2 + b^2$\n\n$$\nE = mc^2\n$$\n\n## [[Inference]] and [[Nobody]]",
    "```python\n# not a heading {: #no }\n```\n\n~~~\n[TOC]\n~~~\n\n## After",
    "Para with \\{braces\\} and {: #late }\n\n* a {: .x }\n* b",
    "## A\n\n## A\n{: #A_1 }\n\n## A",
    "[onclick](inference.md){: onclick=alert(1) style=x }\n\n## H {: onmouseover=x }",
])
def test_same_output_on_examples(body, raw, pretty):
    PAIRS[raw, pretty].check(body, 5)


def test_duplicate_headings_get_numbered_ids():
    result = PAIRS[False, False].check("## Same\n\n## Same\n\n### Same\n\n## Other")
    assert result.anchors == ["same", "same_1", "same_2", "other"]
    assert [h[1] for h in result.headings] == ["same", "same_1", "same_2", "other"]


def test_toc_marker_still_becomes_a_table_of_contents():
    result = PAIRS[False, False].check("[TOC]\n\n## One\n\n### Two\n\n## Three")
    assert '<div class="toc">' in result.html
    assert '<a href="#two">Two</a>' in result.html
    assert "[TOC]" not in result.html


def test_data_toc_label_is_dropped_and_id_kept():
    result = PAIRS[False, False].check("## Long title {: data-toc-label='Short' }")
    assert "data-toc-label" not in result.html
    assert 'id="long-title"' in result.html


# --- each processor against its stock class ------------------------------------------------

def _trees(bodies: list[str], before: str, raw: bool = True) -> list[etree.Element]:
    """The trees the stock pipeline hands to treeprocessor ``before``, one per body."""
    renderer = BodyRenderer(NAMES, allow_raw_html=raw, fast=False)
    captured = []
    processor = renderer.md.treeprocessors[before]
    run = processor.run

    def capture(root):
        captured.append(copy.deepcopy(root))
        return run(root)

    processor.run = capture
    for body in bodies:
        renderer.render(body, 1)
    return captured


@needs_fast
@FUZZ
@given(bodies=st.lists(TREE_DOCUMENT, min_size=1, max_size=3))
def test_tree_processors_match_stock_on_the_same_tree(bodies):
    md = BodyRenderer(NAMES, allow_raw_html=True, fast=False).md
    for name, stock_class, fast_class in (
        ("prettify", PrettifyTreeprocessor, fast_tree.FastPrettifyTreeprocessor),
        ("attr_list", AttrListTreeprocessor, fast_tree.FastAttrListTreeprocessor),
        ("unescape", UnescapeTreeprocessor, fast_tree.FastUnescapeTreeprocessor),
    ):
        for tree in _trees(bodies, name):
            expected, actual = copy.deepcopy(tree), copy.deepcopy(tree)
            stock_class(md).run(expected)
            fast_class(md).run(actual)
            assert serializers.to_html_string(actual) == serializers.to_html_string(expected)
            # Stock unescape hands back every text it visits as a plain str, even
            # one without a placeholder (an autolink's AtomicString); the short cut
            # leaves such a text alone. Only the type differs, and nothing after the
            # unescape pass reads it (glossary_links and the serializer treat both alike).
            atomic_as_str = name == "unescape"
            assert _shape(actual, atomic_as_str) == _shape(expected, atomic_as_str)


@needs_fast
def test_prettify_cache_follows_the_block_level_list_and_is_block_level():
    """The block-level answers are kept across runs (eighth round) only while
    ``md.block_level_elements`` is the same and ``is_block_level`` is stock's."""
    body = "para\n\n<custom>x</custom>\n\n- item\n\n> quote"
    renderers = [BodyRenderer(NAMES, allow_raw_html=True, fast=f) for f in (False, True)]
    stock, fast = (renderer.md for renderer in renderers)

    def same() -> None:
        assert renderers[1].render(body, 1).html == renderers[0].render(body, 1).html

    same()
    for md in (stock, fast):  # the list changes between runs: the next run must see it
        md.block_level_elements.append("custom")
    same()
    for md in (stock, fast):
        md.block_level_elements.remove("p")
    same()
    for md in (stock, fast):  # another is_block_level: asked again on every run
        md.is_block_level = lambda tag, md=md: isinstance(tag, str) and tag != "li" and tag in md.block_level_elements
    same()


@needs_fast
def test_unescape_short_cut_keeps_autolink_text_and_output():
    bodies = ["# <http://example.org/a?b=c>", "<me@example.org> and <https://x.org/p_q>"]
    md = BodyRenderer(NAMES, allow_raw_html=True, fast=False).md
    for tree in _trees(bodies, "unescape"):
        expected, actual = copy.deepcopy(tree), copy.deepcopy(tree)
        UnescapeTreeprocessor(md).run(expected)
        fast_tree.FastUnescapeTreeprocessor(md).run(actual)
        assert serializers.to_html_string(actual) == serializers.to_html_string(expected)
        assert _shape(actual, True) == _shape(expected, True)
    for body in bodies:  # and the whole pipeline's HTML is stock's
        assert BodyRenderer(NAMES, allow_raw_html=True).render(body, 1).html == \
            BodyRenderer(NAMES, allow_raw_html=True, fast=False).render(body, 1).html


def _shape(tree: etree.Element, atomic_as_str: bool = False) -> list:
    """Everything about a tree, attribute order and string types included
    (``atomic_as_str``: an ``AtomicString`` counted as a plain str)."""
    def kind(text):
        return str if atomic_as_str and type(text) is util.AtomicString else type(text)
    return [(el.tag, kind(el.text), el.text, kind(el.tail), el.tail, list(el.attrib.items())) for el in tree.iter()]


@needs_fast
def test_unescape_still_runs_when_only_an_attribute_holds_stx():
    root = etree.Element("div")
    link = etree.SubElement(root, "a", href=f"a{util.STX}95{util.ETX}b")
    fast_tree.FastUnescapeTreeprocessor(markdown.Markdown()).run(root)
    assert link.get("href") == "a_b"


@needs_fast
def test_attr_list_still_runs_when_only_the_root_tail_holds_a_brace():
    md = markdown.Markdown(extensions=["attr_list"])
    root = etree.Element("span")
    root.tail = "{: .x } rest"
    fast_tree.FastAttrListTreeprocessor(md).run(root)
    assert root.get("class") == "x"


# --- serializer ----------------------------------------------------------------------------

TAGS = st.sampled_from(["p", "div", "a", "em", "code", "pre", "br", "hr", "img", "script", "style", "h2", "td",
                        "P", "Br", "SCRIPT", "custom-tag"])
TEXT = st.one_of(st.none(), st.lists(st.sampled_from(list("ab &<>\"';#\n\t\u00e9") + ["&amp;", "&#1;", "&x;"]),
                                     max_size=12).map("".join))
ATTR_NAMES = st.sampled_from(["id", "class", "href", "checked", "hidden", "title", "data-x", "open", "Checked"])
ATTR_VALUES = st.one_of(st.none(), TEXT.filter(lambda t: t is not None), ATTR_NAMES)


@st.composite
def html_trees(draw, depth=0):
    el = etree.Element(draw(TAGS))
    for name, value in draw(st.dictionaries(ATTR_NAMES, ATTR_VALUES, max_size=3)).items():
        el.set(name, value)
    el.text = draw(TEXT)
    el.tail = draw(TEXT)
    if depth < 3:
        for child in draw(st.lists(html_trees(depth + 1), max_size=3)):
            el.append(child)
    if draw(st.booleans()) and depth == 1:
        el.text = util.AtomicString(el.text or "x&y")
    return el


@FUZZ
@given(tree=html_trees())
def test_fast_serializer_matches_stock(tree):
    assert fast_tree.fast_html_string(tree) == serializers.to_html_string(tree)


@pytest.mark.parametrize("odd", [
    etree.Comment("a <b> & c"), etree.ProcessingInstruction("php", "x"), etree.Element(etree.QName("{urn:x}q")),
    etree.Element(None),
])
def test_fast_serializer_hands_unusual_trees_to_stock(odd):
    root = etree.Element("div")
    root.text = "x"
    odd.tail = "t & u"
    root.append(odd)
    assert fast_tree.fast_html_string(root) == serializers.to_html_string(root)


def test_fast_serializer_survives_a_tree_deeper_than_the_recursion_limit():
    root = leaf = etree.Element("div")
    for _ in range(sys.getrecursionlimit() + 50):
        leaf = etree.SubElement(leaf, "span")
    leaf.text = "deep"
    assert fast_tree.fast_html_string(root) == serializers.to_html_string(root)


# --- pre- and postprocessors ---------------------------------------------------------------

RAW_LINES = st.lists(st.text(alphabet=st.sampled_from(list(" \t\r\n\x02\x03ab`~>$[]")), max_size=20), max_size=8)


@needs_fast
@FUZZ
@given(lines=RAW_LINES)
@example(lines=["a \t", "  ", " \r\n b", "\x02x\x03", "\t\tcode"])
def test_normalize_whitespace_matches_stock(lines):
    md = markdown.Markdown()
    assert fast_tree.FastNormalizeWhitespace(md).run(list(lines)) == NormalizeWhitespace(md).run(list(lines))


@needs_fast
@FUZZ
@given(lines=RAW_LINES.map(lambda ls: "\n".join(ls).split("\n")), extra=st.lists(st.sampled_from(
    ["```", "~~~", "```python", "````", "~~~ {.x #y}", "code", "``` {bad", "`` `"]), max_size=4))
def test_fenced_code_matches_stock(lines, extra):
    lines = lines + extra + lines
    stock_md = markdown.Markdown(extensions=["fenced_code", "attr_list"])
    fast_md = markdown.Markdown(extensions=["fenced_code", "attr_list"])
    fast_tree.install(fast_md)
    for _ in range(2):  # the first call also looks for codehilite/attr_list
        assert fast_md.preprocessors["fenced_code_block"].run(list(lines)) == \
               stock_md.preprocessors["fenced_code_block"].run(list(lines))
        assert fast_md.htmlStash.rawHtmlBlocks == stock_md.htmlStash.rawHtmlBlocks
    assert isinstance(fast_md.preprocessors["fenced_code_block"], FencedBlockPreprocessor)


@needs_fast
@pytest.mark.parametrize("text", ["plain <p>x</p>", f"<p>{util.HTML_PLACEHOLDER % 0}</p> and {util.HTML_PLACEHOLDER % 1}",
                                  f"{util.HTML_PLACEHOLDER % 5}", f"{util.STX}other{util.ETX}",
                                  f"<p>{util.HTML_PLACEHOLDER % 1}</p><p>{util.HTML_PLACEHOLDER % 2}</p>",
                                  f"{util.HTML_PLACEHOLDER % 2} <p>{util.HTML_PLACEHOLDER % 3}</p>",
                                  f"<p>{util.HTML_PLACEHOLDER % 4}</p>{util.HTML_PLACEHOLDER % 9}"])
def test_raw_html_postprocessor_matches_stock(text):
    md = markdown.Markdown()
    md.htmlStash.store("<div>a</div>")
    md.htmlStash.store("<b>b</b>")
    md.htmlStash.store(f"<i>{util.HTML_PLACEHOLDER % 1}</i> and <p>{util.HTML_PLACEHOLDER % 0}</p>")  # nested
    md.htmlStash.store(f"<div>{util.HTML_PLACEHOLDER % 2}</div>")  # nested twice, block level
    md.htmlStash.store(f"{util.HTML_PLACEHOLDER % 7}")  # a key past the stash
    assert fast_tree.FastRawHtmlPostprocessor(md).run(text) == RawHtmlPostprocessor(md).run(text)


# --- source.py: the fast paths against the general code ----------------------------------

# DEEP_INDENT_RE relies on regex \s being str.isspace(): checked over every code point
# in tests/outputs/test_linking_speed_equivalence.py (test_clean_treats_every_code_point_as_the_regex_does).


SOURCE_LINE = st.one_of(
    LINE.map(lambda s: s.replace("\n", " ")),
    st.sampled_from(["- [a](inference.md)", "[ref]: output-tokens.md", "  [r2]: <inference.md#x> \"t\"",
                     "`[x](code.md)` and [y](inference.md)", "[[Inference]] [[Nobody|n]] [[inference#top]]",
                     "a ] b ( c ) [", "\\[x](y.md)", "[x]( y.md )", "",
                     "with $x^2$ in it, see [[Inference]]", "costs $5 and $6", "`$x$` and $y$ [a](inference.md)",
                     "\\$x$ and $a\\$b$", "$\\frac{a}{b}$ `[[Inference]]`", "$\\badcommand{$ [[inference]]",
                     "$x$$y$", "$ x$ and $x $", "$ $ $"]),
)


def _stash(html: str) -> str:
    return f"\x02wzxhzdk:{len(html)}\x03"


@FUZZ
@given(lines=st.lists(SOURCE_LINE, max_size=10), first=st.integers(1, 50))
def test_link_only_rewrite_matches_the_general_one(lines, first):
    """Without '$$' and fences, prepare_source takes _rewrite_links: the same as _rewrite_all."""
    lines = [line for line in lines if "```" not in line and "~~~" not in line]
    if "$$" in "\n".join(lines):
        lines = [line.replace("$", "") for line in lines]
    fast_scan, general_scan = source.SourceScan(), source.SourceScan()
    fast = source._rewrite_links(lines, first, _stash, NAMES.resolve, fast_scan)
    general = source._rewrite_all(lines, first, _stash, NAMES.resolve, general_scan)
    assert (fast, fast_scan) == (general, general_scan)


LIMIT_LINE = st.one_of(
    SOURCE_LINE,
    st.integers(0, 60).map(lambda n: "> " * n + "quoted"),
    st.integers(0, 60).map(lambda n: ">" * n),
    st.tuples(st.integers(0, 130), st.sampled_from([" ", "\t", "\u00a0", "\u2003", "\x0b"])).map(
        lambda t: t[1] * t[0] + "- deep"),
    st.integers(0, 30).map(lambda n: "x[^1]" * n),
    st.integers(0, 200).map(lambda n: "[" * n + "(" * n),
    st.integers(0, 50).map(lambda n: "[a](" * n),
    st.sampled_from(["```", "~~~", ""]),
)


@FUZZ
@given(lines=st.lists(LIMIT_LINE, max_size=12), limits=st.tuples(
    st.integers(1, 60), st.integers(1, 500), st.integers(1, 60), st.integers(1, 5000)))
def test_limits_are_checked_whenever_one_could_be_passed(lines, limits):
    """When _may_pass_limits says no, _enforce_limits changes nothing and reports nothing."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in zip(("MAX_QUOTE_DEPTH", "MAX_INDENT", "MAX_FOOTNOTES", "MAX_BRACKET_SCAN"), limits):
            patch.setattr(source, name, value)
        out, scan = list(lines), source.SourceScan()
        source._enforce_limits(out, 1, scan)
        if not source._may_pass_limits(list(lines)):
            assert (out, scan.problems) == (lines, [])


def test_limits_still_apply():
    lines = ["> " * 60 + "deep", "", " " * 420 + "- x", "", "[^1] " * 1001]
    out, scan = source.prepare_source(lines, 1, _stash, NAMES.resolve)
    assert [line for line, _ in scan.problems] == [1, 3, 5]
    assert out == ["", "", "", "", ""]
