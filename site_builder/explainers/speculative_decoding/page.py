"""Build the speculative decoding explainer: markup, data, charts, scripts.

``build(ctx)`` is the explainer contract (see ``explainers.base``). Stages,
each timed in ``LAST_TIMINGS``:

1. data and charts (``page_charts``, usually started by ``prepare`` before
   the markdown stage): ``data.page_data()`` (numpy), written beside the page
   as data.json; Altair charts (``charts.py``) built once each, without
   re-checking Altair's schema, and handed to vl-convert's worker processes
   as soon as each exists: one compile per chart, recoloured for the live
   view and the light and dark SVGs (``vega.themed``);
2. runtime: the vendored Vega runtime (``vega.runtime``: vega, vega-interpreter
   for expressions without eval, vega-tooltip), the one asset all explainers share;
3. assets: the parts under ``static/`` joined into one classic script after
   the page data (``settings.json`` and the presets), and the stylesheet, hashed;
4. vl-convert: the charts collected, and the social preview drawn from the
   light curve when the site makes previews (``ctx.previews``).

Delivery (works from file://, under a strict CSP): classic deferred scripts
only, data in scripts (the page data at the head of the widget's script, each
chart's spec in an sd-specs-<chart>.js of its own, loaded lazily when its live
view is built), no inline script or style anywhere in the markup, the
charts as <img> SVGs with width and height until the runtime replaces them.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

from .. import base, kit, vega
from .. import markup as explainer_markup
from . import charts, sentences, serving_panel
from .page_charts import HIST_INDEX, preview_png, started
from .model import expected_tokens, optimal_depth, pays_off, speedup
from .sampler import simulate_rounds
from .serving_panel import fixed as _fixed
from .serving_panel import ratio as _ratio

STATIC = Path(__file__).with_name("static")
#: the widget's parts, in the order the build joins them into one classic
#: script (each registers itself in window.SpeculativeDecoding; see their headers)
#: loaded after the explainer kit's shared one (kit.SCRIPTS: frames, state, charts)
SCRIPTS = ["sd-model.js", "sd-state.js", "sd-readout.js", "sd-words.js", "sd-tokens.js", "sd-phases.js", "sd-animation.js",
           "sd-curve.js", "sd-charts.js", "sd-explainer.js"]
#: the serving panel's parts, joined after its presets into a second script
#: (``SERVING_SCRIPT``) that loads lazily with the Vega runtime: the panel sits
#: below the fold, and the first load keeps within its budget
SERVING_SCRIPTS = ["sd-serving.js", "sd-serving-panel.js"]
SERVING_SCRIPT = "sd-serving.js"
SCRIPT = "speculative-decoding.js"
STYLESHEET = "sd-explainer.css"
SETTINGS = json.loads(Path(__file__).with_name("settings.json").read_text(encoding="utf-8"))
"""The one source of the defaults and the readout's words: read here, and
written into the script as SpeculativeDecoding.data for the browser."""
#: the default setting
DEFAULTS = SETTINGS["defaults"]
#: the readout's words (templates filled here by describe(), in the browser by sd-readout.js)
WORDS = SETTINGS["words"]

LAST_TIMINGS: dict[str, float] = {}
COMMENT = "speculative decoding explainer"
NAMESPACE = "SpeculativeDecoding"
"""The widget's one global: window.SpeculativeDecoding.{data, specs, model, state, ...}."""

