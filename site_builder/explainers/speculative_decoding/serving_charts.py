"""The serving-under-load chart: speedup S against batch size (log axis), as an Altair layer chart.

It reads two named datasets, whose rows ``serving_panel.chart_rows`` computes
with numpy at build time and sd-serving.js chartRows() in the browser (the live
view replaces them by name):

* ``serving``: {batch, S, series, fits}, one line for the reader's context and one
  for the long context, each faded where its weights and caches do not fit;
* ``serving_marks``: {kind, batch, batch2, S, label}: the batches that do not fit
  ("nofit", greyed over the lines), the target's ridge, the first slowdown
  ("break_even") and the reader's batch ("current", with ``fits``: whether it
  fits in memory; where not, it is a cross on the axis, never a point on the faded line).

The y axis runs from 0 to the parameter ``ymax``, stepped as the curve's
(``charts.y_top``); themes as ``charts.THEMES``.
"""

from __future__ import annotations

import altair as alt

from . import charts
from .serving import MAX_BATCH
from .serving_panel import SERVING, WORDS, chart_rows, group

SIZE = (320, 220)
TICKS = [1, 4, 16, 64, 256, 1024, 4096]
#: the greyed-out batches: a neutral grey over the lines, light enough that text on it keeps 4.5:1 in both schemes
NOFIT = "#8a8a8a"
#: the ridge's rule: muted ink, per theme
THEME_MUTED = {t: v["muted"] for t, v in charts.THEMES.items()}
DESCRIPTION = ("Line chart of speedup against batch size for the serving panel's setting; "
               "the readout beside it gives the numbers.")


#: pixels above the plot's top edge at which each label's baseline sits: one lane per label
LANES = {"break_even": 3, "ridge": 17}
#: the title's distance from the plot, leaving room for the lanes
TITLE_OFFSET = 32
#: a rule right of this batch has its label to its left, so that the label stays over the plot
LABEL_LEFT_FROM = 256


def _beside_rule() -> dict:
    """A label's alignment and offset: right of its rule's top, or left of it near the right edge."""
    left = f"datum.batch > {LABEL_LEFT_FROM}"
    return {"align": alt.ExprRef(expr=f"{left} ? 'right' : 'left'"), "dx": alt.ExprRef(expr=f"{left} ? -3 : 3")}


def series_names() -> list[str]:
    """The two lines, in legend order."""
    return [WORDS["series_context"], WORDS["series_long"].format(ctx=group(SERVING["long_context"]))]


