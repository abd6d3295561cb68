"""serving_panel.py / serving_charts.py: the serving-under-load panel's numbers, words, chart rows and markup.

The numbers are checked against an independent computation (plain Python floats,
no numpy, no module helpers: the roofline as the issue writes it); the markup
against the built page.
"""

from __future__ import annotations

import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import chart_specs, explainer_lazy_assets, js_data_value

from site_builder.explainers import base
from site_builder.explainers.speculative_decoding import page, serving_charts, serving_panel
from site_builder.explainers.speculative_decoding import serving_presets as sp
from site_builder.explainers.speculative_decoding.model import speedup

DEFAULTS = page.DEFAULTS
STATIC = Path(page.__file__).with_name("static")
PRESETS = serving_panel.presets_data()
MAX = 4096


# -- the independent computation -------------------------------------------------------------------------------


def t_pass(P, B, T, kv, b, BW, F):
    return max((P * b + B * kv) / BW, 2.0 * P * B * T / F)


def roofline(state):
    """(Pt, Pd, b, BW, F, kv_t, kv_d, memory) for a state, from serving_presets directly."""
    hw = next(a for a in sp.accelerators() if a.id == state["hw"])
    pair = next(p for p in sp.pairings() if p.id == state["pair"])
    t, d = sp.model(pair.target), sp.model(pair.draft)
    n = state["devices"]
    return (t.params, state["c"] * t.params, 2, hw.bandwidth * n, hw.flops * n,
            state["ctx"] * t.kv_bytes_per_token, state["ctx"] * d.kv_bytes_per_token, hw.memory * n)


def s_direct(state, B):
    Pt, Pd, b, BW, F, kvt, kvd, _ = roofline(state)
    a, g = state["alpha"], state["gamma"]
    e = sum(a**k for k in range(g + 1))
    return e * t_pass(Pt, B, 1, kvt, b, BW, F) / (g * t_pass(Pd, B, 1, kvd, b, BW, F) + t_pass(Pt, B, g + 1, kvt, b, BW, F))


def fit_direct(state):
    Pt, Pd, b, _, _, kvt, kvd, memory = roofline(state)
    n = 0
    while n < MAX and (Pt + Pd) * b + (n + 1) * (kvt + kvd) <= memory:
        n += 1
    return n


def states():
    out = []
    for hw in sp.accelerators():
        for pair in sp.pairings():
            for ctx in (0, 4096, 32768):
                for devices in (1, 8):
                    for alpha, gamma, c in ((0.8, 5, pair.c), (0.3, 2, 0.2), (0.95, 12, 0.01)):
                        out.append({**DEFAULTS, "hw": hw.id, "pair": pair.id, "ctx": ctx, "devices": devices,
                                    "alpha": alpha, "gamma": gamma, "c": c, "batch": 64})
    return out


# -- numbers -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("state", states()[::5])
def test_readout_numbers_match_the_direct_roofline(state):
    d = serving_panel.describe(state)
    assert d["S"] == pytest.approx(s_direct(state, state["batch"]), rel=1e-12)
    assert d["fit"] == fit_direct(state)
    slow = next((B for B in range(1, MAX + 1) if s_direct(state, B) < 1 - 1e-12), None)
    assert d["break_even"] == slow
    Pt, _, b, BW, F, kvt, _, _ = roofline(state)
    g = state["gamma"]
    assert d["verify"] == pytest.approx(t_pass(Pt, 64, g + 1, kvt, b, BW, F) / t_pass(Pt, 64, 1, kvt, b, BW, F), rel=1e-12)
    assert d["compute_bound"] == (2.0 * Pt * 64 * (g + 1) / F > (Pt * b + 64 * kvt) / BW)
    by_depth = [s_direct({**state, "gamma": k}, 64) if k else 1.0 for k in range(65)]
    assert d["best"] == next(k for k, s in enumerate(by_depth) if s >= max(by_depth) * (1 - 1e-12))


