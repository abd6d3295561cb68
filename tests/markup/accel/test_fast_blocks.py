"""The fast block parser: its short cuts can never change the parsed tree.

Three kinds of checks: every necessary condition in ``fast_blocks`` holds
whenever its upstream processor would accept the block (so skipping it is
safe); only exactly-upstream processors are recognised, and anything else
falls back to upstream's loop; and BodyRenderer gives the same RenderedBody
with and without it, on block-heavy generated markdown and the corpus.
"""

from __future__ import annotations

import copy
import re
import sys
import xml.etree.ElementTree as etree

import markdown
import pytest

from helpers import requires_fast
from hypothesis import example, given
from hypothesis import strategies as st
from markdown import blockprocessors as bp
from markdown.blockparser import BlockParser

from site_builder.markup.accel import fast_blocks
from site_builder.markup.accel.fast_blocks import KNOWN, FastBlockParser, condition_for
from site_builder.markup.render import BodyRenderer

from markdown_pairs import FUZZ, NAMES, Pair, corpus, load_terms  # noqa: F401  (corpus: a fixture)

pytestmark = requires_fast(fast_blocks)


def pipeline_md(raw: bool = False) -> markdown.Markdown:
    """A stock BodyRenderer's Markdown: the processors the site really uses."""
    return BodyRenderer(NAMES, allow_raw_html=raw, fast=False).md


def blocks_only(raw: bool = False) -> BodyRenderer:
    """A BodyRenderer that differs from stock only by the fast block parser."""
    renderer = BodyRenderer(NAMES, allow_raw_html=raw, fast=False)
    assert fast_blocks.install(renderer.md)
    return renderer


# --- (a) the necessary conditions ---------------------------------------------------------

# Every processor class the conditions are for, as instances: the pipeline's,
# plus the plain (not sane) list processors of a default Markdown.
_PIPELINE = pipeline_md()
_DEFAULT = markdown.Markdown()
PROCESSORS = {type(p).__name__: p for p in list(_DEFAULT.parser.blockprocessors) + list(_PIPELINE.parser.blockprocessors)}


def test_every_known_class_is_checked_below():
    assert {cls.__name__ for cls in KNOWN} == set(PROCESSORS)


SYNTAX = list(" \n#=-_*+>|[]^:.1`\\\"'(){}<") + ["    ", "  ", "\t", "\u0663", "\u00b2", "a", "Z", "x y"]
SNIPPETS = [
    "# h", "###### h ######", "#h", "\\#", "a\n===", "a\n---", "a\n= =", "---", "- - -", "***", " * * *", "___", "_ _ _",
    "--", "1. x", "12. x", "1.x", "\u0663. x", "- x", "* x", "+ x", "-x", "> q", ">", "   > q", "    > q",
    "[^1]: note", "[^]: n", "[r]: http://x \"t\"", "[r]:\n  http://x\n  'title'", "[r]: <u> (t)", "[a][b]: c",
    "| a | b |\n|---|:-:|", "a | b\n-- | --", "|a|\n|-|", "a|\n-|", "`|` | b\n--|--", "    code", "\n", "",
]
BLOCK_TEXT = st.lists(st.one_of(st.sampled_from(SYNTAX), st.sampled_from(SNIPPETS)), max_size=12).map("".join)


def regex_examples(name: str) -> st.SearchStrategy[str]:
    """Text the processor's own regex matches, where it has one."""
    processor = PROCESSORS[name]
    for attribute in ("RE", "SEARCH_RE"):
        compiled = getattr(processor, attribute, None)
        if isinstance(compiled, re.Pattern):
            return st.from_regex(compiled)
    return st.just("")