ALT = {
    "curve": "Line chart of speedup S against draft depth gamma from 0 to 16 for acceptance {alpha} and draft cost {c}: "
             "S rises from 1, peaks at depth {best} with {best_s:.2f}x, and the current depth {gamma} gives {s:.2f}x. "
             "Values below the dashed line S = 1 are slowdowns.",
    "plane": "Heat map of the best whole draft depth over acceptance rate alpha (0 to 1) and draft cost c (0 to 1). "
             "Deeper drafts pay off towards high alpha and low c; above the line c = alpha no depth speeds decoding up, "
             "and above the threshold curve c*(alpha) the speedup curve declines from depth 0 on.",
    "hist": "Bar chart of how many tokens a round produces, simulated against the exact distribution for alpha {alpha} "
            "and depth {gamma}: the bars agree; the last bar, every draft accepted plus the bonus token, has probability alpha^gamma.",
    "lossless": "Three bar charts, one per draft model (close, mediocre, poor): for each of six tokens the target's "
                "probability p, the draft's q, and the share of each token in the output. The output matches p "
                "whichever q the draft had; only the acceptance rate changes.",
    "serving": "Line chart of speedup S against batch size from 1 to 4096 on a log axis, for {pair} on {devices} × {hw} "
               "at acceptance {alpha}, depth {gamma} and draft cost {c}: S is {s1}× at batch 1 and {s_end}× at "
               "batch 4096; {first}. A dotted line marks the ridge at batch {ridge}, where verification turns "
               "compute-bound, and a dashed line shows a {long} context. Values below 1 are slowdowns.",
}


def _num(x: float) -> str:
    """Up to three decimals, at least two (as sd-readout.js num())."""
    t = _fixed(x, 3)
    return _fixed(x, 2) if t.endswith("0") else t


BEST_SEARCH = charts.BEST_SEARCH
"""Depths searched for the best one (as sd-readout.js MAX_DEPTH)."""


def _share(x: float) -> str:
    """A fraction as a whole percentage, rounded half up as JavaScript's Math.round;
    "less than 1%" rather than "0%" for a real but tiny loss."""
    return WORDS["tiny_loss"] if x * 100 < 0.5 else f"{math.floor(x * 100 + 0.5)}%"


def describe(alpha: float, gamma: int, c: float) -> dict:
    """The readout for one setting; the same words as sd-readout.js describe()
    (a test runs both over a grid of settings and compares every string)."""
    e = float(expected_tokens(alpha, gamma))
    cost = 1.0 + gamma * c
    s = float(speedup(alpha, gamma, c))
    best = int(optimal_depth(alpha, c, BEST_SEARCH))
    best_s = float(speedup(alpha, best, c))
    # A free draft gains at every depth (less and less): no whole depth is best.
    finite = not (c == 0 and alpha > 0)
    w = WORDS
    if bool(pays_off(alpha, gamma, c)):
        kind = "win"
        verdict = w["win"].format(cost=_fixed(cost, 2), E=_fixed(e, 2), S=_ratio(s))
    elif abs(s - 1.0) <= 1e-12:
        kind = "even"
        verdict = w["even"].format(cost=_fixed(cost, 2), E=_fixed(e, 2))
    else:
        kind = "slowdown"
        verdict = (w["slowdown"].format(cost=_fixed(cost, 2), E=_fixed(e, 2), S=_ratio(s), loss=_share(1 - s))
                   + (w["no_depth"].format(c=_num(c), alpha=_num(alpha)) if c >= alpha else w["shallower"]))
    if not finite:
        best_text = w["best_unbounded"] if alpha >= 1 else w["best_approaching"].format(limit=_fixed(1 / (1 - alpha), 2))
    elif best == 0:
        best_text = w["best_none"]
    elif best >= BEST_SEARCH:
        best_text = w["best_beyond"].format(max=BEST_SEARCH, best_s=_fixed(best_s, 2))
    else:
        best_text = w["best_at"].format(best=best, best_s=_fixed(best_s, 2)) + (w["best_deeper"] if best > 16 else "")
    return {"E": e, "cost": cost, "S": s, "best": best, "best_s": best_s, "finite": finite, "kind": kind,
            "verdict": verdict, "best_text": best_text}


# ---------------------------------------------------------------- markup


LIMITS = SETTINGS["limits"]
"""Each main slider's min, max and step: the markup's and the state's (sd-state.js) one source."""
SLIDERS = [
    # key, label, hint, min, max, step
    (key, label, hint, LIMITS[key]["min"], LIMITS[key]["max"], LIMITS[key]["step"])
    for key, label, hint in [
        ("alpha", "Acceptance rate α", "chance the target accepts one drafted token"),
        ("gamma", "Draft depth γ", "tokens the draft proposes per round"),
        ("c", "Draft cost c", "one draft call, in target passes"),
    ]
]
SPEEDS = [("0.5", "0.5×"), ("1", "1×"), ("2", "2×"), ("4", "4×"), ("10", "10×")]


