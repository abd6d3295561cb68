"""The serving-under-load panel of the speculative decoding explainer in real headless Chromium.

Read from the DOM and through the test hook SpeculativeDecoding.instance; the
numbers the page shows are compared with the page's own model functions
(sd-serving.js, itself tested against serving.py by tests/js/sd-serving.test.js).
"""

from __future__ import annotations

import pytest

from conftest_explainer import Watch, bring_charts_near

pytestmark = pytest.mark.browser

PATH = "speculative-decoding/index.html"
LIVE = ".sd-explainer[data-charts=live]"
#: the panel's script loads lazily with the charts; its controls work from then on
SERVING = ".sd-explainer[data-serving=ready]"
PANEL = ".sd-panel-serving"


def wait_serving(page):
    """The panel's script in: a reader scrolls to the panel, which starts the
    runtime (no chart may be near the viewport at load)."""
    page.evaluate("document.querySelector('.sd-panel-serving').scrollIntoView({block: 'nearest'})")
    page.wait_for_selector(SERVING, state="attached")


def open_page(browser, **context_args):
    context = browser.new_context(**context_args)
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def slide(page, key, value):
    """Move the panel's batch or context slider to the listed value `value` (an input event)."""
    page.evaluate(
        """([k, v]) => { const list = SpeculativeDecoding.data.serving[k === 'batch' ? 'batches' : 'contexts'];
        const i = document.querySelector('#sd-' + k); i.value = String(list.indexOf(v));
        i.dispatchEvent(new Event('input', {bubbles: true})); }""",
        [key, value],
    )


def out(page, key):
    return page.inner_text(f"{PANEL} [data-out={key}]")


def flushed(page):
    page.evaluate("SpeculativeDecoding.instance.charts.flushed()")


def marks(page):
    return {m["kind"]: m for m in page.evaluate("SpeculativeDecoding.instance.views.serving.data('serving_marks')")}


def test_controls_drive_the_readout_and_the_live_chart(browser, http_server):
    context, page = open_page(browser, viewport={"width": 1280, "height": 900})
    watch = Watch(page, (http_server.url,))
    page.goto(f"{http_server.url}/{PATH}")
    bring_charts_near(page)
    page.wait_for_selector(LIVE, state="attached")
    wait_serving(page)  # its script loads when the panel nears the viewport
    page.wait_for_selector("[data-chart=serving][data-live=true] .sd-vega svg .mark-line path", state="attached")
    assert page.get_attribute(".sd-readout-serving", "data-verdict") == "win"
    before = out(page, "serving_S")
    slide(page, "batch", 64)
    assert page.evaluate("SpeculativeDecoding.instance.store.get().batch") == 64
    assert out(page, "serving_S") != before
    assert out(page, "serving_bound") == "compute-bound"
    flushed(page)
    assert marks(page)["current"]["batch"] == 64
    want = page.evaluate("SpeculativeDecoding.serving.describe(SpeculativeDecoding.instance.store.get())")
    assert out(page, "serving_S") == want["text"]["serving_S"]
    assert marks(page)["current"]["S"] == pytest.approx(want["S"], rel=1e-12)
    # the hardware: the sources line, the readout and the chart's ridge follow
    ridge = marks(page)["ridge"]["batch"]
    page.select_option("#sd-hw", "mi300x")
    assert "5.3 TB/s" in out(page, "serving_hw") and "AMD" in out(page, "serving_hw")
    assert page.locator(f"{PANEL} [data-out=serving_hw] a[href^='https://rocm.docs.amd.com/']").count() >= 1
    flushed(page)
    assert marks(page)["ridge"]["batch"] != ridge
    # a long context: the batches that do not fit are greyed out, and the readout says how many fit
    slide(page, "ctx", 4096)
    flushed(page)
    m = marks(page)
    assert "nofit" in m and m["nofit"]["batch2"] == 4096
    fit = page.evaluate("SpeculativeDecoding.serving.describe(SpeculativeDecoding.instance.store.get()).fit")
    assert m["nofit"]["batch"] == fit and f"up to batch {fit:,}" in out(page, "serving_fit")
    rows = page.evaluate("SpeculativeDecoding.instance.views.serving.data('serving')")
    expected = page.evaluate("SpeculativeDecoding.serving.chartRows(SpeculativeDecoding.instance.store.get()).serving")
    assert [(r["batch"], r["S"], r["series"]) for r in rows] == [(r["batch"], r["S"], r["series"]) for r in expected]
    # the main sliders move the panel too, once they rest
    page.evaluate("""() => { const i = document.querySelector('#sd-alpha'); i.value = '0.5';
        i.dispatchEvent(new Event('input', {bubbles: true})); }""")
    flushed(page)
    state = page.evaluate("SpeculativeDecoding.instance.store.get()")
    assert state["alpha"] == 0.5
    assert marks(page)["current"]["S"] == pytest.approx(
        page.evaluate("SpeculativeDecoding.serving.describe(SpeculativeDecoding.instance.store.get()).S"), rel=1e-12)
    page.wait_for_timeout(400)  # the URL write is debounced
    assert "hw=mi300x" in page.url and "ctx=4096" in page.url and "batch=64" in page.url
    watch.assert_clean()
    context.close()