def chart(theme: str = "live", ymax: float = 4) -> alt.LayerChart:
    """S against batch B: the two lines, S = 1 with the slowdown region shaded,
    the batches that do not fit greyed out, the ridge, the first slowdown and your batch."""
    w, h = SIZE
    x = alt.X("batch:Q", title="batch size B (sequences decoded together)",
              scale=alt.Scale(type="log", base=2, domain=[1, MAX_BATCH], nice=False),
              axis=alt.Axis(values=TICKS, format="d"))
    y = alt.Y("S:Q", title="speedup S over plain decoding", scale=alt.Scale(domain=[0, {"expr": "ymax"}], nice=False))
    marks = alt.Chart(alt.NamedData(name="serving_marks"))
    anchor = marks.transform_filter("datum.kind == 'current'")  # one row, always there: the fixed layers hang on it
    slow = anchor.mark_rect(color=charts.BAD, opacity=0.12).encode(
        x=alt.XDatum(1), x2=alt.X2Datum(MAX_BATCH), y=alt.YDatum(0), y2=alt.Y2Datum(1))
    even = anchor.mark_rule(color=charts.BAD, strokeDash=[4, 3]).encode(y=alt.YDatum(1))
    names = series_names()
    lines = alt.Chart(alt.NamedData(name="serving")).mark_line(strokeWidth=2).encode(
        x=x, y=y,
        color=alt.Color("series:N", title=None, sort=names,
                        scale=alt.Scale(domain=names, range=[charts.ACCENT, charts.WARN]),
                        legend=alt.Legend(orient="bottom", direction="horizontal")),
        strokeDash=alt.StrokeDash("series:N", sort=names, scale=alt.Scale(domain=names, range=[[1, 0], [6, 3]]),
                                  legend=None),
        # each line in two parts: solid where weights and caches fit, faded where they do not
        detail=alt.Detail("fits:N"),
        opacity=alt.Opacity("fits:N", scale=alt.Scale(domain=[True, False], range=[1, 0.35]), legend=None),
    )
    nofit_f = marks.transform_filter("datum.kind == 'nofit'")
    nofit = nofit_f.mark_rect(color=NOFIT, opacity=0.25).encode(
        x=alt.X("batch:Q"), x2=alt.X2("batch2:Q"), y=alt.YDatum(0), y2=alt.Y2Value(0))  # up to the plot's top edge, in pixels
    ridge_f = marks.transform_filter("datum.kind == 'ridge'")
    ridge = ridge_f.mark_rule(color=THEME_MUTED[theme], strokeDash=[2, 2]).encode(x=alt.X("batch:Q"))
    # The data's labels sit above the plot, each in a lane of its own (LANES), beside its
    # rule's top: no line, dot or rule reaches there, and two labels never share a lane.
    # Fixed annotations ("below 1", "does not fit") are in the key (the subtitle).
    ridge_label = ridge_f.mark_text(baseline="bottom", fontSize=11, **_beside_rule()).encode(
        x=alt.X("batch:Q"), y=alt.YValue(-LANES["ridge"]), text=alt.Text("label:N"))
    be_f = marks.transform_filter("datum.kind == 'break_even'")
    tooltip = [alt.Tooltip("batch:Q", title="batch", format=",d"), alt.Tooltip("S:Q", title="speedup S", format=".3f")]
    be_rule = be_f.mark_rule(color=charts.BAD, strokeWidth=1.5).encode(x=alt.X("batch:Q"))
    be_point = be_f.mark_point(shape="diamond", size=110, color=charts.BAD, filled=True).encode(x=x, y=y, tooltip=tooltip)
    be_label = be_f.mark_text(baseline="bottom", fontSize=11, fontWeight="bold", color=alt.ExprRef(expr="badInk"),
                              **_beside_rule()).encode(
        x=alt.X("batch:Q"), y=alt.YValue(-LANES["break_even"]), text=alt.Text("label:N"))
    cur_f = marks.transform_filter("datum.kind == 'current' && datum.fits")
    cur = cur_f.mark_point(shape="circle", size=110, color=charts.WARN, filled=False, strokeWidth=2.5).encode(
        x=x, y=y, tooltip=tooltip)
    # a batch that does not fit has no speedup to show: a cross on the axis, not a ring on the faded line
    out_f = marks.transform_filter("datum.kind == 'current' && !datum.fits")
    out = out_f.mark_point(shape="cross", angle=45, size=110, color=charts.WARN, filled=True).encode(
        x=x, y=alt.YDatum(0), tooltip=[alt.Tooltip("batch:Q", title="batch (does not fit)", format=",d")])
    # one constructor with every top-level property (charts.top_level says why)
    return alt.layer(slow, even, lines, nofit, ridge, ridge_label,
                     be_rule, be_point, be_label, cur, out, params=charts.ink_params(theme, ymax=ymax),
                     width=w, height=h, **charts.top_level(theme),
                     title=alt.Title("Speedup against batch size", offset=TITLE_OFFSET, subtitle=[
                         charts.KEY_SEP.join(["○ your batch", "◆ first slowdown", "dotted: ridge"]),
                         charts.KEY_SEP.join(["grey, × your batch: does not fit", charts.SLOWDOWN_KEY])]))


def parts(state: dict) -> tuple:
    """(theme -> the Altair chart at ``state``, its named datasets), as ``charts.chart_parts``."""
    data = chart_rows(state)
    top = charts.y_top(data["serving"])
    return (lambda theme: chart(theme, top)), data


def spec(state: dict, theme: str) -> dict:
    """The chart's Vega-Lite dict at ``state``, its datasets attached, for one theme."""
    make, data = parts(state)
    out = charts.spec(make(theme), data)
    out["description"] = DESCRIPTION
    return out