def accepts(processor, block: str) -> bool:
    """Whether upstream's parser would hand ``block`` to ``processor`` and keep it there.

    That is test() True and run() not returning False (footnote and reference
    processors test True on anything and refuse in run()). run() is tried on a
    copy of the processor's Markdown so nothing leaks between examples. The
    parent is a list item, so that ListIndentProcessor's parent check passes.
    """
    parser = processor.parser
    parser.state = type(parser.state)()
    parent = etree.Element("li")
    if not processor.test(parent, block):
        return False
    if isinstance(processor, (bp.ReferenceProcessor, fast_blocks.FootnoteBlockProcessor)):
        scratch = copy.copy(processor)
        if isinstance(processor, fast_blocks.FootnoteBlockProcessor):
            scratch.footnotes = copy.copy(processor.footnotes)
            scratch.footnotes.footnotes = {}
            scratch.footnotes.setFootnote = lambda *a: None
        else:
            scratch.parser = copy.copy(parser)
            scratch.parser.md = copy.copy(parser.md)
            scratch.parser.md.references = {}
        return scratch.run(parent, [block, "after"]) is not False
    return True


@pytest.mark.parametrize("name", sorted(PROCESSORS))
@FUZZ
@given(data=st.data())
@example(data=None)
def test_condition_holds_whenever_the_processor_accepts(name, data):
    processor = PROCESSORS[name]
    known, condition = condition_for(processor)
    assert known
    if condition is None:
        return  # always tested (the paragraph)
    blocks = [*SNIPPETS] if data is None else []
    if data is not None:
        middle = data.draw(st.one_of(BLOCK_TEXT, regex_examples(name)), label="middle")
        joiner = data.draw(st.sampled_from(["", "\n", " "]), label="joiner")
        blocks.append(data.draw(BLOCK_TEXT, label="before") + joiner + middle + joiner + data.draw(BLOCK_TEXT, label="after"))
    for block in blocks:
        if accepts(processor, block):
            assert condition(block), (name, block)


@pytest.mark.parametrize("name", sorted(PROCESSORS))
def test_every_condition_is_exercised(name):
    """The property above is not vacuous: each processor accepts one of the snippets, and each
    condition (it is only a necessary one) also turns one down."""
    processor = PROCESSORS[name]
    _, condition = condition_for(processor)
    assert any(accepts(processor, s) for s in SNIPPETS + ["plain text"])
    if condition is not None:
        assert not all(condition(s) for s in SNIPPETS + ["plain text"])


@pytest.mark.parametrize("raw", [False, True])
def test_every_processor_of_the_pipeline_is_known(raw):
    """Otherwise the whole parse would quietly be upstream's (never the output)."""
    renderer = BodyRenderer(NAMES, allow_raw_html=raw)
    md = renderer.md
    assert type(md.parser) is FastBlockParser
    assert [type(p).__name__ for p in md.parser.blockprocessors if not condition_for(p)[0]] == []
    renderer.render("x", 1)
    assert md.parser._fast_procs is not None


# --- (b) only upstream's own processors are recognised ------------------------------------

def test_subclasses_patched_instances_and_other_tab_lengths_are_not_known():
    md = markdown.Markdown()
    hashheader = md.parser.blockprocessors["hashheader"]
    assert condition_for(hashheader)[0]

    class Sub(bp.HashHeaderProcessor):
        pass

    assert condition_for(Sub(md.parser)) == (False, None)
    patched = bp.HashHeaderProcessor(md.parser)
    patched.RE = re.compile(r"(?:^|\n)(?P<level>@{1,6})(?P<header>.*)")
    assert condition_for(patched) == (False, None)
    own_test = bp.HashHeaderProcessor(md.parser)
    own_test.test = lambda parent, block: True
    assert condition_for(own_test) == (False, None)
    wide = markdown.Markdown(tab_length=8)
    assert not any(condition_for(p)[0] for p in wide.parser.blockprocessors if type(p) is not bp.ParagraphProcessor)
    assert condition_for(object()) == (False, None)


def test_a_class_patched_after_import_is_not_known(monkeypatch):
    md = markdown.Markdown()
    monkeypatch.setattr(bp.HRProcessor, "test", lambda self, parent, block: False)
    assert condition_for(md.parser.blockprocessors["hr"]) == (False, None)


