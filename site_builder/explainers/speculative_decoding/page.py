"""Build the speculative decoding explainer: markup, data, charts, scripts.

``build(ctx)`` is the explainer contract (see ``explainers.base``). Stages,
each timed in ``LAST_TIMINGS``:

1. data: ``data.page_data()`` (numpy), written beside the page as data.json;
2. charts: Altair charts (``charts.py``) compiled to Vega for the live views
   and rendered to light and dark SVGs for the static first paint;
3. runtime: vl-convert's JavaScript bundle, exposing only ``vegaEmbed``
   (which builds views with the AST expression interpreter: no eval, CSP-safe);
4. assets: the classic scripts and stylesheet under ``static/``, hashed.

Delivery (works from file://, under a strict CSP): classic deferred scripts
only, data as scripts that set globals (sd-data.js eagerly, sd-specs.js lazily
with the Vega runtime), no inline script or style anywhere in the markup, the
charts as <img> SVGs with width and height until the runtime replaces them.
"""

from __future__ import annotations

import html
import json
import math
from decimal import ROUND_HALF_UP, Decimal
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import vl_convert as vlc

from .. import base
from . import charts, data
from .model import expected_tokens, optimal_depth, pays_off, speedup
from .sampler import simulate_rounds

STATIC = Path(__file__).with_name("static")
#: the classic scripts, in load order (each is one widget piece; see their headers)
SCRIPTS = ["sd-model.js", "sd-state.js", "sd-readout.js", "sd-animation.js", "sd-charts.js", "sd-explainer.js"]
STYLESHEET = "sd-explainer.css"
#: the default setting, as DEFAULTS in static/sd-state.js (a test keeps them equal)
DEFAULTS = {"alpha": 0.8, "gamma": 5, "c": 0.05, "seed": 1}
#: the histogram of data.py drawn by the same run the page starts with
HIST_INDEX = 0