def _spoken(key: str, value) -> str:
    if key == "alpha":
        return f"{value * 100:g} percent of drafts accepted"
    if key == "c":
        return f"draft call costs {_fixed(value, 2)} of a target pass"
    return f"{value} drafted tokens per round"


def _position(values: list[int], x: int) -> int:
    """The slider position showing ``x``: the nearest listed value on a log scale
    (ties to the lower one), as sd-serving-panel.js position()."""
    return min(range(len(values)), key=lambda i: (abs(math.log2(values[i] + 1) - math.log2(x + 1)), i))


def serving_values() -> dict:
    """The serving panel as it stands before any script runs: its controls, sources,
    readout and chart description at ``DEFAULTS`` (``serving_panel`` computes the numbers)."""
    st = DEFAULTS
    presets = serving_panel.presets_data()
    d = serving_panel.describe(st, presets)
    cfg = serving_panel.SERVING
    sw = serving_panel.WORDS
    group = serving_panel.group
    hw = next(h for h in presets["hardware"] if h["id"] == st["hw"])
    pair = next(x for x in presets["pairings"] if x["id"] == st["pair"])
    batches, contexts = cfg["batches"], cfg["contexts"]
    sliders = [
        {"key": "batch", "label": "Batch size B", "hint": "sequences the server decodes together (log scale, 1 to 4,096)",
         "min": 0, "max": len(batches) - 1, "step": 1, "value": _position(batches, st["batch"]),
         "shown": group(st["batch"]), "spoken": sw["batch_spoken"].format(batch=group(st["batch"]))},
        {"key": "ctx", "label": "Context length", "hint": "tokens already in each sequence's KV cache",
         "min": 0, "max": len(contexts) - 1, "step": 1, "value": _position(contexts, st["ctx"]),
         "shown": group(st["ctx"]), "spoken": sw["ctx_spoken"].format(ctx=group(st["ctx"]))},
    ]
    rows = serving_panel.chart_rows(st, presets)
    mine = [r for r in rows["serving"] if r["series"] == sw["series_context"]]
    be = d["break_even"]
    alt = ALT["serving"].format(
        pair=pair["label"], devices=st["devices"], hw=hw["label"], alpha=st["alpha"], gamma=st["gamma"], c=st["c"],
        s1=_fixed(mine[0]["S"], 2), s_end=_fixed(mine[-1]["S"], 2),
        first=f"it first falls below 1 at batch {group(be)}" if be is not None else "it never falls below 1",
        ridge=group(int(_fixed(d["ridge"], 0))) if math.isfinite(d["ridge"]) else "none",
        long=group(cfg["long_context"]) + "-token")
    t = d["text"]
    readout = [
        ("Verifying γ + 1 tokens, in plain passes", "serving_verify", t["serving_verify"]),
        ("A round (γ drafts, one verification), in plain passes", "serving_cost", t["serving_cost"]),
        ("Speedup S at this batch", "serving_S", t["serving_S"]),
        ("The target's verification pass", "serving_bound", t["serving_bound"]),
        ("First slowdown (break-even batch)", "serving_break", t["serving_break"]),
        ("Fits in memory", "serving_fit", t["serving_fit"]),
        ("Best depth at this batch", "serving_best", t["serving_best"]),
    ]
    return {
        "sliders": sliders,
        "hardware": [(h["id"], h["label"]) for h in presets["hardware"]], "hw": hw,
        "pairings": [(x["id"], x["label"]) for x in presets["pairings"]], "pair": pair,
        "devices": [(str(n), str(n)) for n in cfg["devices"]], "device": str(st["devices"]),
        "kind": d["kind"], "readout": readout, "verdict": t["serving_verdict"], "draft": t["serving_draft"],
        "alt": alt, "long": group(cfg["long_context"]),
    }


