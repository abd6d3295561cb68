"""The serving-under-load chart: speedup S against batch size (log axis), as an Altair layer chart.

It reads two named datasets, whose rows ``serving_panel.chart_rows`` computes
with numpy at build time and sd-serving.js chartRows() in the browser (the live
view replaces them by name):

* ``serving``: {batch, S, series, fits}, one line for the reader's context and one
  for the long context, each faded where its weights and caches do not fit;
* ``serving_marks``: {kind, batch, batch2, S, label}: the batches that do not fit
  ("nofit", greyed over the lines), the target's ridge, the first slowdown
  ("break_even") and the reader's batch ("current").

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
        x=alt.datum(1), x2=alt.datum(MAX_BATCH), y=alt.datum(0), y2=alt.datum(1))
    even = anchor.mark_rule(color=charts.BAD, strokeDash=[4, 3]).encode(y=alt.datum(1))
    slow_label = anchor.mark_text(align="left", baseline="top", dx=4, dy=4, fontSize=11,
                                  color=alt.ExprRef(expr="badInk")).encode(
        x=alt.datum(1), y=alt.datum(1), text=alt.value("below 1: slowdown"))
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
        x="batch:Q", x2="batch2:Q", y=alt.datum(0), y2=alt.value(0))  # up to the plot's top edge, in pixels
    nofit_label = nofit_f.mark_text(align="left", baseline="top", dx=4, dy=4, fontSize=11).encode(
        x="batch:Q", y=alt.value(0), text="label:N")
    ridge_f = marks.transform_filter("datum.kind == 'ridge'")
    ridge = ridge_f.mark_rule(color=THEME_MUTED[theme], strokeDash=[2, 2]).encode(x="batch:Q")
    ridge_label = ridge_f.mark_text(align="right", baseline="bottom", dx=-3, dy=-4, fontSize=11, angle=0).encode(
        x="batch:Q", y=alt.datum(0), text="label:N")
    be_f = marks.transform_filter("datum.kind == 'break_even'")
    tooltip = [alt.Tooltip("batch:Q", title="batch", format=",d"), alt.Tooltip("S:Q", title="speedup S", format=".3f")]
    be_rule = be_f.mark_rule(color=charts.BAD, strokeWidth=1.5).encode(x="batch:Q")
    be_point = be_f.mark_point(shape="diamond", size=110, color=charts.BAD, filled=True).encode(x=x, y=y, tooltip=tooltip)
    # right of its rule, or left of it near the chart's right edge, so it never runs off the plot
    be_label = be_f.mark_text(align=alt.ExprRef(expr="datum.batch > 512 ? 'right' : 'left'"),
                              dx=alt.ExprRef(expr="datum.batch > 512 ? -4 : 4"), baseline="bottom", dy=-22,
                              fontSize=11, fontWeight="bold", color=alt.ExprRef(expr="badInk")).encode(
        x="batch:Q", y=alt.datum(1), text="label:N")
    cur_f = marks.transform_filter("datum.kind == 'current'")
    cur = cur_f.mark_point(shape="circle", size=110, color=charts.WARN, filled=False, strokeWidth=2.5).encode(
        x=x, y=y, tooltip=tooltip)
    layered = alt.layer(slow, even, slow_label, lines, nofit, nofit_label, ridge, ridge_label,
                        be_rule, be_point, be_label, cur).add_params(
        alt.param(name="ymax", value=ymax),
        *(alt.param(name=k, value=v) for k, v in charts.TEXT_INKS[theme].items())).properties(
        width=w, height=h,
        title=alt.Title("Speedup against batch size",
                        subtitle=charts.KEY_SEP.join(["○ your batch", "◆ first slowdown", "dotted: ridge", "grey: does not fit"])),
    )
    return charts._config(layered, theme)



def spec(state: dict, theme: str) -> dict:
    """The chart's Vega-Lite dict at ``state``, its datasets attached, for one theme."""
    data = chart_rows(state)
    out = charts.spec(chart(theme, charts.y_top(data["serving"])), data)
    out["description"] = DESCRIPTION
    return out