@pytest.mark.parametrize("pair", ["llama-2-70b-7b", "llama-3.1-70b-3.2-1b", "llama-3.1-70b-8b"])
def test_at_batch_one_without_kv_the_panel_says_what_the_main_readout_says(browser, http_server, pair):
    context, page = open_page(browser)
    page.goto(f"{http_server.url}/{PATH}?batch=1&ctx=0&pair=llama-3.1-70b-8b")
    wait_serving(page)
    # choosing the pairing sets the figure's c to its memory-bound ratio P_d / P_t
    if pair == "llama-3.1-70b-8b":
        page.select_option("#sd-pair", "llama-2-70b-7b")
    page.select_option("#sd-pair", pair)
    state = page.evaluate("SpeculativeDecoding.instance.store.get()")
    ratio = page.evaluate(f"SpeculativeDecoding.servingPresets.pairings.find(p => p.id === '{pair}').c")
    assert state["c"] == ratio and state["pair"] == pair
    assert "(derived)" in out(page, "serving_pair")
    main = page.inner_text(".sd-readout:not(.sd-readout-serving) [data-out=S]")
    assert out(page, "serving_S") == main
    s_main = page.evaluate("(s => SpeculativeDecoding.model.speedup(s.alpha, s.gamma, s.c))(SpeculativeDecoding.instance.store.get())")
    s_panel = page.evaluate("SpeculativeDecoding.serving.describe(SpeculativeDecoding.instance.store.get()).S")
    assert s_panel == pytest.approx(s_main, rel=1e-13)
    assert out(page, "serving_verify") == "1.00"
    context.close()


def test_past_the_break_even_the_readout_says_slowdown(browser, http_server):
    context, page = open_page(browser)
    page.goto(f"{http_server.url}/{PATH}")
    wait_serving(page)
    be = int(out(page, "serving_break").replace(",", ""))
    assert be == 170
    assert "a server this busy should switch speculation off" in out(page, "serving_verdict")
    slide(page, "batch", 160)
    assert page.get_attribute(".sd-readout-serving", "data-verdict") == "win"
    slide(page, "batch", 192)
    assert page.get_attribute(".sd-readout-serving", "data-verdict") == "slowdown"
    verdict = out(page, "serving_verdict")
    assert verdict.startswith("A slowdown at batch 192") and "compute-bound" in verdict
    # the main readout (batch 1, no KV) still says it pays: the two answer different questions
    assert page.get_attribute(".sd-readout:not(.sd-readout-serving)", "data-verdict") == "win"
    # a long context with a small-cache draft pays at every batch that fits, and claims no more (issue 34)
    page.goto(f"{http_server.url}/{PATH}?pair=llama-3.1-70b-3.2-1b&c=0.017516&ctx=32768&batch=32")
    wait_serving(page)
    assert out(page, "serving_verdict").endswith("It pays at every batch that fits, up to 42.")
    # a batch past what fits is never a speed-up: the verdict, the S cell and the announcement say so first
    page.goto(f"{http_server.url}/{PATH}?hw=mi300x&devices=8&ctx=32768&batch=640")
    wait_serving(page)
    assert page.get_attribute(".sd-readout-serving", "data-verdict") == "nofit"
    assert out(page, "serving_verdict").startswith("Does not fit: batch 640 needs more memory than the 1,536 GB")
    assert "Pays off" not in out(page, "serving_verdict") and "×" not in out(page, "serving_S")
    assert out(page, "serving_best") == "none: this batch does not fit"
    said = page.evaluate("SpeculativeDecoding.serving.describe(SpeculativeDecoding.instance.store.get()).summary")
    assert "does not fit in memory, at most 92 sequences fit" in said and "speedup" not in said
    context.close()


