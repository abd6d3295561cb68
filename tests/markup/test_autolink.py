"""Autolinks (``markup.autolink``) in the glossary's own bodies and in the Markdown
extension, on the tricky corpus of ``autolink_corpus``; the matcher's rules."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.integrations import published
from site_builder.integrations.mdext import GlossaryLinkError, GlossaryLinkExtension
from site_builder.markup.autolink import TermMatcher
from autolink_corpus import BOX_SVG, FIRST_IN_PAGE, FIRST_IN_SECTION, GLOSSARY, PAGE
from glossary_site import term, write_tree

BASE = "https://example.org/glossary/"


class TermLinks(HTMLParser):
    """(data-term, text) of each link to a term, in order."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []
        self._open: str | None = None
        self._text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "a" and dict(attrs).get("data-term"):
            self._open, self._text = dict(attrs)["data-term"], []

    def handle_data(self, data):
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "a" and self._open is not None:
            self.found.append((self._open, "".join(self._text)))
            self._open = None


def prose(page: Path) -> str:
    html = page.read_text(encoding="utf-8")
    return re.search(r'<div class="prose">(.*?)</div>', html, re.S).group(1)


def build(root: Path, site_toml: str, extra: dict | None = None) -> Path:
    content = write_tree(root / "content", {**GLOSSARY, "site.toml": site_toml, **(extra or {})})
    build_site(BuildOptions(content=content, output=root / "out", base_url=BASE, jobs=1, cache=False))
    return root / "out"


