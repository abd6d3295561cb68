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