@pytest.mark.parametrize("pair", [p.id for p in sp.pairings()])
@pytest.mark.parametrize("c", [0.05, 0.3, None])
def test_batch_one_without_kv_is_the_main_readout(pair, c):
    # The panel's draft is c x P_t: at batch 1 with no KV term its S is E / (1 + gamma c) for every c,
    # the pairing's own ratio included.
    c = next(p.c for p in sp.pairings() if p.id == pair) if c is None else c
    for hw in sp.accelerators():
        state = {**DEFAULTS, "pair": pair, "hw": hw.id, "ctx": 0, "batch": 1, "c": round(c, 6)}
        d = serving_panel.describe(state)
        assert d["S"] == pytest.approx(float(speedup(state["alpha"], state["gamma"], state["c"])), rel=1e-13)
        # the main readout writes S with three decimals (page.markup): the two read the same
        assert d["text"]["serving_S"] == serving_panel.fixed(page.describe(state["alpha"], state["gamma"], state["c"])["S"], 3) + "×"
        assert d["verify"] == 1.0 and not d["compute_bound"]


def test_a_pairing_sets_c_to_its_memory_bound_ratio():
    for p in PRESETS["pairings"]:
        pair = next(x for x in sp.pairings() if x.id == p["id"])
        assert p["c"] == round(pair.c, 6) and pair.sources["c"].startswith("derived")
        assert p["target_params"] == sp.model(pair.target).params and p["draft_params"] == sp.model(pair.draft).params
        assert p["c"] * p["target_params"] == pytest.approx(p["draft_params"], rel=1e-5)
        assert f"c = P_d / P_t = {serving_panel.fixed(pair.c, 4)} (derived)" in p["summary"]


def test_the_presets_are_serving_presets_values_with_their_tags():
    for h, a in zip(PRESETS["hardware"], sp.accelerators()):
        assert (h["id"], h["bandwidth"], h["flops"], h["memory"]) == (a.id, a.bandwidth, a.flops, a.memory)
        for key, source in a.sources.items():
            tag = "derived" if source.startswith("derived") else "printed"
            assert tag in h["summary"]
        assert h["citations"] == a.citations
    h200 = next(h for h in PRESETS["hardware"] if h["id"] == "h200-sxm")
    assert "989.5 TFLOPS dense BF16 (derived)" in h200["summary"]
    mi300 = next(h for h in PRESETS["hardware"] if h["id"] == "mi300x")
    assert mi300["summary"] == ("5.3 TB/s of memory bandwidth (printed), 1307.4 TFLOPS dense BF16 (printed), "
                                "192 GB HBM3 per device (printed).")


def test_every_figure_a_reader_sees_is_the_vendors():
    """The summary line shows each preset's three figures as the vendor prints them, and the
    verdict's memory is the devices' printed GB added up (no GiB anywhere on the panel)."""
    for h in PRESETS["hardware"]:
        figures = VENDOR_FIGURES[h["id"]]
        assert h["summary"].startswith(f"{figures['bandwidth']} of memory bandwidth (")
        assert f", {figures['flops']} dense BF16 (" in h["summary"]
        assert f", {figures['memory']} per device (" in h["summary"]
        assert "GiB" not in h["summary"] and "TFLOP/s" not in h["summary"]
        per_device = int(figures["memory"].split()[0])
        for n in (1, 2, 8):
            d = serving_panel.describe({**DEFAULTS, "hw": h["id"], "devices": n, "ctx": 131072, "batch": 4096})
            words = " ".join(d["text"].values())
            assert f"of {serving_panel.group(per_device * n)} GB" in words or f"in {serving_panel.group(per_device * n)} GB" in words, words