LAST_TIMINGS: dict[str, float] = {}

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
}


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _fixed(x: float, places: int) -> str:
    """``x`` with ``places`` decimals exactly as JavaScript's ``toFixed`` writes it:
    a tie (0.625) rounds away from zero, where Python's format rounds to even
    (0.62). The readout is written here first and by sd-readout.js afterwards;
    the two must never disagree."""
    return str(Decimal(x).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _num(x: float) -> str:
    """Up to three decimals, at least two (as sd-readout.js num())."""
    t = _fixed(x, 3)
    return _fixed(x, 2) if t.endswith("0") else t


BEST_SEARCH = charts.BEST_SEARCH
"""Depths searched for the best one (as sd-readout.js MAX_DEPTH)."""


def _ratio(s: float) -> str:
    """S for the verdict: three decimals near 1, so "pays off" never reads 1.00×."""
    return _fixed(s, 3) if abs(s - 1.0) < 0.005 else _fixed(s, 2)


def _share(x: float) -> str:
    """A fraction as a whole percentage, rounded half up as JavaScript's Math.round;
    "less than 1%" rather than "0%" for a real but tiny loss."""
    return "less than 1%" if x * 100 < 0.5 else f"{math.floor(x * 100 + 0.5)}%"


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
    if bool(pays_off(alpha, gamma, c)):
        kind = "win"
        verdict = (f"Pays off: a round costs {_fixed(cost, 2)} target passes and yields {_fixed(e, 2)} tokens on average, "
                   f"{_ratio(s)}× the speed of plain decoding.")
    elif abs(s - 1.0) <= 1e-12:
        kind = "even"
        verdict = (f"Break-even: a round costs exactly what it yields ({_fixed(e, 2)} tokens for {_fixed(cost, 2)} passes). "
                   "Speculating here buys nothing.")
    else:
        kind = "slowdown"
        verdict = (f"This is a slowdown: a round costs {_fixed(cost, 2)} target passes but yields only {_fixed(e, 2)} tokens, "
                   f"so generation runs at {_ratio(s)}× plain decoding, {_share(1 - s)} fewer tokens per second "
                   "than not speculating at all."
                   + (f" With the draft's cost ({_num(c)}) at or above its acceptance rate ({_num(alpha)}), no depth pays off."
                      if c >= alpha else " A shallower depth would do better."))
    if not finite:
        best_text = ("none: a free draft that is always right gains without limit" if alpha >= 1 else
                     f"none: a free draft gains a little at every depth, approaching {_fixed(1 / (1 - alpha), 2)}×")
    elif best == 0:
        best_text = "none: do not speculate (plain decoding, 1.00×, is best)"
    elif best >= BEST_SEARCH:
        best_text = f"γ = {BEST_SEARCH} or deeper, at {_fixed(best_s, 2)}× or more (far beyond this slider)"
    else:
        best_text = f"γ = {best} at {_fixed(best_s, 2)}×" + (" (deeper than this slider goes)" if best > 16 else "")
    return {"E": e, "cost": cost, "S": s, "best": best, "best_s": best_s, "finite": finite, "kind": kind,
            "verdict": verdict, "best_text": best_text}


# ---------------------------------------------------------------- charts


def chart_specs(page: dict) -> dict[str, dict]:
    """name -> {theme: Vega-Lite dict} for every chart (themes live, light, dark)."""
    a, g, c = DEFAULTS["alpha"], DEFAULTS["gamma"], DEFAULTS["c"]
    by_theme = {t: charts.all_specs(page, a, c, g, HIST_INDEX, t) for t in ("live", "light", "dark")}
    return {name: {t: by_theme[t][name] for t in by_theme} for name in by_theme["live"]}


_SVG_IDS = re.compile(r"\b(gradient_|clip)(\d+)\b")


def stable_svg(svg: str) -> str:
    """Renumber Vega's process-global gradient and clip ids in order of appearance,
    so the same chart renders to the same bytes in every build."""
    seen: dict[str, str] = {}

    def sub(m: re.Match) -> str:
        key = m.group(0)
        if key not in seen:
            seen[key] = f"{m.group(1)}{sum(1 for k in seen if k.startswith(m.group(1)))}"
        return seen[key]

    return _SVG_IDS.sub(sub, svg)


def _svg_size(svg: str) -> tuple[int, int]:
    head = svg[: svg.index(">")]
    w = head.split(' width="', 1)[1].split('"', 1)[0]
    h = head.split(' height="', 1)[1].split('"', 1)[0]
    return round(float(w)), round(float(h))


def preview_png(curve_svg: str, alpha: float, gamma: int, c: float) -> bytes:
    """The 1200x630 social preview: the light curve centred on a titled card."""
    w, h = _svg_size(curve_svg)
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
    return vlc.svg_to_png(card)


# ---------------------------------------------------------------- markup


def _slider(key: str, label: str, hint: str, lo, hi, step, value, shown: str, spoken: str) -> str:
    return (
        f'<div class="sd-control">'
        f'<label for="sd-{key}">{label}</label>'
        f'<input type="range" id="sd-{key}" name="{key}" data-key="{key}" min="{lo}" max="{hi}" step="{step}" '
        f'value="{value}" aria-valuetext="{_e(spoken)}" aria-describedby="sd-{key}-hint">'
        f'<output for="sd-{key}" data-val="{key}">{shown}</output>'
        f'<span class="sd-hint" id="sd-{key}-hint">{hint}</span>'
        f"</div>"
    )


def _round_markup(alpha: float, gamma: int, seed: int) -> str:
    """The first round of the default run, drawn in the markup for no-JS readers."""
    r = simulate_rounds(alpha, gamma, 1, seed)
    accepted = int(r.accepted[0])
    rejected = int(r.first_rejection[0])
    items = []
    for j in range(gamma):
        if j < accepted:
            state, glyph, words = "accepted", "✓", "accepted"
        elif j == rejected:
            state, glyph, words = "rejected", "✗", "rejected by the target"
        else:
            state, glyph, words = "discarded", "–", "discarded: drafted after the rejected token, never tested"
        items.append(f'<li class="sd-tok" data-pos="{j + 1}" data-state="{state}"><span class="sd-glyph">{glyph}</span>'
                     f'<span class="sd-num">{j + 1}</span><span class="sd-vh">{words}</span></li>')
    bonus = rejected < 0
    items.append(
        f'<li class="sd-tok sd-target" data-kind="{"bonus" if bonus else "correction"}" data-state="target">'
        f'<span class="sd-glyph">{"★" if bonus else "↺"}</span><span class="sd-num">{"bonus" if bonus else "fix"}</span>'
        f'<span class="sd-vh">{"bonus token from the target: every draft was accepted" if bonus else "correction token from the target, replacing the rejected draft"}</span></li>'
    )
    return (f'<ol class="sd-round sd-round-current" aria-label="Current round" data-round="1" data-gamma="{gamma}" '
            f'data-accepted="{accepted}" data-tokens="{accepted + 1}">' + "".join(items) + "</ol>")


def _chart_block(name: str, title: str, caption: str, alt: str, size: tuple[int, int]) -> str:
    w, h = size
    return (
        f'<section class="sd-panel" aria-labelledby="sd-{name}-title">'
        f'<h2 class="sd-panel-title" id="sd-{name}-title">{title}</h2>'
        f'<div class="sd-chart" data-chart="{name}">'
        f'<picture><source media="(prefers-color-scheme: dark)" srcset="{name}-dark.svg">'
        f'<img src="{name}.svg" width="{w}" height="{h}" alt="{_e(alt)}" decoding="async"></picture>'
        f"</div>"
        f'<p class="sd-caption">{caption}</p>'
        f"</section>"
    )


def markup(page: dict, sizes: dict[str, tuple[int, int]], vega_src: str, specs_src: str) -> str:
    """The explainer's HTML as it stands before any script runs: controls
    (disabled until the script enables them), one worked round, the readout
    and the static SVG charts, all at ``DEFAULTS``. ``page`` is the page data
    (``data.py``), ``sizes`` each chart's SVG size, ``vega_src``/``specs_src``
    the URLs the script loads the Vega runtime and the chart specs from."""
    a, g, c, seed = DEFAULTS["alpha"], DEFAULTS["gamma"], DEFAULTS["c"], DEFAULTS["seed"]
    d = describe(a, g, c)
    best = int(optimal_depth(a, c, 16))
    hist = page["histograms"][HIST_INDEX]
    presets = "".join(
        f'<option value="{i}">{_e(p["label"])}</option>' for i, p in enumerate(page["presets"])
    )
    tally = [
        ("rounds", "Rounds", "0"), ("tokens", "Tokens produced", "0"), ("passes", "Target passes", "0"),
        ("drafts", "Draft calls", "0"), ("time", "Time, in target passes", "0.00"),
        ("mean", "Tokens per round (mean)", "–"), ("expected", "Expected tokens per round E", _fixed(d['E'], 3)),
        ("realised", "Realised speedup", "–"), ("theory", "Theoretical speedup S", _fixed(d['S'], 3) + "×"),
    ]
    tally_html = "".join(f'<div><dt>{label}</dt><dd data-tally="{key}">{value}</dd></div>' for key, label, value in tally)
    alts = {
        "curve": ALT["curve"].format(alpha=a, c=c, gamma=g, best=best, best_s=float(speedup(a, best, c)), s=d["S"]),
        "plane": ALT["plane"],
        "hist": ALT["hist"].format(alpha=hist["alpha"], gamma=hist["gamma"]),
        "lossless": ALT["lossless"],
    }
    curve_w, curve_h = sizes["curve"]
    return f"""<figure class="explainer sd-explainer" id="sd-explainer" data-vega-src="{_e(vega_src)}" data-specs-src="{_e(specs_src)}" aria-labelledby="sd-title">
<figcaption class="sd-title" id="sd-title">Speculative decoding, one round at a time</figcaption>
<noscript><p class="sd-note">JavaScript is off, so the controls are inactive: the figure shows one worked round and the charts for the default setting (α = {a}, γ = {g}, c = {c}).</p></noscript>
<div class="sd-cols">
<div class="sd-col sd-col-anim">
<fieldset class="sd-controls explainer-controls" disabled>
<legend>Draft and target</legend>
{_slider("alpha", "Acceptance rate α", "chance the target accepts one drafted token", 0, 1, 0.001, a, _fixed(a, 2), f"{a * 100:g} percent of drafts accepted")}
{_slider("gamma", "Draft depth γ", "tokens the draft proposes per round", 1, 16, 1, g, str(g), f"{g} drafted tokens per round")}
{_slider("c", "Draft cost c", "one draft call, in target passes", 0, 1, 0.001, c, _fixed(c, 2), f"draft call costs {_fixed(c, 2)} of a target pass")}
<div class="sd-control sd-control-wide">
<label for="sd-preset">Published pairing</label>
<select id="sd-preset" data-role="preset"><option value="">Custom setting</option>{presets}</select>
</div>
<p class="sd-citation" data-out="citation">Custom setting. Choose a published pairing to load its values and where each comes from.</p>
</fieldset>
<fieldset class="sd-transport explainer-controls" disabled>
<legend>Rounds</legend>
<div class="sd-buttons">
<button type="button" data-action="play" aria-pressed="false">▶ Play</button>
<button type="button" data-action="step">Step one round</button>
<button type="button" data-action="skip">Run 100 rounds</button>
<button type="button" data-action="reset">Reset</button>
<button type="button" data-action="reseed">New seed</button>
</div>
<div class="sd-control sd-control-inline">
<label for="sd-speed">Speed</label>
<select id="sd-speed" data-role="speed"><option value="0.5">0.5×</option><option value="1" selected>1×</option><option value="2">2×</option><option value="4">4×</option><option value="10">10×</option></select>
<span class="sd-seed">seed <span data-out="seed">{seed}</span></span>
</div>
</fieldset>
<div class="sd-stage">
<p class="sd-phase">A worked round at the default setting: {"every draft accepted, plus the target's bonus token." if int(simulate_rounds(a, g, 1, seed).accepted[0]) == g else "the accepted prefix, the first rejection, the discarded tail and the target's correction."}</p>
<div class="sd-lane sd-lane-spec">
<span class="sd-lane-label" data-out="lane">Speculative: draft {g} tokens, then one target pass</span>
{_round_markup(a, g, seed)}
<div class="sd-verify" data-active="false" aria-hidden="true">one batched target pass scores every draft</div>
<div class="sd-clock sd-clock-spec" aria-hidden="true"><div class="sd-segs"></div><div class="sd-fill"></div></div>
</div>
<div class="sd-lane sd-lane-plain">
<span class="sd-lane-label">Plain decoding on the same clock: one token per target pass</span>
<div class="sd-clock sd-clock-plain" aria-hidden="true"><div class="sd-segs"></div><div class="sd-fill"></div></div>
<p class="sd-plain"><span class="sd-plain-count">0.0</span> tokens from plain decoding in the same time</p>
</div>
<ol class="sd-history" aria-label="Previous rounds, newest first"></ol>
<p class="sd-legend"><span class="sd-key" data-state="accepted">✓ accepted</span> <span class="sd-key" data-state="rejected">✗ rejected</span> <span class="sd-key" data-state="discarded">– discarded, never tested</span> <span class="sd-key" data-state="target">↺ correction / ★ bonus from the target</span></p>
</div>
<dl class="sd-tally">{tally_html}</dl>
</div>
<div class="sd-col sd-col-curve">
<p class="sd-vh" role="status" aria-live="polite" aria-atomic="true" data-announce></p>
<div class="sd-readout" data-verdict="{d['kind']}">
<dl class="sd-numbers">
<div><dt>Expected tokens per round E</dt><dd data-out="E">{_fixed(d['E'], 3)}</dd></div>
<div><dt>Round cost 1 + γc, in target passes</dt><dd><span data-out="formula">1 + {g} × {_num(c)}</span> = <span data-out="cost">{_fixed(d['cost'], 2)}</span></dd></div>
<div><dt>Speedup S = E / (1 + γc)</dt><dd data-out="S">{_fixed(d['S'], 3)}×</dd></div>
<div><dt>Best whole depth for this pairing</dt><dd data-out="best">{_e(d['best_text'])}</dd></div>
</dl>
<p class="sd-verdict" data-out="verdict">{_e(d['verdict'])}</p>
</div>
<div class="sd-chart" data-chart="curve">
<picture><source media="(prefers-color-scheme: dark)" srcset="curve-dark.svg"><img src="curve.svg" width="{curve_w}" height="{curve_h}" alt="{_e(alts['curve'])}" decoding="async"></picture>
</div>
</div>
</div>
<div class="sd-more">
{_chart_block("plane", "Where speculation pays, and how deep", "Each cell is the best whole depth at its centre's acceptance rate and draft cost. Above the line c = α no whole depth helps; above the threshold curve c*(α) = α ln(1/α) / (1 − α) even the smooth speedup curve declines from γ = 0 on.", alts["plane"], sizes["plane"])}
{_chart_block("hist", "Tokens per round, simulated and exact", f"The exact law is a capped geometric: P(k tokens) = α<sup>k−1</sup>(1 − α) up to γ, and α<sup>γ</sup> for γ + 1. Drawn from {hist['n_rounds']} simulated rounds at α = {hist['alpha']}, γ = {hist['gamma']}; once the script runs it follows your own run.", alts["hist"], sizes["hist"])}
{_chart_block("lossless", "Lossless: the output follows the target", "The actual acceptance rule and correction step, run on a six-token toy vocabulary: whatever the draft proposes, the emitted tokens follow the target's p. A worse draft only lowers the acceptance rate, which costs speed, never quality.", alts["lossless"], sizes["lossless"])}
</div>
</figure>
"""


# ---------------------------------------------------------------- build


def _js_global(name: str, value) -> bytes:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    return f"/* generated by site_builder: speculative decoding explainer */\nwindow.{name}={text};\n".encode("ascii")


def vega_runtime() -> bytes:
    """vl-convert's bundle of Vega, Vega-Lite and vega-embed, exposing vegaEmbed only.

    vl-convert 1.9 binds the snippet's ``vega`` name to a null default export,
    so the Vega namespace itself is not reachable; vega-embed is, and with
    ``ast: true`` it builds views with its bundled vega-interpreter.
    """
    return vlc.javascript_bundle("window.vegaEmbed = vegaEmbed;").encode("utf-8")


def build(ctx: base.ExplainerContext) -> base.ExplainerBuild:
    """The contract: markup, files beside the page, hashed scripts and stylesheet."""
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    pool = ThreadPoolExecutor(max_workers=1)
    runtime_job = pool.submit(vega_runtime)  # the slowest call: bundle while the rest renders

    page = data.page_data()
    data_json = data.page_data_json()
    timings["data"] = time.perf_counter() - t0

    t = time.perf_counter()
    specs = chart_specs(page)
    timings["altair"] = time.perf_counter() - t

    t = time.perf_counter()
    vega_specs = {name: vlc.vegalite_to_vega(by_theme["live"]) for name, by_theme in specs.items()}
    files: dict[str, bytes] = {"data.json": data_json}
    sizes: dict[str, tuple[int, int]] = {}
    for name, by_theme in specs.items():
        light = stable_svg(vlc.vegalite_to_svg(by_theme["light"]))
        dark = stable_svg(vlc.vegalite_to_svg(by_theme["dark"]))
        files[f"{name}.svg"] = light.encode("utf-8")
        files[f"{name}-dark.svg"] = dark.encode("utf-8")
        sizes[name] = _svg_size(light)
    png = preview_png(files["curve.svg"].decode("utf-8"), DEFAULTS["alpha"], DEFAULTS["gamma"], DEFAULTS["c"])
    timings["vl-convert"] = time.perf_counter() - t

    t = time.perf_counter()
    runtime = runtime_job.result()
    pool.shutdown()
    timings["runtime (waited)"] = time.perf_counter() - t

    t = time.perf_counter()
    slim_presets = [
        {k: p[k] for k in ("id", "label", "alpha", "c", "gamma", "measured_speedup", "model_speedup", "citation", "sources")}
        for p in page["presets"]
    ]
    scripts = [ctx.add_asset("sd-data.js", _js_global("SD_EXPLAINER_DATA", {"defaults": DEFAULTS, "presets": slim_presets}))]
    for name in SCRIPTS:
        scripts.append(ctx.add_asset(name, (STATIC / name).read_bytes()))
    stylesheet = ctx.add_asset(STYLESHEET, (STATIC / STYLESHEET).read_bytes())
    vega_url = ctx.add_asset("vega-runtime.js", runtime)
    specs_url = ctx.add_asset("sd-specs.js", _js_global("SD_VEGA_SPECS", vega_specs))
    html_text = markup(page, sizes, ctx.root + vega_url, ctx.root + specs_url)
    timings["assets"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - t0
    LAST_TIMINGS.clear()
    LAST_TIMINGS.update(timings)
    return base.ExplainerBuild(html=html_text, files=files, scripts=scripts, stylesheets=[stylesheet], preview_png=png)
