"""The hostile input corpus (tests/fixtures/hostile/): every variant refused at its
line or rendered inert, every allowed one still working (issue 30).

Bodies are rendered in this process, one renderer for all (a few ms each); one
CLI build checks that the same problems reach the user as ``path:line``, and
real Sphinx builds check the inventory. Grow the corpus by adding lines to the
fixture files: each new entry runs through every route.
"""

from __future__ import annotations

import json
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers import FIXTURES
from site_builder.explainers.base import reserved_ids as explainer_ids
from site_builder.load.config import load_config
from site_builder.markup.render import PAGE_IDS, BodyRenderer
from site_builder.markup.reserved import reserved
from site_builder.names import NameIndex, inventory_name_problem

CORPUS = FIXTURES / "hostile"
URLS = tomllib.loads((CORPUS / "urls.toml").read_text(encoding="utf-8"))
ATTRIBUTES = tomllib.loads((CORPUS / "attribute_lists.toml").read_text(encoding="utf-8"))
BASE_URLS = tomllib.loads((CORPUS / "base_urls.toml").read_text(encoding="utf-8"))
TITLES = tomllib.loads((CORPUS / "titles.toml").read_text(encoding="utf-8"))
FIRST_LINE = 10
BROWSER_SAFE = {"http", "https", "mailto", "tel", "ftp"}
MARKDOWNS_OWN = {"footnote", "footnote-ref", "footnote-backref", "align-left", "align-right", "align-center"}
"""Classes markdown itself writes (footnotes, table alignment): the corpus's bodies make no term links."""


class _Model:
    slug, title, aliases = "model", "Model", []


_RENDERER: list[BodyRenderer] = []


def render(body: str):
    if not _RENDERER:
        _RENDERER.append(BodyRenderer(NameIndex([_Model()]), reserved_ids=explainer_ids()))
    return _RENDERER[0].render(body, FIRST_LINE)


class _Elements(HTMLParser):
    """(tag, {name: value as the browser reads it}) of every element."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict[str, str]]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, {name: value or "" for name, value in attrs}))


def browser_scheme(url: str) -> str | None:
    """The scheme as the WHATWG URL parser takes it (written here apart from site_builder.urls)."""
    url = re.sub(r"[\t\n\r]", "", url).strip("".join(map(chr, range(0x21))))
    match = re.match(r"([a-zA-Z][a-zA-Z0-9+.-]*):", url)
    return match.group(1).lower() if match else None


def assert_inert(html: str) -> None:
    """No URL with a scheme outside the allow-list, no handler, style or data-* an
    author wrote, no class or id the site's own markup, styles or scripts use."""
    page_ids = PAGE_IDS | explainer_ids()
    for tag, attrs in _Elements(html).found:
        for name, value in attrs.items():
            assert not name.startswith("on") and name not in ("style", "srcdoc", "formaction", "role", "target"), (tag, name)
            assert not name.startswith(("data-", "aria-")), (tag, name, value)
            if name in ("href", "src", "cite", "action", "poster"):
                scheme = browser_scheme(value)
                assert scheme is None or scheme in BROWSER_SAFE, (tag, name, value)
        for name in set(attrs.get("class", "").split()) - MARKDOWNS_OWN:
            assert reserved().class_reason(name) is None and not name.startswith("sd-"), (tag, name)
        ident = attrs.get("id", "")
        assert ident not in page_ids and not reserved().id_prefix(ident), (tag, ident)


def line_of(template: str, mark: str) -> int:
    return FIRST_LINE + next(i for i, line in enumerate(template.split("\n")) if mark in line)


def test_the_derived_reservations_hold_what_the_issue_names():
    """A floor under the derivation: if reading the files broke, these would go missing."""
    assert {"search-input", "search-results", "search-status", "filter-input", "filter-status", "main",
            "glossary-card", "glossary-cards-data", "related-terms", "referenced-by"} <= PAGE_IDS
    assert {"sd-explainer", "term-link", "lead", "site-search", "entry"} <= reserved().classes
    assert "sd-" in reserved().class_prefixes and {"letter-", "search-option-"} <= reserved().id_prefixes


# --- URLs through every route ------------------------------------------------------