# each figure as the vendor's data sheet prints it (written out here, not read from the presets)
VENDOR_FIGURES = {
    "a100-80gb-sxm": {"memory": "80 GB HBM2e", "bandwidth": "2,039 GB/s", "flops": "312 TFLOPS"},
    "h100-sxm": {"memory": "80 GB HBM3", "bandwidth": "3.35 TB/s", "flops": "989.4 TFLOPS"},
    "h200-sxm": {"memory": "141 GB HBM3e", "bandwidth": "4.8 TB/s", "flops": "989.5 TFLOPS"},
    "mi300x": {"memory": "192 GB HBM3", "bandwidth": "5.3 TB/s", "flops": "1307.4 TFLOPS"},
}


def test_every_shown_figure_is_the_vendors_and_the_numbers_are_its_bytes():
    by = {a.id: a for a in sp.accelerators()}
    assert set(by) == set(VENDOR_FIGURES)
    for hw, figures in VENDOR_FIGURES.items():
        a = by[hw]
        assert a.shown == figures, hw
        # the number the model computes with is the shown figure in SI units, decimal as printed
        number, unit = figures["memory"].split()[:2]
        assert unit == "GB" and a.memory == int(number) * 10**9, hw
        assert a.to_dict()["shown"] == figures


def test_vendor_quantity_reads_only_the_vendors_units():
    assert sp.vendor_quantity("2,039 GB/s") == 2.039e12 and sp.vendor_quantity("3.35 TB/s") == 3.35e12
    assert sp.vendor_quantity("192 GB HBM3") == 192e9 and sp.vendor_quantity("1307.4 TFLOPS") == 1307.4e12
    for bad in ("192 GiB", "80GB", "3.35", "fast TB/s"):
        with pytest.raises((ValueError, ArithmeticError)):
            sp.vendor_quantity(bad)


def test_default_story_and_the_words_past_break_even():
    d = serving_panel.describe(DEFAULTS)
    assert d["kind"] == "win" and d["break_even"] == 170 and d["fit"] == MAX
    assert d["text"]["serving_verdict"].endswith("At batch 170 this pairing first turns into a slowdown: "
                                                "a server this busy should switch speculation off.")
    past = serving_panel.describe({**DEFAULTS, "batch": 170})
    assert past["kind"] == "slowdown" and past["text"]["serving_verdict"].startswith("A slowdown at batch 170: ")
    assert "compute-bound" in past["text"]["serving_verdict"]
    assert serving_panel.describe({**DEFAULTS, "batch": 169})["kind"] == "win"


def test_break_even_beyond_what_fits_is_said():
    # Llama 3.1 8B for 70B at 4k tokens on 8 H100s: the first slowdown (batch 810) lies past the 261 that fit
    d = serving_panel.describe({**DEFAULTS, "ctx": 4096, "batch": 300})
    assert (d["break_even"], d["fit"]) == (810, 261)
    assert d["kind"] == "nofit" and d["text"]["serving_verdict"].startswith(
        "Does not fit: batch 300 needs more memory than the 640 GB at this context, where at most 261 sequences fit")
    assert "Pays off" not in d["text"]["serving_verdict"] and "×" not in d["text"]["serving_S"]
    # not even the best depth's speedup is claimed at a batch that does not fit (it read "γ = 2 at 1.37×")
    assert d["text"]["serving_best"] == "none: this batch does not fit"
    assert serving_panel.describe({**DEFAULTS, "ctx": 4096, "batch": 261})["text"]["serving_best"].startswith("γ = ")
    assert "does not fit in memory" in d["summary"] and "speedup" not in d["summary"]
    assert d["text"]["serving_verdict"].endswith("only 261 sequences fit in memory: the server never gets busy enough "
                                                "for speculation to hurt.")
    assert d["text"]["serving_fit"] == "up to batch 261 (of 640 GB)"


