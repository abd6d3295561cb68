"""A site's own look in real Chromium (issue 37): the themed fixture site
(template overrides, an extended block, extra CSS and JS, a logo, links)
under the pages' meta CSP over HTTP and from file://; the colour toggle
(keyboard, persistence, no flash of the wrong scheme, the explainer's charts
following it); axe-core clean with the toggle against the system's scheme;
a right-to-left site mirrored with the explainer's figure left to right."""

from __future__ import annotations

import pytest

from conftest_explainer import SCENE_ITEMS, Server, Watch, axe_violations, bring_charts_near, need
from helpers import term, write_tree

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - reported by need()
    Axe = None

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def themed_server(themed_site):
    """The themed site over HTTP with no CSP header: only the pages' own <meta> policy holds."""
    server = Server(themed_site)
    yield server
    server.close()


@pytest.mark.parametrize("via", ["http", "file"])
def test_the_themed_site_renders_under_the_meta_csp(browser, themed_site, themed_server, via):
    base = themed_server.url + "/" if via == "http" else themed_site.as_uri() + "/"
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        for name in ("index.html", "alpha/index.html"):
            page = context.new_page()
            watch = Watch(page, (base,))  # a CSP violation is a console error
            page.goto(base + name, wait_until="load")
            assert page.evaluate("() => document.documentElement.getAttribute('data-acme')") == "ran"  # extra_js
            accent = page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")
            assert accent == "#7a1fa2"  # extra_css, over site.css
            assert page.evaluate("() => getComputedStyle(document.querySelector('.header-links a')).color") == "rgb(122, 31, 162)"
            logo = page.locator(".site-title .site-logo")
            assert logo.is_visible() and page.evaluate("() => document.querySelector('.site-logo').naturalWidth") == 32
            assert page.locator("#acme-banner").is_visible()  # the block the override added
            # the style sheet's url("mark.svg"), rewritten to the hashed copy, loads (a 404 is a console error)
            assert page.evaluate("() => getComputedStyle(document.getElementById('acme-banner'), '::before')"
                                 ".backgroundImage").startswith(f'url("{base}assets/mark.')
            assert page.locator(".scheme-toggle").is_visible() and page.locator("#search-input").is_visible()
            assert page.locator(".footer-links a").text_content() == "Privacy"
            page.set_viewport_size({"width": 320, "height": 640})  # the logo, links, search and toggle wrap
            assert page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
            page.set_viewport_size({"width": 1280, "height": 800})
            if name.startswith("alpha"):
                assert page.locator("#acme-note").is_visible()
                page.locator(".prose a.term-link").hover()  # the hover card, under the same policy
                page.wait_for_selector("#glossary-card", state="visible")
            watch.assert_clean()
            page.close()
    finally:
        context.close()


FIRST_FRAME = """() => {
  requestAnimationFrame(() => {
    const root = document.documentElement;
    window.__firstFrame = [root.getAttribute('data-scheme'), getComputedStyle(root).getPropertyValue('--bg').trim()];
  });
}"""
"""Installed before any of the page's scripts: what <html> says at the first
frame, which Chromium draws only once the render-blocking <head> is done."""


def test_the_toggle_persists_with_no_flash_and_works_from_the_keyboard(browser, http_server):
    context = browser.new_context(color_scheme="light")
    context.add_init_script(f"({FIRST_FRAME})()")
    page = context.new_page()
    try:
        page.goto(http_server.url + "/index.html", wait_until="load")
        select = page.locator("#scheme-select")
        assert select.is_visible() and select.input_value() == "auto"
        assert page.evaluate("() => document.documentElement.hasAttribute('data-scheme')") is False
        # keyboard: Tab to it, choose with the arrow keys (a native <select>, labelled "Colours")
        assert page.evaluate("() => document.getElementById('scheme-select').labels[0].textContent") == "Colours"
        select.focus()
        select.select_option("dark")
        assert page.evaluate("() => document.documentElement.getAttribute('data-scheme')") == "dark"
        assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgb(21, 24, 28)"
        assert page.evaluate("() => localStorage.getItem('site_builder.scheme')") == "dark"
        # another page of the site: dark from its first frame, though the system says light
        page.goto(http_server.url + "/inference/index.html", wait_until="load")
        page.wait_for_function("() => window.__firstFrame !== undefined")
        assert page.evaluate("() => window.__firstFrame") == ["dark", "#15181c"]
        assert page.locator("#scheme-select").input_value() == "dark"
        # light against a dark system, chosen with the keyboard alone
        page.emulate_media(color_scheme="dark")
        page.locator("#scheme-select").focus()
        page.keyboard.press("ArrowUp")  # dark -> light
        assert page.evaluate("() => document.documentElement.getAttribute('data-scheme')") == "light"
        page.reload(wait_until="load")
        page.wait_for_function("() => window.__firstFrame !== undefined")
        assert page.evaluate("() => window.__firstFrame") == ["light", "#fdfdfc"]
        # auto: the attribute goes, the system decides again, the storage is cleared
        page.locator("#scheme-select").select_option("auto")
        assert page.evaluate("() => [document.documentElement.hasAttribute('data-scheme'), localStorage.length]") == [False, 0]
        assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgb(21, 24, 28)"
    finally:
        context.close()


