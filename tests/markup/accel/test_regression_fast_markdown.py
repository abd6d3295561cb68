"""Regression: BodyRenderer(fast=True) must render exactly what fast=False renders.

(Also: a renderer reused after a body too deeply nested to render must render
the next bodies like a fresh one.)

Found by differential testing of the fast processors (fast_inline, fast_tree,
fast_blocks) against the stock pipeline.
"""

from __future__ import annotations

import pytest
from markdown_pairs import NAMES

from site_builder.markup.render import BodyRenderer


def _pair(raw: bool) -> tuple[BodyRenderer, BodyRenderer]:
    return BodyRenderer(NAMES, allow_raw_html=raw, fast=True), BodyRenderer(NAMES, allow_raw_html=raw, fast=False)


# fast_tree.FastTocTreeprocessor / _plain_name: a heading whose text is plain is
# named ' '.join(text.split()) without serializing it. Stock names it from
# render_inner_html(), which unescapes the *whole* serialized element, the start
# tag included, and then cuts at the first '>'. An attr_list attribute value
# holding an escaped '>' ('\>', an STX..ETX placeholder until then) becomes a
# literal '>' inside the start tag, so stock's name (and so the heading's id,
# anchors and headings) starts inside the attribute value. _plain_name only
# checks attribute *names* for '>', not values holding STX.
@pytest.mark.parametrize("raw", [False, True])
@pytest.mark.parametrize("body", [
    '## Head {: title="a\\>b" }',
    '## Head {: title="a\\>b c d" }\n\ntext',
    '# Title {: class="x\\>y" }',
])
def test_heading_with_escaped_gt_in_attr_list_value(body, raw):
    fast, stock = _pair(raw)
    expected = stock.render(body, 1)
    actual = fast.render(body, 1)
    assert actual.html == expected.html
    assert actual == expected


# fast_tree.FastPrettifyTreeprocessor: its recursion calls a helper, block(),
# which on a cache miss calls md.is_block_level: one Python frame more than
# stock _prettifyETree -> is_block_level. When the tree is deep enough that
# stock prettify ends exactly at the recursion limit (a tag seen first at the
# deepest element, here <em>), fast raises RecursionError and BodyRenderer
# reports "markdown is nested too deeply to render" (empty HTML) where stock
# renders the page. Lists nested by indentation (99 levels, 396 columns, under
# source.MAX_INDENT) make the tree deep without deepening the block parser's
# recursion, so prettify, not the parser, is the deepest stage; "- - - ... *x*"
# adds two levels per "- ".
def _deep_body(dashes: int) -> str:
    levels = 99
    head = "".join("    " * i + "- a\n\n" for i in range(levels))
    return head + "    " * levels + "- " * dashes + "*x*\n"


def _at_depth(extra: int, call):
    """``call()`` with ``extra`` more frames on the stack (so the test hits the limit whatever pytest's depth)."""
    return call() if extra == 0 else _at_depth(extra - 1, call)


def _render(fast: bool, body: str, extra: int):
    # A new renderer each time: a RecursionError inside the block parser leaves
    # md.parser.state dirty (see the report), which would skew later renders.
    renderer = BodyRenderer(NAMES, fast=fast)
    return _at_depth(extra, lambda: renderer.render(body, 1))


def test_deep_tree_at_the_recursion_limit_renders_like_stock():
    # Stock prettify's depth grows by 2 per dash and by 1 per extra frame, so
    # for one of extra in (0, 1) the deepest body stock still renders puts it
    # exactly at the recursion limit.
    for extra in (0, 1):
        lo, hi = 0, 800  # stock renders _deep_body(lo) and not _deep_body(hi)
        assert not _render(False, _deep_body(lo), extra).problems
        assert _render(False, _deep_body(hi), extra).problems
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _render(False, _deep_body(mid), extra).problems:
                hi = mid
            else:
                lo = mid
        body = _deep_body(lo)
        expected = _render(False, body, extra)
        actual = _render(True, body, extra)
        assert actual.problems == expected.problems, f"{lo} dashes, {extra} extra frames"
        assert actual == expected


# Not a fast/stock divergence (both modes, and the renderer before the fast
# processors, commit 6b11b2f, do it): a RecursionError inside the block parser
# is caught by BodyRenderer.render, but md.reset() does not empty
# md.parser.state, which keeps the 'list'/'detabbed' entries pushed by the
# interrupted ListIndent/List processors. Every later body rendered by the
# same (reused) renderer is then parsed wrongly: "<li>" outside any "<ul>",
# paragraphs without "<p>".
@pytest.mark.parametrize("fast", [True, False])
def test_renderer_reused_after_recursion_error_renders_like_a_fresh_one(fast):
    reused = BodyRenderer(NAMES, fast=fast)
    too_deep = reused.render("- " * 2000 + "x", 1)
    assert too_deep.problems == [(1, "markdown is nested too deeply to render")]
    body = "- a\n\n    - b\n\nhello"
    assert reused.render(body, 1) == BodyRenderer(NAMES, fast=fast).render(body, 1)
