"""The serving-under-load panel: one setting of the figure's state turned into the roofline model's
arguments, its readout in words, the chart's rows, and the presets as the page's script receives them.

The state is the figure's one state object (``settings.json`` defaults; the
browser keeps it in sd-state.js): alpha, gamma and c of the main figure, plus
``batch`` (1..4096), ``ctx`` (context length in tokens), ``devices``, ``hw``
(an accelerator id of ``serving_presets``) and ``pair`` (a pairing id).

How a setting becomes the model's arguments (``config``; sd-serving.js
``config`` does the same): the target is the pairing's target model
(``P_t`` its derived parameter count), the draft has ``c x P_t`` parameters,
where c is the figure's draft cost. So the figure's c stays the one draft
cost of the page: at batch 1 with no KV term the panel's S is the main
readout's E / (1 + gamma c) for every c, and choosing a pairing sets c to its
memory-bound ratio P_d / P_t (``serving_presets.Pairing.c``), which makes the
draft the pairing's own. The KV bytes a sequence reads are ``ctx`` x each
model's KV bytes per token (the draft's cache is always the pairing's draft's,
held in full). The devices are ideal tensor parallelism: bandwidth, compute and
memory are the preset's per device times ``devices``.

Everything the reader sees is written here for the page as built (no-JS first
paint) and by sd-serving.js for every other setting, from the same templates
in ``settings.json`` ("serving" / "words"); a node test compares the two
string for string.
"""

from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np

from . import serving_presets as sp
from .model import TIE_RTOL, expected_tokens
from .serving import (
    MAX_BATCH,
    best_gamma_at_batch,
    break_even_batch,
    memory_footprint,
    ridge_batch,
    speedup_at_batch,
    step_time,
)

SETTINGS = json.loads(Path(__file__).with_name("settings.json").read_text(encoding="utf-8"))
SERVING = SETTINGS["serving"]
WORDS = SERVING["words"]
DEFAULTS = SETTINGS["defaults"]
BYTES_PER_PARAM = sp.BF16_BYTES
#: depths the best-depth search tries (as sd-serving.js and the main readout)
BEST_SEARCH = 64
assert SERVING["max_batch"] == MAX_BATCH, "settings.json and serving.MAX_BATCH name one range"


