"""Hover cards in a docs site built by real ``mkdocs build`` with the plugin,
plain theme and mkdocs-material, in real headless Chromium: the plugin's own
script, stylesheet and per-page data, no theme override. Uses the ``browser``
fixture of tests/browser/conftest.py (under CI a missing browser fails, never
skips)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest_explainer import Server
from glossary_site import BASE, build_glossary
from mkdocs_site import mkdocs_build, mkdocs_site

pytestmark = pytest.mark.browser

CARD = "#glossary-card"
PAGE = """# Using the glossary

Our service runs [[speculative decoding]] on every request.

Ordinary link: [the changelog](changelog.md).

Under a [[LLMs|language model]] sits a [[Inference#two-phases-prefill-and-decode|two-phase]] loop.
"""


@pytest.fixture(scope="module", params=["mkdocs", "material"])
def docs_site(request, tmp_path_factory):
    """The built docs site served on 127.0.0.1; yields the page's URL."""
    root = tmp_path_factory.mktemp(f"mkdocs-{request.param}")
    glossary = build_glossary(root / "glossary")
    site = mkdocs_site(root / "docs-site", glossary / "glossary.json",
                       {"index.md": PAGE, "changelog.md": "# Changelog\n"}, theme=request.param)
    result = mkdocs_build(site, "--strict")
    assert result.returncode == 0, result.stderr
    server = Server(site / "site")
    yield server.url + "/"
    server.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.errors = []
    # Only our script's: the plain theme's own scripts fail offline (highlight.js comes from a CDN).
    page.on("pageerror", lambda e: page.errors.append(e.stack or str(e)) if "glossary-cards" in (e.stack or "") else None)
    yield page
    context.close()


def _card(page) -> tuple[str, str]:
    return (page.locator(f"{CARD} .glossary-card-title").text_content(),
            page.locator(f"{CARD} .glossary-card-summary").text_content())


def test_hover_opens_the_card_without_a_browser_tooltip(page, docs_site):
    page.goto(docs_site)
    link = page.locator(f'a[href="{BASE}speculative-decoding/"]')
    assert link.get_attribute("title") is None  # the browser's own tooltip would cover the card
    link.hover()
    page.wait_for_selector(CARD, state="visible")
    assert _card(page) == ("Speculative decoding", "A draft model guesses tokens; the target model checks them.")
    assert link.get_attribute("aria-describedby") == "glossary-card"
    # Styled by the plugin's stylesheet: positioned beside the link, not in the flow.
    assert page.evaluate("getComputedStyle(document.getElementById('glossary-card')).position") == "absolute"
    page.mouse.move(0, 0)
    page.wait_for_selector(CARD, state="hidden")
    assert link.get_attribute("aria-describedby") is None
    assert page.errors == []


def test_keyboard_focus_opens_it_and_escape_closes_it(page, docs_site):
    page.goto(docs_site)
    anchor_link = page.locator(f'a[href="{BASE}inference/#two-phases-prefill-and-decode"]')
    anchor_link.focus()
    page.wait_for_selector(CARD, state="visible")
    assert _card(page)[0] == "Inference"
    page.locator(f'a[href="{BASE}model/"]').focus()
    page.wait_for_function("() => document.querySelector('#glossary-card .glossary-card-title').textContent === 'Model'")
    page.keyboard.press("Escape")
    page.wait_for_selector(CARD, state="hidden")
    assert page.evaluate("document.activeElement.getAttribute('href')") == f"{BASE}model/"
    assert page.errors == []


def test_ordinary_links_get_no_card(page, docs_site):
    page.goto(docs_site)
    page.locator('article a[href*="changelog"], div[role="main"] a[href*="changelog"]').first.hover()
    page.wait_for_timeout(400)
    assert page.locator(CARD).count() == 0 or not page.locator(CARD).is_visible()


def _luminance(rgb: str) -> float:
    """Relative luminance (WCAG) of a computed ``rgb(r, g, b)`` colour."""
    channels = [int(c) / 255 for c in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.fixture(scope="module", params=["slate", "default"])
def material_site(request, tmp_path_factory):
    """A real mkdocs-material site in its dark (``slate``) or light (``default``) scheme; yields (URL, scheme)."""
    root = tmp_path_factory.mktemp(f"material-{request.param}")
    glossary = build_glossary(root / "glossary")
    site = mkdocs_site(root / "docs-site", glossary / "glossary.json", {"index.md": PAGE, "changelog.md": "# Changelog\n"}, theme="material",
                       palette=request.param)
    result = mkdocs_build(site, "--strict")
    assert result.returncode == 0, result.stderr
    server = Server(site / "site")
    yield server.url + "/", request.param
    server.close()


@pytest.mark.parametrize("system", ["light", "dark"])
def test_the_card_follows_the_host_scheme_not_the_system(browser, material_site, system):
    """Under Material's slate the card is dark, under its default light, whatever the
    reader's system prefers: the host says which, and its text keeps AA contrast."""
    url, scheme = material_site
    context = browser.new_context(color_scheme=system)
    page = context.new_page()
    try:
        page.goto(url)
        assert page.evaluate("() => document.body.getAttribute('data-md-color-scheme')") == scheme
        page.locator(f'a[href="{BASE}speculative-decoding/"]').hover()
        page.wait_for_selector(CARD, state="visible")
        background, text, hint = page.evaluate("""() => {
            const card = document.getElementById('glossary-card');
            const hint = card.querySelector('.glossary-card-hint');
            return [getComputedStyle(card).backgroundColor, getComputedStyle(card).color, getComputedStyle(hint).color];
        }""")
        page_background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        dark = _luminance(background) < 0.2
        assert dark is (scheme == "slate"), (scheme, system, background)
        assert (_luminance(page_background) < 0.2) is dark  # the card matches the page around it
        assert _contrast(background, text) >= 4.5 and _contrast(background, hint) >= 4.5
    finally:
        context.close()


def test_the_host_sets_the_card_colours_with_css_variables(browser, material_site):
    url, scheme = material_site
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(url)
        # what a docs team's extra.css would say (Material's own variables, here as literal colours)
        page.add_style_tag(content=":root { --glossary-card-background: rgb(1, 2, 3); --glossary-card-text: rgb(250, 250, 250);"
                                   " --glossary-card-background-dark: rgb(4, 5, 6); --glossary-card-font: monospace; }")
        page.locator(f'a[href="{BASE}speculative-decoding/"]').hover()
        page.wait_for_selector(CARD, state="visible")
        style = page.evaluate("() => { const s = getComputedStyle(document.getElementById('glossary-card'));"
                              " return [s.backgroundColor, s.fontFamily]; }")
        assert style == ["rgb(4, 5, 6)" if scheme == "slate" else "rgb(1, 2, 3)", "monospace"]
    finally:
        context.close()


def test_the_documented_material_settings_match_the_page(browser, material_site):
    """docs/linking.md's snippet for MkDocs Material, as a docs team pastes it:
    the card takes the page's own background and text in either scheme."""
    url, scheme = material_site
    from helpers import REPO

    docs = (REPO / "docs" / "linking.md").read_text(encoding="utf-8")
    snippet = docs.split("MkDocs Material (`docs/stylesheets/extra.css`", 1)[1].split("```css\n", 1)[1].split("```", 1)[0]
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(url)
        page.add_style_tag(content=snippet)
        page.locator(f'a[href="{BASE}speculative-decoding/"]').hover()
        page.wait_for_selector(CARD, state="visible")
        card, body = page.evaluate("""() => [document.getElementById('glossary-card'), document.body]
            .map(e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color])""")
        assert card == body, scheme
    finally:
        context.close()
