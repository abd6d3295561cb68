"""Linking outputs of a real build: glossary.json, objects.inv, alias redirects,
sitemap.xml, robots.txt, JSON-LD, Open Graph tags, preview images and the
hover-card data; and that hostile titles and summaries stay inert in all of them.

The site they are built from is glossary_site's ``CONTENT`` (``build_glossary``,
shared with tests/integrations/ and tests/browser/test_cards.py).
"""

from __future__ import annotations

import json
import re
import struct
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from glossary_site import BASE, CONTENT, EVIL_SUMMARY, EVIL_TITLE, build_glossary, term, write_tree
from helpers import REPO


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_glossary(tmp_path_factory.mktemp("linking"))


@pytest.fixture(scope="module")
def relative_site(tmp_path_factory) -> Path:
    return build_glossary(tmp_path_factory.mktemp("relative"), base_url=None)


class Head(HTMLParser):
    """Collects meta tags, script elements (attributes and text) and inline-style attributes."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.scripts: list[tuple[dict, str]] = []
        self.links: list[dict] = []
        self.inline_styles: list[str] = []
        self.handlers: list[str] = []
        self._script: dict | None = None
        self._text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if "style" in attributes:
            self.inline_styles.append(tag)
        self.handlers += [name for name in attributes if name.startswith("on")]
        if tag == "style":
            self.inline_styles.append("<style>")
        if tag == "meta" and ("property" in attributes or "name" in attributes):
            self.meta[attributes.get("property") or attributes["name"]] = attributes.get("content", "")
        if tag == "link":
            self.links.append(attributes)
        if tag == "script":
            self._script, self._text = attributes, []

    def handle_data(self, data):
        if self._script is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._text)))
            self._script = None

    def json_ld(self) -> list[dict]:
        return [json.loads(text) for attrs, text in self.scripts if attrs.get("type") == "application/ld+json"]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


# glossary.json


def test_glossary_json_is_a_versioned_sorted_index(site: Path):
    data = json.loads((site / "glossary.json").read_text(encoding="utf-8"))
    assert data["version"] == 1 and data["generator"].startswith("site_builder ")
    assert data["title"] == "Test Glossary" and data["base_url"] == BASE
    slugs = [t["slug"] for t in data["terms"]]
    assert slugs == sorted(slugs) == ["evil", "inference", "model", "speculative-decoding"]
    inference = data["terms"][1]
    assert inference == {
        "slug": "inference", "title": "Inference", "summary": "Running a trained model on new input.",
        "aliases": ["LLM inference"], "related": [], "url": "inference/",
        "absolute_url": BASE + "inference/",
        "anchors": ["two-phases-prefill-and-decode"], "redirects": ["llm-inference"],
    }
    assert data["terms"][3]["related"] == ["inference"]


def test_glossary_json_without_base_url_has_no_absolute_urls(relative_site: Path):
    data = json.loads((relative_site / "glossary.json").read_text(encoding="utf-8"))
    assert data["base_url"] is None
    assert all("absolute_url" not in t and t["url"] == t["slug"] + "/" for t in data["terms"])


def test_linking_outputs_are_deterministic(site: Path, tmp_path: Path):
    again = build_glossary(tmp_path)
    names = ["glossary.json", "objects.inv", "sitemap.xml", "robots.txt", "preview.png", "evil/preview.png",
             "inference/index.html", "index.html", "old-evil-name/index.html"]
    for name in names:
        assert (again / name).read_bytes() == (site / name).read_bytes(), name


def test_hostile_text_is_inert_in_glossary_json(site: Path):
    raw = (site / "glossary.json").read_text(encoding="utf-8")
    assert "<" not in raw and ">" not in raw and "&" not in raw
    evil = json.loads(raw)["terms"][0]
    assert evil["title"] == EVIL_TITLE and evil["summary"] == EVIL_SUMMARY


def test_dumps_inert_escapes_what_could_end_a_script():
    from site_builder.outputs.glossary_json import dumps_inert

    value = {"t": "</script><!-- ]]> {{ x }} \u2028 \u2029 & é"}
    text = dumps_inert(value)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    assert "é" in text and json.loads(text) == value


# objects.inv


def test_objects_inv_header_and_sphinx_reader(site: Path):
    from sphinx.util.inventory import InventoryFile

    data = (site / "objects.inv").read_bytes()
    header = data.split(b"\n", 4)[:4]
    assert header == [b"# Sphinx inventory version 2", b"# Project: Test Glossary", b"# Version: ",
                      b"# The remainder of this file is compressed using zlib."]
    inventory = InventoryFile.loads(data, uri="https://example.org/g/").data
    term = inventory["std:term"]
    assert term["speculative decoding"].uri == "https://example.org/g/speculative-decoding/"
    assert term["speculative sampling"].uri == "https://example.org/g/speculative-decoding/"  # alias
    assert term["llm"].uri == "https://example.org/g/model/"
    assert term["speculative decoding"].display_name == "-"
    label = inventory["std:label"]
    assert label["inference"].display_name == "Inference"
    assert label["llm-inference"].uri == "https://example.org/g/inference/"  # old slug keeps resolving
    assert label["inference#two-phases-prefill-and-decode"].uri == "https://example.org/g/inference/#two-phases-prefill-and-decode"
    assert label["inference#two-phases-prefill-and-decode"].display_name == "Two phases: prefill and decode"
    assert inventory["std:doc"]["model"].uri == "https://example.org/g/model/"


def test_hostile_text_cannot_break_the_inventory_lines(site: Path):
    from site_builder.outputs.inventory import read_inventory

    entries = read_inventory((site / "objects.inv").read_bytes())
    evil = [e for e in entries if e[1] == "std:label" and e[0] == "evil"]
    assert evil == [("evil", "std:label", -1, "evil/", EVIL_TITLE)]
    assert (EVIL_TITLE.lower(), "std:term", -1, "evil/", "-") in entries


def test_inventory_collapses_line_breaks_in_names():
    from sphinx.util.inventory import InventoryFile

    from site_builder.outputs.glossary_json import Entry
    from site_builder.outputs.inventory import objects_inv

    entry = Entry("x", "Two\u2028lines\nhere", "s", aliases=("a\rb",))
    data = objects_inv("P\nQ", "1", [entry])
    inventory = InventoryFile.loads(data, uri="").data
    assert set(inventory["std:term"]) == {"two lines here", "a b"}
    assert inventory["std:label"]["x"].display_name == "Two lines here"
    assert data.split(b"\n")[1] == b"# Project: P Q"


# redirects


def test_every_alias_has_a_redirect_page(site: Path):
    page = (site / "old-evil-name/index.html").read_text()
    assert '<meta http-equiv="refresh" content="0; url=../evil/index.html">' in page
    assert f'<link rel="canonical" href="{BASE}evil/">' in page
    assert '<a href="../evil/index.html">' in page and "<script" not in page
    policy = '<meta http-equiv="Content-Security-Policy" content="default-src \'self\'; '
    assert page.count(policy) == 1 and "style" not in page.replace(page[page.index(policy):].split("\n", 1)[0], "")
    assert "Evil &lt;/script&gt;" in page
    for alias_slug, target in [("llm", "model"), ("language-model", "model"), ("speculative-sampling", "speculative-decoding")]:
        assert f"url=../{target}/index.html" in (site / alias_slug / "index.html").read_text()
    # An alias is often just another name, not a move: the page says where the name is filed.
    llm = (site / "llm/index.html").read_text()
    assert "\u201cLLM\u201d is under <a" in llm and "<title>LLM: see Model</title>" in llm and "<h1>LLM</h1>" in llm
    assert "oved" not in llm and 'name="viewport"' in llm


def test_redirect_canonical_is_relative_without_base_url(relative_site: Path):
    assert '<link rel="canonical" href="../model/">' in (relative_site / "llm/index.html").read_text()


# sitemap.xml, robots.txt


def test_sitemap_and_robots_with_base_url(site: Path):
    root = ET.fromstring((site / "sitemap.xml").read_bytes())
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    locs = [e.text for e in root.findall("s:url/s:loc", ns)]
    assert locs == [BASE] + [BASE + s + "/" for s in ("evil", "inference", "model", "speculative-decoding")]
    assert (site / "robots.txt").read_text().splitlines()[-1] == f"Sitemap: {BASE}sitemap.xml"


def test_no_sitemap_or_robots_without_base_url(relative_site: Path):
    assert not (relative_site / "sitemap.xml").exists() and not (relative_site / "robots.txt").exists()


def test_sitemap_escapes_urls():
    from site_builder.outputs.discovery import sitemap_xml
    from site_builder.outputs.glossary_json import Entry

    data = sitemap_xml("https://e.org/a&b]]>/", [Entry("x", "X", "s")])
    locs = [e.text for e in ET.fromstring(data).iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    assert locs == ["https://e.org/a&b]]>/", "https://e.org/a&b]]>/x/"]


# JSON-LD and Open Graph


def test_index_has_a_defined_term_set(site: Path):
    [data] = Head((site / "index.html").read_text()).json_ld()
    assert data["@context"] == "https://schema.org" and data["@type"] == "DefinedTermSet"
    assert data["url"] == BASE and data["name"] == "Test Glossary"
    terms = {t["name"]: t for t in data["hasDefinedTerm"]}
    assert set(terms) == {EVIL_TITLE, "Inference", "Model", "Speculative decoding"}
    assert terms["Model"]["url"] == BASE + "model/" and terms["Model"]["alternateName"] == ["LLM", "language model"]
    assert terms[EVIL_TITLE]["description"] == EVIL_SUMMARY


def test_term_page_has_a_defined_term_in_the_set(site: Path):
    head = Head((site / "inference/index.html").read_text())
    [data] = head.json_ld()
    assert data["@type"] == "DefinedTerm" and data["name"] == "Inference"
    assert data["url"] == BASE + "inference/"
    assert data["inDefinedTermSet"] == {"@type": "DefinedTermSet", "name": "Test Glossary", "@id": BASE, "url": BASE}


def test_hostile_title_is_inert_in_json_ld(site: Path):
    html = (site / "evil/index.html").read_text()
    ld = html.split('<script type="application/ld+json">')[1].split("</script>")[0]
    assert "<" not in ld and "\u2028" not in ld
    [data] = Head(html).json_ld()  # the script element ends where it should
    assert data["name"] == EVIL_TITLE and data["description"] == EVIL_SUMMARY


def test_open_graph_and_twitter_tags(site: Path):
    meta = Head((site / "evil/index.html").read_text()).meta
    assert meta["og:title"] == EVIL_TITLE and meta["og:description"] == EVIL_SUMMARY
    assert meta["og:type"] == "article" and meta["og:url"] == BASE + "evil/"
    assert meta["og:image"] == BASE + "evil/preview.png"
    assert meta["twitter:card"] == "summary_large_image"
    assert meta["description"] == EVIL_SUMMARY
    index = Head((site / "index.html").read_text()).meta
    assert index["og:type"] == "website" and index["og:image"] == BASE + "preview.png"


def test_open_graph_without_base_url_has_no_image_unless_asked(relative_site: Path, tmp_path: Path):
    meta = Head((relative_site / "model/index.html").read_text()).meta
    assert "og:url" not in meta and "og:image" not in meta  # social sites ignore a relative og:image
    assert not list(relative_site.rglob("*.png"))
    asked = build_glossary(tmp_path, base_url=None, site_toml='title = "Test Glossary"\npreviews = true\n')
    meta = Head((asked / "model/index.html").read_text()).meta
    assert "og:url" not in meta and meta["og:image"] == "preview.png"
    assert (asked / "model" / meta["og:image"]).exists()


# preview images


def test_every_page_has_a_1200x630_preview(site: Path):
    for name in ("preview.png", "evil/preview.png", "inference/preview.png", "model/preview.png", "speculative-decoding/preview.png"):
        assert png_size((site / name).read_bytes()) == (1200, 630), name
    assert (site / "model/preview.png").read_bytes() != (site / "inference/preview.png").read_bytes()


def test_previews_can_be_turned_off(tmp_path: Path):
    out = build_glossary(tmp_path, site_toml='title = "Test Glossary"\npreviews = false\n')
    assert not list(out.rglob("*.png"))
    meta = Head((out / "model/index.html").read_text()).meta
    assert "og:image" not in meta and meta["twitter:card"] == "summary"


def test_hostile_text_is_drawn_as_text_in_the_preview():
    from site_builder.outputs import preview

    painter = preview.painter("en")
    png = painter.card(EVIL_TITLE, EVIL_SUMMARY * 5, "Site <&>", "example.org/")
    assert png_size(png) == (1200, 630) and b"<img" not in png and b"</script>" not in png
    lines = painter.wrap("word " * 100, 36, False, 4)
    assert len(lines) == 4 and lines[-1][-1][1] == "…"
    assert all(painter.line_width(line, 36, False) <= 1008 for line in lines)


def test_explainer_preview_replaces_the_composed_one_when_previews_are_made(tmp_path: Path):
    from site_builder.render.assets import AssetStore
    from site_builder.load.config import SiteConfig
    from site_builder.load.content import load_terms
    from site_builder.explainers.base import ExplainerBuild
    from site_builder.outputs import LinkingOutputs
    from site_builder.markup.render import RenderedBody

    content = write_tree(tmp_path / "content", CONTENT)
    terms, problems = load_terms(content)
    assert not problems
    bodies = {t.slug: RenderedBody(html="") for t in terms}
    own = b"\x89PNG explainer preview"
    made = LinkingOutputs(SiteConfig(base_url=BASE), terms, bodies, {t.slug: [] for t in terms},
                  {"inference": ExplainerBuild(html="", preview_png=own)}, AssetStore())
    previews = made.previews()
    assert previews["inference/preview.png"] == own
    assert png_size(previews["model/preview.png"]) == (1200, 630)  # the others composed
    tags = dict((key, value) for _, key, value in made.page_extras(terms[1])["meta_tags"])
    assert tags["og:image"] == BASE + "inference/preview.png"
    # Previews off: an explainer's own preview is not written either (its build
    # was told, ExplainerContext.previews; one drawn anyway is dropped).
    for config in (SiteConfig(base_url=BASE, previews=False), SiteConfig()):
        off = LinkingOutputs(config, terms, bodies, {t.slug: [] for t in terms},
                     {"inference": ExplainerBuild(html="", preview_png=own)}, AssetStore())
        assert off.previews() == {}
        assert "og:image" not in dict((k, v) for _, k, v in off.page_extras(terms[1])["meta_tags"])


# hover-card data and CSP


def test_term_pages_carry_card_data_for_the_terms_they_link(site: Path):
    html = (site / "inference/index.html").read_text()
    head = Head(html)
    sources = [attrs.get("src", "") for attrs, _ in head.scripts if "src" in attrs]
    assert len([s for s in sources if re.search(r"assets/glossary-cards\.[0-9a-f]{10}\.js$", s)]) == 1
    assert any(re.search(r"assets/glossary-cards\.[0-9a-f]{10}\.css$", link.get("href", "")) for link in head.links)
    blocks = [text for attrs, text in head.scripts if attrs.get("id") == "glossary-cards-data"]
    assert len(blocks) == 1
    (block,) = blocks
    payload = json.loads(block)
    assert set(payload) == {"evil", "speculative-decoding", "model"}  # body links, backlinks; not itself
    assert payload["evil"] == [EVIL_TITLE, EVIL_SUMMARY]
    assert "<" not in block and "\u2028" not in block
    assert not list((site / "assets").glob("glossary-cards-data*"))


def test_embed_files_are_published_at_stable_urls(site: Path):
    static = REPO / "site_builder" / "static"
    for name in ("glossary-cards.js", "glossary-cards.css"):
        assert (site / "embed" / name).read_bytes() == (static / name).read_bytes()


def test_no_inline_scripts_styles_or_handlers_anywhere(site: Path):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        head = Head(page.read_text())
        assert not head.inline_styles and not head.handlers, page
        for attrs, text in head.scripts:
            assert "src" in attrs or attrs.get("type") in ("application/ld+json", "application/json"), (page, text[:80])
            if "src" in attrs:
                assert not text.strip(), page


def test_preview_cards_are_keyed_and_drawn_only_when_asked(tmp_path: Path, monkeypatch):
    from site_builder.render.assets import AssetStore
    from site_builder.load.config import SiteConfig
    from site_builder.load.content import load_terms
    from site_builder.outputs import LinkingOutputs, preview
    from site_builder.markup.render import RenderedBody

    terms, _ = load_terms(write_tree(tmp_path / "content", CONTENT))
    linking = LinkingOutputs(SiteConfig(base_url=BASE), terms, {t.slug: RenderedBody(html="") for t in terms},
                    {t.slug: [] for t in terms}, {}, AssetStore())
    own, cards, texts = linking.preview_cards()
    assert own == {} and len(texts) == 5
    assert set(cards) == {"preview.png", *(f"{t.slug}/preview.png" for t in terms)}
    drawn = linking.draw_previews(texts)
    first = linking.previews()
    assert first == {path: drawn[key] for path, key in cards.items()}
    # The keys are the cards: asked again, the same keys (what lets the cache layer reuse them).
    assert linking.preview_cards()[1:] == (cards, texts)

    def fail(*texts):
        raise AssertionError("rendered again")

    monkeypatch.setattr(preview.Painter, "card", fail)
    assert linking.draw_previews({}) == {}  # nothing asked for, nothing drawn
    with pytest.raises(AssertionError, match="rendered again"):
        linking.previews()