def test_the_panel_announces_its_own_controls_politely(browser, http_server):
    context, page = open_page(browser)
    page.goto(f"{http_server.url}/{PATH}")
    wait_serving(page)
    live = page.locator("[data-announce-serving]")
    assert live.get_attribute("aria-live") == "polite" and live.get_attribute("role") == "status"
    assert page.get_attribute(".sd-readout-serving", "aria-live") is None, "the visible readout must not chatter"
    page.evaluate("""() => { window.__said = {main: [], serving: []};
        for (const [k, sel] of [['main', '[data-announce]'], ['serving', '[data-announce-serving]']])
          new MutationObserver(() => window.__said[k].push(document.querySelector(sel).textContent))
            .observe(document.querySelector(sel), {childList: true, characterData: true, subtree: true}); }""")
    for b in (2, 4, 8, 16, 32, 64, 128, 256):  # a drag
        slide(page, "batch", b)
        page.wait_for_timeout(30)
    assert page.evaluate("window.__said.serving") == [], "nothing announced during the drag"
    page.wait_for_timeout(800)
    said = page.evaluate("window.__said")
    assert said["main"] == [], "the main readout did not change"
    assert len(said["serving"]) == 1
    expected = page.evaluate("SpeculativeDecoding.serving.describe(SpeculativeDecoding.instance.store.get()).summary")
    assert said["serving"][0] == expected and expected.startswith("Serving at batch 256")
    context.close()


def test_keyboard_moves_along_the_listed_batches(browser, http_server):
    context, page = open_page(browser)
    page.goto(f"{http_server.url}/{PATH}?batch=157")
    wait_serving(page)
    assert page.evaluate("SpeculativeDecoding.instance.store.get().batch") == 157
    assert page.inner_text(f"{PANEL} output[data-val=batch]") == "157"
    page.focus("#sd-batch")
    page.keyboard.press("ArrowRight")  # from 157, shown at the nearest listed 160, to the next one
    assert page.evaluate("SpeculativeDecoding.instance.store.get().batch") == 192
    assert page.get_attribute("#sd-batch", "aria-valuetext") == "batch size 192"
    page.keyboard.press("Home")
    assert page.evaluate("SpeculativeDecoding.instance.store.get().batch") == 1
    page.keyboard.press("End")
    assert page.evaluate("SpeculativeDecoding.instance.store.get().batch") == 4096
    page.focus("#sd-ctx")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("SpeculativeDecoding.instance.store.get().ctx") == 256
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    context.close()


def test_url_state_of_the_panel_and_junk(browser, built_site):
    base = (built_site / PATH).as_uri()
    context, page = open_page(browser)
    page.goto(base + "?batch=157&ctx=3000&devices=2&hw=mi300x&pair=llama-2-70b-7b")
    wait_serving(page)
    state = page.evaluate("SpeculativeDecoding.instance.store.get()")
    assert (state["batch"], state["ctx"], state["devices"], state["hw"], state["pair"]) == (157, 3000, 2, "mi300x", "llama-2-70b-7b")
    assert page.input_value("#sd-hw") == "mi300x" and page.input_value("#sd-devices") == "2"
    page.goto(base + "?batch=abc&ctx=NaN&devices=x&hw=%3Cimg%3E&pair=nope")
    wait_serving(page)
    assert page.evaluate("SpeculativeDecoding.instance.store.get()") == page.evaluate("SpeculativeDecoding.state.DEFAULTS")
    page.goto(base + "?batch=999999&ctx=-4&devices=16")  # numbers out of range: clamped, as the main sliders'
    wait_serving(page)
    state = page.evaluate("SpeculativeDecoding.instance.store.get()")
    assert (state["batch"], state["ctx"], state["devices"]) == (4096, 0, 8)
    assert page.input_value("#sd-devices") == "8" and "batch=4096" in page.evaluate("location.search")
    context.close()


def test_without_javascript_the_panel_shows_its_svg_and_default_readout(browser, built_site):
    url = (built_site / PATH).as_uri()
    context, page = open_page(browser, java_script_enabled=False)
    page.goto(url)
    img = page.locator("[data-chart=serving] img")
    assert img.count() == 1
    page.locator(PANEL).scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('[data-chart=serving] img').complete")
    # rendered: .sd-more skips its rendering (content-visibility) until a frame after it nears
    # the viewport (a page without scripts gives wait_for_function no frame to poll in)
    for _ in range(100):
        if out(page, "serving_S"):
            break
        page.wait_for_timeout(50)
    assert img.evaluate("i => i.complete && i.naturalWidth > 0")
    assert "first falls below 1 at batch 170" in img.get_attribute("alt")
    assert page.locator("fieldset.sd-serving[disabled]").count() == 1
    assert out(page, "serving_S") == "2.951×"
    assert "a server this busy should switch speculation off" in out(page, "serving_verdict")
    context.close()


def test_narrow_screen_fits_with_the_panel(browser, http_server):
    context, page = open_page(browser, viewport={"width": 320, "height": 700})
    page.goto(f"{http_server.url}/{PATH}?ctx=4096&batch=300")
    page.focus("#sd-alpha")  # no chart is near the viewport at load here: a control's use loads them
    page.wait_for_selector(LIVE, state="attached")
    page.locator(PANEL).scroll_into_view_if_needed()
    page.wait_for_timeout(200)
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    context.close()
