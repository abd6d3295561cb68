"""The explainer's charts as Altair objects, deterministic, with fixed sizes.

Every chart reads named datasets (``alt.NamedData``) whose rows are attached
with ``with_data``; the page compiles them to Vega at build time, and the
browser replaces the live ones by name (``view.data(name, rows)``):

* ``curve``: speedup S against depth gamma for the current (alpha, c), rows
  {gamma, S, E, cost, whole, peak, current} on a 1/2 grid (whole depths get
  points; the line is drawn with monotone interpolation, exact at every row);
* the curve's y axis runs from 0 to the parameter ``ymax`` (``y_top``);
* ``current``: one row {alpha, c, gamma, S, best}, the reader's setting;
* ``hist``: tokens per round, rows {tokens, kind: exact|simulated, share};
* the plane and the lossless demonstration are static data from ``data.py``.

``theme`` picks colours: ``"live"`` uses ``currentColor`` for ink so the page's
light or dark scheme shows through; ``"light"`` and ``"dark"`` are for the
build-time SVG and PNG renderings.
"""

from __future__ import annotations

import altair as alt
import numpy as np

from ..kit.theme import SLOT, TEXT_INKS, THEMES, theme_values, top_level  # noqa: F401 - used by the charts and tests
from ..vega import recolour
from .model import expected_tokens, optimal_depth, speedup

GAMMA_MAX = 16
BEST_SEARCH = 64
SMOOTH_STEP = 0.5  # as SMOOTH_STEP in static/sd-curve.js
"""Depths searched for the best one, as the readout (page.BEST_SEARCH, sd-curve.js BEST_SEARCH)."""
#: the curve's y axis tops, as Y_TOPS in static/sd-curve.js: the lowest one with room
#: (HEADROOM) above the highest S. A stepped domain keeps the axis still while a
#: slider moves, so most updates redraw the marks only.
Y_TOPS = (1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20)
HEADROOM = 1.12
#: the best depth's label goes left of your depth's rule (when the two coincide) past this depth
PEAK_SIDE = f"datum.gamma > {GAMMA_MAX - 4}"
CURVE_SIZE = (320, 220)
PLANE_SIZE = (300, 260)
HIST_SIZE = (320, 200)
LOSSLESS_SIZE = (300, 110)
PLANE_STEP = 0.02  # the spacing of data.py's plane grid
SEAM = 0.008  # over a device pixel even when the chart is drawn at 60 %

#: the themes (light, dark, the live view's, the "slots" placeholders) are the
#: kit's (kit/theme.py): every explainer's charts share them, one compile each
# mid-tone marks readable on white and on near-black
ACCENT = "#2f7fd8"
GOOD, BAD, WARN = "#2e9d5b", "#d0453b", "#c98a00"
#: the heat map's colours: "none" (do not speculate) a mid grey, depths 1 to
#: 17 (">16") along viridis from yellow (shallow) to purple (deep), its stops
#: at depths 1, 2, 4, 8 and 17 (most cells are shallow). Viridis from purple
#: put none and depths 1-2 in one dark purple. The grey has 3:1 contrast or more with depths 1
#: and 2, the white lines and both pages (tests/browser/test_explainer_layout.py).
PLANE_NONE = "#6f6f6f"
PLANE_DOMAIN = [0, 0.9, 1, 2, 4, 8, 17]
#: the gradient's length and labels: none by the grey-yellow seam ("none" sat on yellow), grey is in the key
PLANE_LEGEND, PLANE_NONE_KEY = (200, [4, 8, 12, 17]), "grey: do not speculate"
PLANE_RANGE = [PLANE_NONE, PLANE_NONE, "#fde725", "#b5de2b", "#35b779", "#31688e", "#440154"]
#: what keeps the items of a chart's key (its subtitle) apart: SVG collapses
#: a run of spaces into one, so the items ran together; en spaces and a dot
#: are not collapsed
KEY_SEP = "\u2002\u00b7\u2002"
#: fixed annotations live in the key, above the plot, where no mark reaches them (issue 34)
SLOWDOWN_KEY = "shaded: below 1, a slowdown"
CURVE_KEY = [KEY_SEP.join(["◆ best whole depth", "○ your depth"]), KEY_SEP.join(["dashed: break-even", SLOWDOWN_KEY])]


def ink_params(theme: str, **values) -> list:
    """The charts' parameters: ``values`` (name -> value), then the text inks of ``theme``."""
    return [alt.param(name=k, value=v).param for k, v in {**values, **TEXT_INKS[theme]}.items()]


