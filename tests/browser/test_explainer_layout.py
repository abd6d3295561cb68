"""The explainer's layout in real headless Chromium: the curve beside the
slider on a phone, no layout shift from the transport, no dead column on a
desktop, the charts' colours and keys, and the address bar after a clamp.

Positions are read with getBoundingClientRect and layout shifts with a
PerformanceObserver; no test asserts a timing.
"""

from __future__ import annotations

import json

import pytest

from conftest_explainer import Watch, bring_every_view_live, step_round

pytestmark = pytest.mark.browser

PATH = "speculative-decoding/index.html"
READY = ".sd-explainer[data-ready]"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


def open_page(browser, **context_args):
    context = browser.new_context(**context_args)
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def wait_all_live(page):
    """Every chart's live view built (the static SVGs replaced), so that nothing
    but the action under test can move the page."""
    bring_every_view_live(page)  # each built as the reader nears it
    assert page.locator(".sd-chart[data-live=true]").count() == 5
    page.evaluate("window.scrollTo(0, 0)")
    page.evaluate("SpeculativeDecoding.instance.charts.flushed()")


def box(page, selector):
    return page.evaluate(
        "s => { const r = document.querySelector(s).getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }",
        selector,
    )


# ------------------------------------------------------------ the phone: curve under the slider