@pytest.fixture(scope="module")
def glossaries(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("autolink")
    page = {"terms/tricky.md": term("Tricky", "The corpus.", PAGE), "terms/box.svg": BOX_SVG}
    return {unit: build(root / unit, f'autolink = "first"\nautolink_unit = "{unit}"\n', page)
            for unit in ("page", "section")} | {"off": build(root / "off", "", page)}


@pytest.mark.parametrize("unit, expected", [("page", FIRST_IN_PAGE), ("section", FIRST_IN_SECTION)])
def test_glossary_bodies_link_first_mentions(glossaries, unit, expected):
    assert TermLinks(prose(glossaries[unit] / "tricky/index.html")).found == expected


def test_glossary_autolinks_are_term_links_with_cards_and_backlinks(glossaries):
    html = (glossaries["page"] / "tricky/index.html").read_text(encoding="utf-8")
    assert '<a class="term-link" data-term="box" href="../box/index.html">box</a>' in html
    cards = re.search(r'<script type="application/json" id="glossary-cards-data">(.*?)</script>', html, re.S)
    assert cards and '"Box"' in cards.group(1) and '"The trained artifact."' in cards.group(1)
    # The box page lists the tricky page among the pages that link to it.
    assert 'href="../tricky/index.html"' in (glossaries["page"] / "box/index.html").read_text(encoding="utf-8")
    assert "&lt;!--no-autolink--&gt;" not in html and "<!--no-autolink-->" not in html


def test_never_on_the_terms_own_page_and_off_by_default(glossaries):
    # Model's body: "A model ... Models" stays text; its [[decoding]] is the only link.
    assert TermLinks(prose(glossaries["page"] / "model/index.html")).found == [("decoding", "decoding")]
    # Decoding's: the longer name wins; its own name inside it is not a mention of itself.
    assert TermLinks(prose(glossaries["page"] / "decoding/index.html")).found == [
        ("speculative-decoding", "Speculative decoding"), ("policy", "policy")]
    assert TermLinks(prose(glossaries["off"] / "tricky/index.html")).found == []
    # Off, the marker means nothing: dropped, not shown as escaped text.
    assert "no-autolink" not in prose(glossaries["off"] / "tricky/index.html")
    assert "The marker: box stays text" in prose(glossaries["off"] / "tricky/index.html")


def render(text: str, glossary: Path, **config) -> str:
    published.clear_cache()
    return markdown.Markdown(extensions=[GlossaryLinkExtension(glossary=str(glossary), **config)]).convert(text)


@pytest.mark.parametrize("unit, expected", [("page", FIRST_IN_PAGE), ("section", FIRST_IN_SECTION)])
def test_markdown_extension_links_first_mentions(glossaries, unit, expected):
    html = render(PAGE, glossaries["off"], autolink="first", autolink_unit=unit)
    assert TermLinks(html).found == expected
    assert f'<a class="glossary-term" data-term="box" href="{BASE}box/" title="A container.">box</a>' in html
    assert "<!--no-autolink-->" not in html and "no-autolink" not in html
    assert TermLinks(render(PAGE, glossaries["off"])).found == []


def test_markdown_extension_counts_links_written_by_hand(glossaries):
    text = "A model, then [[Model|the model]].\n\nAnd [box](https://example.org/glossary/box/) then box; a policy.\n"
    html = render(text, glossaries["off"], autolink="first")
    # The written link to the box page counts as its link, as [[Model]] does.
    assert TermLinks(html).found == [("model", "the model"), ("policy", "policy")]
    assert "then box;" in html


def test_markdown_extension_rejects_unknown_autolink_settings(glossaries):
    with pytest.raises(GlossaryLinkError, match="autolink"):
        render("x", glossaries["off"], autolink="all")


@pytest.mark.parametrize("text, found", [
    ("models and Policies, boxes", [("model", "models"), ("policy", "Policies"), ("box", "boxes")]),
    ("a key-value cache and the KV_cache", [("kv", "key-value cache"), ("kv", "KV_cache")]),
    ("premodel, model-based, models2, _model", []),
    ("C++ and C", [("cpp", "C++")]),
    ("speculative   decoding", [("sd", "speculative   decoding")]),
    (r"in \(model\) maths and $model$", []),
])
def test_matcher_whole_words_plurals_longest_first(text, found):
    matcher = TermMatcher([("Model", "model"), ("Policy", "policy"), ("Box", "box"), ("key value cache", "kv"),
                           ("KV cache", "kv"), ("C++", "cpp"), ("Speculative decoding", "sd"), ("decoding", "d")])
    assert [(slug, text[start:end]) for start, end, slug in matcher.find(text)] == found


RAW_INLINE = ('See <a href="https://x.example/">the Model page</a> and <code>Box</code>, <kbd>Policy</kbd>,'
              ' <span class="math">Decoding <em>box</em></span> and <button>policy</button>.\n\n'
              'Then <span>model</span>, <code>a</code> box, <button>x</button> policy and \\(decoding\\).\n')


def test_glossary_with_raw_html_links_nothing_inside_raw_code_links_or_maths(tmp_path):
    out = build(tmp_path, 'allow_raw_html = true\nautolink = "first"\n',
                {"terms/tricky.md": term("Tricky", "The corpus.", RAW_INLINE)})
    # Each first mention inside a raw <a>, <code>, <kbd>, maths span or unknown <button>
    # stays text; the next one, after the element closes, is linked ("\(...\)" is maths).
    assert TermLinks(prose(out / "tricky/index.html")).found == [("model", "model"), ("box", "box"),
                                                                 ("policy", "policy")]


def test_markdown_extension_links_nothing_inside_inline_raw_html(glossaries):
    assert TermLinks(render(RAW_INLINE, glossaries["off"], autolink="first")).found == [
        ("model", "model"), ("box", "box"), ("policy", "policy")]
    assert "<kbd>Box</kbd>" in render("Press <kbd>Box</kbd>", glossaries["off"], autolink="first")
    # Tags split across a code span and nested alike still close where they should.
    html = render('<span class="math"><span>box</span> box</span> model', glossaries["off"], autolink="first")
    assert TermLinks(html).found == [("model", "model")]


def test_matcher_skips_maths_written_with_escaped_brackets():
    # Python-Markdown leaves "\(" and "\)" as placeholders of "(" and ")".
    matcher = TermMatcher([("Alpha", "a")])
    assert list(matcher.find("\x0240\x03Alpha\x0241\x03 and \x0291\x03Alpha\x0293\x03")) == []
    assert [slug for _s, _e, slug in matcher.find("\x0240\x03x\x0241\x03 Alpha")] == ["a"]
