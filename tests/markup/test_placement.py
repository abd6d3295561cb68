"""Where an explainer's figure goes in a body (``markup/placement.py``): after
the opening section by default, at the ``<!-- explainer -->`` marker when the
author writes one; the marker's errors at their lines; and the default place
changes no byte of any body's HTML."""

from __future__ import annotations

import pytest

from site_builder.markup import placement
from site_builder.markup.render import BodyRenderer
from site_builder.names import NameIndex

from helpers import REPO


@pytest.fixture(scope="module")
def renderer():
    return BodyRenderer(NameIndex([]))


def parts(body):
    cut = len(body.html) if body.opening is None else body.opening
    return body.html[:cut], body.html[cut:]


def test_the_opening_section_ends_at_the_first_heading(renderer):
    body = renderer.render("Intro, one.\n\nIntro, two.\n\n## Then\n\nMore.\n\n## Last\n", 8)
    assert parts(body) == ("<p>Intro, one.</p>\n<p>Intro, two.</p>\n",
                           '<h2 id="then">Then</h2>\n<p>More.</p>\n<h2 id="last">Last</h2>\n')
    assert body.marker_line is None and not body.problems


def test_a_heading_nested_in_a_quote_is_not_the_end_of_the_opening(renderer):
    body = renderer.render("Intro.\n\n> ## Quoted\n\n## Real\n", 1)
    head, rest = parts(body)
    assert head.endswith("</blockquote>\n") and rest.startswith('<h2 id="real">')


def test_without_a_heading_the_whole_body_is_the_opening(renderer):
    body = renderer.render("Only prose.\n\nAnd more.\n", 1)
    assert body.opening is None


def test_a_body_that_starts_with_a_heading_has_no_opening(renderer):
    assert renderer.render("## First\n\nText.\n", 1).opening == 0


def test_the_marker_puts_the_figure_where_it_stands(renderer):
    body = renderer.render("Intro.\n\n## One\n\nText.\n\n<!-- explainer -->\n\n## Two\n", 10)
    assert parts(body) == ('<p>Intro.</p>\n<h2 id="one">One</h2>\n<p>Text.</p>\n', '<h2 id="two">Two</h2>\n')
    assert body.marker_line == 16 and not body.problems
    assert "explainer" not in body.html and placement.SENTINEL not in body.html


@pytest.mark.parametrize("body, opening", [
    ("<!-- explainer -->\n\nText.\n\n## H\n", 0),   # the figure first
    ("Text.\n\n## H\n\n<!--explainer-->\n", None),  # last (None: after the whole body)
])
def test_the_marker_at_either_end(renderer, body, opening):
    rendered = renderer.render(body, 1)
    assert not rendered.problems
    if opening is None:
        assert rendered.opening == len(rendered.html)
    else:
        assert rendered.opening == opening and rendered.html.startswith("<p>Text.</p>")
    assert "explainer" not in rendered.html


def test_a_marker_in_code_is_text(renderer):
    body = renderer.render("Intro.\n\n```\n<!-- explainer -->\n```\n\n    <!-- explainer -->\n\n## H\n", 1)
    assert body.marker_line is None and not body.problems
    assert body.html.count("&lt;!-- explainer --&gt;") == 2
    assert parts(body)[1].startswith('<h2 id="h">')


def test_a_second_marker_is_an_error_at_its_line(renderer):
    body = renderer.render("A.\n\n<!-- explainer -->\n\nB.\n\n<!-- explainer -->\n", 5)
    assert body.marker_line == 7
    assert body.problems == [(11, "a second explainer marker <!-- explainer --> (the first is on line 7): "
                                  "the figure goes in one place")]


@pytest.mark.parametrize("body", ["A.\n<!-- explainer -->\n\nB.\n", "A.\n\n<!-- explainer -->\nB.\n"])
def test_a_marker_must_stand_alone(renderer, body):
    rendered = renderer.render(body, 3)
    assert rendered.problems == [(4 if body.startswith("A.\n<") else 5, "the explainer marker <!-- explainer --> must "
                                  "stand alone, with a blank line before and after it")]
    assert placement.SENTINEL not in rendered.html


def test_a_marker_inside_an_html_block_is_an_error():
    raw = BodyRenderer(NameIndex([]), allow_raw_html=True)
    body = raw.render("Intro.\n\n<div>\n\n<!-- explainer -->\n\n</div>\n", 2)
    assert body.problems == [(6, "the explainer marker <!-- explainer --> must be at the top level of the body, "
                                 "not inside a list, a quote or an HTML block")]
    assert placement.SENTINEL not in body.html


BODIES = [
    "Intro.\n\n## H\n\nText.\n",
    "```\ncode\n\n\n\n```\n\n## After a fence\n",
    "Text[^1].\n\n## H\n\n[^1]: A note.\n",
    "- a\n- b\n\n## H\n\n| x | y |\n|---|---|\n| 1 | 2 |\n",
    "# Level one\n\nText.\n\n### Three\n",
    "",
]


@pytest.mark.parametrize("fast", [True, False])
def test_the_default_place_changes_no_byte(monkeypatch, fast):
    """The sentinel the tree step puts before the first heading comes out again
    without a trace: every body renders as it would with no placement at all."""
    bodies = BODIES + [p.read_text().split("---\n", 2)[2] for p in sorted((REPO / "content" / "terms").glob("*.md"))]
    renderer = BodyRenderer(NameIndex([]), fast=fast)
    placed = [renderer.render(b, 1).html for b in bodies]
    monkeypatch.setattr(placement, "place", lambda root: None)
    plain = BodyRenderer(NameIndex([]), fast=fast)
    assert placed == [plain.render(b, 1).html for b in bodies]


def test_the_place_survives_the_cache_record(renderer):
    from site_builder.markup.render import RenderedBody
    body = renderer.render("Intro.\n\n<!-- explainer -->\n\n## H\n", 4)
    again = RenderedBody.from_record(body.to_record(), body.html)
    assert (again.opening, again.marker_line) == (body.opening, body.marker_line) == (len("<p>Intro.</p>\n"), 6)
