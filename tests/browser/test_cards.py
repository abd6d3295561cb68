"""Hover cards (glossary-cards.js) in real headless Chromium: on the glossary's
own pages (file:// and under a strict CSP) and embedded in another site that
loads glossary.json. Uses the ``browser`` fixture of tests/browser/conftest.py
(under CI a missing browser fails, never skips)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest_explainer import CSP, Server, Watch
from glossary_site import EVIL_SUMMARY, EVIL_TITLE, build_glossary

pytestmark = pytest.mark.browser

CARD = "#glossary-card"
OTHER_SITE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Other docs</title>
<link rel="stylesheet" href="/glossary/embed/glossary-cards.css">
<script defer src="/glossary/embed/glossary-cards.js" data-glossary="/glossary/"></script>
</head><body>
<p>Uses a <a id="to-model" href="/glossary/model/">model</a>, an
<a id="to-anchor" href="../glossary/inference/index.html#two-phases-prefill-and-decode">anchor</a>,
<a id="to-evil" href="/glossary/evil/">something evil</a> and an
<a id="elsewhere" href="/docs/other.html">ordinary link</a>.</p>
</body></html>
"""


@pytest.fixture(scope="module")
def site_root(tmp_path_factory) -> Path:
    """A server root: the glossary under /glossary/, another site's page under /docs/."""
    root = tmp_path_factory.mktemp("cards")
    built = build_glossary(root / "build", base_url=None)
    shutil.copytree(built, root / "www" / "glossary")
    (root / "www" / "docs").mkdir()
    (root / "www" / "docs" / "page.html").write_text(OTHER_SITE, encoding="utf-8")
    return root / "www"


@pytest.fixture(scope="module")
def csp_site(site_root):
    server = Server(site_root, csp=CSP)
    yield server
    server.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    yield page
    context.close()


def card_state(page) -> dict:
    return page.evaluate("""() => {
        const card = document.getElementById('glossary-card');
        return card && {hidden: card.hidden, visible: !!(card.offsetWidth || card.offsetHeight),
                        role: card.getAttribute('role'),
                        title: card.querySelector('.glossary-card-title').textContent,
                        summary: card.querySelector('.glossary-card-summary').textContent,
                        elements: card.querySelectorAll('*').length};
    }""")


def test_hover_shows_the_card_described_by_the_link(page, site_root: Path):
    page.goto((site_root / "glossary/inference/index.html").as_uri())
    link = page.locator('.prose a.term-link[data-term="speculative-decoding"]')
    assert link.get_attribute("aria-describedby") is None
    link.hover()
    page.wait_for_selector(CARD, state="visible")
    state = card_state(page)
    assert state["title"] == "Speculative decoding"
    assert state["summary"] == "A draft model guesses tokens; the target model checks them."
    assert state["role"] == "tooltip"
    assert link.get_attribute("aria-describedby") == "glossary-card"
    page.mouse.move(0, 0)
    page.wait_for_selector(CARD, state="hidden")
    assert link.get_attribute("aria-describedby") is None


def test_keyboard_focus_shows_it_and_escape_closes_it(page, site_root: Path):
    page.goto((site_root / "glossary/inference/index.html").as_uri())
    link = page.locator('.backlinks a.term-link[data-term="model"]')
    link.focus()
    page.wait_for_selector(CARD, state="visible")
    assert card_state(page)["title"] == "Model"
    assert link.get_attribute("aria-describedby") == "glossary-card"
    page.keyboard.press("Escape")
    page.wait_for_selector(CARD, state="hidden")
    assert link.get_attribute("aria-describedby") is None
    assert page.evaluate("document.activeElement.dataset.term") == "model"  # focus stays put


def test_hostile_summary_renders_as_text(page, site_root: Path):
    page.goto((site_root / "glossary/inference/index.html").as_uri())
    page.locator('.prose a.term-link[data-term="evil"]').hover()
    page.wait_for_selector(CARD, state="visible")
    state = card_state(page)
    assert state["title"] == EVIL_TITLE and state["summary"] == EVIL_SUMMARY
    assert state["elements"] == 3  # title, summary, hint paragraphs: no <img>, no <b>
    assert page.locator(f"{CARD} img").count() == 0
    page.wait_for_timeout(100)
    assert page.dialogs == []


def test_own_pages_work_under_a_strict_csp(page, csp_site: Server):
    watch = Watch(page, (csp_site.url,))
    page.goto(csp_site.url + "/glossary/inference/index.html")
    page.locator('.prose a.term-link[data-term="speculative-decoding"]').hover()
    page.wait_for_selector(CARD, state="visible")
    top = page.evaluate("document.getElementById('glossary-card').style.top")
    assert top.endswith("px")  # positioned through CSSOM, which the CSP allows
    watch.assert_clean()


def test_another_site_fetches_glossary_json(page, csp_site: Server):
    watch = Watch(page, (csp_site.url,))
    page.goto(csp_site.url + "/docs/page.html")
    page.wait_for_function("() => performance.getEntriesByType('resource').some(e => e.name.endsWith('/glossary/glossary.json'))")
    page.locator("#elsewhere").hover()
    page.wait_for_timeout(400)
    assert page.locator(CARD).count() == 0 or not page.locator(CARD).is_visible()
    page.locator("#to-model").hover()
    page.wait_for_selector(CARD, state="visible")
    assert card_state(page)["title"] == "Model"
    assert page.locator("#to-model").get_attribute("aria-describedby") == "glossary-card"
    page.locator("#to-anchor").focus()
    page.wait_for_function("() => document.querySelector('#glossary-card .glossary-card-title').textContent === 'Inference'")
    page.keyboard.press("Escape")
    page.wait_for_selector(CARD, state="hidden")
    page.locator("#to-evil").focus()
    page.wait_for_selector(CARD, state="visible")
    assert card_state(page)["summary"] == EVIL_SUMMARY and page.locator(f"{CARD} img").count() == 0
    assert page.dialogs == []
    watch.assert_clean()


def test_tap_opens_the_card_and_a_second_tap_follows_the_link(browser, site_root: Path):
    context = browser.new_context(has_touch=True, is_mobile=True, viewport={"width": 390, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.goto((site_root / "glossary/inference/index.html").as_uri())
        link = page.locator('.prose a.term-link[data-term="speculative-decoding"]')
        link.tap()
        page.wait_for_selector(CARD, state="visible")
        assert page.url.endswith("/inference/index.html")
        assert page.locator(".glossary-card-hint").is_visible()
        with page.expect_navigation():
            link.tap()
        assert page.url.endswith("/speculative-decoding/index.html")
    finally:
        context.close()
