"""The page's charts, from Altair to files: specs built once per chart, and
their conversions started as early as the build allows.

Every chart is built once with Altair in the "slots" theme (a placeholder
string for each themed colour, ``charts.SLOT``) and compiled once by
vl-convert (``vega.themed``): recoloured there for the live view and for the
light and dark SVGs. ``start`` (from the explainer's ``prepare``, before the
markdown stage) computes the page data and hands every chart to vega's
workers; ``page.build`` then only collects (``started``), and ``forget``
(the prepare step's release) drops what was started, so a later build in the
same process (``serve``) never reads futures of workers that are gone. The
charts depend only on the defaults (``settings.json``), never on the page
that embeds them, so starting them early changes no byte.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from altair.utils.schemapi import debug_mode

from .. import base, vega
from ..kit import theme
from . import charts, data, serving_charts

DEFAULTS = json.loads(Path(__file__).with_name("settings.json").read_text(encoding="utf-8"))["defaults"]
"""The setting the page is built at (as ``page.DEFAULTS``)."""
#: the histogram of data.py drawn by the same run the page starts with
HIST_INDEX = 0
THEMES = theme.DRAWN
PALETTES = theme.PALETTES
"""theme -> placeholder -> colour, for ``vega.themed`` (the kit's: kit/theme.py)."""


DESCRIPTIONS = {**charts.DESCRIPTIONS, "serving": serving_charts.DESCRIPTION}
"""What a screen reader announces for each live chart."""


def _parts(page: dict) -> dict[str, tuple]:
    """name -> (theme -> Altair chart, its named datasets) of every chart, in page order."""
    a, g, c = DEFAULTS["alpha"], DEFAULTS["gamma"], DEFAULTS["c"]
    return {**charts.chart_parts(page, a, c, g, HIST_INDEX), "serving": serving_charts.parts(DEFAULTS)}


def _slotted(make) -> dict:
    """A chart built with Altair in the "slots" theme, as ``to_dict`` gives it.

    Altair's schema checks are off (``debug_mode(False)`` as objects are made,
    none in ``to_dict``): same dicts, several times faster; the test
    ``test_sd_page.test_specs_are_schema_valid`` checks them against the schema
    and Altair's own build in each theme, checks on."""
    with debug_mode(False):
        return make("slots").to_dict(validate=False)  # as charts.spec, datasets joined after


def _slotted_spec(name: str, part: tuple) -> dict:
    """A chart in the "slots" theme with its datasets and description attached."""
    make, datasets = part
    return {**_slotted(make), "datasets": datasets, "description": DESCRIPTIONS[name]}


def themed_specs(page: dict):
    """Each chart as soon as it is built, in page order: (name, {theme: Vega-Lite dict}),
    the "slots" build recoloured per theme by ``charts.themed``: the dicts of three
    Altair builds at a third of the cost."""
    for name, (make, datasets) in _parts(page).items():
        yield name, charts.themed(_slotted(make), THEMES, datasets, DESCRIPTIONS[name])


def theme_specs(page: dict, theme: str) -> dict[str, dict]:
    """name -> Vega-Lite dict of every chart, for one theme (``themed_specs``)."""
    return {name: by_theme[theme] for name, by_theme in themed_specs(page)}


def slotted_specs(page: dict):
    """Each chart as one Vega-Lite dict with placeholders for its themed colours,
    datasets and description attached, in page order: (name, spec), for
    ``vega.themed`` with ``PALETTES`` (one compile for every theme)."""
    for name, part in _parts(page).items():
        yield name, _slotted_spec(name, part)


_STARTED: tuple | None = None
"""What ``start`` began for the running build, or None."""


def begin() -> tuple[dict, bytes, dict[str, tuple], dict[str, float]]:
    """The page data, its JSON, name -> (live Vega, light SVG, dark SVG) futures
    of every chart (``vega.submit_themed``: on vega's workers when they run, each
    as soon as its spec exists, so vl-convert draws while Altair builds the next
    chart), and how long the data and the specs took."""
    t = time.perf_counter()
    # The curve and the serving chart need no page data: they go to the worker
    # before it is computed, which the worker would otherwise wait on.
    a, g, c = DEFAULTS["alpha"], DEFAULTS["gamma"], DEFAULTS["c"]
    early = {"curve": charts.curve_part(a, c, g), "serving": serving_charts.parts(DEFAULTS)}
    pending = {name: vega.submit_themed(_slotted_spec(name, part), PALETTES) for name, part in early.items()}
    timings = {"altair": time.perf_counter() - t}
    t = time.perf_counter()
    page = data.page_data()
    data_json = data.page_data_json(page)
    timings["data"] = time.perf_counter() - t
    t = time.perf_counter()
    parts = {**charts.chart_parts(page, a, c, g, HIST_INDEX), **early}  # the page's order, as _parts
    for name, part in parts.items():
        if name not in pending:
            pending[name] = vega.submit_themed(_slotted_spec(name, part), PALETTES)
    timings["altair"] += time.perf_counter() - t
    return page, data_json, {name: pending[name] for name in parts}, timings


def start() -> None:
    """From ``prepare``: ``begin`` now, for the build step to take (``started``)."""
    global _STARTED
    _STARTED = begin()


def started() -> tuple[dict, bytes, dict[str, tuple], dict[str, float]]:
    """What ``start`` began for this build, else ``begin()`` now (no prepare step
    ran: a build step called on its own, or on one core alike)."""
    return _STARTED if _STARTED is not None else begin()


def forget() -> None:
    """Drop what ``start`` began (the prepare step's release, when the build ends)."""
    global _STARTED
    _STARTED = None


def preview_png(curve_svg: str, alpha: float, gamma: int, c: float) -> bytes:
    """The 1200x630 social preview: the light curve centred on a titled card."""
    w, h = vega.svg_size(curve_svg)
    pw, ph = base.PREVIEW_SIZE
    scale = min((pw - 120) / w, (ph - 150) / h)
    cw, ch = w * scale, h * scale
    inner = curve_svg.split(">", 1)[1].rsplit("</svg>", 1)[0]
    card = (
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{pw}" height="{ph}" viewBox="0 0 {pw} {ph}">'
        f'<rect width="{pw}" height="{ph}" fill="#ffffff"/>'
        f'<text x="60" y="70" font-family="sans-serif" font-size="40" font-weight="bold" fill="#1b1b1b">Speculative decoding</text>'
        f'<text x="60" y="110" font-family="sans-serif" font-size="24" fill="#555555">'
        f'Speedup against draft depth, α = {alpha}, c = {c}: where it pays off, and where it turns over</text>'
        f'<svg x="{(pw - cw) / 2:.1f}" y="130" width="{cw:.1f}" height="{ch:.1f}" viewBox="0 0 {w} {h}">{inner}</svg>'
        "</svg>"
    )
    return vega.svg_to_png(card)
