"""Markdown stage: maths, wikilinks, link rewriting, anchors, raw HTML."""

from dataclasses import dataclass, field
import xml.etree.ElementTree as ET

import pytest

from site_builder.markup.mathml import LatexError, latex_to_mathml
from site_builder.markup.render import PAGE_IDS, BodyRenderer, Link
from site_builder.names import NameIndex


@dataclass
class T:
    slug: str
    title: str
    aliases: list = field(default_factory=list)


NAMES = NameIndex([T("inference", "Inference", ["LLM inference"]), T("output-tokens", "Output tokens")])


def render(body: str, **kw):
    return BodyRenderer(NAMES, **kw).render(body, 10)


def test_inline_and_display_maths_become_mathml():
    result = render("Let $\\alpha^k$ be.\n\n$$\nE = \\frac{1}{2}\n$$\n")
    assert result.problems == []
    assert '<math alttext="\\alpha^k"' in result.html and 'display="inline"' in result.html
    assert '<div class="math-display"><math alttext="E = \\frac{1}{2}"' in result.html
    assert "<mfrac>" in result.html and "$" not in result.html


def test_mathml_is_well_formed_xml():
    ET.fromstring(latex_to_mathml("\\sum_{k=0}^{\\gamma} \\alpha^k = \\frac{1 - \\alpha^{\\gamma+1}}{1 - \\alpha}", True))


@pytest.mark.parametrize("latex", ["\\frac{1}{2", "x^", "\\notacommand x", "\\left( x", "a}"])
def test_bad_latex_raises(latex):
    with pytest.raises(LatexError):
        latex_to_mathml(latex, False)


def test_bad_latex_is_reported_at_its_line():
    result = render("ok\n\ntext $\\frac{1}{2$ more\n")
    assert [line for line, _ in result.problems] == [12]


def test_a_repeated_formula_is_converted_once_per_mode_and_its_errors_every_time():
    """The formula memo (mathml.FORMULA_MEMO_SIZE) keys on source and mode, and keeps no failure."""
    body = "$\\beta_{memo}$ and $\\beta_{memo}$\n\n$$\n\\beta_{memo}\n$$\n\nbad $\\frac{1}{2$\n\nagain $\\frac{1}{2$\n"
    first, second = render(body), render(body)
    assert first.html == second.html
    assert first.html.count('display="inline"') == 2 and first.html.count('display="block"') == 1
    assert [line for line, _ in first.problems] == [line for line, _ in second.problems] == [16, 18]


def test_dollars_in_code_and_prices_are_left_alone():
    result = render("Costs $5 or $6.\n\n```\n$x$\n```\n\n`$y$` here\n")
    assert result.problems == []
    assert "<math" not in result.html and "$x$" in result.html and "$y$" in result.html


def test_wikilinks_resolve_titles_aliases_plurals_and_text():
    result = render("[[Inference]], [[llm inference|run]], [[output token]] and [[inference#why]].")
    assert result.html.count('href="../inference/index.html"') == 2
    assert 'href="../output-tokens/index.html"' in result.html and ">run</a>" in result.html
    assert Link("inference", "why", 10) in result.links


def test_file_links_rewrite_with_anchor_and_pretty_urls():
    result = render("See [x](inference.md#phases) and [y](../terms/output-tokens.md).", pretty_urls=True)
    assert 'href="../inference/#phases"' in result.html
    assert 'href="../output-tokens/"' in result.html
    assert {l.slug for l in result.links} == {"inference", "output-tokens"}


def test_unknown_links_are_problems_with_lines():
    result = render("one\n[[Nope]]\n[x](missing.md)\n[y](picture.png)\n")
    assert sorted(line for line, _ in result.problems) == [11, 12, 13]


def test_external_links_untouched():
    result = render("[a](https://example.org/x.md) and <https://example.org>")
    assert result.problems == [] and result.links == []
    assert 'href="https://example.org/x.md"' in result.html


