"""The site's own assets: hashed names, and scripts that name the assets they load."""

from __future__ import annotations

import re

import pytest

from site_builder.render import assets as assets_module
from site_builder.outputs.site import site_assets


def test_site_js_loads_search_js_by_the_hashed_name_the_build_writes_into_it():
    """Issue 30: no script URL is read from the page; site.js carries search.js's name."""
    store = site_assets()
    site_js = store.files[store.urls["site.js"]].decode()
    hashed = store.urls["search.js"].rpartition("/")[2]
    assert re.fullmatch(r"search\.[0-9a-f]{10}\.js", hashed)
    assert site_js.count(f'"{hashed}"') == 1 and '"search.js"' not in site_js
    assert "data-script" not in site_js and "getAttribute(\"data-root\")" not in site_js
    assert site_assets().files == store.files, "the same bytes every build"


def test_a_script_that_no_longer_names_its_asset_is_a_build_error(monkeypatch):
    monkeypatch.setitem(assets_module.NAMED_ASSETS, "favicon.svg", ("search.js",))
    with pytest.raises(ValueError, match="must name search.js once"):
        site_assets()