def themed(slotted: dict, themes, datasets: dict, description: str) -> dict[str, dict]:
    """theme -> a "slots" spec (``to_dict``'s) recoloured for it (``vega.recolour``:
    the dict Altair builds for that theme, key for key, at a small fraction of
    an Altair build's cost; ``test_sd_page.test_specs_are_schema_valid``
    compares them), with the chart's datasets (shared by the themes) and
    description attached, as ``spec`` does."""
    out = {}
    for theme in themes:
        out[theme] = one = recolour(slotted, theme_values(theme))
        one["datasets"] = datasets
        one["description"] = description
    return out


def curve_rows(alpha: float, c: float, gamma: int) -> list[dict]:
    """The ``curve`` rows, as sd-curve.js curveRows() computes them in the browser."""
    g = np.round(np.arange(0, GAMMA_MAX + 1e-9, SMOOTH_STEP), 6)
    whole = np.isclose(g, np.round(g))
    s = speedup(alpha, g, c)
    e = expected_tokens(alpha, g)
    # The readout's best depth (searched to 64): its diamond is drawn only when
    # it lies on the chart, never a "best" that is just the chart's edge.
    best = int(optimal_depth(alpha, c, BEST_SEARCH))
    rows = []
    for gi, si, ei, wi in zip(g.tolist(), s.tolist(), e.tolist(), whole.tolist()):
        gg = int(round(gi)) if wi else gi
        rows.append({
            "gamma": gg, "S": round(si, 6), "E": round(ei, 6), "cost": round(1 + gi * c, 6),
            "whole": bool(wi), "peak": bool(wi and gg == best), "current": bool(wi and gg == gamma),
        })
    return rows


def y_top(rows: list[dict]) -> float:
    """The top of the curve's y axis for these rows (see Y_TOPS)."""
    need = max(r["S"] for r in rows) * HEADROOM
    return next((t for t in Y_TOPS if t >= need), Y_TOPS[-1])


def current_row(alpha: float, c: float, gamma: int) -> list[dict]:
    """The one-row ``current`` dataset."""
    return [{
        "alpha": alpha, "c": c, "gamma": gamma,
        "S": round(float(speedup(alpha, gamma, c)), 6), "best": int(optimal_depth(alpha, c, BEST_SEARCH)),
    }]


def curve_chart(theme: str = "live", ymax: float = 4) -> alt.LayerChart:
    """S against gamma: line, points at whole depths, current depth and peak marked,
    break-even S = 1 with the slowdown region below it shaded; y from 0 to ymax."""
    # Redrawn by a slider every frame, its expressions interpreted per row (no eval
    # under the CSP), so lean: no parse formula (parse: null), no validity tests
    # (invalid: null), and the fixed marks on one row of their own ("fixed").
    base = alt.Chart(alt.NamedData(name="curve", format=alt.DataFormat(parse=None)))
    fixed = alt.Chart(alt.NamedData(name="fixed"))  # one empty row (curve_part)
    x = alt.X("gamma:Q", title="draft depth γ (tokens drafted per round)", scale=alt.Scale(domain=[0, GAMMA_MAX], nice=False),
              axis=alt.Axis(values=list(range(0, GAMMA_MAX + 1, 2))))
    y = alt.Y("S:Q", title="speedup S over plain decoding", scale=alt.Scale(domain=[0, {"expr": "ymax"}], nice=False))
    tooltip = [
        alt.Tooltip("gamma:Q", title="depth γ"),
        alt.Tooltip("S:Q", title="speedup S", format=".3f"),
        alt.Tooltip("E:Q", title="tokens per round E", format=".3f"),
        alt.Tooltip("cost:Q", title="round cost 1 + γc", format=".3f"),
    ]
    slow = fixed.mark_rect(color=BAD, opacity=0.12, invalid=None).encode(
        x=alt.XDatum(0), x2=alt.X2Datum(GAMMA_MAX), y=alt.YDatum(0), y2=alt.Y2Datum(1))
    even = fixed.mark_rule(color=BAD, strokeDash=[4, 3], invalid=None).encode(y=alt.YDatum(1))
    # only whole depths are data (no draft proposes 0.4 tokens): the line joins their
    # dots with straight segments, so no curve between them can bulge past what they say
    line = base.transform_filter("datum.whole").mark_line(
        color=ACCENT, strokeWidth=1.5, interpolate="linear", invalid=None).encode(x=x, y=y)
    points = base.transform_filter("datum.whole").mark_point(
        filled=True, color=ACCENT, size=30, invalid=None).encode(x=x, y=y, tooltip=tooltip)
    peak = base.transform_filter("datum.peak").mark_point(
        shape="diamond", size=140, color=GOOD, filled=False, strokeWidth=2, invalid=None).encode(x=x, y=y, tooltip=tooltip)
    # above the diamond, the highest dot, where no dot or line reaches; beside your depth's
    # rule when that runs through it, on the side that stays inside the plot (PEAK_SIDE)
    peak_label = base.transform_filter("datum.peak").mark_text(
        dy=-16, fontSize=11, align=alt.ExprRef(expr=f"datum.current ? ({PEAK_SIDE} ? 'right' : 'left') : 'center'"),
        dx=alt.ExprRef(expr=f"datum.current ? ({PEAK_SIDE} ? -7 : 7) : 0"), color=alt.ExprRef(expr="goodInk"), fontWeight="bold", invalid=None).encode(
        x=x, y=y, text=alt.Text("S:Q", format=".2f"))
    cur_rule = base.transform_filter("datum.current").mark_rule(color=WARN, strokeWidth=1.5, invalid=None).encode(x=x)
    cur = base.transform_filter("datum.current").mark_point(
        shape="circle", size=110, color=WARN, filled=False, strokeWidth=2.5, invalid=None).encode(x=x, y=y, tooltip=tooltip)
    return alt.layer(
        slow, even, line, points, cur_rule, cur, peak, peak_label, params=ink_params(theme, ymax=ymax),
        width=CURVE_SIZE[0], height=CURVE_SIZE[1], title=alt.Title("Speedup against draft depth", subtitle=CURVE_KEY), **top_level(theme))


