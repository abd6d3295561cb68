"""The list processors' direct path (``fast_lists.run_list``) gives stock's tree.

Hostile lists, generated: nested, loose and tight, mixed markers, numbers with
a start, items holding code, quotes, tables, headings, rules, references and
footnote definitions, lazy and indented continuations, odd indentation. Each
is parsed by stock Python-Markdown and by the fast block parser (with the
site's sane lists, and with a default Markdown's plain list processors), and
rendered by a stock and a fast ``BodyRenderer``.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

import markdown
from hypothesis import example, given
from hypothesis import strategies as st

from helpers import requires_fast
from site_builder.markup.accel import fast_blocks, fast_lists
from site_builder.markup.render import BodyRenderer

from markdown_pairs import FUZZ, NAMES, Pair

pytestmark = requires_fast(fast_blocks)


def _parsers(make) -> tuple[markdown.Markdown, markdown.Markdown]:
    stock, ours = make(), make()
    assert fast_blocks.install(ours)
    return stock, ours


SITE = _parsers(lambda: BodyRenderer(NAMES, fast=False).md)  # sane lists, tables, footnotes, attr_list...
PLAIN = _parsers(markdown.Markdown)  # OListProcessor/UListProcessor: lazy ol, ol and ul siblings
WHOLE = {raw: Pair(NAMES, allow_raw_html=raw) for raw in (False, True)}


def _tree(md: markdown.Markdown, text: str) -> bytes:
    md.reset()
    return etree.tostring(md.parser.parseDocument(text.split("\n")).getroot())


ITEM = st.sampled_from([
    "`decode` is *entropy*", "**cache** then _draft_", "plain words", "*", "**", "***", "* x", "*x*", "+x", "+ x",
    "-", "--", "---", "- - -", "-x", "_", "___", "_ _ _", "__b__", "_e_", "# heading", "#tag", "> quote", "x > y",
    "[r]: https://example.org", "[^1]: note", "[^1]", "[x](inference.md)", "[[Inference]]", "1. x", "1.x", "2) y",
    "\u0663. arabic", "\u00b2 sup", "  ", "\t", "\tx", "a | b", "| a | b |", "{: .c }", "$$", "$x$", "```",
    "<div>", "&amp;", "\\*", "x  ", "caf\u00e9", "[TOC]", "=", "==",
])
MARKER = st.sampled_from(["- ", "* ", "+ ", "1. ", "3. ", "10. ", "0. ", "-   ", "1.   ", "-\t", "*  ", "\u0663. "])
INDENT = st.sampled_from(["", "", "", " ", "  ", "   ", "    ", "     ", "        ", "\t"])
SEPARATOR = st.sampled_from(["\n", "\n", "\n", "\n\n", "\n\n\n"])
# What may follow an item inside it: lazy and indented continuations, code, quotes, tables, fences.
CONTINUATION = st.sampled_from([
    "", "", "", "\nlazy line", "\n    indented more", "\n\n    second paragraph", "\n\n        code block",
    "\n    > quoted", "\n    | a | b |\n    |---|---|\n    | 1 | 2 |", "\n    ```\n    fenced\n    ```",
    "\n===", "\n---", "\n    - nested", "\n    1. nested", "\n        - deeper", "\n\n    - nested loose",
    "\n# heading after", "\n> quote after", "\n{: #an-id }",
])

LINE = st.tuples(INDENT, MARKER, ITEM, CONTINUATION).map("".join)
LIST_DOC = st.lists(st.tuples(LINE, SEPARATOR), min_size=1, max_size=12).map(
    lambda parts: "".join(line + sep for line, sep in parts))
# Lists beside other blocks: a paragraph or heading before, text after, two lists in a row.
DOC = st.one_of(LIST_DOC, st.tuples(st.sampled_from(["Para.\n", "Para.\n\n", "# H\n", "> q\n\n", ""]), LIST_DOC,
                                     st.sampled_from(["", "after", "\n\nafter", "\n\n1. again", "\n\n- again"]))
                .map("".join))


@FUZZ
@given(body=DOC)
@example(body="- a\n- b\n\n- c\n\n1. x\n2. y\n\n3. z")
@example(body="3. three\n4. four\n\n- x\n    1. nested\n        - deeper\n\n    back\nlazy")
@example(body="- **b** then _e_\n- `c` is *e*\n- * x\n- ***\n- # h\n- > q\n- [r]: u\n- [^1]: n\n-  \n- \t")
@example(body="* a\n+ b\n- c\n1. d\n\n1. e\n* f")
@example(body="- a\n    | x | y |\n    |---|---|\n    | 1 | 2 |\n- b\n\n        code\n- c\n    > quote\nlazy")
@example(body="- # h\n  text\n- b\n\n  # h2\n  after")
def test_lists_parse_as_stock(body):
    for stock, ours in (SITE, PLAIN):
        assert _tree(ours, body) == _tree(stock, body)


@FUZZ
@given(body=DOC, raw=st.booleans())
def test_lists_render_as_stock(body, raw):
    WHOLE[raw].check(body, 3)


def test_the_direct_path_is_taken_for_the_list_processors():
    """The snapshot hands the list processors to run_list, and the usual items take its short cut."""
    for _stock, ours in (SITE, PLAIN):
        _tree(ours, "- `decode` is *entropy*\n- **cache** then _draft_")
        runs = {type(p).__name__: run for p, _, run in ours.parser._fast_procs}
        lists = [name for name in runs if "List" in name and "Indent" not in name]
        assert len(lists) == 2 and all(runs[name].func is fast_lists.run_list for name in lists)
    assert fast_blocks.paragraph_only("`decode` is *entropy*")
    assert fast_blocks.paragraph_only("**cache** then _draft_")
    for block in ("* x", "***", "- - -", "# h", "> q", "[r]: u", "1. x", " x", "two\nlines", ""):
        assert not fast_blocks.paragraph_only(block), block


def test_without_a_paragraph_processor_the_list_run_is_upstreams():
    stock, ours = _parsers(markdown.Markdown)
    for md in (stock, ours):
        md.parser.blockprocessors.deregister("paragraph")
    ours.reset()
    ours.parser.parseDocument([""])  # an empty block: the snapshot is taken, no item needs a paragraph
    assert ours.parser._fast_procs is not None
    assert all(run is None for _, _, run in ours.parser._fast_procs)