def test_headings_get_stable_readable_anchors():
    result = render("## Why it matters\n\n### Café au lait\n\n## Why it matters\n")
    assert result.anchors == ["why-it-matters", "café-au-lait", "why-it-matters_1"]


@pytest.mark.parametrize("fast", [True, False])
def test_headings_never_take_an_id_the_page_around_them_uses(fast):
    # "## Related terms" would otherwise give a second id="related-terms" on the page.
    headings = [ident.replace("-", " ").title() for ident in sorted(PAGE_IDS)]
    result = render("".join(f"## {text}\n\n" for text in headings), fast=fast)
    assert len(result.anchors) == len(PAGE_IDS)
    assert not set(result.anchors) & PAGE_IDS
    assert "related-terms_1" in result.anchors and "main_1" in result.anchors
    assert not result.problems


def test_an_id_set_by_hand_that_the_page_uses_is_reported_at_its_line():
    result = render("Back to [the top](#main).\n\n## Box {: #main }\n\n## Fine {: #fine }\n")
    assert result.problems == [(12, "id 'main' is already used by the page around the body")]
    assert "site-builder-page-ids" not in result.html and "fine" in result.anchors


@pytest.mark.parametrize("fast", [True, False])
def test_a_level_one_heading_is_a_warning_at_its_line(fast):
    body = ("Intro.\n\n# *Big* title\n\n```\n# Example comment\n```\n\n#Example\n\n> # Example\n\n"
            "Setext\n======\n\n## Fine\n\n# Caf&eacute;\n")
    result = render(body, fast=fast)
    message = "makes a second <h1> on the page, whose title is its <h1>: start body headings at ##"
    # Lines from 10: the fenced comment is not a heading; each heading is found at its own line,
    # its text as written (no placeholder of Python-Markdown's leaks into the message).
    assert result.problems == [(line, f"level-1 heading {text!r} {message}", "warning") for line, text in
                               [(12, "*Big* title"), (18, "Example"), (20, "Example"), (22, "Setext"), (27, "Caf&eacute;")]]


def test_raw_html_escaped_unless_allowed():
    assert "&lt;b&gt;bold&lt;/b&gt;" in render("<b>bold</b> text").html
    assert "<b>bold</b>" in render("<b>bold</b> text", allow_raw_html=True).html


def test_tables_footnotes_attr_list():
    html = render("| a | b |\n|---|---|\n| 1 | 2 |\n\nNote.[^1]\n\n## Head {#custom}\n\n[^1]: The note.\n").html
    assert "<table>" in html and 'id="fn:1"' in html and 'id="custom"' in html


def test_table_alignment_uses_classes_not_style_attributes():
    html = render("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n").html
    assert "style=" not in html
    assert 'class="align-left"' in html and 'class="align-center"' in html and 'class="align-right"' in html


class _CountingIndex(NameIndex):
    """A NameIndex that counts the look-ups it answers."""

    asked: list

    def resolve(self, name):
        self.asked.append(name)
        return super().resolve(name)


def test_a_renderer_resolves_each_wikilink_name_once_with_the_same_links_and_problems():
    """BodyRenderer.resolve remembers the index's answers (RESOLVED_NAMES): a renderer
    reused over many bodies gives what a fresh one per body gives, unknown names included."""
    names = _CountingIndex([T("inference", "Inference", ["LLM inference"]), T("output-tokens", "Output tokens")])
    names.asked = []
    bodies = ["[[Inference]] and [[nobody]].", "[[inference]], [[Nobody]] and [[Output tokens|out]].",
              "Again [[Inference]] and [[nobody]]\n\n- [[inference#why]]"]
    reused = BodyRenderer(names)
    kept = [reused.render(body, 3) for body in bodies]
    assert sorted(names.asked) == sorted({"Inference", "nobody", "inference", "Nobody", "Output tokens"})
    fresh = [BodyRenderer(names).render(body, 3) for body in bodies]
    assert kept == fresh
    assert [len(body.problems) for body in kept] == [1, 1, 1]
