"""Chart theming for every explainer: light and dark, one compile per chart.

A chart is built once (with Altair, say) in the "slots" theme: every themed
value is a placeholder string (``SLOT`` + its key). ``charts(specs)`` hands each
such Vega-Lite spec to vl-convert once (``vega.submit_themed``): compiled once,
then recoloured for the live view ("live": the page's text colour through
``currentColor``) and for the light and dark pictures the figure shows before
any script runs (``PALETTES``). Text drawn in a mark's colour needs 4.5:1
against the page, which no single colour has on white and on near-black: such
text takes the parameters ``goodInk`` and ``badInk`` (``TEXT_INKS``), which
kit-charts.js sets from the figure's custom properties (``--kit-good``,
``--kit-bad``, or the explainer's own) as the scheme changes.

Import it only from a build step or a prepare step (``top_level`` imports Altair).
"""

from __future__ import annotations

THEMES = {
    "live": {"ink": "currentColor", "muted": "currentColor", "bg": None, "grid": "#8884"},
    "light": {"ink": "#1b1b1b", "muted": "#555555", "bg": "#ffffff", "grid": "#dddddd"},
    "dark": {"ink": "#e8e8e8", "muted": "#b5b5b5", "bg": "#161616", "grid": "#3a3a3a"},
}
"""Each theme's ink, muted ink, background (None: transparent) and grid colour."""
TEXT_INKS = {
    "light": {"goodInk": "#16703a", "badInk": "#b3261e"},
    "dark": {"goodInk": "#5fd38d", "badInk": "#ff8a80"},
}
"""Text in a mark's colour, per theme, as site.css --good / --bad."""
TEXT_INKS["live"] = TEXT_INKS["light"]
SLOT = "\u2063theme:"
"""The start of every placeholder of the "slots" theme (an invisible separator:
no real colour or text starts with it)."""
THEMES["slots"] = {key: SLOT + key for key in THEMES["light"]}
TEXT_INKS["slots"] = {key: SLOT + key for key in TEXT_INKS["light"]}
DRAWN = ("live", "light", "dark")
"""The themes every chart is recoloured for: the live view's, the two pictures'."""


def theme_values(theme: str) -> dict[str, str]:
    """What each placeholder of the "slots" theme stands for in ``theme``
    (its background as ``top_level`` sets it: "transparent" when it has none)."""
    t = THEMES[theme]
    values = {SLOT + key: (t[key] or "transparent") if key == "bg" else t[key] for key in t}
    values.update({SLOT + key: v for key, v in TEXT_INKS[theme].items()})
    return values


PALETTES = {theme: theme_values(theme) for theme in DRAWN}
"""theme -> placeholder -> colour, for ``vega.themed``."""


def top_level(theme: str) -> dict:
    """The top-level properties every chart takes in ``theme``: its config,
    background and padding, passed to the top chart's constructor.

    As keyword arguments of one constructor, not ``configure_*`` and
    ``properties`` calls: each such call copies the chart, and a copy of a
    layer chart runs its constructor again, which deep-copies every layer
    twice; the dict is the same (Altair orders keys by its schema classes)."""
    import altair as alt

    t = THEMES[theme]
    # No ARIA per mark: a heat map has hundreds of cells, each a stop for a
    # screen reader. The view is one image, named by its description.
    config = alt.Config(
        aria=False, view=alt.ViewConfig(stroke=None),
        axis=alt.AxisConfig(labelColor=t["muted"], titleColor=t["ink"], domainColor=t["muted"], tickColor=t["muted"],
                            gridColor=t["grid"], labelFontSize=11, titleFontSize=12, titleFontWeight="normal"),
        legend=alt.LegendConfig(labelColor=t["ink"], titleColor=t["ink"], orient="bottom", labelFontSize=11,
                                titleFontSize=11),
        title=alt.TitleConfig(color=t["ink"], anchor="start", fontSize=13, subtitleColor=t["muted"]),
        text=alt.MarkConfig(color=t["ink"]),
    )
    # a little headroom: browser text metrics can put the title above y = 0
    return {"config": config, "background": t["bg"] or "transparent",
            "padding": {"left": 5, "right": 5, "top": 12, "bottom": 5}}


def submit(slotted: dict) -> tuple:
    """Start one chart: ``slotted`` a Vega-Lite spec in the "slots" theme, with its
    datasets and description. Returns (live Vega, light SVG, dark SVG) futures
    (``vega.submit_themed``: one compile, on vega's workers when they run)."""
    from .. import vega

    return vega.submit_themed(slotted, PALETTES)


def charts(pending: dict[str, tuple]) -> tuple[dict[str, dict], dict[str, bytes], dict[str, tuple[int, int]]]:
    """(name -> live Vega spec, the files ``<name>.svg`` and ``<name>-dark.svg``,
    name -> picture size) of the charts ``submit`` started."""
    from .. import vega

    files, sizes = vega.static_charts_from({name: jobs[1:] for name, jobs in pending.items()})
    return {name: jobs[0].result() for name, jobs in pending.items()}, files, sizes
