"""The speculative decoding explainer in real headless Chromium.

Everything is read from the DOM (data attributes) or through the test hook
SpeculativeDecoding.instance; no test asserts a timing.
"""

from __future__ import annotations

import math

import pytest

from conftest_explainer import SCENE_ITEMS, Watch, bring_charts_near, bring_every_view_live, scene_items, step_round

pytestmark = pytest.mark.browser

PATH = "speculative-decoding/index.html"
READY = ".sd-explainer[data-ready]"
LIVE = ".sd-explainer[data-charts=live]"
LAZY = ("vega-runtime.", "sd-specs-", "sd-serving.")  # what loads only when needed


def open_page(browser, url, **context_args):
    context = browser.new_context(**context_args)
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def wait_live(page, every=False):
    """The charts live (they load when one nears the viewport, or a control is
    used): the curve's view at least, or with ``every`` each chart's (an
    off-screen view is built only as the reader nears it)."""
    if every:
        return bring_every_view_live(page)
    bring_charts_near(page)
    page.wait_for_selector(LIVE, state="attached")


def curve_current(page):
    return page.evaluate("SpeculativeDecoding.instance.views.curve.data('curve').filter(r => r.current)")


def set_range(page, key, value):
    page.evaluate(
        "([k, v]) => { const i = document.querySelector('#sd-' + k); i.value = String(v); i.dispatchEvent(new Event('input', {bubbles: true})); }",
        [key, value],
    )


@pytest.mark.parametrize("via", ["file", "http"])
def test_loads_clean_and_local(browser, built_site, http_server, via):
    if via == "file":
        url, allowed = (built_site / PATH).as_uri(), ("file://",)
    else:
        url, allowed = f"{http_server.url}/{PATH}", (http_server.url,)
    context, page = open_page(browser, url)
    watch = Watch(page, allowed)
    page.goto(url)
    wait_live(page, every=True)
    step_round(page)
    page.wait_for_timeout(100)
    watch.assert_clean()
    assert page.evaluate("document.documentElement.classList.contains('sd-js')")
    assert page.locator(".sd-chart[data-live=true]").count() == 5
    context.close()