def test_an_unknown_processor_means_upstreams_loop():
    """A processor the conditions know nothing about: the whole parse is upstream's, and the same."""
    seen = []

    class Shout(bp.BlockProcessor):
        def test(self, parent, block):
            seen.append(block)
            return block.startswith("!!")

        def run(self, parent, blocks):
            etree.SubElement(parent, "strong").text = blocks.pop(0)[2:]

    def build(fast: bool) -> BodyRenderer:
        renderer = BodyRenderer(NAMES, fast=False)
        renderer.md.parser.blockprocessors.register(Shout(renderer.md.parser), "shout", 65)
        if fast:
            assert fast_blocks.install(renderer.md)
        return renderer

    body = "!!loud\n\n# h\n\ntext\n\n- a\n- b\n\n    code"
    expected = build(False).render(body, 1)
    stock_seen, seen[:] = list(seen), []
    fast = build(True)
    assert fast.render(body, 1) == expected
    assert seen == stock_seen  # tested on every block, as upstream does
    assert fast.md.parser._fast_procs is None
    # Registered after the first document: noticed at the next one.
    renderer = blocks_only()
    renderer.render("x", 1)
    assert renderer.md.parser._fast_procs is not None
    renderer.md.parser.blockprocessors.register(Shout(renderer.md.parser), "shout", 65)
    assert renderer.render(body, 1) == expected
    assert renderer.md.parser._fast_procs is None


def test_install_falls_back_when_upstream_is_not_compatible(monkeypatch):
    monkeypatch.setattr(fast_blocks, "ENABLED", False)
    md = markdown.Markdown()
    assert fast_blocks.install(md) is False
    assert type(md.parser) is BlockParser


def test_install_leaves_another_parser_class_alone():
    class OwnParser(BlockParser):
        pass

    md = markdown.Markdown()
    md.parser.__class__ = OwnParser
    assert fast_blocks.install(md) is False
    assert type(md.parser) is OwnParser


# --- (c) the same tree and RenderedBody ---------------------------------------------------

class BlockPair(Pair):
    """Stock vs stock-plus-only-the-fast-block-parser (Pair compares the whole fast pipeline)."""

    def __init__(self, raw: bool):
        self.ours = blocks_only(raw)
        self.stock = BodyRenderer(NAMES, allow_raw_html=raw, fast=False)


BLOCK_PAIRS = {raw: BlockPair(raw) for raw in (False, True)}
WHOLE_PAIRS = {raw: Pair(NAMES, allow_raw_html=raw) for raw in (False, True)}

WORDS = st.sampled_from(["token", "Inference", "a-b", "snake_case", "*em*", "**b**", "`c|d`", "[x](inference.md)",
                         "[ref]", "[^1]", "[[Inference]]", "$x$", "a|b", "#5", "C#", "x > y", "<b>i</b>", "&amp;",
                         "1.", "2) x", "- ", "* ", "+", ">", "=", "--", "__", "**", "[r]:", "]:", "\\", "caf\u00e9"])
TEXT = st.lists(WORDS, min_size=1, max_size=6).map(" ".join)
INDENT = st.sampled_from(["", "", " ", "  ", "   ", "    ", "     ", "        ", "\t"])
MARKER = st.sampled_from(["- ", "* ", "+ ", "1. ", "2. ", "10. ", "-  ", "1.  "])

LINE = st.one_of(
    TEXT,
    st.tuples(INDENT, MARKER, TEXT).map("".join),                      # list items at any depth
    st.tuples(st.sampled_from(["#", "##", "###", "####", "#######"]), st.sampled_from([" ", ""]), TEXT,
              st.sampled_from(["", " #", " ###"])).map("".join),       # ATX headings
    st.sampled_from(["===", "---", "- - -", "***", "* * *", "___", " _ _ _", "----  ", "-- -", "==  =", "*-*"]),
    st.tuples(st.sampled_from([">", "> ", ">> ", "> > ", "  > ", "> - ", "> 1. ", "> # "]), TEXT).map("".join),
    st.tuples(INDENT, TEXT).map("".join),                              # indented code, lazy continuation
    st.tuples(st.sampled_from(["[^1]: ", "[^2]: ", "[^a b]: ", "   [^1]:"]), TEXT).map("".join),
    st.tuples(st.sampled_from(["[ref]: ", "[Ref]: ", " [r]:", "[ref]:\n    "]),
              st.sampled_from(["https://example.org", "inference.md#a", "<x.md>"]),
              st.sampled_from(["", " \"T\"", " 'T'", " (T)", "\n  \"T\""])).map("".join),
    st.sampled_from(["| a | b |", "|:--|--:|", "| x | `y|z` |", "a | b", "--- | ---", "|a|", "|-|", "| 1 |"]),
    st.sampled_from(["{: #an-id .a-class }", "{: .c }", "[TOC]", "$$", "E = mc^2", "<div>", "</div>",
                     "<!-- c -->", "<p markdown>x</p>", "```", "```python", "~~~", "</b>"]),
)
# Lines joined by one or two newlines: blocks split anywhere, lazy lines, nested list continuations.
BLOCK_DOC = st.lists(st.tuples(LINE, st.sampled_from(["\n", "\n", "\n\n", "\n\n\n"])), min_size=1, max_size=16).map(
    lambda parts: "".join(line + sep for line, sep in parts))


