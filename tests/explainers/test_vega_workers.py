"""explainers/vega.py: one render for both themes, one compile for every theme,
and when converter workers may start.

The build draws each chart's light and dark SVG from one placeholder render
when the two specs differ only in plain colours (``vega.one_for_both``); these
tests hold that to two real renders, byte for byte. That the workers give the
same page as converting in-process, and die with a killed build:
``test_sd_page.test_converter_workers_give_the_same_bytes``,
``test_hardening_kill.test_a_build_killed_while_its_chart_converters_run_leaves_none``.
"""

from __future__ import annotations

import copy
import json

import pytest

from site_builder.explainers import vega
from site_builder.explainers.speculative_decoding import data, page_charts


@pytest.fixture(scope="module")
def themed():
    page_data = data.page_data()
    return page_charts.theme_specs(page_data, "light"), page_charts.theme_specs(page_data, "dark")


@pytest.mark.parametrize("name", ["curve", "plane", "hist", "lossless", "serving"])
def test_one_render_gives_both_themes_byte_for_byte(themed, name):
    light, dark = themed[0][name], themed[1][name]
    both = vega.one_for_both(light, dark)
    assert both is not None, f"{name}: its themes differ in more than colours, so it is rendered twice"
    merged, swaps = both
    assert swaps, "the themes differ in some colour"
    files, sizes = vega.static_charts_from(vega.submit_static({name: {"light": light, "dark": dark}}))
    assert files[f"{name}.svg"].decode() == vega.to_svg(light)
    assert files[f"{name}-dark.svg"].decode() == vega.to_svg(dark)
    assert sizes[name] == vega.svg_size(vega.to_svg(light))


@pytest.mark.parametrize("name", ["curve", "plane", "hist", "lossless", "serving"])
def test_one_compile_gives_what_compiling_each_theme_gives(name):
    # The build compiles each chart once, with placeholder colours, and
    # recolours the Vega (vega.themed); the reader must see what compiling the
    # live, light and dark Vega-Lite specs one by one gives, byte for byte.
    page_data = data.page_data()
    slotted = dict(page_charts.slotted_specs(page_data))[name]
    by_theme = dict(page_charts.themed_specs(page_data))[name]
    live, light_svg, dark_svg = vega.themed(slotted, page_charts.PALETTES, "live")
    assert json.dumps(live) == json.dumps(vega.to_vega(by_theme["live"]))
    assert light_svg == vega.to_svg(by_theme["light"])
    assert dark_svg == vega.to_svg(by_theme["dark"])
    assert light_svg != dark_svg


def test_one_compile_renders_each_theme_apart_when_one_render_cannot_serve_both():
    # A named colour is not one a placeholder stands for (one_for_both gives
    # None): the light and dark SVGs are then rendered one by one, still from one compile.
    spec = {"data": {"values": [{"x": 1}, {"x": 2}]}, "background": "BG",
            "mark": {"type": "point", "color": "INK"}, "encoding": {"x": {"field": "x", "type": "quantitative"}}}
    palettes = {"live": {"BG": "transparent", "INK": "currentColor"},
                "light": {"BG": "white", "INK": "#000000"}, "dark": {"BG": "black", "INK": "#ffffff"}}
    live, light_svg, dark_svg = vega.themed(spec, palettes, "live")
    assert vega.one_for_both(vega.recolour(spec, palettes["light"]), vega.recolour(spec, palettes["dark"])) is None
    for theme, got in (("light", light_svg), ("dark", dark_svg)):
        assert got == vega.to_svg(vega.recolour(spec, palettes[theme]))
    assert json.dumps(live) == json.dumps(vega.to_vega(vega.recolour(spec, palettes["live"])))
    assert live["background"] == "transparent"


def test_specs_differing_in_more_than_plain_colours_are_rendered_apart(themed):
    light = themed[0]["curve"]
    sized = copy.deepcopy(light)
    sized["width"] = light["width"] + 1  # a layout change: no placeholder can stand for it
    assert vega.one_for_both(light, sized) is None
    named = copy.deepcopy(light)
    named["background"] = "black"  # a colour, but not a hex one the placeholders stand for
    assert vega.one_for_both(light, named) is None
    spread = copy.deepcopy(light)
    spread["layer"][0]["encoding"]["color"] = {"field": "S", "type": "quantitative", "scale": {"range": ["#000000", "#ffffff"]}}
    other = copy.deepcopy(spread)
    other["layer"][0]["encoding"]["color"]["scale"]["range"][1] = "#eeeeee"  # blended into a gradient
    assert vega.one_for_both(spread, other) is None
    recoloured = copy.deepcopy(light)
    recoloured["config"]["axis"]["labelColor"] = "#123456"
    merged, swaps = vega.one_for_both(light, recoloured)
    assert list(swaps) == [(light["config"]["axis"]["labelColor"], "#123456")]
    assert merged["config"]["axis"]["labelColor"] == swaps[(light["config"]["axis"]["labelColor"], "#123456")]


def test_no_workers_once_this_process_has_converted():
    # A child forked after vl-convert's runtime started here would inherit the
    # runtime without its threads and hang on its first conversion.
    vega.to_vega({"data": {"values": [{"x": 1}]}, "mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative"}}})
    assert vega.start_workers(2) is False
    vega.stop_workers()  # nothing to stop: a no-op


def test_only_a_fresh_explainer_build_is_prepared(tmp_path):
    # The prepare stage (workers forked, Altair imported) runs when the
    # explainer's build is not in the cache; a rebuild that takes it from the
    # cache pays none of it.
    import shutil

    from helpers import REPO
    from site_builder.build import BuildOptions, build_site

    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    output = tmp_path / "output"
    logs: list[list[str]] = []
    for _ in range(2):
        lines: list[str] = []
        build_site(BuildOptions(content=content, output=output), log=lines.append)
        logs.append(lines)
        plain = next(p for p in sorted((content / "terms").glob("*.md")) if "explainer:" not in p.read_text())
        plain.write_text(plain.read_text().replace("summary: ", "summary: Edited. ", 1))  # a full build, not the fast path
    assert any(line.split()[0] == "prepare" for line in logs[0])
    assert not any(line.split()[0] == "prepare" for line in logs[1]) and any(line.split()[0] == "explainers" for line in logs[1])
    assert vega._WORKERS is None  # released after the explainers stage
