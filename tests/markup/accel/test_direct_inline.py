"""Simple inline markup built directly (markup/direct_inline.py): exactly what the stock stage builds.

The direct path stands in for Python-Markdown's inline patterns on strings of
code spans, links, *em*, **strong**, _em_ and __strong__ among plain words. These tests feed it
strings made mostly of those shapes and of near misses (a stray delimiter, a
space inside a delimiter, a footnote or image bracket, an escape, a line break
...), and compare the HTML and the whole inline-stage state (tree, stash ids,
parent map, ancestors) with Python-Markdown's own processors. They also check
that the path is taken where it should be, so the comparison is not vacuous.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

import pytest

from helpers import requires_fast
from hypothesis import example, given
from hypothesis import strategies as st
from markdown import util

from site_builder.markup.accel import direct_inline, fast_inline
from site_builder.markup.render import BodyRenderer
from markdown_pairs import FUZZ, NAMES, PAIRS, STATE_PAIRS

pytestmark = requires_fast(fast_inline)

SIMPLE = st.sampled_from([
    "token", "a", "LLM inference", "(paren)", "end.", "x > y", "caf\u00e9", "!", "^", "]", ":", "x,", "2+2",
    "`x`", "`a*b [c](d) <e> & _f_`", "` `", "`  padded  `", "`<b>&amp;</b>`", "`[^1]`",
    "[t](inference.md)", "[a b](https://e.org/x_y?a=1&b=2#top)", "[Inference](inference.md#section)",
    "[(x)](output-tokens.md)", "[t!](nowhere.md)", "[ spaced ](y)",
    "*a*", "**b c**", "*x, y!*", "**(s)**", "*\u00e9*", "*a]b*",
    "_a_", "__b c__", "_x, y!_", "__(s)__", "_\u00e9_", "_a]b_", "(_p_)",
    "<https://e.org/x>", "<http://e.org/a_b*c*_d_>", "<ftp://h/p?q=1>", "<X+y.z-1://w>",
])
NEAR_MISS = st.sampled_from([
    "*", "**", "***", "_", "[", "`", "``", "\\", "&", "<", "  \n", "\n", " ", "* a*", "*a *", "***a***", "`x``x`", "``",
    "*a**", "**a*", "_a_", "*a\nb*", "*a  \nb*", "[^1]", "[^x](y)", "![t](i.png)", "[t]( y)", "[t](a b)",
    "[t](a[b])", "[t](a(b))", "[t][ref]", "[t] (x)", "[]", "[](x)", "[t](<x>)", "[t](x \"title\")",
    "[*e*](x)", "[`c`](x)", "*`c`*", "*[l](x)*", "**a *b* c**", "`a\\`", "&amp;", "<b>x</b>", "a_b",
    "\x02klzzwxh:0000\x03", "$x^2$", "[[Inference]]", "{: .c }",
    "__", "___", "_ a_", "_a _", "__a_", "_a__", "___a___", "a_b_c", "_a_b", "b_a_", "\u00e9_a_", "_a_\u00e9",
    "_a\nb_", "_a  \nb_", "*a*_b_", "_a_*b*", "_*a*_", "*_a_*", "__a *b* c__", "_`c`_", "_[l](x)_", "[_e_](x)",
    "_a_1", "1_a_", "_1_", "\u00b2_a_", "_a_\u0660", "\u200d_a_",
    "<https://e.org/a b>", "<https://e.org/[x]>", "<https://a&b>", "<https://a\\b>", "<me@e.org>", "<1x://y>",
    "<https://>", "<https:/x>", "<https://a<b>", "<https://a`b`>", "*<https://x>*", "[<https://x>](y)",
    "<https://x>_a_", "_a_<https://x>", "<https://x\ny>",
])
SEPARATOR = st.sampled_from(["", " ", " ", "\n"])
STRING = st.lists(st.tuples(st.one_of(SIMPLE, SIMPLE, SIMPLE, NEAR_MISS), SEPARATOR), min_size=1, max_size=10).map(
    lambda parts: "".join(p + s for p, s in parts).strip("\n") or "x")
PLACES = st.sampled_from([
    "{}", "- {}", "## {}", "| h |\n|---|\n| {} |", "1. a\n    - {}", "> {}", "{}\n{{: #p }}",
    "Before\n\n{}\n\nafter *x*", "[^1]: {}\n\nA note[^1] here.",
])


@FUZZ
@given(text=STRING, place=PLACES, raw=st.booleans())
@example(text="`code`\n\n![[*token*](inference.md)](i.png)", place="{}", raw=False)
@example(text="*a* `b` [c](d) **e** `f`\n\n![[*token*](inference.md)](i.png)", place="{}", raw=False)
@example(text="`decode` is *probability*", place="- {}", raw=False)
@example(text="a*b*c **d**e", place="{}", raw=True)
@example(text="`x``x`", place="{}", raw=False)
def test_same_html_and_inline_state_as_stock(text, place, raw):
    body = place.replace("{}", text.replace("\n", " ") if place != "{}" else text)
    PAIRS[raw].check(body, 2)
    STATE_PAIRS[raw].check(body)


DIRECT = [
    ("`decode` is *probability*", None, [("code", "decode", " is "), ("em", "probability", None)]),
    ("See [term 00289](term-00289.md) now.", "See ", [("a", "term 00289", " now.")]),
    ("a*b*c **d**e", "a", [("em", "b", "c "), ("strong", "d", "e")]),
    ("`<x> & y` then `z`", None, [("code", "&lt;x&gt; &amp; y", " then "), ("code", "z", None)]),
    ("*(x)*: [a b](https://e.org/?a=1&b=2)", None, [("em", "(x)", ": "), ("a", "a b", None)]),
    ("**inference** then _greedy_", None, [("strong", "inference", " then "), ("em", "greedy", None)]),
    ("(__a b__) and [t](x_y)", "(", [("strong", "a b", ") and "), ("a", "t", None)]),
    ("See <https://e.org/a_b>.", "See ", [("a", "https://e.org/a_b", ".")]),
]


@pytest.mark.parametrize("text, lead, expected", DIRECT)
def test_simple_strings_are_built_directly(text, lead, expected):
    built = direct_inline.spans(text)
    assert built is not None
    assert built[0] == lead
    assert [(e.tag, e.text, e.tail) for e in built[1]] == expected
    # As upstream: the text of code spans and autolinks is final, the others' is not.
    assert all(isinstance(e.text, util.AtomicString) == (e.tag == "code" or e.text == e.get("href"))
               for e in built[1])


@pytest.mark.parametrize("text", [
    "* a*", "*a *", "***a***", "`x``x`", "``", "*a**", "_a", "a_b", "a_b_", "_a_b", "_ a_", "___a___", "_a__", "`x", "``x``", "a\\*", "[^1](x)", "![t](i.png)", "[t](a b)",
    "[t](a[b])", "[*e*](x)", "*`c`*", "*[l](x)*", "**a *b* c**", "&amp;", "<b>", "a  \nb", "[t][ref]", "[t]",
    "x " + util.INLINE_PLACEHOLDER_PREFIX + "0000\x03",
])
def test_anything_else_goes_the_stock_way(text):
    assert direct_inline.spans(text) is None


def test_the_direct_path_is_used_on_the_pipeline(monkeypatch):
    renderer = BodyRenderer(NAMES)
    assert direct_inline.delimiter_processor(list(renderer.md.inlinePatterns)) is not None
    calls = []
    original = direct_inline.spans

    def counting(data):
        result = original(data)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(direct_inline, "spans", counting)
    renderer.render("- `decode` is *probability*\n- [x](inference.md) and **y**", 1)
    assert calls and all(calls)


def test_an_extra_or_changed_pattern_turns_the_direct_path_off():
    renderer = BodyRenderer(NAMES)
    patterns = list(renderer.md.inlinePatterns)
    assert direct_inline.delimiter_processor(patterns) is not None
    assert direct_inline.delimiter_processor(patterns[1:]) is None  # no code spans first
    star = renderer.md.inlinePatterns["em_strong"].delimiters["*"]
    star.boundary = renderer.md.inlinePatterns["em_strong"].delimiters["_"].boundary  # '*' with '_' rules
    assert direct_inline.delimiter_processor(patterns) is None


def test_a_leftover_delimiter_state_turns_it_off():
    renderer = BodyRenderer(NAMES)
    delimiters = renderer.md.inlinePatterns["em_strong"]
    assert direct_inline.delimiters_clear(delimiters)
    delimiters.delimiters["_"].stack.append((0, 1, False, 1, 1))
    assert not direct_inline.delimiters_clear(delimiters)
    delimiters.reset()
    delimiters.regions.append((0, 1, 2, 3, ("strong", "em"), 1))
    assert not direct_inline.delimiters_clear(delimiters)


@pytest.mark.parametrize("text", ["`x` `\x02klzzwxh:0000\x03`", "`\x02klzzwxh:9999\x03`"])
def test_a_placeholder_in_a_code_span_goes_the_stock_way(text):
    """Found in review: the stock stage expands stashed text even inside code, so a hand-built
    tree holding a placeholder there must not be built directly (markdown source cannot: STX is
    removed before the inline stage)."""
    assert direct_inline.spans(text) is None
    trees = []
    for renderer in (BodyRenderer(NAMES), BodyRenderer(NAMES, fast=False)):
        renderer.md.reset()
        root = etree.Element("div")
        etree.SubElement(root, "p").text = text
        renderer.md.treeprocessors["inline"].run(root)
        trees.append([(e.tag, e.text, type(e.text).__name__, e.tail) for e in root.iter()])
    assert trees[0] == trees[1]