def fixed(x: float, places: int) -> str:
    """``x`` with ``places`` decimals exactly as JavaScript's ``toFixed`` writes it:
    a tie (0.625) rounds away from zero, where Python's format rounds to even
    (0.62). Text is written here first and by the page's script afterwards;
    the two must never disagree."""
    return str(Decimal(x).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def ratio(s: float) -> str:
    """S for a verdict: three decimals near 1, so "pays off" never reads 1.00×."""
    return fixed(s, 3) if abs(s - 1.0) < 0.005 else fixed(s, 2)


def group(n: int) -> str:
    """A whole number with thousands separators, 4,096 (as sd-serving.js group())."""
    return f"{int(n):,}"


def gigabytes(x: float) -> str:
    """Bytes as whole decimal gigabytes, the vendors' GB: 1,536 for eight 192 GB devices (as sd-serving.js gigabytes())."""
    return group(int(fixed(x / 1e9, 0)))


# ---------------------------------------------------------------- presets


def _tag(source: str) -> str:
    return "derived" if source.startswith("derived") else "printed"


def _kib(x: int) -> str:
    return f"{x // 1024} KiB" if x % 1024 == 0 else f"{group(x)} bytes"


def hardware_summary(a: sp.Accelerator) -> str:
    """One line: what the preset's numbers are and whether each is printed or derived."""
    s, shown = a.sources, a.shown
    # each figure as the vendor prints it (serving_presets parses the model's numbers from the same text)
    return (f"{shown['bandwidth']} of memory bandwidth ({_tag(s['bandwidth'])}), "
            f"{shown['flops']} dense BF16 ({_tag(s['flops'])}), "
            f"{shown['memory']} per device ({_tag(s['memory'])}).")


def pairing_summary(p: sp.Pairing) -> str:
    """One line: both models' sizes and KV caches, and the memory-bound ratio, all derived."""
    t, d = sp.model(p.target), sp.model(p.draft)
    return (f"{t.label}: {group(t.params)} parameters, {_kib(t.kv_bytes_per_token)} of KV cache per token; "
            f"{d.label}: {group(d.params)} parameters, {_kib(d.kv_bytes_per_token)} per token (derived from "
            f"their published configurations). Memory-bound ratio c = P_d / P_t = {fixed(p.c, 4)} (derived); "
            f"choosing this pairing sets the figure's c to it.")


def _citations(p: sp.Pairing) -> list[dict]:
    """Both models' citations, target first, each source once."""
    out: list[dict] = []
    for c in sp.model(p.target).citations + sp.model(p.draft).citations:
        if all(c["url"] != o["url"] for o in out):
            out.append(c)
    return out


def presets_data() -> dict:
    """The presets as the page's script receives them (SpeculativeDecoding.data.serving_presets):
    hardware and pairings in ``serving_presets`` order, each with its one-line summary."""
    return {
        "hardware": [
            {"id": a.id, "label": a.label, "bandwidth": a.bandwidth, "flops": a.flops, "memory": a.memory,
             "citations": a.citations, "summary": hardware_summary(a)}
            for a in sp.accelerators()
        ],
        "pairings": [
            {"id": p.id, "label": p.label, "target": sp.model(p.target).label, "draft": sp.model(p.draft).label,
             "target_params": sp.model(p.target).params, "draft_params": sp.model(p.draft).params,
             "target_kv": sp.model(p.target).kv_bytes_per_token, "draft_kv": sp.model(p.draft).kv_bytes_per_token,
             "c": round(p.c, 6), "summary": pairing_summary(p), "citations": _citations(p)}
            for p in sp.pairings()
        ],
    }


# ---------------------------------------------------------------- one setting


def _find(items: list[dict], key: str) -> dict:
    return next(x for x in items if x["id"] == key)


def config(state: dict, presets: dict | None = None) -> dict:
    """The roofline model's arguments for one state (see the module docstring), plus
    ``memory`` (bytes on all devices) and ``kw``, the keywords ``serving`` takes."""
    presets = presets or presets_data()
    hw = _find(presets["hardware"], state["hw"])
    pair = _find(presets["pairings"], state["pair"])
    n = state["devices"]
    target = pair["target_params"]
    kw = {
        "target_params": target,
        "draft_params": state["c"] * target,
        "bytes_per_param": BYTES_PER_PARAM,
        "bandwidth": hw["bandwidth"] * n,
        "flops": hw["flops"] * n,
        "target_kv_bytes": state["ctx"] * pair["target_kv"],
        "draft_kv_bytes": state["ctx"] * pair["draft_kv"],
    }
    return {"kw": kw, "memory": hw["memory"] * n, "hw": hw, "pair": pair}


def _footprint_kw(kw: dict) -> dict:
    return {k: kw[k] for k in ("target_params", "draft_params", "bytes_per_param", "target_kv_bytes", "draft_kv_bytes")}


def max_fitting_batch(memory: float, kw: dict) -> int:
    """The largest batch in 0..MAX_BATCH whose weights plus KV caches fit in ``memory`` bytes
    (0: not even the weights fit). The footprint grows with the batch, so this is a count."""
    batches = np.arange(1, MAX_BATCH + 1, dtype=float)
    fits = memory_footprint(batches, **_footprint_kw(kw)) <= memory
    return int(np.argmin(fits)) if not fits.all() else MAX_BATCH


def _hw(kw: dict) -> dict:
    return {k: kw[k] for k in ("bytes_per_param", "bandwidth", "flops")}


def describe(state: dict, presets: dict | None = None) -> dict:
    """The panel's readout for one state: numbers and words, as sd-serving.js describe()."""
    cfg = config(state, presets)
    kw, hw = cfg["kw"], _hw(cfg["kw"])
    a, g, b = state["alpha"], state["gamma"], state["batch"]
    pt, kvt = kw["target_params"], kw["target_kv_bytes"]
    plain = float(step_time(pt, b, 1, kvt, **hw))
    verify = float(step_time(pt, b, g + 1, kvt, **hw))
    draft = float(step_time(kw["draft_params"], b, 1, kw["draft_kv_bytes"], **hw))
    # compute-bound: the FLOP term of the roofline is the larger one
    compute = 2.0 * pt * b * (g + 1) / kw["flops"] > (pt * kw["bytes_per_param"] + b * kvt) / kw["bandwidth"]
    e = float(expected_tokens(a, g))
    s = float(speedup_at_batch(a, g, b, **kw))
    be = break_even_batch(a, g, **kw)
    fit = max_fitting_batch(cfg["memory"], kw)
    ridge = float(ridge_batch(pt, g + 1, kvt, **hw))
    best, best_s = best_gamma_at_batch(a, b, max_gamma=BEST_SEARCH, **kw)
    weights = (pt + kw["draft_params"]) * kw["bytes_per_param"]
    w = WORDS
    mx = group(MAX_BATCH)
    if s > 1.0 + TIE_RTOL:
        kind = "win"
    elif abs(s - 1.0) <= TIE_RTOL:
        kind = "even"
    else:
        kind = "slowdown"
    values = {"batch": group(b), "tokens": g + 1, "verify": fixed(verify / plain, 2),
              "bound": w["bound_compute" if compute else "bound_memory"],
              "cost": fixed((g * draft + verify) / plain, 2), "E": fixed(e, 2), "S": ratio(s)}
    # a batch that does not fit is never called a speed-up: the verdict says so first
    if fit == 0:
        kind = "nofit"
        verdict = w["no_fit"].format(weights=gigabytes(weights), memory=gigabytes(cfg["memory"]))
    elif b > fit:
        kind = "nofit"
        verdict = w["too_big"].format(batch=group(b), fit=group(fit), memory=gigabytes(cfg["memory"]))
    else:
        verdict = w[kind].format(**values)
    if fit > 0:
        if be is None:
            verdict += w["keeps_paying"].format(max=mx) if fit >= MAX_BATCH else w["keeps_paying_fit"].format(fit=group(fit))
        elif be > fit:
            verdict += w["beyond_fit"].format(break_even=group(be), fit=group(fit))
        else:
            verdict += w["switch_off"].format(break_even=group(be))
    if fit == 0:
        fit_text = w["fit_none"].format(weights=gigabytes(weights))
    elif fit >= MAX_BATCH:
        fit_text = w["fit_all"].format(max=mx, memory=gigabytes(cfg["memory"]))
    else:
        fit_text = w["fit_up_to"].format(fit=group(fit), memory=gigabytes(cfg["memory"]))
    if fit == 0:
        first = ""
    elif be is not None:
        first = w["summary_break"].format(break_even=group(be))
    else:
        first = w["summary_none"].format(max=mx) if fit >= MAX_BATCH else w["summary_none_fit"].format(fit=group(fit))
    if kind == "nofit":
        summary = w["summary_nofit"].format(batch=group(b), ctx=group(state["ctx"]), fit=group(fit), first=first).rstrip()
    else:
        summary = w["summary"].format(batch=group(b), ctx=group(state["ctx"]), S=fixed(s, 2), kind=w["summary_" + kind],
                                      first=first)
    return {
        "kind": kind, "S": s, "E": e, "verify": verify / plain, "cost": (g * draft + verify) / plain,
        "compute_bound": bool(compute), "break_even": be, "fit": fit, "ridge": ridge, "best": best, "best_s": best_s,
        "text": {
            "serving_verify": fixed(verify / plain, 2),
            "serving_cost": fixed((g * draft + verify) / plain, 2),
            "serving_S": w["not_fit_S"] if kind == "nofit" else fixed(s, 3) + "×",
            "serving_bound": w["compute_bound" if compute else "memory_bound"],
            "serving_break": group(be) if be is not None else w["no_break_even"].format(max=mx),
            "serving_fit": fit_text,
            # no speedup, not even the best depth's, is claimed for a batch that does not fit
            "serving_best": (w["best_nofit"] if kind == "nofit" else
                             w["best_at"].format(best=best, best_s=fixed(best_s, 2)) if best else w["best_none"]),
            "serving_draft": w["draft"].format(c=_c(state["c"]), draft=fixed(kw["draft_params"] / 1e9, 2),
                                               draft_name=cfg["pair"]["draft"]),
            "serving_verdict": verdict,
        },
        "summary": summary,
    }


def _c(c: float) -> str:
    """The figure's c in the panel's words: up to four decimals, at least two (0.05, 0.0175, 0.1138),
    as sd-serving.js cText()."""
    t = fixed(c, 4)
    while t.endswith("0") and len(t.split(".")[1]) > 2:
        t = t[:-1]
    return t


# ---------------------------------------------------------------- chart rows


def batch_grid() -> np.ndarray:
    """The chart's batch sizes: ``grid_per_octave`` per doubling from 1 to MAX_BATCH, real numbers
    (the model takes real batches, so the line is smooth; as sd-serving.js batchGrid())."""
    per = SERVING["grid_per_octave"]
    octaves = int(round(math.log2(MAX_BATCH)))
    return 2.0 ** (np.arange(octaves * per + 1) / per)


def _line(grid, speedups, series: str, fit: int) -> list[dict]:
    """One line's rows {batch, S, series, fits}; the last batch that fits is written twice,
    once on each side, so the faded part (fits false) starts where the solid one ends."""
    rows = []
    for x, y in zip(grid, speedups):
        row = {"batch": round(float(x), 6), "S": round(float(y), 6), "series": series, "fits": bool(x <= fit)}
        if not row["fits"] and rows and rows[-1]["fits"]:
            rows.append({**rows[-1], "fits": False})
        rows.append(row)
    return rows


def chart_rows(state: dict, presets: dict | None = None) -> dict[str, list[dict]]:
    """The serving chart's datasets for one state (sd-serving.js chartRows()):

    * ``serving``: {batch, S, series, fits} over ``batch_grid()`` for the state's
      context ("your context") and for ``long_context``, each line faded (fits
      false) over the batches whose weights and caches do not fit in memory;
    * ``serving_marks``: {kind, batch, batch2, S, label}: "nofit" (the batches
      that do not fit at the state's context, batch..batch2), "ridge" (where the
      target's verification pass turns compute-bound), "break_even" (the first
      slowdown), "current" (the state's batch).
    """
    grid = batch_grid()
    w = WORDS
    cfg = config(state, presets)
    kw = cfg["kw"]
    a, g = state["alpha"], state["gamma"]
    long_kw = config({**state, "ctx": SERVING["long_context"]}, presets)["kw"]
    fit = max_fitting_batch(cfg["memory"], kw)
    rows = _line(grid, speedup_at_batch(a, g, grid, **kw), w["series_context"], fit)
    rows += _line(grid, speedup_at_batch(a, g, grid, **long_kw),
                  w["series_long"].format(ctx=group(SERVING["long_context"])), max_fitting_batch(cfg["memory"], long_kw))
    marks = []
    if fit < MAX_BATCH:
        marks.append({"kind": "nofit", "batch": max(fit, 1), "batch2": MAX_BATCH, "S": None, "label": w["nofit"]})
    ridge = float(ridge_batch(kw["target_params"], g + 1, kw["target_kv_bytes"], **_hw(kw)))
    if 1 <= ridge <= MAX_BATCH:
        marks.append({"kind": "ridge", "batch": round(ridge, 6), "batch2": None, "S": None,
                      "label": w["ridge"].format(batch=group(int(fixed(ridge, 0))))})
    be = break_even_batch(a, g, **kw)
    if be is not None:
        marks.append({"kind": "break_even", "batch": be, "batch2": None,
                      "S": round(float(speedup_at_batch(a, g, be, **kw)), 6),
                      "label": w["break_even"].format(batch=group(be))})
    marks.append({"kind": "current", "batch": state["batch"], "batch2": None,
                  "S": round(float(speedup_at_batch(a, g, state["batch"], **kw)), 6), "label": "",
                  "fits": bool(state["batch"] <= fit)})  # where not, the chart puts your batch on the axis
    return {"serving": rows, "serving_marks": marks}


# ---------------------------------------------------------------- page data


#: the contexts of data.json's table: none, a common 4k, and the chart's long context
TABLE_CONTEXTS = (0, 4096, SERVING["long_context"])


def table() -> list[dict]:
    """data.json's ``serving`` table: for every hardware x pairing x context of
    ``TABLE_CONTEXTS``, at the default alpha, gamma and devices and the pairing's own c,
    the speedup at batch 1, the first slowdown, the ridge and how many sequences fit."""
    presets = presets_data()
    a, g = DEFAULTS["alpha"], DEFAULTS["gamma"]
    out = []
    for hw in presets["hardware"]:
        for pair in presets["pairings"]:
            for ctx in TABLE_CONTEXTS:
                state = {**DEFAULTS, "hw": hw["id"], "pair": pair["id"], "ctx": ctx, "c": pair["c"]}
                cfg = config(state, presets)
                kw = cfg["kw"]
                ridge = float(ridge_batch(kw["target_params"], g + 1, kw["target_kv_bytes"], **_hw(kw)))
                out.append({"hw": hw["id"], "pair": pair["id"], "ctx": ctx, "devices": state["devices"],
                            "speedup_at_1": round(float(speedup_at_batch(a, g, 1, **kw)), 4),
                            "break_even": break_even_batch(a, g, **kw), "fit": max_fitting_batch(cfg["memory"], kw),
                            "ridge": round(ridge, 2) if math.isfinite(ridge) else None})
    return out