def markup(page: dict, sizes: dict[str, tuple[int, int]]) -> str:
    """The explainer's HTML as it stands before any script runs: controls
    (disabled until the script enables them), one worked round, the readout
    and the static SVG charts, all at ``DEFAULTS`` (``figure.html``, with the
    shared macros). ``page`` is the page data (``data.py``), ``sizes`` each
    chart's SVG size. No URL is in the markup: the script knows the ones it
    loads (``lazy_assets``)."""
    a, g, c, seed = DEFAULTS["alpha"], DEFAULTS["gamma"], DEFAULTS["c"], DEFAULTS["seed"]
    d = describe(a, g, c)
    best = int(optimal_depth(a, c, 16))
    hist = page["histograms"][HIST_INDEX]
    values = {"alpha": a, "gamma": g, "c": c}
    shown = {"alpha": _fixed(a, 2), "gamma": str(g), "c": _fixed(c, 2)}
    sliders = [
        {"key": key, "label": label, "hint": hint, "min": lo, "max": hi, "step": step,
         "value": values[key], "shown": shown[key], "spoken": _spoken(key, values[key])}
        for key, label, hint, lo, hi, step in SLIDERS
    ]
    tally = [
        ("rounds", "Rounds", "0"), ("tokens", "Tokens produced", "0"), ("passes", "Target passes", "0"),
        ("drafts", "Draft calls", "0"), ("time", "Time, in target passes", "0.00"),
        ("mean", "Tokens per round (mean)", "–"), ("expected", "Expected tokens per round E", _fixed(d["E"], 3)),
        ("band", "Where 95% of runs this long land (E ± 2 SE)", "–"), ("noise", "Your mean against that band", "–"),
        ("realised", "Realised speedup", "–"), ("theory", "Theoretical speedup S", _fixed(d["S"], 3) + "×"),
    ]
    alts = {
        "curve": ALT["curve"].format(alpha=a, c=c, gamma=g, best=best, best_s=float(speedup(a, best, c)), s=d["S"]),
        "plane": ALT["plane"],
        "hist": ALT["hist"].format(alpha=hist["alpha"], gamma=hist["gamma"]),
        "lossless": ALT["lossless"],
    }
    readout = {"kind": d["kind"], "E": _fixed(d["E"], 3), "c": _num(c), "cost": _fixed(d["cost"], 2),
               "S": _fixed(d["S"], 3) + "×", "best": d["best_text"], "verdict": d["verdict"]}
    return explainer_markup.render(
        __package__, "figure.html",
        alpha=a, gamma=g, c=c, seed=seed,
        sliders=sliders, presets=[("", "Custom setting")] + [(str(i), p["label"]) for i, p in enumerate(page["presets"])],
        speeds=SPEEDS, words=WORDS, round=sentences.worked_round(a, g, c, seed), tally=tally,
        readout=readout, alts=alts, sizes=sizes, hist=hist, serving=serving_values(),
    )


# ---------------------------------------------------------------- build


shipped = kit.shipped
"""A part as the page gets it (the kit's minification: ``kit.shipped``)."""


def widget_script(page_data: dict) -> bytes:
    """The one classic script of the widget: the page data, then the parts in
    ``SCRIPTS`` order (``shipped``: minified), each registering itself
    in ``window.SpeculativeDecoding``."""
    head = vega.js_data(NAMESPACE, "data", page_data, f"{COMMENT}: page data, then static/{', '.join(SCRIPTS)}").decode()
    return kit.joined(STATIC, SCRIPTS, head)


def serving_script(presets: dict) -> bytes:
    """The serving panel's lazy script: its presets (``SpeculativeDecoding.servingPresets``),
    then the parts in ``SERVING_SCRIPTS`` order."""
    head = vega.js_data(NAMESPACE, "servingPresets", presets,
                        f"{COMMENT}: serving presets, then static/{', '.join(SERVING_SCRIPTS)}").decode()
    return kit.joined(STATIC, SERVING_SCRIPTS, head)


