"""The explainer kit's build side (issue 36): one script for every explainer,
the stylesheet's minification, the assets a script may load."""

from __future__ import annotations

import re

import pytest

from site_builder.explainers import kit
from site_builder.explainers.kit import theme


def test_the_kit_s_script_is_its_parts_minified_in_order_and_names_nothing_of_an_explainer():
    script = kit.script().decode()
    assert script.startswith("/* explainer kit: static/kit-frames.js, kit-state.js, kit-charts.js */\n")
    assert script.endswith("".join(kit.shipped((kit.STATIC / n).read_text()) for n in kit.SCRIPTS))
    assert "SpeculativeDecoding" not in script and "Doubling" not in script, "the same bytes for every explainer"


def test_shipped_css_keeps_strings_and_rules_and_drops_comments_and_spaces():
    css = '/* a */\n.a  .b:hover ,\n.c > d {\n  content: "x:  ; { }" ;\n  margin: 0  auto;\n}\n@media (min-width: 3rem) { .e { width: calc(100% - 2px); } }\n'
    assert kit.shipped_css(css) == ('.a .b:hover,.c > d{content:"x:  ; { }";margin:0 auto}'
                                    '@media (min-width:3rem){.e{width:calc(100% - 2px)}}\n')
    shipped = kit.stylesheet().decode()
    assert "/*" not in shipped and len(shipped) < 0.8 * len((kit.STATIC / "kit.css").read_text())
    source_selectors = set(re.findall(r"\.kit-[\w-]+", (kit.STATIC / "kit.css").read_text()))
    assert source_selectors == set(re.findall(r"\.kit-[\w-]+", shipped)) and len(source_selectors) >= 15


def test_a_script_loads_only_files_beside_the_kit_s_script():
    assert kit.asset_names("assets", {"spec": "assets/ex-specs-a.0123456789.js"}) == {"spec": "ex-specs-a.0123456789.js"}
    with pytest.raises(ValueError, match="beside the kit's script"):
        kit.asset_names("assets", {"spec": "elsewhere/ex.js"})


def test_one_palette_per_drawn_theme_from_the_slots():
    assert set(theme.PALETTES) == {"live", "light", "dark"}
    for palette in theme.PALETTES.values():
        assert set(palette) == {theme.SLOT + k for k in (*theme.THEMES["light"], *theme.TEXT_INKS["light"])}
    assert theme.PALETTES["live"][theme.SLOT + "ink"] == "currentColor" and theme.PALETTES["live"][theme.SLOT + "bg"] == "transparent"
