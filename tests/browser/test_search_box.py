"""The header search box (static/search.js) in real headless Chromium, over HTTP
with the site's own CSP, on this repository's site: full text, aliases,
prefixes, the keyboard, axe-core, no console error and no request leaving the
site; under a sub-path; hostile titles as text; and the file:// fallback.
Under CI a missing browser fails, never skips (tests/browser/conftest.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest_explainer import CSP, Server, Watch, need
from glossary_site import EVIL_SUMMARY, EVIL_TITLE, build_glossary

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - reported by need()
    Axe = None

pytestmark = pytest.mark.browser

RESULTS = "#search-results [role=option]"


def _search(page, text: str) -> list[str]:
    """Type ``text`` into the header box after pressing "/" and return the results' titles."""
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.keyboard.type(text)
    page.wait_for_function("q => document.querySelector('.site-search').getAttribute('data-answered') === q", arg=text)
    return page.locator(f"{RESULTS} .search-title").all_inner_texts()


@pytest.fixture
def watched(browser, csp_server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    watch = Watch(page, (csp_server.url,))
    page.goto(csp_server.url + "/model/index.html", wait_until="load")
    yield page, watch
    watch.assert_clean()
    context.close()


def test_the_search_script_loads_only_when_the_box_is_used(browser, csp_server):
    context = browser.new_context()
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(csp_server.url + "/model/index.html", wait_until="load")
    page.wait_for_timeout(300)
    assert page.is_visible("#search-input"), "the box shows once site.js runs"
    assert not [u for u in requested if "/assets/search." in u or "/search/" in u], requested
    assert page.evaluate("typeof GlossarySearch") == "undefined"
    page.keyboard.press("/")
    page.keyboard.type("memory-bound")  # typed before the script is in: searched once it is
    page.wait_for_function("q => document.querySelector('.site-search').getAttribute('data-answered') === q",
                           arg="memory-bound")
    assert [u for u in requested if "/assets/search." in u], "loaded on first use"
    assert page.locator(RESULTS).count() > 0
    context.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_showing_the_box_moves_nothing_on_the_page(browser, csp_server, width):
    # the box is revealed by site.js after the first paint; the place it takes
    # is held from the start, so the content under the header never moves
    tops = {}
    for scripts in (False, True):
        context = browser.new_context(viewport={"width": width, "height": 844}, java_script_enabled=scripts)
        page = context.new_page()
        page.goto(csp_server.url + "/model/index.html", wait_until="load")
        assert page.is_visible("#search-input") is scripts
        tops[scripts] = page.evaluate("document.querySelector('main').getBoundingClientRect().top")
        context.close()
    assert tops[True] == tops[False], tops


def test_a_phrase_only_in_a_body_finds_its_term_and_the_heading_it_is_under(watched):
    page, _ = watched
    titles = _search(page, "memory-bound")
    assert "Inference" in titles
    option = page.locator(RESULTS).nth(titles.index("Inference"))
    assert option.locator(".search-section").inner_text() == "Found under: Why decode is memory-bound"
    assert "result" in page.inner_text("#search-status")


def test_an_alias_finds_its_term_and_is_shown(watched):
    page, _ = watched
    titles = _search(page, "LLM inference")
    assert titles[0] == "Inference"
    assert page.locator(RESULTS).first.locator(".search-alias").inner_text() == "also known as LLM inference"
    assert page.locator(f"{RESULTS} mark").count() >= 1


def test_a_prefix_finds_a_longer_word(watched):
    page, _ = watched
    assert "Speculative decoding" in _search(page, "specul")
    marked = page.locator(f"{RESULTS} .search-title mark").all_inner_texts()
    assert "Speculative" in marked


def test_keyboard_end_to_end(watched, csp_server):
    page, _ = watched
    titles = _search(page, "draft model")
    assert titles
    input_ = page.locator("#search-input")
    assert input_.get_attribute("aria-expanded") == "true"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    active = input_.get_attribute("aria-activedescendant")
    assert active == "search-option-0"
    assert page.locator("#search-option-0").get_attribute("aria-selected") == "true"
    page.keyboard.press("Escape")
    assert input_.get_attribute("aria-expanded") == "false"
    assert page.locator("#search-results").is_hidden()
    page.keyboard.press("ArrowDown")  # opens again on the first result
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.evaluate("document.querySelector('h1').textContent") == titles[0]


def test_axe_finds_no_violation_with_results_open(watched):
    need(Axe is not None, "axe-playwright-python is not installed")
    page, _ = watched
    _search(page, "token")
    page.keyboard.press("ArrowDown")
    violations = Axe().run(page).response["violations"]
    assert [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations] == []


def test_bad_queries_answer_without_an_error(watched):
    page, _ = watched
    page.keyboard.press("/")
    for text in ["?!.,;", "x" * 10_000, "فك التشفير", "推测解码", "   "]:
        page.fill("#search-input", text)
        page.wait_for_timeout(150)
    page.fill("#search-input", "")
    page.wait_for_timeout(100)
    assert page.locator("#search-results").is_hidden()


def test_under_a_sub_path_and_hostile_titles_stay_text(browser, tmp_path):
    built = build_glossary(tmp_path / "build", base_url=None)
    shutil.copytree(built, tmp_path / "www" / "docs" / "glossary")
    server = Server(tmp_path / "www", csp=CSP)
    context = browser.new_context()
    page = context.new_page()
    watch = Watch(page, (server.url,))
    page.on("dialog", lambda d: watch.errors.append(f"dialog: {d.message}"))
    try:
        page.goto(server.url + "/docs/glossary/inference/index.html", wait_until="load")
        titles = _search(page, "evil")
        assert titles[0] == EVIL_TITLE  # then Inference, whose body links to it
        assert page.locator(f"{RESULTS} .search-summary").first.inner_text() == EVIL_SUMMARY
        assert page.locator("#search-results img, #search-results b, #search-results script").count() == 0
        page.fill("#search-input", "")
        page.evaluate("document.activeElement.blur()")
        titles = _search(page, "prefill")
        assert titles == ["Inference"]
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.url.endswith("/docs/glossary/inference/index.html#two-phases-prefill-and-decode")
    finally:
        context.close()
        server.close()
    watch.assert_clean()


def test_from_file_the_box_searches_what_the_page_holds_and_says_so(browser, built_site):
    context = browser.new_context()
    page = context.new_page()
    watch = Watch(page, (Path(built_site).as_uri(),))
    try:
        page.goto((Path(built_site) / "index.html").as_uri(), wait_until="load")
        titles = _search(page, "specul")
        assert titles == ["Speculative decoding"]
        assert "Full-text search needs the site to be served" in page.inner_text("#search-status")
        assert page.locator("#search-status").is_visible()
        page.fill("#search-input", "")
        page.evaluate("document.activeElement.blur()")
        assert _search(page, "language model")[0] == "Model"
        assert page.locator(RESULTS).first.locator(".search-alias").inner_text() == "also known as language model"
        page.goto((Path(built_site) / "inference" / "index.html").as_uri(), wait_until="load")
        assert _search(page, "LLM") == ["Inference"]
    finally:
        context.close()
    watch.assert_clean()


def test_the_404_page_without_a_base_url_has_no_box(built_site):
    page = (Path(built_site) / "404.html").read_text(encoding="utf-8")
    assert "site-search" not in page and "search." not in page  # served at any depth: search/ could not be found
