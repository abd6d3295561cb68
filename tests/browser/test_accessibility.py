"""axe-core (the engine behind Lighthouse's and Deque's accessibility audits)
on every kind of page of the real site, in both colour schemes, on a phone
and a desktop screen: no violation of any rule it runs."""

from __future__ import annotations

import pytest

from conftest_explainer import axe_violations, need

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - reported by need()
    Axe = None

PAGES = ["index.html", "404.html", "inference/index.html", "model/index.html", "llm/index.html",
         "speculative-decoding/index.html"]
"""The index, the 404 page, term pages with and without maths and code, an
alias's page (its refresh is held back so that axe sees it), the explainer."""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [320, 1280])
def test_no_axe_violation_on_any_page(browser, http_server, scheme, width):
    need(Axe is not None, "axe-playwright-python is not installed")
    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)
    try:
        # Every page loaded in a tab of its own, then audited in all of them at once (axe_violations).
        pages = {}
        for name in PAGES:
            page = context.new_page()
            # An alias's page sends the browser on at once: serve it without the refresh.
            page.route("**/llm/index.html", lambda route: route.fulfill(
                response=route.fetch(),
                body=route.fetch().text().replace('<meta http-equiv="refresh"', '<meta data-refresh-held')))
            page.goto(http_server.url + "/" + name, wait_until="load")
            if name.startswith("speculative-decoding"):
                # The live Vega charts, not only the static images they replace (on a
                # narrow screen no chart is near the viewport at load: a control's use loads them).
                page.focus("#sd-alpha")
                page.wait_for_selector('[data-charts="live"]', timeout=30_000)
            pages[name] = page
        found = axe_violations(pages)
    finally:
        context.close()
    assert found == {}


def test_a_code_block_too_wide_for_the_screen_is_a_tab_stop_and_one_that_fits_is_not(browser, http_server):
    context = browser.new_context(viewport={"width": 320, "height": 800})
    page = context.new_page()
    page.goto(http_server.url + "/inference/index.html", wait_until="load")
    stops = "() => [...document.querySelectorAll('.prose pre')].map(e => e.getAttribute('tabindex'))"
    assert "0" in page.evaluate(stops)
    # Once its text fits, the block leaves the tab order again (checked on resize).
    page.evaluate("() => document.querySelectorAll('.prose pre').forEach(e => { e.textContent = 'x'; })")
    page.set_viewport_size({"width": 330, "height": 800})
    page.wait_for_function(f"() => ({stops})().every(t => t === null)")
    context.close()
