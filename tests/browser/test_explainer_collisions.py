"""Charts that never collide (issue 34): over a grid of settings the controls
allow, no annotation text of the curve or the serving chart overlaps another
annotation, a marker (point or rule) or the line of a curve.

Read from each live view's Vega scenegraph (item.bounds, in the view's own
coordinates), so it holds for the SVG and the canvas renderer alike."""

from __future__ import annotations

import random

import pytest

from conftest_explainer import bring_every_view_live

pytestmark = pytest.mark.browser

PATH = "speculative-decoding/index.html"

#: every annotation (a text mark of the chart's own, not an axis, legend or
#: title), every point and rule, and every line as its vertices, in view pixels
SCENE = """(name) => {
  const view = SpeculativeDecoding.instance.views[name];
  const out = { text: [], symbol: [], rule: [], line: [] };
  (function walk(mark, dx, dy, guide) {
    const inGuide = guide || ['axis', 'legend', 'title', 'axis-label', 'legend-label'].some(r => (mark.role || '').startsWith(r))
      || /^(axis|legend|title)/.test(mark.role || '');
    if (!inGuide && out[mark.marktype] && mark.marktype !== 'line') {
      for (const item of mark.items || []) {
        const b = item.bounds;
        if (!b || b.empty() || (item.opacity === 0)) continue;
        out[mark.marktype].push({ mark: mark.name, text: item.text == null ? null : String(item.text),
                                  x1: dx + b.x1, x2: dx + b.x2, y1: dy + b.y1, y2: dy + b.y2 });
      }
    }
    if (!inGuide && mark.marktype === 'line' && (mark.items || []).length) {
      out.line.push({ mark: mark.name, opacity: mark.items[0].opacity,
                      points: mark.items.filter(i => i.x != null && i.y != null).map(i => [dx + i.x, dy + i.y]) });
    }
    if (mark.marktype === 'group') {
      for (const item of mark.items || []) for (const child of item.items || [])
        walk(child, dx + (item.x || 0), dy + (item.y || 0), inGuide);
    }
  })(view.scenegraph().root, 0, 0, false);
  return out;
}"""

GAP = 1  # px: boxes that touch do not collide, boxes that overlap by more than this do


def overlap(a, b) -> bool:
    return min(a["x2"], b["x2"]) - max(a["x1"], b["x1"]) > GAP and min(a["y2"], b["y2"]) - max(a["y1"], b["y1"]) > GAP


def crosses(box, p, q) -> bool:
    """Whether the segment p-q passes through the box (shrunk by GAP): sampled finely."""
    x1, x2, y1, y2 = box["x1"] + GAP, box["x2"] - GAP, box["y1"] + GAP, box["y2"] - GAP
    steps = max(2, int(max(abs(q[0] - p[0]), abs(q[1] - p[1]))))
    for i in range(steps + 1):
        t = i / steps
        x, y = p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t
        if x1 < x < x2 and y1 < y < y2:
            return True
    return False


def collisions(scene) -> list[str]:
    found = []
    texts = [t for t in scene["text"] if t["text"]]
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if overlap(a, b):
                found.append(f"{a['text']!r} on {b['text']!r}")
        for kind in ("symbol", "rule"):
            for m in scene[kind]:
                if overlap(a, m):
                    found.append(f"{a['text']!r} on a {kind} ({m['mark']})")
        for line in scene["line"]:
            pts = line["points"]
            if any(crosses(a, p, q) for p, q in zip(pts, pts[1:])):
                found.append(f"{a['text']!r} crossed by a line ({line['mark']})")
    return found


def settings(data) -> list[dict]:
    """About 30 states over the controls' grid: every pairing and accelerator,
    the context and batch lists' ends and middles, and (alpha, gamma, c) spread
    over their ranges, the known cases first."""
    serving = data["serving"]
    pairs = [p["id"] for p in data["pairings"]]
    hws = [h["id"] for h in data["accelerators"]]
    ctxs, batches = serving["contexts"], serving["batches"]
    known = [
        {"pair": pairs[0], "hw": hws[0], "ctx": 4096, "batch": 1024, "alpha": 0.8, "gamma": 4, "c": 0.05},
        {"pair": "llama-2-70b-7b", "hw": hws[0], "ctx": 32768, "batch": 64, "alpha": 0.8, "gamma": 4, "c": 0.1},
        {"pair": pairs[-1], "hw": hws[-1], "ctx": 32768, "batch": 640, "alpha": 0.8, "gamma": 4, "c": 0.05},
        {"pair": pairs[0], "hw": hws[0], "ctx": ctxs[0], "batch": batches[0], "alpha": 0.7, "gamma": 1, "c": 0.7},
    ]
    # your depth the best one: its rule runs where the best depth's label was
    known += [{**known[0], "gamma": -1, "alpha": a, "c": c} for a, c in ((0.8, 0.05), (0.95, 0.01), (0.6, 0.2))]
    rng = random.Random(34)
    out = [dict(k) for k in known]
    while len(out) < 30:
        out.append({"pair": rng.choice(pairs), "hw": rng.choice(hws), "ctx": rng.choice(ctxs),
                    "batch": rng.choice(batches), "alpha": rng.choice([0.05, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]),
                    "gamma": rng.randint(0, 16), "c": rng.choice([0.01, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0])})
    return out


def test_no_annotation_overlaps_a_marker_a_curve_or_a_label(browser, http_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{http_server.url}/{PATH}")
    bring_every_view_live(page)
    page.evaluate("document.querySelector('.sd-panel-serving').scrollIntoView({block: 'nearest'})")
    page.wait_for_selector(".sd-explainer[data-serving=ready]", state="attached")
    page.wait_for_selector("[data-chart=serving][data-live=true]", state="attached")
    data = page.evaluate("""(() => { const p = SpeculativeDecoding.servingPresets, s = SpeculativeDecoding.data.serving;
      return { pairings: p.pairings, accelerators: p.hardware, serving: { contexts: s.contexts, batches: s.batches } }; })()""")
    problems = []
    checked = 0
    for state in settings(data):
        if state["gamma"] < 0:  # the best depth, as the page finds it
            state["gamma"] = page.evaluate("([a, c]) => SpeculativeDecoding.model.optimalDepth(a, c, 16)", [state["alpha"], state["c"]])
        page.evaluate("s => SpeculativeDecoding.instance.store.set(s)", state)
        page.evaluate("SpeculativeDecoding.instance.charts.flushed()")
        page.evaluate("Promise.all(['curve', 'serving'].map(n => SpeculativeDecoding.instance.views[n].runAsync())).then(() => true)")
        for name in ("curve", "serving"):
            scene = page.evaluate(SCENE, name)
            checked += len([t for t in scene["text"] if t["text"]])
            problems += [f"{name} at {state}: {p}" for p in collisions(scene)]
    assert checked > 30, "the scenegraph held no annotations: the reader is broken"
    assert not problems, "\n".join(problems)
    context.close()