def nested_list(draw_items: list[tuple[int, str, str, bool]]) -> str:
    lines = []
    for depth, marker, text, loose in draw_items:
        lines.append("    " * depth + marker + text + ("\n" if loose else ""))
    return "\n".join(lines)


NESTED = st.lists(st.tuples(st.integers(0, 4), MARKER, TEXT, st.booleans()), min_size=1, max_size=10).map(nested_list)


@FUZZ
@given(body=st.one_of(BLOCK_DOC, NESTED, st.lists(st.one_of(BLOCK_DOC, NESTED), max_size=3).map("\n\n".join)),
       raw=st.booleans())
@example(body="- a\n    - b\n\n        c\n\n    d\n\n1. x\n2. y\nlazy\n\n* z", raw=False)
@example(body="a\n===\nb\n---\n# c #\nd\n***\n> q\n> - i\n>\n>     code\n\n[r]: u 't'\n[^1]: n\n    more", raw=True)
@example(body="| a | b |\n|---|:-:|\n| `x|y` | z |\n\n|a|\n|-|\n\na|\n-|", raw=False)
@example(body="- # h\n  text\n- b\n\n  # h2\n  after", raw=False)
def test_same_render_on_block_heavy_markdown(body, raw):
    BLOCK_PAIRS[raw].check(body, 2)


@FUZZ
@given(body=st.one_of(BLOCK_DOC, NESTED), raw=st.booleans())
def test_same_render_through_the_whole_fast_pipeline(body, raw):
    WHOLE_PAIRS[raw].check(body, 2)


@FUZZ
@given(body=st.lists(st.sampled_from(list(" \n\n\n#=-_*+>|[]^:.1`\\<ab") + ["    ", "- ", "1. ", "> "]),
                     max_size=120).map("".join), raw=st.booleans())
def test_same_render_on_block_syntax_soup(body, raw):
    BLOCK_PAIRS[raw].check(body, 1)


def test_same_render_on_the_synthetic_corpus(corpus):
    names, bodies = load_terms(corpus)
    stock, ours = BodyRenderer(names, fast=False), BodyRenderer(names, fast=False)
    assert fast_blocks.install(ours.md)
    for _, body, line in bodies:
        assert ours.render(body, line) == stock.render(body, line)


def _parse(md: markdown.Markdown, text: str):
    md.reset()
    try:
        return etree.tostring(md.parser.parseDocument(text.split("\n")).getroot())
    except RecursionError:
        return "RecursionError"


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


@pytest.mark.parametrize("make", [lambda n: "- " * n + "x", lambda n: "1. " * n + "x",
                                  lambda n: "\n".join(" " * (4 * i) + "- x" for i in range(n)),
                                  lambda n: "> - " * n + "x"], ids=["ulist", "olist", "indented", "quoted"])