def _inside(b, vp):
    return b["top"] >= 0 and b["bottom"] <= vp["height"] and b["left"] >= 0 and b["right"] <= vp["width"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_phone_shows_the_curve_while_a_slider_moves(browser, http_server, scheme):
    context, page = open_page(browser, viewport=PHONE, color_scheme=scheme)
    watch = Watch(page, (http_server.url,))
    page.goto(f"{http_server.url}/{PATH}")
    wait_all_live(page)
    for key in ("alpha", "gamma", "c"):
        # the worst case for what lies below: the slider's row at the very top of the screen
        page.evaluate("k => document.querySelector('#sd-' + k).closest('.sd-control').scrollIntoView({block: 'start'})", key)
        page.focus(f"#sd-{key}")
        before = page.evaluate("JSON.stringify(SpeculativeDecoding.instance.views.curve.data('curve').map(r => [r.S, r.current]))")
        curve_tops = set()
        for press in ("ArrowLeft", "ArrowLeft", "Home", "End", "PageDown", "ArrowLeft"):
            page.keyboard.press(press)
            page.evaluate("SpeculativeDecoding.instance.charts.flushed()")
            assert page.evaluate("document.activeElement.id") == f"sd-{key}"
            slider, curve = box(page, f"#sd-{key}"), box(page, "[data-chart=curve] .sd-vega canvas")
            numbers = box(page, ".sd-readout .sd-numbers")
            for name, b in (("slider", slider), ("live curve", curve), ("readout", numbers)):
                assert _inside(b, PHONE), f"{key} after {press}: the {name} leaves the viewport: {b}"
            curve_tops.add(round(curve["top"], 1))
        after = page.evaluate("JSON.stringify(SpeculativeDecoding.instance.views.curve.data('curve').map(r => [r.S, r.current]))")
        assert after != before, f"moving {key} moved the live curve"
        # the readout's words change length under the curve, never above it
        assert len(curve_tops) == 1, f"the curve jumped while {key} moved: {curve_tops}"
    watch.assert_clean()
    context.close()


# ------------------------------------------------------------ the transport moves nothing

# Every layout-shift entry, with its sources. A source inside the animation's own
# boxes (a token row; the history's rows, newest first, moving down inside their
# reserved box; a lane's text, its words rewritten as the sentence runs on, in
# its reserved lines) is the animation; any other source is the layout moving.
# The boxes themselves must not move or change size (BELOW, below).
SHIFT_OBSERVER = """() => { window.__shifts = [];
  new PerformanceObserver(list => list.getEntries().forEach(e => window.__shifts.push({
    value: e.value, sources: e.sources.map(s => { const n = s.node, el = n && (n.nodeType === 1 ? n : n.parentElement);
      return { what: el ? el.className + ' ' + (n.textContent || '').slice(0, 30) : '?',
               animation: !!(el && el.closest('.sd-round, .sd-history, .sd-text')) }; }) }))
  ).observe({type: 'layout-shift'}); }"""

# everything from the transport down: its buttons, the stage's parts, the history,
# the histogram beside them, the panels below the figure and the prose after it
BELOW = """() => { const sel = ['.sd-transport', '.sd-buttons', '[data-action=play]', '[data-action=step]', '[data-action=skip]',
    '[data-action=reset]', '[data-action=reseed]', '#sd-speed', '.sd-stage', '.sd-phase', '.sd-round-current', '.sd-lane-spec', '.sd-verify',
    '.sd-clock-spec', '.sd-text-spec', '.sd-lane-plain', '.sd-text-plain', '.sd-plain',
    '.sd-history', '.sd-legend', '.sd-col-anim > .sd-panel', '.sd-tally', '.sd-more', '.sd-panel-serving'];
  const out = {};
  for (const s of sel) { const e = document.querySelector(s); const r = e.getBoundingClientRect();
    out[s] = [r.left + scrollX, r.top + scrollY, r.width, r.height].map(v => Math.round(v * 10) / 10); }
  const after = document.querySelector('.sd-explainer').nextElementSibling;
  if (after) { const r = after.getBoundingClientRect(); out.after = [r.left + scrollX, r.top + scrollY].map(v => Math.round(v * 10) / 10); }
  return out; }"""


def _rounds(page):
    return int(page.inner_text("[data-tally=rounds]"))


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_transport_moves_nothing(browser, http_server, viewport):
    context, page = open_page(browser, viewport=viewport)
    watch = Watch(page, (http_server.url,))
    page.goto(f"{http_server.url}/{PATH}?gamma=16")  # the deepest rounds: the longest rows
    wait_all_live(page)
    # The fastest speed: the same rounds, phases and rows at a tenth of the wait
    # (a round at depth 16 lasts several seconds at speed 1). Chosen before the
    # boxes are measured, so the select's own value is part of the start.
    page.select_option("select[data-role=speed]", "10")
    page.evaluate("document.querySelector('.sd-transport').scrollIntoView({block: 'start'})")
    page.evaluate(SHIFT_OBSERVER)
    start = page.evaluate(BELOW)
    play = page.locator("[data-action=play]")
    assert page.get_by_role("button", name="▶ Play", exact=True).count() == 1
    history_rows = []

    def check(label):
        page.evaluate("SpeculativeDecoding.instance.charts.flushed()")
        now = page.evaluate(BELOW)
        moved = {k: (start[k], now[k]) for k in start if start[k] != now[k]}
        assert not moved, f"after {label}: {json.dumps(moved)}"
        history_rows.append(page.locator(".sd-history > li").count())

    play.click()
    page.wait_for_function("() => +document.querySelector('[data-tally=rounds]').textContent >= 2")
    assert play.get_attribute("aria-pressed") == "true"
    assert page.get_by_role("button", name="❚❚ Pause", exact=True).count() == 1, "the name says what a press does"
    check("Play, two rounds played")
    play.click()
    assert play.get_attribute("aria-pressed") == "false"
    check("Pause")
    for action in ("step", "step", "step", "step", "step", "skip", "reset", "reseed", "step", "skip"):
        before = _rounds(page)
        step_round(page) if action == "step" else page.click(f"[data-action={action}]")
        if action == "skip":
            assert _rounds(page) == before + 100
        check(action)
    play.click()
    page.wait_for_function(f"() => +document.querySelector('[data-tally=rounds]').textContent >= {_rounds(page) + 1}")
    check("Play again, mid-run")
    play.click()
    check("Pause again")
    shifts = page.evaluate("window.__shifts")
    layout = [e for e in shifts if not all(src["animation"] for src in e["sources"])]
    assert layout == [], f"layout-shift entries outside the animation's own boxes: {layout}"
    assert max(history_rows) == 6 and min(history_rows) == 0, f"from empty to a full history (HISTORY rows): {history_rows}"
    watch.assert_clean()
    context.close()


# ------------------------------------------------------------ the desktop: no dead column


def test_desktop_columns_have_no_dead_stretch(browser, http_server):
    context, page = open_page(browser, viewport=DESKTOP)
    page.goto(f"{http_server.url}/{PATH}")
    wait_all_live(page)
    cols = page.evaluate("""() => [...document.querySelectorAll('.sd-cols > .sd-col')].map(c => {
        const last = c.lastElementChild.getBoundingClientRect(), r = c.getBoundingClientRect();
        return {left: r.left, right: r.right, top: r.top, bottom: last.bottom}; })""")
    assert len(cols) == 2 and cols[1]["left"] >= cols[0]["right"], cols
    assert abs(cols[0]["top"] - cols[1]["top"]) < 2, "both columns start at the top of the figure"
    taller = max(c["bottom"] for c in cols) - cols[0]["top"]
    dead = abs(cols[0]["bottom"] - cols[1]["bottom"])
    assert dead <= 160 and dead <= 0.15 * taller, f"{dead:.0f} px empty under the shorter column (of {taller:.0f})"
    # the sliders and the curve they move are one column: seen together, the slider above
    slider, curve = box(page, "#sd-alpha"), box(page, "[data-chart=curve]")
    assert curve["top"] > slider["bottom"] and curve["bottom"] - slider["top"] < DESKTOP["height"]
    # below the figure's columns, the panels pair up: no cell of the grid is left empty
    rows = page.evaluate("""() => { const rows = {};
        for (const p of document.querySelectorAll('.sd-more > .sd-panel')) {
          const r = p.getBoundingClientRect(); (rows[Math.round(r.top)] = rows[Math.round(r.top)] || []).push(r.width); }
        return Object.values(rows); }""")
    main_width = page.evaluate("document.querySelector('.sd-more').getBoundingClientRect().width")
    for row in rows:
        assert len(row) == 2 or row[0] > 0.9 * main_width, f"a panel alone in its row: {rows}"
    context.close()


# ------------------------------------------------------------ chart colours and keys


def _luminance(rgb):
    def ch(v):
        v /= 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (ch(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def delta_e(a, b):
    """CIE76 colour difference in L*a*b* (D65): about 2.3 is just noticeable."""
    def lab(rgb):
        def lin(v):
            v /= 255
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
        r, g, bl = (lin(v) for v in rgb)
        x = (0.4124 * r + 0.3576 * g + 0.1805 * bl) / 0.95047
        y = 0.2126 * r + 0.7152 * g + 0.0722 * bl
        z = (0.0193 * r + 0.1192 * g + 0.9505 * bl) / 1.08883
        f = [t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116 for t in (x, y, z)]
        return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])
    return sum((p - q) ** 2 for p, q in zip(lab(a), lab(b))) ** 0.5


def _rgb(css):
    inner = css[css.index("(") + 1 : css.index(")")]
    return tuple(round(float(v)) for v in inner.replace("/", ",").split(",")[:3])


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_heat_map_none_is_distinct(browser, http_server, scheme):
    context, page = open_page(browser, viewport=DESKTOP, color_scheme=scheme)
    page.goto(f"{http_server.url}/{PATH}")
    wait_all_live(page)
    colours = page.evaluate("(() => { const s = SpeculativeDecoding.instance.views.plane.scale('color'); return [0, 1, 2, 3, 4, 8, 17].map(d => s(d)); })()")
    none, d1, d2, d3, d4, d8, d17 = (_rgb(c) for c in colours)
    page_bg = _rgb(page.evaluate("getComputedStyle(document.body).backgroundColor"))
    for depth, col in (("1", d1), ("2", d2)):
        assert contrast(none, col) >= 3, f"'none' against depth {depth}: {contrast(none, col):.2f}:1"
        assert delta_e(none, col) >= 25, f"'none' against depth {depth}: ΔE {delta_e(none, col):.1f}"
    assert contrast(none, page_bg) >= 3, f"'none' against the {scheme} page: {contrast(none, page_bg):.2f}:1"
    # the shallow depths, where most of the plane lies, are told apart too
    for a, b in ((d1, d2), (d2, d3), (d3, d4), (d4, d8), (d8, d17)):
        assert delta_e(a, b) >= 10, (a, b, delta_e(a, b))
    # the cells drawn use the scale: the top-left corner (alpha 0, c 1) is "none"
    fills = page.evaluate("[...document.querySelectorAll('[data-chart=plane] .sd-vega svg .mark-rect path')].map(p => p.getAttribute('fill'))")
    assert any(_rgb(f) == none for f in fills if f and f.startswith("rgb"))
    context.close()


def _key_gap(page, chart, before, after):
    """Pixels between the end of `before` and the start of `after` in a chart's rendered key:
    from the SVG's glyph extents, or for a canvas view from Vega's own text metrics of the
    item it draws (the font and size the canvas uses)."""
    return page.evaluate(
        """([chart, before, after]) => {
          const has = t => typeof t === 'string' && t.includes(before) && t.includes(after);
          const canvas = document.querySelector(`[data-chart=${chart}] .sd-vega canvas`);
          if (canvas) {
            let found = null;
            (function walk(mark) {
              for (const it of mark.items || []) {
                // a key of several lines is one item whose text is an array of them
                if (mark.marktype === 'text') for (const line of [].concat(it.text)) if (has(line)) found = { it, s: line };
                if (mark.marktype === 'group') (it.items || []).forEach(walk);
              }
            })(SpeculativeDecoding.instance.views[chart].scenegraph().root);
            const s = found.s, i = s.indexOf(before) + before.length, j = s.indexOf(after);
            const k = canvas.getBoundingClientRect().width / parseFloat(canvas.style.width);
            return (vega.textMetrics.width(found.it, s.slice(0, j)) - vega.textMetrics.width(found.it, s.slice(0, i))) * k;
          }
          const texts = [...document.querySelectorAll(`[data-chart=${chart}] .sd-vega svg text`)];
          const t = texts.find(e => has(e.textContent));
          const s = t.textContent, i = s.indexOf(before) + before.length - 1, j = s.indexOf(after);
          const a = t.getExtentOfChar(i), b = t.getExtentOfChar(j);
          return b.x - (a.x + a.width); }""",
        [chart, before, after],
    )


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_chart_keys_keep_their_items_apart(browser, http_server, viewport):
    context, page = open_page(browser, viewport=viewport)
    page.goto(f"{http_server.url}/{PATH}")
    wait_all_live(page)
    # 11 px text: one collapsed space is ~3 px, which ran the items together
    assert _key_gap(page, "curve", "best whole depth", "○ your depth") >= 8
    assert _key_gap(page, "curve", "break-even", "shaded") >= 8
    assert _key_gap(page, "serving", "does not fit", "shaded") >= 8
    assert _key_gap(page, "serving", "first slowdown", "dotted") >= 8
    for chart in ("curve", "serving"):  # and the key fits its chart
        svg, fig = box(page, f"[data-chart={chart}] .sd-vega > :is(svg, canvas)"), box(page, f"[data-chart={chart}]")
        assert svg["right"] <= fig["right"] + 0.5, chart
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    context.close()


def _hist(page):
    return page.evaluate("""() => ({
        kinds: [...new Set(SpeculativeDecoding.instance.views.hist.data('hist').map(r => r.kind))].sort(),
        simulated: SpeculativeDecoding.instance.views.hist.data('hist').filter(r => r.kind === 'simulated').map(r => r.share),
        legend: [...document.querySelectorAll('[data-chart=hist] .sd-vega svg .role-legend-label text')].map(t => t.textContent),
        bars: document.querySelectorAll('[data-chart=hist] .sd-vega svg .mark-rect path').length })""")


def test_histogram_legend_names_only_the_bars_drawn(browser, http_server):
    context, page = open_page(browser, viewport=DESKTOP)
    page.goto(f"{http_server.url}/{PATH}")
    wait_all_live(page)
    h = _hist(page)
    # at the build-time setting the caption's simulated rounds are drawn until the reader runs some
    assert h["kinds"] == ["exact", "simulated"] and h["legend"] == ["exact", "simulated"], h
    assert h["bars"] == 12 and abs(sum(h["simulated"]) - 1) < 1e-3 and min(h["simulated"]) > 0, h
    caption = page.inner_text(".sd-col-anim .sd-panel .sd-caption")
    assert "2000 rounds drawn at α = 0.8, γ = 5" in caption
    page.goto(f"{http_server.url}/{PATH}?alpha=0.5")
    wait_all_live(page)
    h = _hist(page)
    assert h["kinds"] == ["exact"] and h["legend"] == ["exact"] and h["bars"] == 6, h
    step_round(page)
    page.evaluate("SpeculativeDecoding.instance.charts.flushed()")
    h = _hist(page)
    assert h["legend"] == ["exact", "simulated"] and h["bars"] == 12, h
    assert sorted(h["simulated"]).count(1) == 1, "one round: all of it in one bar"
    page.click("[data-action=reset]")
    page.evaluate("SpeculativeDecoding.instance.charts.flushed()")
    assert _hist(page)["legend"] == ["exact"]
    context.close()


# ------------------------------------------------------------ the address bar


@pytest.mark.parametrize("via", ["file", "http"])
def test_out_of_range_url_values_are_clamped_in_the_address_bar(browser, built_site, http_server, via):
    base = (built_site / PATH).as_uri() if via == "file" else f"{http_server.url}/{PATH}"
    context, page = open_page(browser)
    page.goto(base + "?gamma=17&alpha=1.7&c=-1&seed=text&batch=99999&devices=16&hw=tpu")
    page.wait_for_selector(READY, state="attached")
    defaults = page.evaluate("SpeculativeDecoding.state.DEFAULTS")
    want = {**defaults, "gamma": 16, "alpha": 1, "c": 0, "batch": 4096, "devices": 8}
    assert page.evaluate("SpeculativeDecoding.instance.store.get()") == want
    assert page.input_value("#sd-gamma") == "16" and page.input_value("#sd-alpha") == "1"
    query = page.evaluate("location.search")  # rewritten at start, before any change
    params = dict(p.split("=", 1) for p in query.lstrip("?").split("&"))
    assert params["gamma"] == "16" and params["alpha"] == "1" and params["c"] == "0"
    assert params["seed"] == str(defaults["seed"]) and params["batch"] == "4096" and params["devices"] == "8"
    assert params["hw"] == defaults["hw"]
    assert "17" not in query and "text" not in query and "tpu" not in query
    # a clean address is left as it is
    page.goto(base + "?alpha=0.42&gamma=7&c=0.125&seed=99")
    page.wait_for_selector(READY, state="attached")
    page.wait_for_timeout(300)  # past the URL write's debounce: nothing to write
    assert page.evaluate("location.search") == "?alpha=0.42&gamma=7&c=0.125&seed=99"
    context.close()