def plane_cells(plane: dict) -> list[dict]:
    """The plane's heat map as run-length rectangles: in each alpha column, the
    adjacent grid cells with the same best depth (taken at each cell's centre)
    merge into one rectangle {alpha, c, c2, best} spanning [alpha, alpha + step)
    x [c, c2). The picture is the grid's, cell for cell, in a seventh of the rows."""
    a, cs, depth = plane["alpha"], plane["c"], plane["optimal_depth"]
    cells = []
    for i, ai in enumerate(a[:-1]):
        j = 0
        while j < len(cs) - 1:
            best = min(depth[i][j], 17)
            k = j + 1
            while k < len(cs) - 1 and min(depth[i][k], 17) == best:
                k += 1
            cells.append({"alpha": ai, "c": cs[j], "c2": cs[k], "best": best})
            j = k
    return cells


def plane_datasets(plane: dict, alpha: float, c: float, gamma: int) -> dict[str, list[dict]]:
    """Rows of the plane chart: cells, the threshold and break-even lines, the current point."""
    threshold = [{"alpha": x, "c": y, "line": "c*(α): above it S falls from γ = 0"}
                 for x, y in zip(plane["threshold"]["alpha"], plane["threshold"]["c"])]
    diag = [{"alpha": 0.0, "c": 0.0, "line": "c = α: above it no depth pays off"},
            {"alpha": 1.0, "c": 1.0, "line": "c = α: above it no depth pays off"}]
    return {"cells": plane_cells(plane), "lines": threshold + diag, "current": current_row(alpha, c, gamma)}