def test_long_contexts_keep_it_paying_with_a_small_kv_draft_and_not_with_llama2():
    small = serving_panel.describe({**DEFAULTS, "pair": "llama-3.1-70b-3.2-1b", "ctx": 32768, "c": 0.017516})
    # no slowdown up to 4,096, but only 42 sequences fit: the verdict claims no more than that
    assert small["break_even"] is None and small["fit"] == 42
    assert small["text"]["serving_verdict"].endswith("It pays at every batch that fits, up to 42.")
    assert "whole range" not in small["text"]["serving_verdict"]
    assert small["text"]["serving_break"] == "none up to 4,096"
    # Llama 2 7B (no GQA) reads more KV per token than Llama 2 70B: at long contexts it hurts early
    l2 = serving_panel.describe({**DEFAULTS, "pair": "llama-2-70b-7b", "ctx": 32768, "c": 0.097691})
    assert l2["break_even"] is not None and l2["break_even"] < 10


def test_weights_that_do_not_fit_are_said():
    d = serving_panel.describe({**DEFAULTS, "devices": 1})
    assert d["fit"] == 0
    assert d["kind"] == "nofit" and d["text"]["serving_verdict"] == (
        "Does not fit: the weights alone (148 GB) do not fit in 80 GB of memory, so no batch runs at all: add devices.")
    assert d["text"]["serving_fit"] == "none: the weights alone need 148 GB"


def test_number_formats_are_javascripts():
    assert serving_panel.fixed(0.625, 2) == "0.63" and serving_panel.fixed(2.5, 0) == "3"
    assert serving_panel.group(4096) == "4,096" and serving_panel.group(1) == "1"
    assert serving_panel.gigabytes(1649.267e9) == "1,649" and serving_panel.gigabytes(8 * 192e9) == "1,536"
    assert [serving_panel._c(x) for x in (0.05, 0.017516, 0.113818, 0.5, 1.0)] == ["0.05", "0.0175", "0.1138", "0.50", "1.00"]


# -- chart rows --------------------------------------------------------------------------------------------------


def test_chart_rows_are_the_roofline_on_the_log_grid():
    state = {**DEFAULTS, "ctx": 4096}
    rows = serving_panel.chart_rows(state)
    grid = serving_panel.batch_grid()
    assert grid[0] == 1 and grid[-1] == MAX and len(grid) == 12 * serving_panel.SERVING["grid_per_octave"] + 1
    long_state = {**state, "ctx": serving_panel.SERVING["long_context"]}
    for series, st in (("your context", state), ("32,768 tokens of context", long_state)):
        line = [r for r in rows["serving"] if r["series"] == series]
        fit = fit_direct(st)
        # every grid batch once, and the last one that fits twice: solid, then where the faded part starts
        assert [r["batch"] for r in line if r["fits"]] == [round(float(x), 6) for x in grid if x <= fit]
        faded = [r["batch"] for r in line if not r["fits"]]
        assert faded == [round(float(x), 6) for x in grid if x <= fit][-1:] + [round(float(x), 6) for x in grid if x > fit]
        for r in line:
            assert r["S"] == pytest.approx(s_direct(st, r["batch"]), abs=1e-5)
    assert fit_direct(long_state) == 32
    marks = {m["kind"]: m for m in rows["serving_marks"]}
    assert marks["nofit"]["batch"] == fit_direct(state) == 261 and marks["nofit"]["batch2"] == MAX
    assert marks["break_even"]["batch"] == 810 and marks["break_even"]["label"] == "break-even 810"
    Pt, _, b, BW, F, kvt, _, _ = roofline(state)
    ridge = (Pt * b / BW) / (2 * Pt * 6 / F - kvt / BW)
    assert marks["ridge"]["batch"] == pytest.approx(ridge, abs=1e-6)
    assert marks["current"]["batch"] == state["batch"]
    assert marks["current"]["fits"] is (state["batch"] <= 261)
    # a batch past the fit: the chart has no speedup point for it (serving_charts draws it on the axis)
    over = {m["kind"]: m for m in serving_panel.chart_rows({**state, "batch": 512})["serving_marks"]}
    assert over["current"]["fits"] is False


