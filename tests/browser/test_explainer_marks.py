"""What two charts draw, read from their live views' Vega scenegraphs in real
Chromium (issue 34): the serving chart's your-batch marker is a cross on the
axis for a batch that does not fit in memory and a ring on the line for one
that fits, never both; the heat map's legend puts no label where its grey
(do not speculate) meets its yellow (depth 1), and names the grey in the key.

The unit tests check the specs; these check what Vega actually lays out from
them (its label alignment, its data flow into the filtered layers)."""

from __future__ import annotations

import pytest

from conftest_explainer import Watch

pytestmark = pytest.mark.browser

PATH = "speculative-decoding/index.html"

#: every item of the view, in the view's own pixels (groups' offsets added), with what the
#: tests need: its role and mark name, its symbol shape, its text, and its box
SCENE = """(name) => {
  const view = SpeculativeDecoding.instance.views[name];
  const out = [];
  let legends = 0;
  (function walk(mark, dx, dy, legend) {
    for (const item of mark.items || []) {
      const inLegend = mark.role === 'legend' ? ++legends : legend;
      const b = item.bounds;
      if (mark.marktype !== 'group' && b && !b.empty()) {
        out.push({ role: mark.role || '', mark: mark.name || '', type: mark.marktype, shape: item.shape || null, legend,
                   text: item.text == null ? null : String(item.text), opacity: item.opacity == null ? 1 : item.opacity,
                   x: item.x == null ? null : dx + item.x, y: item.y == null ? null : dy + item.y,
                   x1: dx + b.x1, x2: dx + b.x2, y1: dy + b.y1, y2: dy + b.y2 });
      }
      if (mark.marktype === 'group') for (const child of item.items || []) walk(child, dx + (item.x || 0), dy + (item.y || 0), inLegend);
    }
  })(view.scenegraph().root, 0, 0, 0);
  return out;
}"""


def live(page, name: str) -> None:
    """Scroll chart ``name`` near (its live view is built then, issue 19) and wait for its view."""
    page.evaluate("n => document.querySelector(`[data-chart=${n}]`).scrollIntoView({ block: 'center' })", name)
    page.wait_for_selector(f"[data-chart={name}][data-live=true]", state="attached")


def settle(page, state: dict) -> None:
    """Set the figure's state and wait until the serving view has run on it."""
    page.evaluate("s => SpeculativeDecoding.instance.store.set(s)", state)
    page.evaluate("SpeculativeDecoding.instance.charts.flushed()")
    page.evaluate("SpeculativeDecoding.instance.views.serving.runAsync().then(() => true)")


def your_batch(page) -> dict:
    """The serving view's your-batch symbols (ring and cross), where the x and y scales put them."""
    items = [i for i in page.evaluate(SCENE, "serving") if i["type"] == "symbol" and i["shape"] in ("circle", "cross")]
    want = page.evaluate("""() => { const v = SpeculativeDecoding.instance.views.serving;
        const d = SpeculativeDecoding.serving.describe(SpeculativeDecoding.instance.store.get());
        return { x: v.scale('x')(SpeculativeDecoding.instance.store.get().batch), axis: v.scale('y')(0), S: v.scale('y')(d.S),
                 fit: d.fit, kind: d.kind }; }""")
    return {"rings": [i for i in items if i["shape"] == "circle"], "crosses": [i for i in items if i["shape"] == "cross"],
            "want": want}


def test_a_batch_that_does_not_fit_is_a_cross_on_the_axis_and_one_that_fits_a_ring(browser, http_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    watch = Watch(page, (http_server.url,))
    # MI300X x 8 at 32k: 92 sequences fit (issue 34's case), so batch 640 does not and 64 does
    page.goto(f"{http_server.url}/{PATH}?hw=mi300x&devices=8&ctx=32768&batch=640")
    page.wait_for_selector(".sd-explainer[data-ready]", state="attached")
    live(page, "serving")
    page.wait_for_selector(".sd-explainer[data-serving=ready]", state="attached")
    seen = {}
    for batch in (640, 64, 4096, 92, 93):
        settle(page, {"batch": batch})
        got = your_batch(page)
        want = got["want"]
        fits = batch <= want["fit"]
        assert want["fit"] == 92 and (want["kind"] == "nofit") == (not fits), (batch, want)
        if fits:
            assert got["crosses"] == [], f"batch {batch} fits: no cross"
            assert len(got["rings"]) == 1, (batch, got["rings"])
            ring = got["rings"][0]
            assert ring["x"] == pytest.approx(want["x"], abs=0.5) and ring["y"] == pytest.approx(want["S"], abs=0.5), (ring, want)
        else:
            assert got["rings"] == [], f"batch {batch} does not fit: no ring on the faded line"
            assert len(got["crosses"]) == 1, (batch, got["crosses"])
            cross = got["crosses"][0]
            # on the axis (S = 0), at the batch: never at a speedup the model cannot claim
            assert cross["x"] == pytest.approx(want["x"], abs=0.5) and cross["y"] == pytest.approx(want["axis"], abs=0.5), (cross, want)
        seen[batch] = fits
    assert seen == {640: False, 64: True, 4096: False, 92: True, 93: False}
    watch.assert_clean()
    context.close()


def test_the_heat_maps_legend_has_no_label_on_the_grey_yellow_seam_and_names_the_grey(browser, http_server):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{http_server.url}/{PATH}")
    page.wait_for_selector(".sd-explainer[data-ready]", state="attached")
    live(page, "plane")
    page.wait_for_function("() => SpeculativeDecoding.instance.views.plane !== undefined")
    scene = page.evaluate(SCENE, "plane")
    gradient = [i for i in scene if i["role"] == "legend-gradient"]
    assert len(gradient) == 1, gradient
    g = gradient[0]
    labels = [i for i in scene if i["role"] == "legend-label" and i["text"] and i["legend"] == g["legend"]]
    assert len(labels) >= 3, labels
    # where the gradient turns from grey to yellow: between the scale's last grey stop and its first yellow one
    color = page.evaluate("""() => { const s = SpeculativeDecoding.instance.views.plane.scale('color');
        return { domain: s.domain(), range: s.range() }; }""")
    lo, hi = color["domain"][0], color["domain"][-1]
    grey = color["range"][0]
    last_grey = max(d for d, r in zip(color["domain"], color["range"]) if r == grey)
    first_colour = min(d for d, r in zip(color["domain"], color["range"]) if r != grey)
    at = lambda v: g["x1"] + (g["x2"] - g["x1"]) * (v - lo) / (hi - lo)  # noqa: E731
    seam = (at(last_grey) - 2, at(first_colour) + 2)
    on_seam = [lab["text"] for lab in labels if lab["x1"] < seam[1] and lab["x2"] > seam[0]]
    assert on_seam == [], f"legend labels on the grey-yellow seam {seam}: {on_seam}"
    assert not {"none", "0"} & {lab["text"] for lab in labels}, [lab["text"] for lab in labels]
    # each label stands under the colour it names: at its value along the gradient (Vega aligns
    # a label at either end to that end, so that it stays within the gradient; the others centred)
    for lab in labels:
        value = hi if lab["text"] == ">16" else float(lab["text"])
        anchor = lab["x1"] if value == lo else lab["x2"] if value == hi else (lab["x1"] + lab["x2"]) / 2
        assert anchor == pytest.approx(at(value), abs=2), lab
    # the grey is named in the chart's key (its subtitle), as drawn
    key = " ".join(i["text"] for i in scene if i["role"].startswith("title") and i["text"])
    assert "grey: do not speculate" in key, key
    context.close()