def plane_chart(theme: str = "live") -> alt.LayerChart:
    """Best whole depth over (alpha, c), with the threshold curve c*(alpha) and the line c = alpha."""
    w, h = PLANE_SIZE
    ax = alt.Scale(domain=[0, 1], nice=False)
    step = PLANE_STEP
    heat = alt.Chart(alt.NamedData(name="cells")).transform_calculate(
        # each cell reaches SEAM into the next one, drawn over it: no anti-aliased seams
        a2=f"min(datum.alpha + {step + SEAM}, 1)",
        c2x=f"min(datum.c2 + {SEAM}, 1)",
        best_text="datum.best == 0 ? 'do not speculate' : datum.best == 17 ? 'more than 16' : datum.best + ''",
        c_text="format(datum.c, '.2f') + ' to ' + format(datum.c2, '.2f')",
    ).mark_rect().encode(
        x=alt.X("alpha:Q", title="acceptance rate α", scale=ax),
        x2=alt.X2("a2:Q"),
        y=alt.Y("c:Q", title="draft cost c", scale=ax),
        y2=alt.Y2("c2x:Q"),
        color=alt.Color("best:Q", title="best depth",
                        scale=alt.Scale(domain=PLANE_DOMAIN, range=PLANE_RANGE),
                        legend=alt.Legend(orient="top", direction="horizontal", gradientLength=PLANE_LEGEND[0], values=PLANE_LEGEND[1],
                                          labelExpr="datum.value == 17 ? '>16' : datum.label")),
        tooltip=[alt.Tooltip("alpha:Q", title="α", format=".2f"), alt.Tooltip("c_text:N", title="c"),
                 alt.Tooltip("best_text:N", title="best depth")],
    )
    lines = alt.Chart(alt.NamedData(name="lines")).mark_line(strokeWidth=2).encode(
        x=alt.X("alpha:Q"), y=alt.Y("c:Q"), strokeDash=alt.StrokeDash("line:N", title=None, legend=alt.Legend(
            orient="bottom", direction="vertical", symbolStrokeColor=THEMES[theme]["ink"], symbolStrokeWidth=2)),
        color=alt.ColorValue("#ffffff"),
    )
    here = alt.Chart(alt.NamedData(name="current")).mark_point(
        shape="cross", size=160, filled=True, color=BAD, stroke="#ffffff", strokeWidth=1).encode(
        x=alt.X("alpha:Q"), y=alt.Y("c:Q"),
        tooltip=[alt.Tooltip("alpha:Q", title="your α"), alt.Tooltip("c:Q", title="your c"),
                 alt.Tooltip("best:Q", title="best depth")])
    return alt.layer(heat, lines, here, width=w, height=h, **top_level(theme),
                     title=alt.Title("Best depth over draft quality and cost", subtitle=KEY_SEP.join(["✚ your setting", PLANE_NONE_KEY])))


def hist_rows(hist: dict) -> list[dict]:
    """``hist`` rows from one ``data.histograms`` entry, each with the (alpha,
    gamma) it was drawn at: the page keeps these simulated bars until the
    reader's own run replaces them, and only at that setting (sd-charts.js)."""
    rows = []
    at = {"alpha": hist["alpha"], "gamma": hist["gamma"]}
    for k, ex, em in zip(hist["tokens"], hist["exact"], hist["empirical"]):
        se = (ex * (1 - ex) / hist["n_rounds"]) ** 0.5  # the band a run this long lands in (sd-model.js shareBand)
        rows.append({"tokens": k, "kind": "exact", "share": ex, "lo": max(0.0, ex - 2 * se), "hi": min(1.0, ex + 2 * se), **at})
        rows.append({"tokens": k, "kind": "simulated", "share": em, **at})
    return rows


def hist_chart(theme: str = "live") -> alt.Chart:
    """Tokens per round: the simulated share of rounds against the exact law.
    The series come from the rows (no fixed domain), so the legend names
    "simulated" only while simulated bars are drawn; "exact" sorts first and
    keeps the first colour either way."""
    w, h = HIST_SIZE
    x = alt.X("tokens:O", title="tokens produced in a round", axis=alt.Axis(labelAngle=0))
    offset = alt.XOffset("kind:N", sort="ascending")
    bars = alt.Chart().mark_bar().encode(
        x=x, xOffset=offset,
        y=alt.Y("share:Q", title="share of rounds", axis=alt.Axis(format="%")),
        color=alt.Color("kind:N", title=None, sort="ascending", scale=alt.Scale(range=[ACCENT, WARN])),
        opacity=alt.OpacityValue(0.9),
        tooltip=[alt.Tooltip("tokens:O", title="tokens"), alt.Tooltip("kind:N", title="series"),
                 alt.Tooltip("share:Q", title="share", format=".3f")],
    )
    # noise shown as noise: on each exact bar, where a run of this length lands about 95% of the time
    band = alt.Chart().transform_filter("isValid(datum.lo)").mark_rule(color=THEMES[theme]["ink"], strokeWidth=2).encode(
        x=x, xOffset=offset, y="lo:Q", y2="hi:Q")
    title = alt.Title("Tokens per round: simulated against exact",
                      subtitle="Whiskers: exact ± 2 standard errors for the run's length")
    return alt.layer(bars, band, data=alt.NamedData(name="hist"), width=w, height=h, title=title, **top_level(theme))