def test_the_toggle_works_from_file_and_without_javascript_stays_hidden(browser, built_site):
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    watch = Watch(page, ("file://",))
    page.goto((built_site / "model/index.html").as_uri(), wait_until="load")
    page.locator("#scheme-select").select_option("dark")
    page.goto((built_site / "index.html").as_uri(), wait_until="load")
    assert page.evaluate("() => document.documentElement.getAttribute('data-scheme')") == "dark"
    watch.assert_clean()
    context.close()
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto((built_site / "index.html").as_uri())
    assert not page.locator("#scheme-select").is_visible()
    context.close()


def test_the_explainer_charts_follow_the_toggle(browser, http_server):
    context = browser.new_context(color_scheme="light", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    watch = Watch(page, (http_server.url,))
    page.goto(http_server.url + "/speculative-decoding/index.html")
    bring_charts_near(page)
    page.wait_for_selector(".sd-explainer[data-charts=live]", state="attached")
    ink = "getComputedStyle(document.querySelector('[data-chart=curve]')).color"
    inked = f"""() => (({SCENE_ITEMS})(['curve', 'text']) || [])
        .some(t => t.text === 'Speedup against draft depth' && t.fill === {ink})"""
    page.wait_for_function(inked)
    light = page.evaluate(ink)
    page.locator("#scheme-select").select_option("dark")  # the system still says light
    dark = page.evaluate(ink)
    assert dark != light
    page.wait_for_function(inked)  # the canvas curve drawn again in the dark ink
    assert page.locator("[data-chart=curve] .sd-vega").count() == 1
    watch.assert_clean()
    context.close()


def test_the_chart_pictures_follow_the_toggle_before_their_live_views(browser, http_server):
    # The Vega runtime refused, so every chart stays the build's picture, which
    # picks its file by media query: scheme.js points it at the chosen scheme.
    context = browser.new_context(color_scheme="light", viewport={"width": 1280, "height": 900})
    context.add_init_script("localStorage.setItem('site_builder.scheme', 'dark')")
    context.route("**/vega*.js", lambda route: route.abort())
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(http_server.url + "/speculative-decoding/index.html")
    picture = page.locator("[data-chart] picture img").first
    picture.scroll_into_view_if_needed()
    shown = "(img) => img.complete && img.naturalWidth > 0 ? img.currentSrc : ''"
    page.wait_for_function(f"() => ({shown})(document.querySelector('[data-chart] picture img')).endsWith('-dark.svg')")
    page.locator("#scheme-select").select_option("light")  # the system says light too: the light file
    page.wait_for_function(f"() => /[^k]\\.svg$/.test(({shown})(document.querySelector('[data-chart] picture img')))")
    context.close()


@pytest.mark.parametrize("system, chosen", [("light", "dark"), ("dark", "light")])
def test_no_axe_violation_with_the_toggle_against_the_system(browser, http_server, themed_server, system, chosen):
    need(Axe is not None, "axe-playwright-python is not installed")
    context = browser.new_context(color_scheme=system)
    context.add_init_script(f"localStorage.setItem('site_builder.scheme', '{chosen}')")
    try:
        pages = {}  # each in a tab of its own, audited at once (axe_violations)
        for url in (f"{http_server.url}/index.html", f"{http_server.url}/inference/index.html",
                    f"{http_server.url}/speculative-decoding/index.html",
                    f"{themed_server.url}/index.html", f"{themed_server.url}/alpha/index.html"):
            page = context.new_page()
            page.goto(url, wait_until="load")
            assert page.evaluate("() => document.documentElement.getAttribute('data-scheme')") == chosen
            pages[url] = page
        found = axe_violations(pages)
    finally:
        context.close()
    assert found == {}


def test_a_right_to_left_site_mirrors_and_the_explainer_stays_left_to_right(browser, tmp_path_factory, cli_build):
    content = write_tree(tmp_path_factory.mktemp("rtl") / "content", {
        "site.toml": 'title = "מילון"\nlanguage = "he"\n',
        "terms/alpha.md": term("אלפא", "המונח הראשון.", "גוף עם [[בטא]].\n\n> ציטוט\n"),
        "terms/beta.md": term("בטא", "המונח השני.", "", aliases=["beta"]),
        "terms/speculative-decoding.md": term("פענוח ספקולטיבי", "מודל טיוטה.", "פסקה.\n", explainer="speculative-decoding"),
    })
    out = cli_build(content)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    watch = Watch(page, ("file://",))
    page.goto((out / "alpha/index.html").as_uri(), wait_until="load")
    assert page.evaluate("() => getComputedStyle(document.body).direction") == "rtl"
    title = page.locator(".site-title").bounding_box()
    search = page.locator(".site-search").bounding_box()
    assert title["x"] > search["x"]  # the title at the right, the search box to its left
    quote = page.evaluate("() => { const s = getComputedStyle(document.querySelector('blockquote'));"
                          " return [s.borderRightWidth, s.borderLeftWidth]; }")
    assert quote == ["3px", "0px"]  # the quote's rule on the start side: the right
    page.goto((out / "speculative-decoding/index.html").as_uri(), wait_until="load")
    assert page.evaluate("() => getComputedStyle(document.getElementById('sd-explainer')).direction") == "ltr"
    watch.assert_clean()
    context.close()


@pytest.fixture(scope="module")
def cli_build():
    """Build a content folder with the CLI in a subprocess (as a reader's build runs); return its output."""
    import subprocess
    import sys

    from helpers import REPO

    def build(content):
        out = content.parent / "out"
        result = subprocess.run([sys.executable, "-m", "site_builder", "build", "--content", str(content),
                                 "--output", str(out), "--quiet", "--no-cache"],
                                cwd=REPO, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        return out
    return build