def test_csp_holds_and_charts_render(browser, csp_server):
    url = f"{csp_server.url}/{PATH}"
    context, page = open_page(browser, url)
    page.add_init_script(
        "window.__csp = []; document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    watch = Watch(page, (csp_server.url,))
    response = page.goto(url)
    assert "script-src 'self'" in response.headers["content-security-policy"]
    wait_live(page, every=True)  # every chart's spec script and view, under the policy
    set_range(page, "alpha", 0.5)
    page.mouse.move(10, 10)
    page.wait_for_timeout(100)
    assert page.evaluate("window.__csp") == []
    watch.assert_clean()
    assert len(scene_items(page, "curve", "line")) >= 2, "the live curve draws its line"
    # The vendored vega-tooltip: hovering a point of the curve shows its values, styled
    # by the site's stylesheet (its own injected <style> would break the CSP).
    page.evaluate("document.querySelector('[data-chart=curve]').scrollIntoView({block: 'center'})")
    point = next(p for p in scene_items(page, "curve", "symbol") if p["fill"] and p["fill"] != "transparent")
    page.mouse.move(point["x"], point["y"])
    page.wait_for_selector("#vg-tooltip-element.visible")
    shown = page.inner_text("#vg-tooltip-element")
    assert "depth γ" in shown and "speedup S" in shown, shown
    assert page.evaluate("document.querySelectorAll('style').length") == 0, "no injected stylesheet"
    assert page.evaluate("window.__csp") == []
    context.close()


def test_the_canvas_curve_follows_a_change_of_colour_scheme(browser, http_server):
    """The curve is drawn on a canvas, which cannot inherit the page's text colour
    as SVG does: its ink is the chart's computed colour, and the view is rebuilt in
    the new colours when the reader's scheme changes, still following the sliders."""
    context, page = open_page(browser, "", color_scheme="light", viewport={"width": 1280, "height": 900})
    watch = Watch(page, (http_server.url,))
    page.goto(f"{http_server.url}/{PATH}")
    wait_live(page)
    ink = "getComputedStyle(document.querySelector('[data-chart=curve]')).color"

    def title_fill():
        texts = scene_items(page, "curve", "text")
        return next(t["fill"] for t in texts if t["text"] == "Speedup against draft depth")

    # the title drawn in the chart's colour now (SCENE_ITEMS, in the page, so that it can be waited for)
    inked = f"""() => (({SCENE_ITEMS})(['curve', 'text']) || [])
        .some(t => t.text === 'Speedup against draft depth' && t.fill === {ink})"""

    light = page.evaluate(ink)
    assert title_fill() == light
    page.emulate_media(color_scheme="dark")
    dark = page.evaluate(ink)
    assert dark != light
    page.wait_for_function(inked)
    assert page.locator("[data-chart=curve] .sd-vega").count() == 1, "the old view went with its canvas"
    # two changes in a row (rebuilds overlapping): one view, in the last scheme's ink
    page.emulate_media(color_scheme="light")
    page.emulate_media(color_scheme="dark")
    page.wait_for_timeout(500)
    page.wait_for_function(inked)
    assert page.locator("[data-chart=curve] .sd-vega").count() == 1
    set_range(page, "alpha", 0.4)
    page.evaluate("SpeculativeDecoding.instance.charts.flushed()")
    row = curve_current(page)[0]
    assert abs(row["S"] - page.evaluate(f"SpeculativeDecoding.model.speedup(0.4, {row['gamma']}, SpeculativeDecoding.instance.store.get().c)")) < 1e-12
    watch.assert_clean()
    context.close()


def test_controls_drive_readout_and_chart(browser, http_server):
    context, page = open_page(browser, "")
    page.goto(f"{http_server.url}/{PATH}")
    wait_live(page, every=True)
    before = page.inner_text("[data-out=S]")
    set_range(page, "alpha", 0.3)
    page.wait_for_timeout(50)
    assert page.inner_text("[data-out=S]") != before
    assert math.isclose(curve_current(page)[0]["S"], page.evaluate("SpeculativeDecoding.model.speedup(0.3, 5, 0.05)"))
    set_range(page, "gamma", 9)
    page.wait_for_timeout(50)
    assert curve_current(page)[0]["gamma"] == 9
    assert "1 + 9 ×" in page.inner_text("[data-out=formula]")
    set_range(page, "c", 0.6)
    page.wait_for_timeout(50)
    assert page.get_attribute(".sd-readout", "data-verdict") == "slowdown"
    assert "slowdown" in page.inner_text("[data-out=verdict]")
    page.evaluate("SpeculativeDecoding.instance.charts.flushed()")  # the plane's marker follows once the slider rests
    assert page.evaluate("SpeculativeDecoding.instance.views.plane.data('current')[0].c") == 0.6
    # a published preset sets all three and shows its citation
    page.select_option("#sd-preset", "0")
    page.wait_for_timeout(50)
    state = page.evaluate("SpeculativeDecoding.instance.store.get()")
    preset = page.evaluate("SpeculativeDecoding.data.presets[0]")
    assert (state["alpha"], state["gamma"], state["c"]) == (preset["alpha"], preset["gamma"], preset["c"])
    assert "Leviathan" in page.inner_text("[data-out=citation]")
    assert f"this model gives {preset['model_speedup']}×" in page.inner_text("[data-out=citation]")
    # a pairing whose α was solved from its measured speedup says so, instead of claiming agreement
    derived = page.evaluate("SpeculativeDecoding.data.presets.findIndex(p => p.sources.alpha.startsWith('derived'))")
    assert derived > 0
    page.select_option("#sd-preset", str(derived))
    page.wait_for_timeout(50)
    text = page.inner_text("[data-out=citation]")
    assert "α is derived from it" in text and "this model gives" not in text and "Derived c:" in text
    page.select_option("#sd-preset", "0")
    page.wait_for_timeout(400)  # the URL write is debounced
    assert f"alpha={preset['alpha']}" in page.url
    context.close()


def test_url_state_and_junk(browser, built_site):
    base = (built_site / PATH).as_uri()
    context, page = open_page(browser, base)
    page.goto(base + "?alpha=0.42&gamma=7&c=0.125&seed=99")
    page.wait_for_selector(READY, state="attached")
    defaults = page.evaluate("SpeculativeDecoding.state.DEFAULTS")
    assert page.evaluate("SpeculativeDecoding.instance.store.get()") == {**defaults, "alpha": 0.42, "gamma": 7, "c": 0.125, "seed": 99}
    assert page.input_value("#sd-gamma") == "7"
    # junk (not a number) falls back to the default; a number out of range is clamped
    page.goto(base + "?alpha=NaN&gamma=1e9&c=-1&seed=text")
    page.wait_for_selector(READY, state="attached")
    assert page.evaluate("SpeculativeDecoding.instance.store.get()") == {**defaults, "gamma": 16, "c": 0}
    context.close()


def rounds_from_dom(page, selector=".sd-round-current"):
    return page.evaluate(
        """sel => { const ol = document.querySelector(sel);
        return { gamma: +ol.dataset.gamma, accepted: +ol.dataset.accepted, tokens: +ol.dataset.tokens,
                 states: [...ol.querySelectorAll('.sd-tok')].map(li => li.dataset.state) }; }""",
        selector,
    )


def test_step_obeys_the_rules_and_replays(browser, http_server):
    context, page = open_page(browser, "")
    url = f"{http_server.url}/{PATH}?alpha=0.6&gamma=6&c=0.1&seed=7"
    seen = []
    for _ in range(2):  # a shared link replays the same rounds
        page.goto(url)
        page.wait_for_selector(READY, state="attached")
        rounds = []
        for _ in range(12):
            step_round(page)
            r = rounds_from_dom(page)
            s = r["states"]
            assert len(s) == r["gamma"] + 1 == 7
            k = r["accepted"]
            assert s[:k] == ["accepted"] * k
            assert s.count("rejected") <= 1
            if k < r["gamma"]:
                assert s[k] == "rejected"
                assert s[k + 1 : -1] == ["discarded"] * (r["gamma"] - k - 1)
            assert s[-1] == "target" and s.count("target") == 1
            assert r["tokens"] == k + 1
            rounds.append(s)
        seen.append(rounds)
    assert seen[0] == seen[1]
    assert page.inner_text("[data-tally=rounds]") == "12"
    context.close()


def test_many_rounds_converge_to_E(browser, http_server):
    context, page = open_page(browser, "")
    page.goto(f"{http_server.url}/{PATH}?alpha=0.7&gamma=4&c=0.1&seed=3")
    page.wait_for_selector(READY, state="attached")
    for _ in range(20):
        page.click("[data-action=skip]")  # 100 rounds each
    run = page.evaluate("(() => { const r = SpeculativeDecoding.instance.animation.run(); return {n: r.rounds, tokens: r.tokens, s: r.realisedSpeedup()}; })()")
    n = run["n"]
    assert n == 2000
    a, g = 0.7, 4
    pmf = [a ** (k - 1) * (1 - a) for k in range(1, g + 1)] + [a ** g]
    e = sum(k * p for k, p in zip(range(1, g + 2), pmf))
    var = sum(k * k * p for k, p in zip(range(1, g + 2), pmf)) - e * e
    assert abs(run["tokens"] / n - e) < 5 * math.sqrt(var / n)  # a 5-sigma bound: never flaky
    assert abs(run["s"] - e / (1 + g * 0.1)) < 5 * math.sqrt(var / n) / (1 + g * 0.1)
    assert float(page.inner_text("[data-tally=mean]")) == pytest.approx(run["tokens"] / n, abs=1e-3)
    context.close()


def test_keyboard(browser, http_server):
    context, page = open_page(browser, "")
    page.goto(f"{http_server.url}/{PATH}")
    page.wait_for_selector(READY, state="attached")
    page.focus("#sd-alpha")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("SpeculativeDecoding.instance.store.get().alpha") == 0.79
    page.keyboard.press("PageDown")  # 0.1 steps on the 0.1 grid
    assert page.evaluate("SpeculativeDecoding.instance.store.get().alpha") == 0.7
    assert "70 percent" in page.get_attribute("#sd-alpha", "aria-valuetext")
    page.focus("#sd-gamma")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("SpeculativeDecoding.instance.store.get().gamma") == 6
    # tab to the step button and press it with the keyboard
    page.focus("[data-action=play]")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.action") == "step"
    page.keyboard.press("Enter")  # plays one round's phases, then stops
    assert page.get_attribute(".sd-stage", "data-phase") == "draft"
    page.wait_for_function("() => document.querySelector('[data-tally=rounds]').textContent === '1'")
    page.wait_for_function("() => !SpeculativeDecoding.instance.animation.busy()")
    page.focus("[data-action=play]")
    page.keyboard.press("Space")
    assert page.get_attribute("[data-action=play]", "aria-pressed") == "true"
    page.keyboard.press("Space")
    assert page.get_attribute("[data-action=play]", "aria-pressed") == "false"
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    context.close()


def test_reduced_motion(browser, http_server):
    context, page = open_page(browser, "", reduced_motion="reduce")
    page.goto(f"{http_server.url}/{PATH}?speed=1")
    page.wait_for_selector(READY, state="attached")
    page.evaluate("""() => { window.__anims = 0; document.addEventListener('transitionrun', () => window.__anims++, true);
        document.addEventListener('animationstart', () => window.__anims++, true); }""")
    page.click("[data-action=play]")
    page.wait_for_timeout(400)
    running = page.evaluate("document.getAnimations().filter(a => a.effect && a.effect.target && a.effect.target.closest && a.effect.target.closest('.sd-explainer')).length")
    durations = page.evaluate("[...document.querySelectorAll('.sd-explainer *')].map(e => getComputedStyle(e).transitionDuration + ' ' + getComputedStyle(e).animationDuration)")
    page.wait_for_timeout(1200)  # through a round's drafting, verification and judging steps
    page.click("[data-action=play]")
    step_round(page)  # a step and a slider change: also step-wise
    set_range(page, "gamma", 9)
    page.wait_for_timeout(300)
    assert running == 0
    assert all(d in ("0s 0s", "") for d in durations), set(durations)
    assert page.evaluate("window.__anims") == 0, "no transition or animation ever ran"
    assert int(page.inner_text("[data-tally=rounds]")) == 0  # the slider started a fresh run
    context.close()


def test_without_javascript(browser, built_site):
    url = (built_site / PATH).as_uri()
    context, page = open_page(browser, url, java_script_enabled=False)
    page.goto(url)
    imgs = page.locator(".sd-chart img")
    assert imgs.count() == 5
    for i in range(5):
        img = imgs.nth(i)
        assert int(img.get_attribute("width")) > 0 and int(img.get_attribute("height")) > 0
        assert len(img.get_attribute("alt")) > 40
        assert img.get_attribute("loading") == "lazy"  # each picture loads as the reader nears it
        img.scroll_into_view_if_needed()
        img.evaluate("i => i.complete || new Promise(r => i.addEventListener('load', r))")
        assert img.evaluate("i => i.complete && i.naturalWidth > 0")
    assert page.locator("fieldset.sd-controls[disabled]").count() == 1
    assert page.locator(".sd-round-current .sd-tok[data-state=target]").count() == 1
    assert "Pays off" in page.inner_text("[data-out=verdict]")
    context.close()


def test_narrow_screen_fits(browser, http_server):
    context, page = open_page(browser, "", viewport={"width": 320, "height": 700})
    page.goto(f"{http_server.url}/{PATH}?gamma=16")
    page.focus("#sd-gamma")  # no chart is near the viewport at load here: the slider's use loads them
    wait_live(page)
    step_round(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    context.close()


def test_wide_screen_two_columns(browser, http_server):
    context, page = open_page(browser, "", viewport={"width": 1280, "height": 900})
    page.goto(f"{http_server.url}/{PATH}")
    wait_live(page)
    box = page.evaluate("""() => { const r = s => document.querySelector(s).getBoundingClientRect();
        const rem = parseFloat(getComputedStyle(document.documentElement).fontSize);
        return { rem, fig: r('.sd-explainer').width, prose: r('.prose').width, anim: r('.sd-col-anim'), curve: r('.sd-col-curve'),
                 chart: r('[data-chart=curve] .sd-vega canvas').width }; }""")
    rem = box["rem"]
    assert box["fig"] >= 60 * rem and box["fig"] <= 72 * rem + 1, box
    assert box["prose"] <= 42 * rem + 1, box  # the prose keeps its reading measure
    assert box["curve"]["left"] >= box["anim"]["right"], "the rounds left (issue 34: the round first), sliders, curve and readout right"
    assert abs(box["curve"]["top"] - box["anim"]["top"]) < 2
    assert box["chart"] > 0.8 * box["curve"]["width"], "the live curve fills its column"
    context.close()


def test_live_region_waits_for_the_slider_to_rest(browser, http_server):
    context, page = open_page(browser, "")
    page.goto(f"{http_server.url}/{PATH}")
    wait_live(page)
    live = page.locator("[data-announce]")
    assert live.get_attribute("aria-live") == "polite" and live.get_attribute("role") == "status"
    assert page.get_attribute(".sd-readout", "aria-live") is None, "the visible readout must not chatter"
    assert page.evaluate("getComputedStyle(document.querySelector('[data-announce]')).width") == "1px"  # visually hidden
    page.evaluate("""() => { window.__said = []; new MutationObserver(() => window.__said.push(document.querySelector('[data-announce]').textContent))
        .observe(document.querySelector('[data-announce]'), {childList: true, characterData: true, subtree: true}); }""")
    # a drag, an input every 30 ms: the visible readout follows every input at once
    shown = page.evaluate("""async () => { const i = document.querySelector('#sd-alpha'), shown = [];
        for (let k = 0; k < 12; k++) {
          i.value = String(0.5 + k / 50); i.dispatchEvent(new Event('input', {bubbles: true}));
          shown.push(document.querySelector('[data-out=S]').textContent);
          await new Promise(r => setTimeout(r, 30));
        }
        return shown; }""")
    assert len(set(shown)) == 12
    assert page.evaluate("window.__said") == [], "nothing announced during the drag"
    page.wait_for_timeout(700)
    said = page.evaluate("window.__said")
    assert len(said) == 1, said
    expected = page.evaluate("SpeculativeDecoding.readout.summary(SpeculativeDecoding.instance.store.get())")
    assert said[0] == expected and "speedup" in expected and "0.72" in expected
    context.close()


def test_every_control_shows_focus(browser, http_server):
    context, page = open_page(browser, "")
    page.goto(f"{http_server.url}/{PATH}")
    page.wait_for_selector(READY, state="attached")
    controls = page.evaluate("[...document.querySelectorAll('.sd-explainer input, .sd-explainer select, .sd-explainer button, .sd-explainer a[href]')].length")
    assert controls >= 10
    page.focus("[data-action=play]")  # the figure's first control (issue 34: the round first)
    page.keyboard.press("Shift+Tab")  # start just before it
    seen = 0
    for _ in range(controls):
        page.keyboard.press("Tab")
        style = page.evaluate("""() => { const e = document.activeElement; const s = getComputedStyle(e);
            return { inside: !!e.closest('.sd-explainer'), tag: e.tagName, outline: s.outlineStyle, width: parseFloat(s.outlineWidth), color: s.outlineColor }; }""")
        if not style["inside"]:
            continue
        seen += 1
        assert style["outline"] != "none" and style["width"] >= 2, style
    assert seen >= controls - 1
    context.close()


COLOURS = """
  const cv = document.createElement('canvas'); cv.width = cv.height = 1;
  const ctx = cv.getContext('2d', {willReadFrequently: true});
  function rgba(css) {
    ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = 'rgba(0,0,0,0)'; ctx.fillStyle = css; ctx.fillRect(0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data; return [d[0], d[1], d[2], d[3] / 255];
  }
  const over = (top, under) => { const a = top[3]; return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]); };
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  function effective(el) {
    // the backdrop: backgrounds of the element and its ancestors composited over the canvas,
    // each faded by the opacity of its subtree; the text faded by every opacity above it
    const chain = []; for (let e = el; e && e.nodeType === 1; e = e.parentElement) chain.unshift(e);
    let bg = rgba(getComputedStyle(document.documentElement).backgroundColor);
    if (bg[3] < 1) bg = over(bg, rgba(getComputedStyle(document.body).backgroundColor));
    if (bg[3] < 1) bg = over(bg, [255, 255, 255, 1]);
    let fade = 1;
    for (const e of chain) {
      const s = getComputedStyle(e);
      fade *= parseFloat(s.opacity);
      const b = rgba(s.backgroundColor);
      if (b[3] > 0 && e !== document.documentElement) bg = over([b[0], b[1], b[2], b[3] * fade], bg);
    }
    if (el instanceof SVGElement) {
      // filled chart marks under the text (the shaded slowdown region) join its backdrop
      const t = el.getBoundingClientRect(), x = t.left + t.width / 2, y = t.top + t.height / 2;
      for (const shape of el.ownerSVGElement.querySelectorAll('path, rect')) {
        const ss = getComputedStyle(shape), f = rgba(ss.fill), r = shape.getBoundingClientRect();
        if (f[3] === 0 || shape.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_PRECEDING) continue;
        if (x < r.left || x > r.right || y < r.top || y > r.bottom) continue;
        bg = over([f[0], f[1], f[2], f[3] * parseFloat(ss.fillOpacity || '1') * parseFloat(ss.opacity || '1')], bg);
      }
    }
    const s = getComputedStyle(el);
    let fg = rgba(el instanceof SVGElement ? s.fill : s.color);
    if (el instanceof SVGElement) fg[3] *= parseFloat(s.fillOpacity || '1');
    fg = over([fg[0], fg[1], fg[2], fg[3] * fade], bg);
    const L1 = lum(fg), L2 = lum(bg);
    return { ratio: (Math.max(L1, L2) + 0.05) / (Math.min(L1, L2) + 0.05), fg, bg };
  }
"""

CONTRAST = """(selectors) => {
""" + COLOURS + """
  const out = [];
  for (const sel of selectors) {
    const els = [...document.querySelectorAll(sel)].filter(e => e.textContent.trim() && e.getClientRects().length);
    for (const e of els.slice(0, 40)) {
      const r = effective(e);
      out.push({ sel, text: e.textContent.trim().slice(0, 30), ratio: Math.round(r.ratio * 100) / 100, fg: r.fg.slice(0, 3), bg: r.bg.slice(0, 3) });
    }
  }
  return out;
}"""

#: The text a canvas view draws (its scenegraph's text items), each against the
#: chart's backdrop and any filled shape drawn under it before it (the shaded
#: slowdown region), as CONTRAST does for SVG text.
CANVAS_CONTRAST = """(name) => {
""" + COLOURS + """
  const view = SpeculativeDecoding.instance.views[name];
  const canvas = document.querySelector(`[data-chart=${name}] .sd-vega canvas`);
  if (!view || !canvas) return null;
  const base = effective(canvas).bg, shapes = [], texts = [];
  (function walk(mark, dx, dy) {
    for (const it of mark.items || []) {
      const b = it.bounds, box = b && { x1: b.x1 + dx, x2: b.x2 + dx, y1: b.y1 + dy, y2: b.y2 + dy };
      if (mark.marktype === 'rect' && it.fill) shapes.push({ box, fill: it.fill, alpha: (it.opacity ?? 1) * (it.fillOpacity ?? 1), order: shapes.length + texts.length });
      if (mark.marktype === 'text' && it.text != null && String(it.text).trim()) texts.push({ box, text: String(it.text), fill: it.fill || '#000', alpha: (it.opacity ?? 1) * (it.fillOpacity ?? 1), order: shapes.length + texts.length });
      if (mark.marktype === 'group') (it.items || []).forEach(m => walk(m, dx + (it.x || 0), dy + (it.y || 0)));
    }
  })(view.scenegraph().root, 0, 0);
  return texts.map(t => {
    const x = (t.box.x1 + t.box.x2) / 2, y = (t.box.y1 + t.box.y2) / 2;
    let bg = base;
    for (const sh of shapes) {
      if (sh.order > t.order || x < sh.box.x1 || x > sh.box.x2 || y < sh.box.y1 || y > sh.box.y2) continue;
      const f = rgba(sh.fill); bg = over([f[0], f[1], f[2], f[3] * sh.alpha], bg);
    }
    const c = rgba(t.fill), fg = over([c[0], c[1], c[2], c[3] * t.alpha], bg);
    const L1 = lum(fg), L2 = lum(bg);
    return { sel: name + ' canvas text', text: t.text.slice(0, 30), ratio: Math.round((Math.max(L1, L2) + 0.05) / (Math.min(L1, L2) + 0.05) * 100) / 100,
             fg: fg.slice(0, 3), bg: bg.slice(0, 3) };
  });
}"""

#: text of the figure: readout, tokens (every state, the history included), lanes,
#: legend, tally, controls, captions, and the live charts' own text
CONTRAST_TEXT = [
    ".sd-readout dt", ".sd-readout dd", ".sd-verdict", ".sd-tok .sd-glyph", ".sd-tok .sd-word", ".sd-tok .sd-num",
    ".sd-lane-label", ".sd-text", ".sd-text-old", ".sd-text-new",
    ".sd-phase", ".sd-plain", ".sd-verify", ".sd-legend .sd-key", ".sd-tally dt", ".sd-tally dd", ".sd-hint",
    ".sd-citation", ".sd-seed", ".sd-caption", ".sd-panel-title", ".sd-control label", ".sd-control output",
    ".sd-explainer button", ".sd-explainer legend", "[data-chart] .sd-vega svg text",
    # the serving panel's readout and chart (the URL below greys out batches and marks the first slowdown)
    ".sd-readout-serving dd", ".sd-readout-serving .sd-verdict", "[data-chart=serving] .sd-vega svg text",
]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_text_contrast(browser, http_server, scheme):
    context, page = open_page(browser, "", color_scheme=scheme, viewport={"width": 1280, "height": 900})
    page.goto(f"{http_server.url}/{PATH}?alpha=0.6&gamma=6&c=0.1&seed=7&ctx=4096&batch=300")
    wait_live(page, every=True)
    for _ in range(4):  # accepted, rejected, discarded and target tokens, in the lane and the history
        step_round(page)
    page.evaluate("SpeculativeDecoding.instance.animation.play()")  # and a round in flight: pending and drafted ones
    page.wait_for_timeout(300)
    page.evaluate("SpeculativeDecoding.instance.animation.pause()")
    page.evaluate("document.querySelector('.sd-more').scrollIntoView()")  # the lower charts on screen
    results = page.evaluate(CONTRAST, CONTRAST_TEXT)
    canvas_text = page.evaluate(CANVAS_CONTRAST, "curve")  # the curve is drawn on a canvas
    assert canvas_text and "Speedup against draft depth" in {r["text"] for r in canvas_text}, canvas_text
    assert any(r["text"].startswith("◆ best whole depth") for r in canvas_text), "the key (the subtitle, with the slowdown note) is read too"
    assert any(r["text"] == "8" for r in canvas_text), "the axis labels are read too"
    results += canvas_text
    checked = {r["sel"] for r in results}
    assert checked >= {".sd-readout dd", ".sd-tok .sd-glyph", ".sd-tok .sd-word", ".sd-text-old", ".sd-tok .sd-num", "[data-chart] .sd-vega svg text", ".sd-caption",
                       "[data-chart=serving] .sd-vega svg text", ".sd-readout-serving .sd-verdict"}, checked
    states = page.evaluate("[...new Set([...document.querySelectorAll('.sd-tok')].map(t => t.dataset.state))].sort()")
    assert {"accepted", "rejected", "discarded", "target"} <= set(states), states
    low = [r for r in results if r["ratio"] < 4.5]
    assert not low, low
    context.close()


def test_vega_runtime_is_lazy_and_the_first_load_small(browser, http_server):
    """The Vega runtime (~900 KB) and the specs load only after the page has
    loaded and painted; what the page needs before that stays small."""
    context, page = open_page(browser, "", viewport={"width": 1280, "height": 900})
    page.goto(f"{http_server.url}/{PATH}")
    wait_live(page, every=True)
    page.evaluate("document.querySelector('.sd-panel-serving').scrollIntoView({block: 'nearest'})")  # its script's turn
    page.wait_for_selector(".sd-explainer[data-serving=ready]", state="attached")
    timing = page.evaluate("""() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const paint = Object.fromEntries(performance.getEntriesByType('paint').map(p => [p.name, p.startTime]));
        const res = performance.getEntriesByType('resource').map(r => ({ name: r.name.split('/').pop(), start: r.startTime,
            bytes: r.encodedBodySize, type: r.initiatorType }));
        return { load: nav.loadEventStart, html: nav.encodedBodySize, paint, res };
    }""")
    first_paint = timing["paint"].get("first-contentful-paint", timing["paint"].get("first-paint"))
    assert first_paint is not None and timing["load"] > 0
    lazy = [r for r in timing["res"] if r["name"].startswith(LAZY)]
    assert len(lazy) == 7, timing["res"]  # the runtime, the five charts' specs, the serving panel's script
    for r in lazy:
        assert r["start"] >= timing["load"], (r, timing["load"])
        assert r["start"] >= first_paint, (r, first_paint)
    assert sum(r["bytes"] for r in lazy) > 500_000  # the runtime is what is kept out of the first load
    early = [r for r in timing["res"] if r["start"] < timing["load"]]
    code = [r for r in early if r["name"].endswith((".js", ".css"))]
    total = timing["html"] + sum(r["bytes"] for r in code)
    print(f"\nfirst load: HTML {timing['html']} B + {len(code)} scripts and stylesheets "
          f"{sum(r['bytes'] for r in code)} B = {total} B; lazy: " + ", ".join(f"{r['name']} {r['bytes']} B" for r in lazy))
    assert not any(r["name"].startswith(LAZY) for r in early)
    assert total < 200_000, (total, code)
    context.close()