def lazy_assets(widget_dir: str, runtime: str, serving: str, specs: dict[str, str]) -> dict:
    """What the widget's script loads later, as file names in its own folder
    (``widget_dir``; each URL here is root-relative and in it): the Vega
    runtime, the serving panel's script, each chart's spec script. Written into
    the script (``SpeculativeDecoding.data.assets``), resolved against the
    script's own URL in the browser: never read from the page, where content
    could write a URL of its own (issue 30)."""
    names = kit.asset_names(widget_dir, {"runtime": runtime, "serving": serving})
    return {**names, "specs": kit.asset_names(widget_dir, specs)}


def build(ctx: base.ExplainerContext) -> base.ExplainerBuild:
    """The contract: markup, files beside the page, hashed scripts and stylesheet;
    the preview image only when the site makes previews (``ctx.previews``)."""
    t0 = time.perf_counter()
    page, data_json, pending, timings = started()
    timings = dict(timings)

    # What needs no chart is done while the worker converts: the runtime, the scripts, the stylesheet.
    t = time.perf_counter()
    runtime = vega.runtime()  # the vendored files, read once per process
    timings["runtime"] = time.perf_counter() - t

    t = time.perf_counter()
    slim_presets = [
        {k: p[k] for k in ("id", "label", "alpha", "c", "gamma", "measured_speedup", "model_speedup", "citation", "sources")}
        for p in page["presets"]
    ]
    serving_presets = serving_panel.presets_data()
    # the ids only: the state checks a URL's hw and pair at once; the rest comes with the panel's script
    ids = {kind: [p["id"] for p in serving_presets[kind]] for kind in ("hardware", "pairings")}
    widget_data = {**SETTINGS, "presets": slim_presets, "serving_ids": ids,
                   "sentences": {"passages": sentences.CORPUS["passages"]}}
    serving_url = ctx.add_asset(SERVING_SCRIPT, serving_script(serving_presets))
    # the kit's styles of what the shared macros write, then the figure's own (both minified by the kit)
    stylesheets = [kit.add_stylesheet(ctx),
                   ctx.add_asset(STYLESHEET, kit.shipped_css((STATIC / STYLESHEET).read_text(encoding="utf-8")).encode())]
    vega_url = vega.add_runtime(ctx, runtime)
    explainer_markup.compile_now(__package__, "figure.html")  # while the charts convert, not after
    timings["assets"] = time.perf_counter() - t

    t = time.perf_counter()
    svgs, sizes = vega.static_charts_from({name: jobs[1:] for name, jobs in pending.items()})
    png = None
    if ctx.previews:  # else no one would see it: social sites ignore a relative og:image
        png = preview_png(svgs["curve.svg"].decode("utf-8"), DEFAULTS["alpha"], DEFAULTS["gamma"], DEFAULTS["c"])
    vega_specs = {name: jobs[0].result() for name, jobs in pending.items()}
    files: dict[str, bytes] = {"data.json": data_json, **svgs}
    timings["vl-convert"] = time.perf_counter() - t

    t = time.perf_counter()
    # one script per chart: a view's spec comes when that view is built (an off-screen view's, never before it nears)
    specs_url = {name: ctx.add_asset(f"sd-specs-{name}.js", vega.js_data(NAMESPACE, "specs", spec, COMMENT, name))
                 for name, spec in sorted(vega_specs.items())}
    # the widget's script last: it names the others (their hashes are in their names)
    lazy = lazy_assets(vega_url.rpartition("/")[0], vega_url, serving_url, specs_url)
    # the kit's shared script first (one file for every explainer of the site), then the widget's
    scripts = [kit.add_script(ctx), ctx.add_asset(SCRIPT, widget_script({**widget_data, "assets": lazy}))]
    html_text = markup(page, sizes)
    timings["assets"] += time.perf_counter() - t
    timings["total"] = time.perf_counter() - t0
    LAST_TIMINGS.clear()
    LAST_TIMINGS.update(timings)
    return base.ExplainerBuild(html=html_text, files=files, scripts=scripts, stylesheets=stylesheets, preview_png=png)