@pytest.mark.parametrize("route", sorted(URLS["routes"]))
@pytest.mark.parametrize("url", URLS["refused"])
def test_a_refused_url_is_reported_at_its_line_and_leaves_no_trace(url, route):
    template = URLS["routes"][route]
    result = render(template.replace("{url}", url))
    assert_inert(result.html)
    if result.problems:  # refused; else markdown did not read it as a URL at all (it stayed text)
        assert {p[0] for p in result.problems} == {line_of(template, "{url}")}, result.problems


@pytest.mark.parametrize("url", URLS["refused"])
def test_every_refused_url_is_read_as_a_url_somewhere_and_refused_there(url):
    """The inertness above must not come only from markdown leaving a payload as text."""
    refused = [route for route, template in URLS["routes"].items() if render(template.replace("{url}", url)).problems]
    assert len(refused) >= len(URLS["routes"]) // 2, refused


@pytest.mark.parametrize("route", sorted(URLS["routes"]))
@pytest.mark.parametrize("url", URLS["allowed"])
def test_an_allowed_url_is_written_as_given(url, route):
    template = URLS["routes"][route]
    result = render(template.replace("{url}", url))
    # An image is shown only from a file beside the term (issue 35: no outside request), so a
    # URL as an image's source is refused there; as a link's target it is written as given.
    images = [p for p in result.problems if p[1].startswith(("remote image ", "image "))]
    assert [p for p in result.problems if p not in images] == []
    written = [attrs.get("href") or attrs.get("src") for tag, attrs in _Elements(result.html).found
               if tag in ("a", "img") and not attrs.get("class", "").startswith("footnote")]
    if route in ("image", "image-attribute", "image-reference"):
        assert images and url.strip() not in written, result.html
    else:
        assert url.strip() in written, result.html
    assert_inert(result.html)


# --- attribute lists in every place they take effect ---------------------------------

@pytest.mark.parametrize("place", sorted(ATTRIBUTES["places"]))
@pytest.mark.parametrize("attrs", ATTRIBUTES["refused"])
def test_a_refused_attribute_list_is_reported_at_its_line_and_leaves_no_trace(attrs, place):
    template = ATTRIBUTES["places"][place]
    result = render(template.replace("{attrs}", attrs))
    assert_inert(result.html)
    if result.problems:  # refused; else the list did not take effect there (it stayed text)
        assert {p[0] for p in result.problems} == {line_of(template, "{attrs}")}, result.problems


@pytest.mark.parametrize("place", sorted(ATTRIBUTES["places"]))
@pytest.mark.parametrize("attrs", ATTRIBUTES["allowed"])
def test_an_allowed_attribute_list_still_applies(attrs, place):
    result = render(ATTRIBUTES["places"][place].replace("{attrs}", attrs))
    # (the image place's remote source is refused, issue 35; its attribute list still applies)
    assert [p for p in result.problems if not (place == "image" and p[1].startswith("remote image "))] == []
    elements = _Elements(result.html).found
    classes = {c for _, a in elements for c in a.get("class", "").split()}
    ids = {a.get("id") for _, a in elements}
    for token in re.findall(r'[.#][\w-]+|[\w-]+="[^"]*"', attrs):
        if token[0] == ".":
            assert token[1:] in classes, (token, result.html)
        elif token[0] == "#":
            assert token[1:] in ids, (token, result.html)
        else:
            name, value = token.split("=", 1)
            assert any(a.get(name) == value.strip('"') for _, a in elements), (token, result.html)


def test_a_heading_whose_own_id_starts_like_the_pages_ids_moves_aside():
    """"## Letter A" would be #letter-a, an id the index page makes: it gets _1 as a repeat would."""
    result = render("## Letter A\n\n[back](#letter-a_1)\n\n## Letter A\n")
    assert result.problems == [] and 'id="letter-a_2"' in result.html
    ids = [attrs["id"] for tag, attrs in _Elements(result.html).found if "id" in attrs]
    assert ids == ["letter-a_2", "letter-a_1"]  # the second was already letter-a_1 (toc): no two alike


# --- base_url, titles, another site's glossary ---------------------------------------