def test_chart_rows_at_defaults_mark_no_nofit_band_and_everything_fits():
    kinds = [m["kind"] for m in serving_panel.chart_rows(DEFAULTS)["serving_marks"]]
    assert kinds == ["ridge", "break_even", "current"]


def test_serving_chart_validates_for_every_theme():
    for theme in ("live", "light", "dark"):
        spec = serving_charts.spec(DEFAULTS, theme)
        assert set(spec["datasets"]) == {"serving", "serving_marks"}
        assert spec["description"] == serving_charts.DESCRIPTION
        assert spec["params"][0] == {"name": "ymax", "value": 3.5}


def test_constants_agree_with_the_script():
    js = (STATIC / "sd-serving.js").read_text()
    assert "var BYTES_PER_PARAM = 2;" in js and sp.BF16_BYTES == 2
    assert "var BEST_SEARCH = 64;" in js and serving_panel.BEST_SEARCH == 64
    assert serving_panel.SERVING["max_batch"] == MAX
    assert serving_panel.SERVING["batches"][0] == 1 and serving_panel.SERVING["batches"][-1] == MAX
    assert serving_panel.SERVING["batches"] == sorted(set(serving_panel.SERVING["batches"]))
    assert serving_panel.SERVING["contexts"] == sorted(set(serving_panel.SERVING["contexts"]))
    assert serving_panel.SERVING["long_context"] in serving_panel.SERVING["contexts"]
    for key in ("batch", "ctx", "devices", "hw", "pair"):
        assert key in DEFAULTS
    assert DEFAULTS["hw"] in [h["id"] for h in PRESETS["hardware"]]
    assert DEFAULTS["pair"] in [p["id"] for p in PRESETS["pairings"]]


def test_page_data_table_matches_the_direct_roofline():
    from site_builder.explainers.speculative_decoding import data
    table = data.page_data()["serving"]["table"]
    assert len(table) == len(PRESETS["hardware"]) * len(PRESETS["pairings"]) * 3
    for row in table[::4]:
        pair = next(p for p in sp.pairings() if p.id == row["pair"])
        state = {**DEFAULTS, "hw": row["hw"], "pair": row["pair"], "ctx": row["ctx"], "c": round(pair.c, 6)}
        assert row["speedup_at_1"] == pytest.approx(s_direct(state, 1), abs=6e-5)
        assert row["fit"] == fit_direct(state)
        assert row["break_even"] == next((B for B in range(1, MAX + 1) if s_direct(state, B) < 1 - 1e-12), None)


# -- markup ------------------------------------------------------------------------------------------------------


def _ctx(store: dict) -> base.ExplainerContext:
    def add(name: str, blob: bytes) -> str:
        stem, ext = name.rsplit(".", 1)
        url = f"assets/{stem}.{hashlib.sha256(blob).hexdigest()[:10]}.{ext}"
        store[url] = blob
        return url

    return base.ExplainerContext(slug="speculative-decoding", root="../", add_asset=add)


@pytest.fixture(scope="module")
def built():
    assets: dict[str, bytes] = {}
    return page.build(_ctx(assets)), assets


class _Panel(HTMLParser):
    """The serving panel's elements: tags inside <section class="sd-panel sd-panel-serving">."""

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "sd-panel-serving" in (a.get("class") or ""):
            self.depth = 1
        elif self.depth and tag == "section":
            self.depth += 1
        if self.depth:
            self.tags.append((tag, a))

    def handle_endtag(self, tag):
        if self.depth and tag == "section":
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.text.append(data)


