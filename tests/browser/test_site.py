"""The site around the explainer, in real Chromium: the index filter, narrow
screens, dark mode, print, and every page clean from file://."""

from __future__ import annotations

import pytest

from conftest_explainer import Watch


def test_index_filter_narrows_as_you_type(browser, built_site):
    page = browser.new_page()
    page.goto((built_site / "index.html").as_uri())
    box = page.locator("#filter-input")
    assert box.is_visible()  # hidden without JavaScript, shown by site.js
    total = page.locator(".entry").count()
    assert total >= 5
    box.fill("speculative")
    assert page.locator(".entry:not([hidden])").count() == 1
    assert "1 term matches" in page.locator("#filter-status").text_content()
    box.fill("LLM")  # an alias of Model (and of Inference): matched through data-names
    visible = page.locator(".entry:not([hidden]) dt").all_text_contents()
    assert "Model" in visible and "Speculative decoding" not in visible
    box.fill("zzzz-nothing")
    assert page.locator(".entry:not([hidden])").count() == 0
    assert page.locator(".filter-empty").is_visible()
    box.fill("")
    assert page.locator(".entry:not([hidden])").count() == total
    page.close()


def test_filter_box_hidden_without_javascript(browser, built_site):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((built_site / "index.html").as_uri())
    assert not page.locator("#filter-input").is_visible()
    assert page.locator(".entry").count() >= 5
    context.close()


PAGES = ["index.html", "404.html", "inference/index.html", "model/index.html",
         "output-tokens/index.html", "non-determinism/index.html", "speculative-decoding/index.html"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_fits_320px_and_loads_clean(browser, built_site, scheme):
    context = browser.new_context(viewport={"width": 320, "height": 640}, color_scheme=scheme)
    for name in PAGES:
        page = context.new_page()
        watch = Watch(page, ("file://",))
        page.goto((built_site / name).as_uri())
        page.wait_for_load_state("load")
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{name} scrolls sideways by {overflow}px at 320px"
        watch.assert_clean()
        page.close()
    context.close()


def _contrast(page, selector: str) -> float:
    return page.evaluate("""(selector) => {
        const el = document.querySelector(selector);
        const parse = c => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
        const lum = rgb => {
          const [r, g, b] = rgb.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        const fg = lum(parse(getComputedStyle(el).color));
        const bg = lum(parse(getComputedStyle(document.body).backgroundColor));
        return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    }""", selector)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_contrast_holds_in_light_and_dark(browser, built_site, scheme):
    page = browser.new_page(color_scheme=scheme)
    page.goto((built_site / "inference/index.html").as_uri())
    dark_background = page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(21, 24, 28)"
    assert dark_background == (scheme == "dark")
    for selector in ("h1", ".lead", ".prose p", ".prose a", ".term-list dd", ".site-footer", ".breadcrumb"):
        assert _contrast(page, selector) >= 4.5, (scheme, selector)
    page.close()


def test_print_hides_navigation_and_keeps_content(browser, built_site):
    page = browser.new_page()
    page.goto((built_site / "speculative-decoding/index.html").as_uri())
    page.emulate_media(media="print")
    assert not page.locator(".site-header").is_visible()
    assert page.locator("h1").is_visible() and page.locator("math").first.is_visible()
    page.close()