@pytest.mark.parametrize("value", BASE_URLS["refused"] + BASE_URLS["allowed"])
def test_base_url_is_an_http_url_or_a_path(tmp_path: Path, value: str):
    (tmp_path / "site.toml").write_text(f'title = "T"\nbase_url = {json.dumps(value)}\n', encoding="utf-8")
    config, problems = load_config(tmp_path)
    if value in BASE_URLS["allowed"]:
        assert problems == [] and config.base_url == (value.rstrip("/") + "/" if value else "")
    else:
        assert [(p.line, p.severity) for p in problems] == [(2, "error")], problems
        assert config.base_url == ""


@pytest.mark.parametrize("title", TITLES["forging"] + TITLES["missing"] + TITLES["allowed"])
def test_a_title_sphinx_would_split_is_refused(title):
    found = inventory_name_problem(title)
    if title in TITLES["allowed"]:
        assert found is None
    else:
        assert found is not None and found[1] == (title in TITLES["forging"])


@pytest.mark.parametrize("url", URLS["refused"])
def test_another_sites_glossary_url_is_never_linked(tmp_path: Path, url: str):
    import markdown

    from site_builder.integrations.mdext import GlossaryLinkExtension

    (tmp_path / "glossary.json").write_text(json.dumps({"version": 1, "base_url": "https://g.example/", "terms": [
        {"slug": "bad", "title": "Bad", "url": url}, {"slug": "good", "title": "Good", "url": "good/"}]}))
    warnings: list[str] = []
    extension = GlossaryLinkExtension(glossary=str(tmp_path / "glossary.json"))
    extension._report = lambda message, written: warnings.append(message)
    html = markdown.Markdown(extensions=[extension]).convert("[[Bad]] and [[Good]]")
    assert 'href="https://g.example/good/"' in html
    hrefs = [attrs.get("href", "") for tag, attrs in _Elements(html).found if tag == "a"]
    assert all(browser_scheme(href) == "https" for href in hrefs), html  # as the browser reads them
    if browser_scheme(url) is not None:  # a URL with a scheme of its own: refused, with a warning
        assert len(hrefs) == 1 and len(warnings) == 1 and "not linked" in warnings[0], (html, warnings)


def test_the_build_reports_each_variant_as_path_line_and_writes_nothing(tmp_path: Path, capsys):
    """One build through the command line: every route and place in one term file."""
    from site_builder.cli import main

    bodies = [t.replace("{url}", "javascript://x/%0aalert(1)") for t in URLS["routes"].values()]
    bodies += [t.replace("{attrs}", '.sd-explainer data-vega-src="data:,alert(1)"') for t in ATTRIBUTES["places"].values()]
    lines, expected = ["---", "title: Hostile", "summary: S.", "---"], set()
    for body in bodies:
        for offset, line in enumerate(body.split("\n")):
            if "javascript:" in line or "sd-explainer" in line:
                expected.add(len(lines) + offset + 1)
        lines += [*body.split("\n"), "", "<!-- -->", ""]
    terms = tmp_path / "content" / "terms"
    terms.mkdir(parents=True)
    (terms / "hostile.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    status = main(["build", "--content", str(tmp_path / "content"), "--output", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert status == 1 and not (tmp_path / "out").exists()
    reported = {int(m) for m in re.findall(r"hostile\.md:(\d+): ", err)}
    assert reported == expected, err


@pytest.mark.parametrize("base", URLS["refused"])
def test_another_sites_glossary_base_url_is_never_linked_through(tmp_path: Path, base: str):
    import markdown

    from site_builder.integrations.mdext import GlossaryLinkExtension

    (tmp_path / "glossary.json").write_text(json.dumps({"version": 1, "base_url": base, "terms": [
        {"slug": "term", "title": "Term", "url": "term/"}]}))
    warnings: list[str] = []
    extension = GlossaryLinkExtension(glossary=str(tmp_path / "glossary.json"))
    extension._report = lambda message, written: warnings.append(message)
    html = markdown.Markdown(extensions=[extension]).convert("[[Term]]")
    assert "<a " not in html and len(warnings) == 1 and "not linked" in warnings[0], (html, warnings)