def test_the_panel_is_in_the_figure_with_its_controls_readout_and_chart(built):
    b, _ = built
    panel = _Panel()
    panel.feed(b.html)
    tags = panel.tags
    ids = {a["id"] for _, a in tags if "id" in a}
    assert {"sd-serving-title", "sd-hw", "sd-devices", "sd-pair", "sd-batch", "sd-ctx"} <= ids
    fieldset = next(a for t, a in tags if t == "fieldset")
    assert "disabled" in fieldset and "sd-serving" in fieldset["class"]
    batch = next(a for t, a in tags if a.get("id") == "sd-batch")
    assert (batch["min"], batch["max"], batch["value"]) == ("0", str(len(serving_panel.SERVING["batches"]) - 1), "0")
    assert batch["aria-valuetext"] == "batch size 1"
    labels = {a["for"] for t, a in tags if t == "label"}
    assert {"sd-hw", "sd-devices", "sd-pair", "sd-batch", "sd-ctx"} <= labels
    text = "".join(panel.text)
    d = serving_panel.describe(DEFAULTS)
    for key, value in d["text"].items():
        assert value in text, key
    assert any(t == "p" and "data-announce-serving" in a and a.get("aria-live") == "polite" and a.get("role") == "status"
               for t, a in tags)
    img = next(a for t, a in tags if t == "img")
    assert img["src"] == "serving.svg" and int(img["width"]) > 0 and int(img["height"]) > 0
    assert "first falls below 1 at batch 170" in img["alt"] and "ridge at batch 49" in img["alt"]
    assert b.html.count("data-announce ") + b.html.count("data-announce>") == 1, "one main announcer"


def test_the_panel_ships_its_svgs_spec_and_presets(built):
    b, assets = built
    assert {"serving.svg", "serving-dark.svg"} <= set(b.files)
    svg = b.files["serving.svg"]
    assert b"<script" not in svg and b"break-even 170" in svg and b"ridge 49" in svg
    assert b"ridge 49" in b.files["serving-dark.svg"]
    vega = chart_specs(b.html, assets)["serving"]
    assert {"serving", "serving_marks"} <= {d["name"] for d in vega["data"]}
    assert {s["name"] for s in vega["signals"]} >= {"ymax", "goodInk", "badInk"}
    script = assets[b.scripts[-1]].decode()  # the widget's own, after the kit's shared script
    shipped = js_data_value(script, "data")
    # the widget's script: the words, lists and preset ids; the presets and the panel's code load lazily
    assert shipped["serving"] == serving_panel.SERVING
    assert shipped["serving_ids"] == {k: [p["id"] for p in PRESETS[k]] for k in ("hardware", "pairings")}
    assert "sd-charts.js" in page.SCRIPTS and page.SERVING_SCRIPTS == ["sd-serving.js", "sd-serving-panel.js"]
    url = explainer_lazy_assets(b.html, assets)["serving"]
    assert re.fullmatch(r"assets/sd-serving\.[0-9a-f]+\.js", url)
    assert url not in b.scripts
    lazy = assets[url].decode()
    assert js_data_value(lazy, "servingPresets") == json.loads(json.dumps(PRESETS))
    assert lazy.split(";\n", 1)[1] == "".join(page.shipped((STATIC / name).read_text()) for name in page.SERVING_SCRIPTS)


def test_no_script_part_spells_the_panels_words():
    for name in page.SCRIPTS + page.SERVING_SCRIPTS:
        js = (STATIC / name).read_text()
        assert "switch speculation off" not in js and "h100-sxm" not in js and "4096]" not in js, name


def test_every_script_part_stays_under_400_lines():
    for name in page.SCRIPTS + page.SERVING_SCRIPTS:
        assert len((STATIC / name).read_text().splitlines()) <= 400, name
    for module in (page, serving_panel, serving_charts):
        assert len(Path(module.__file__).read_text().splitlines()) <= 400, module.__name__


def test_ids_of_the_panel_are_declared():
    from site_builder.explainers.speculative_decoding import EXPLAINER
    assert {"sd-serving-title", "sd-hw", "sd-devices", "sd-pair", "sd-batch", "sd-batch-hint", "sd-ctx",
            "sd-ctx-hint"} <= EXPLAINER.element_ids