def lossless_datasets(lossless: dict) -> dict[str, list[dict]]:
    """One dataset per draft: rows {token, series: target p | draft q | output, share}."""
    out = {}
    for d in lossless["drafts"]:
        rows = []
        for i, tok in enumerate(lossless["vocabulary"]):
            rows.append({"token": tok, "series": "target p", "share": lossless["p"][i]})
            rows.append({"token": tok, "series": "draft q", "share": d["q"][i]})
            rows.append({"token": tok, "series": "output", "share": d["empirical"][i]})
        out[f"lossless_{d['id']}"] = rows
    return out


def lossless_chart(lossless: dict, theme: str = "live") -> alt.VConcatChart:
    """Emitted tokens against the target p and the draft q, one panel per draft."""
    w, h = LOSSLESS_SIZE
    vocab = lossless["vocabulary"]
    panels = []
    for d in lossless["drafts"]:
        panels.append(alt.Chart(alt.NamedData(name=f"lossless_{d['id']}")).mark_bar().encode(
            x=alt.X("token:N", sort=vocab, title=None, axis=alt.Axis(labelAngle=0)),
            xOffset=alt.XOffset("series:N", sort=["target p", "draft q", "output"]),
            y=alt.Y("share:Q", title="share", axis=alt.Axis(format="%", tickCount=3), scale=alt.Scale(domain=[0, 0.5])),
            color=alt.Color("series:N", title=None, sort=["target p", "draft q", "output"],
                            scale=alt.Scale(domain=["target p", "draft q", "output"], range=[ACCENT, WARN, GOOD])),
            tooltip=[alt.Tooltip("token:N"), alt.Tooltip("series:N"), alt.Tooltip("share:Q", format=".3f")],
        ).properties(width=w, height=h, title=alt.Title(
            f"{d['label']}: {d['n_tokens']} tokens emitted, acceptance {d['acceptance_measured']:.2f}")))
    return alt.vconcat(*panels, spacing=14, title=alt.Title("Lossless: the output follows p whatever q is"),
                       **top_level(theme))


def spec(chart, datasets: dict[str, list[dict]]) -> dict:
    """The Vega-Lite dict of ``chart`` with its named ``datasets`` attached.

    Data joins after ``to_dict`` because Altair deep-copies inline rows many
    times over (seconds for a few thousand rows). Not validated here: the
    schema check cost more than building the chart and finds nothing a test
    cannot (``test_sd_page.test_specs_are_schema_valid`` checks every spec).
    """
    out = chart.to_dict(validate=False)
    out["datasets"] = datasets
    return out


DESCRIPTIONS = {
    "curve": "Line chart of speedup against draft depth for the current setting; the readout beside it gives the numbers.",
    "plane": "Heat map of the best whole draft depth over acceptance rate and draft cost, with the current setting marked.",
    "hist": "Bar chart of tokens per round in your run against the exact distribution.",
    "lossless": "Bar charts, one per draft model: the target's probabilities, the draft's, and the output's share of each token.",
}
"""What a screen reader announces for each live chart (its SVG's label). The
numbers are in the readout and the captions, which read better than marks."""


def curve_part(alpha: float, c: float, gamma: int) -> tuple:
    """The curve's (theme -> Altair chart, its named datasets): it needs no page data."""
    rows = curve_rows(alpha, c, gamma)
    top = y_top(rows)
    return (lambda theme: curve_chart(theme, top)), {"curve": rows, "fixed": [{}]}  # "fixed": curve_chart's one row


def chart_parts(page: dict, alpha: float, c: float, gamma: int, hist_index: int) -> dict[str, tuple]:
    """name -> (theme -> Altair chart, its named datasets) for every chart of
    the page but the serving panel's, in page order: the rows are the same in
    every theme, so they are computed once."""
    hist = page["histograms"][hist_index]
    return {
        "curve": curve_part(alpha, c, gamma),
        "plane": (plane_chart, plane_datasets(page["plane"], alpha, c, gamma)),
        "hist": (hist_chart, {"hist": hist_rows(hist)}),
        "lossless": (lambda theme: lossless_chart(page["lossless"], theme), lossless_datasets(page["lossless"])),
    }


def all_specs(page: dict, alpha: float, c: float, gamma: int, hist_index: int, theme: str) -> dict[str, dict]:
    """Every chart of the page as a Vega-Lite dict, for one theme, each built
    with Altair in that theme (the build recolours one build instead: ``page_charts.themed_specs``)."""
    specs = {name: spec(make(theme), datasets)
             for name, (make, datasets) in chart_parts(page, alpha, c, gamma, hist_index).items()}
    for name, one in specs.items():
        one["description"] = DESCRIPTIONS[name]
    return specs
