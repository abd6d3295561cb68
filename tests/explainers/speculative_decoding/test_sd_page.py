"""page.py / charts.py of the speculative decoding explainer: the build output."""

from __future__ import annotations

import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import subprocess
import sys

import altair as alt
import jsonschema
import pytest
from altair.utils.schemapi import debug_mode
from helpers import chart_spec_scripts, chart_specs, explainer_lazy_assets, js_data_value

from site_builder.explainers import base, vega
from site_builder.explainers.speculative_decoding import charts, data, model, page, page_charts, serving_charts

STATIC = Path(page.__file__).with_name("static")


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


def _data(script: str, key: str):
    """The JSON a generated script puts in SpeculativeDecoding.<key>."""
    return js_data_value(script, key)


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.tags, self.labels_for, self.inputs = [], [], set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "label" and "for" in a:
            self.labels_for.add(a["for"])
        if tag in ("input", "select"):
            self.inputs.append(a)


def test_contract_output(built):
    b, assets = built
    assert isinstance(b, base.ExplainerBuild)
    assert set(b.files) >= {"data.json", "curve.svg", "curve-dark.svg", "plane.svg", "hist.svg", "lossless.svg", "serving.svg",
                            "serving-dark.svg"}
    assert json.loads(b.files["data.json"]) == json.loads(data.page_data_json())
    assert all(url in assets for url in b.scripts + b.stylesheets)
    # the explainer kit's shared script (one file for every explainer of a site), then the widget's one script
    assert [u.split("/")[1].split(".")[0] for u in b.scripts] == ["explainer-kit", "speculative-decoding"]
    assert b.preview_png[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = int.from_bytes(b.preview_png[16:20], "big"), int.from_bytes(b.preview_png[20:24], "big")
    assert (w, h) == (1200, 630)


def test_markup_is_csp_clean_and_valid(built):
    html = built[0].html
    assert "<script" not in html and "<style" not in html and " style=" not in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org', "")
    p = _Collect()
    p.feed(html)
    assert len(p.ids) == len(set(p.ids)), "duplicate ids"
    for field in p.inputs:
        assert field.get("id") in p.labels_for, f"unlabelled control {field}"
    for tag, a in p.tags:
        if tag == "img":
            assert a.get("width") and a.get("height") and a.get("alt")
    assert 'aria-live="polite"' in html


def test_lazy_sources_point_at_assets(built):
    b, assets = built
    vega = explainer_lazy_assets(b.html, assets)["runtime"]
    assert assets[vega].startswith(b"!function") and b"self.vegaInterpreter" in assets[vega] and b"vegaEmbed" not in assets[vega]
    scripts = chart_spec_scripts(b.html, assets)
    assert set(scripts) == {"curve", "plane", "hist", "lossless", "serving"}, "each chart names its own spec script"
    assert all(text.startswith("/*") for text in scripts.values())
    specs_obj = chart_specs(b.html, assets)
    # run in a JavaScript engine, in any order, the scripts add to one SpeculativeDecoding.specs
    program = "globalThis.self = {};\n" + "".join(reversed(list(scripts.values()))) + \
        "process.stdout.write(JSON.stringify(self.SpeculativeDecoding.specs));"
    ran = subprocess.run(["node", "-e", program], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(ran.stdout) == specs_obj
    assert any(d["name"] == "curve" for d in specs_obj["curve"]["data"])
    assert any(d["name"] == "current" for d in specs_obj["plane"]["data"])
    assert any(d["name"] == "hist" for d in specs_obj["hist"]["data"])


def test_deterministic(built):
    again = page.build(_ctx({}))
    b = built[0]
    assert again.html == b.html and again.files == b.files and again.preview_png == b.preview_png
    assert again.scripts == b.scripts and again.stylesheets == b.stylesheets


def test_static_svgs_have_no_inline_style(built):
    for name, blob in built[0].files.items():
        if name.endswith(".svg"):
            assert b"<svg" in blob[:200] and b"<script" not in blob


def test_charts_validate_against_vega_lite():
    for theme in ("live", "light", "dark"):
        for chart in (charts.curve_chart(theme), charts.plane_chart(theme), charts.hist_chart(theme),
                      charts.lossless_chart(data.page_data()["lossless"], theme)):
            chart.to_dict()  # validates


@pytest.mark.parametrize("theme", page_charts.THEMES)
def test_specs_are_schema_valid(theme):
    # The build makes its specs with Altair's checks off, each chart built once
    # in the "slots" theme and recoloured per theme (page_charts.themed_specs); this is
    # where they are checked: every spec of every theme, datasets attached,
    # against the Vega-Lite schema, and equal, key order included, to what
    # Altair makes in that theme with its checks on (each object checked as it
    # is made, to_dict validating).
    page_data = data.page_data()
    fast = page_charts.theme_specs(page_data, theme)
    assert set(fast) == {"curve", "plane", "hist", "lossless", "serving"}
    for name, spec in fast.items():
        alt.TopLevelSpec.validate(spec)
    a, g, c = page.DEFAULTS["alpha"], page.DEFAULTS["gamma"], page.DEFAULTS["c"]
    with debug_mode(True):
        checked = charts.all_specs(page_data, a, c, g, page.HIST_INDEX, theme)
        checked["serving"] = serving_charts.spec(page.DEFAULTS, theme)
    assert fast == checked
    assert json.dumps(fast) == json.dumps(checked)  # the SVGs follow the specs' key order
    assert charts.SLOT not in json.dumps(fast)


def test_each_chart_is_built_once_with_altair_and_recoloured(monkeypatch):
    # The cost the build saves: one Altair build per chart, in the "slots"
    # theme, not one per theme (test_specs_are_schema_valid holds the
    # recoloured dicts to Altair's own per-theme builds).
    built = []
    real = charts.top_level
    monkeypatch.setattr(charts, "top_level", lambda theme: built.append(theme) or real(theme))
    specs = dict(page_charts.themed_specs(data.page_data()))
    assert built == ["slots"] * len(specs) == ["slots"] * 5
    assert {theme for by_theme in specs.values() for theme in by_theme} == set(page_charts.THEMES)
    slotted = charts.top_level("slots")["config"].to_dict()
    assert slotted["axis"]["labelColor"] == charts.SLOT + "muted"
    assert vega.recolour(slotted, charts.theme_values("dark"))["axis"]["labelColor"] == charts.THEMES["dark"]["muted"]
    assert charts.theme_values("live")[charts.SLOT + "bg"] == "transparent"  # no background: as Altair's build sets it


def test_schema_check_catches_a_broken_spec():
    spec = page_charts.theme_specs(data.page_data(), "light")["curve"]
    spec["layer"][0]["mark"]["type"] = "no-such-mark"
    with pytest.raises(jsonschema.ValidationError):
        alt.TopLevelSpec.validate(spec)


CONVERT_WITH_WORKERS = """
import hashlib, json, sys
from site_builder.explainers import base, vega
from site_builder.explainers.speculative_decoding import page
assert vega.start_workers(2), "no converter workers"
assets = {}
def add(name, blob):
    stem, ext = name.rsplit(".", 1)
    url = f"assets/{stem}.{hashlib.sha256(blob).hexdigest()[:10]}.{ext}"
    assets[url] = hashlib.sha256(blob).hexdigest()
    return url
b = page.build(base.ExplainerContext(slug="speculative-decoding", root="../", add_asset=add))
assert not vega._STARTED, "this process converted: the workers did not"
vega.stop_workers()
h = lambda blob: hashlib.sha256(blob).hexdigest()
print(json.dumps({"html": h(b.html.encode()), "png": h(b.preview_png), "assets": assets,
                  "files": {k: h(v) for k, v in b.files.items()}}))
"""


def test_converter_workers_give_the_same_bytes(built):
    # vega.submit on forked workers (a fresh interpreter: this one may have
    # started vl-convert already) and in this process give the same page.
    b, assets = built
    run = subprocess.run([sys.executable, "-c", CONVERT_WITH_WORKERS], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    h = lambda blob: hashlib.sha256(blob).hexdigest()
    assert got["html"] == h(b.html.encode()) and got["png"] == h(b.preview_png)
    assert got["files"] == {k: h(v) for k, v in b.files.items()}
    assert got["assets"] == {url: h(blob) for url, blob in assets.items()}


def test_curve_rows_match_the_browser_rule():
    rows = charts.curve_rows(0.8, 0.05, 5)
    whole = [r for r in rows if r["whole"]]
    assert [r["gamma"] for r in whole] == list(range(17))
    assert sum(r["peak"] for r in rows) == 1 and sum(r["current"] for r in rows) == 1
    assert next(r for r in rows if r["peak"])["gamma"] == 8


def test_curve_rows_draw_no_diamond_off_the_chart():
    # The readout names the best depth searched to 64; the chart marks it only when it is on the chart.
    assert int(model.optimal_depth(0.95, 0.01, 64)) == 40
    assert not any(r["peak"] for r in charts.curve_rows(0.95, 0.01, 5))
    assert "γ = 40 at" in page.describe(0.95, 5, 0.01)["best_text"]


def test_one_script_the_page_data_then_the_parts_in_order(built):
    b, assets = built
    script = assets[b.scripts[-1]].decode()  # the widget's own, after the kit's shared script
    shipped = _data(script, "data")
    assert shipped["defaults"] == page.DEFAULTS == page.SETTINGS["defaults"]
    assert shipped["words"] == page.WORDS and [p["id"] for p in shipped["presets"]] == [p["id"] for p in data_presets()]
    rest = script.split(";\n", 1)[1]
    # each part as shipped: without its comment lines (tests/js/sd-shipped.test.js runs them)
    assert rest == "".join(page.shipped((STATIC / name).read_text()) for name in page.SCRIPTS)


def test_defaults_and_words_have_one_source():
    # settings.json: page.py reads it, and the build writes it into the script;
    # no part of the script spells a default or a verdict itself.
    for name in page.SCRIPTS:
        js = (STATIC / name).read_text()
        assert "alpha: 0.8" not in js and "Pays off" not in js and "Custom setting" not in js, name
    assert page.describe(0.8, 5, 0.05)["verdict"].startswith(page.WORDS["win"].split("{", 1)[0])


def data_presets():
    return data.page_data()["presets"]


@pytest.mark.parametrize("alpha,gamma,c,kind", [(0.8, 5, 0.05, "win"), (0.1, 4, 0.5, "slowdown"), (0.5, 1, 0.5, "even")])
def test_describe(alpha, gamma, c, kind):
    d = page.describe(alpha, gamma, c)
    assert d["kind"] == kind
    if kind == "slowdown":
        assert "slowdown" in d["verdict"] and "no depth pays off" in d["verdict"]
        assert d["best"] == 0


def test_chart_constants_agree_with_the_script():
    js = (STATIC / "sd-curve.js").read_text()
    assert float(re.search(r"var SMOOTH_STEP = ([\d.]+);", js)[1]) == charts.SMOOTH_STEP
    assert float(re.search(r"var HEADROOM = ([\d.]+);", js)[1]) == charts.HEADROOM
    tops = re.search(r"var Y_TOPS = \[([^\]]+)\];", js)[1]
    assert tuple(float(t) for t in tops.split(",")) == charts.Y_TOPS
    rows = charts.curve_rows(0.8, 0.05, 5)
    assert charts.y_top(rows) >= max(r["S"] for r in rows) * charts.HEADROOM


def test_plane_cells_draw_the_grid_exactly():
    plane = data.page_data()["plane"]
    a, cs, depth = plane["alpha"], plane["c"], plane["optimal_depth"]
    assert charts.PLANE_STEP == pytest.approx(a[1] - a[0]) == pytest.approx(cs[1] - cs[0])
    cells = charts.plane_cells(plane)
    assert len(cells) < (len(a) - 1) * (len(cs) - 1) / 4
    covered = {}
    for cell in cells:
        i = a.index(cell["alpha"])
        j0, j1 = cs.index(cell["c"]), cs.index(cell["c2"])
        assert j1 > j0
        for j in range(j0, j1):
            assert (i, j) not in covered
            covered[i, j] = cell["best"]
    assert covered == {(i, j): min(depth[i][j], 17) for i in range(len(a) - 1) for j in range(len(cs) - 1)}


def test_plane_keeps_its_lines_and_stays_small(built):
    b, assets = built
    plane = chart_specs(b.html, assets)["plane"]
    text = json.dumps(plane, separators=(",", ":"))
    assert len(text) < 40_000, len(text)
    lines = next(d for d in plane["data"] if d["name"] == "lines")["values"]
    kinds = {row["line"] for row in lines}
    assert any(k.startswith("c*(α)") for k in kinds) and any(k.startswith("c = α") for k in kinds)
    assert sum(row["line"].startswith("c*(α)") for row in lines) == 101
    assert len(b.files["plane.svg"]) < 200_000


def test_the_ids_the_markup_uses_are_the_ones_it_declares(built):
    # Term bodies' headings steer clear of the declared ids (markup/render.py):
    # an undeclared one could be taken by a heading too.
    collect = _Collect()
    collect.feed(built[0].html)
    assert set(collect.ids) == base.ELEMENT_IDS["speculative-decoding"]


def test_shipped_parts_lose_comments_and_keep_what_only_looks_like_one():
    js = ("/* header\n * more\n */\nvar a = 1; // gone\n  /** one line */\n"
          "var b = '/* not a comment */', r = /\\/\\/ not one either/g, t = `\n// nor this\n`;\n")
    out = page.shipped(js)
    assert "header" not in out and "gone" not in out and "one line" not in out
    assert "'/* not a comment */'" in out and "/\\/\\/ not one either/g" in out and "`\n// nor this\n`" in out
    assert out.endswith(";\n") and len(out) < len(js)

def test_the_markup_names_no_script_and_the_widget_names_each_lazy_one(built):
    """Issue 30: what the widget loads later is named in its own script, as
    file names beside it, never in the markup content could imitate."""
    b, assets = built
    assert not re.search(r"data-[\w-]*src|assets/", b.html)
    later = explainer_lazy_assets(b.html, assets)
    assert set(later["specs"]) == {"curve", "plane", "hist", "lossless", "serving"}
    for url in [later["runtime"], later["serving"], *later["specs"].values()]:
        assert url in assets and url.count("/") == 1, url
    with pytest.raises(ValueError):
        page.lazy_assets("assets", "assets/vega.js", "assets/s.js", {"curve": "elsewhere/c.js"})
    with pytest.raises(ValueError):
        page.lazy_assets("assets", "assets/", "assets/s.js", {})


def test_plane_legend_puts_no_label_where_grey_meets_yellow():
    """The heat map's gradient: no label may sit over the seam between grey (do not
    speculate) and yellow (depth 1), where "none" once sat on yellow; grey is named in the key."""
    length, values = charts.PLANE_LEGEND
    units_per_px = charts.PLANE_DOMAIN[-1] / length
    lo, hi = charts.PLANE_DOMAIN[0], charts.PLANE_DOMAIN[-1]
    for v in values:
        text = {0: "none", 17: ">16"}.get(v, str(v))
        w = len(text) * 7 * units_per_px  # 11 px text: under 7 px a glyph
        # Vega aligns the gradient's end labels inward, the others on their value
        left, right = (v, v + w) if v == lo else (v - w, v) if v == hi else (v - w / 2, v + w / 2)
        assert left > charts.PLANE_DOMAIN[2] or right < charts.PLANE_DOMAIN[1], text
    spec = charts.plane_chart("light").to_dict(validate=False)
    assert charts.PLANE_NONE_KEY in spec["title"]["subtitle"]