def test_same_outcome_at_the_recursion_limit(make):
    """Nesting deep enough to reach the recursion limit fails (or not) exactly as upstream does.

    With a limit 500 frames above this test: the fast loop runs the first levels,
    upstream's the last ones (``_DEPTH_MARGIN``), and the document is small.
    """
    stock, ours = BodyRenderer(NAMES, fast=False).md, blocks_only().md
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + 500)
    try:
        low, high = 1, 500
        if _parse(stock, make(high)) != "RecursionError":
            # Quotes stop nesting near the limit (nearing_recursion_limit): compare the deep case.
            assert _parse(ours, make(high)) == _parse(stock, make(high))
            return
        while high - low > 1:
            middle = (low + high) // 2
            if _parse(stock, make(middle)) == "RecursionError":
                high = middle
            else:
                low = middle
        for n in [1, 10, *range(high - 6, high + 6)]:
            assert _parse(ours, make(n)) == _parse(stock, make(n)), n
    finally:
        sys.setrecursionlimit(saved)
    assert ours.parser._fast_level == 0  # reset after the RecursionError too


@FUZZ
@given(block=st.one_of(BLOCK_TEXT, st.text(alphabet=st.sampled_from(list(" \n#=-_*+>|[]^:.1\u0663\u00b2`\\ab")),
                                             max_size=12)))
@example(block="\u0663. item")  # an Arabic-Indic digit: str.isdigit, so an ordered-list lead
@example(block="___")
@example(block="[^1]: note")
def test_paragraph_only_blocks_fail_every_condition(block):
    """paragraph_only() lets a block skip every processor but the paragraph: each condition must fail."""
    if fast_blocks.paragraph_only(block):
        for cls, (condition, _) in KNOWN.items():
            assert condition is None or not condition(block), (cls.__name__, block)


def test_paragraph_only_is_taken_on_the_corpus_shapes():
    assert fast_blocks.paragraph_only("`decode` is *probability*")
    assert fast_blocks.paragraph_only("Output inference beam batch model token.")
    assert not fast_blocks.paragraph_only("Two\nlines")
    assert not fast_blocks.paragraph_only("- item")


@FUZZ
@given(row=st.lists(st.sampled_from(list("|`\\ a-:") + ["``", "`a|b`", "\\|", "\\`"]), max_size=16).map("".join))
@example(row="| `compute` | draft context | 60 |")
@example(row="`a|b` | `c` | `")
@example(row="a | `b | c")
def test_table_rows_split_as_upstream_splits_them(row):
    """The table processor's cells: the short cut (no backslash, single backticks) or upstream's own _split."""
    renderer = BodyRenderer(NAMES)
    table = renderer.md.parser.blockprocessors["table"]
    assert "_split" in vars(table)  # installed: the comparison below is not vacuous
    assert table._split(row) == type(table)._split(table, row)


def test_a_table_renders_as_stock_with_code_and_pipes():
    pair = Pair(NAMES)
    pair.check("| a | `b|c` | d |\n|---|---|--:|\n| `x` | y `|` z | `p`q` |\n| \\| | `` `|` `` | ` |")


# --- (d) one-line hash headings without the regex (fast_shapes) ----------------------------

def test_heading_level_agrees_with_the_hash_header_regex():
    """Where ``heading_level`` takes a block, upstream's RE matches all of it with that level and the rest as header."""
    import random

    from site_builder.markup.accel.fast_shapes import heading_level

    pieces = ["#", "##", "###", "#######", " ", "a", "C#", "#5", "\\", "\\#", "\n", "*", "é", "\t", "=", "- "]
    pick = random.Random(40)
    taken = 0
    for _ in range(40_000):
        block = "".join(pick.choice(pieces) for _ in range(pick.randint(1, 8)))
        level = heading_level(block)
        if not level:
            continue
        taken += 1
        match = bp.HashHeaderProcessor.RE.search(block)
        assert match is not None and match.span() == (0, len(block)), block
        assert len(match.group("level")) == level and match.group("header") == block[level:], block
    assert taken > 2_000


def test_heading_short_cut_only_behind_refusing_processors():
    from site_builder.markup.accel.fast_shapes import heads_first

    parser = BodyRenderer(NAMES).md.parser
    parser.parseDocument(["# x"])  # takes the snapshot
    assert type(parser._fast_heading) is bp.HashHeaderProcessor
    procs = parser._fast_procs
    assert heads_first(procs) is parser._fast_heading
    quote = [entry for entry in procs if type(entry[0]) is bp.BlockQuoteProcessor]
    assert heads_first(quote + procs) is None  # a processor that might take a '#' line first: no short cut
