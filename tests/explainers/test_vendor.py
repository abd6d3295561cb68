"""The vendored Vega runtime: the committed files are the pinned npm releases
(by the digests tools/refresh_vendor.py recorded), and they load as classic
scripts exposing what the charts use."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess

import pytest

from helpers import REPO

VENDOR = REPO / "site_builder" / "explainers" / "vendor"


def refresh_tool():
    spec = importlib.util.spec_from_file_location("refresh_vendor", REPO / "tools" / "refresh_vendor.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_vendored_file_has_the_digest_and_version_recorded():
    record = json.loads((VENDOR / "VENDORED.json").read_text())
    tool = refresh_tool()
    assert set(record) == set(tool.PACKAGES)
    for package, entry in record.items():
        assert entry["version"] == tool.PACKAGES[package][0], package
        assert entry["integrity"].startswith("sha512-")
        assert f"LICENSE-{package}.txt" in entry["files"], "each release ships with its licence"
        for name, digest in entry["files"].items():
            assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, f"{name} differs from {package}@{entry['version']}"
    shipped = {p.name for p in VENDOR.iterdir() if p.suffix in (".js", ".txt")}
    assert shipped == {name for entry in record.values() for name in entry["files"]}, "no file without a record"


def test_the_licences_are_bsd_3_clause():
    for licence in VENDOR.glob("LICENSE-*.txt"):
        text = licence.read_text()
        assert "Redistribution and use in source and binary forms" in text and "Neither the name" in text, licence.name


LOAD = r"""
const vm = require("vm"), fs = require("fs"), path = require("path");
const ctx = { console, setTimeout, setInterval, clearTimeout };
ctx.self = ctx; ctx.window = ctx; vm.createContext(ctx);
for (const f of ["vega.min.js", "vega-interpreter.js", "vega-tooltip.js"])
  vm.runInContext(fs.readFileSync(path.join(process.argv[1], f), "utf8"), ctx, { filename: f });
const spec = { $schema: "https://vega.github.io/schema/vega/v6.json", width: 10, height: 10,
  signals: [{ name: "s", value: 2 }],
  data: [{ name: "t", values: [{ x: 1.5 }], transform: [{ type: "formula", as: "y", expr: "pow(datum.x, s) + 1" }] }] };
const view = new ctx.vega.View(ctx.vega.parse(spec, null, { ast: true }),
  { expr: ctx.vegaInterpreter.expressionInterpreter, renderer: "none" });
view.runAsync().then(() => console.log(JSON.stringify({
  version: ctx.vega.version, y: view.data("t")[0].y, handler: typeof ctx.vegaTooltip.Handler })));
"""


def test_the_runtime_loads_as_classic_scripts_and_interprets_expressions_without_eval():
    node = shutil.which("node")
    assert node, "node is needed to load the vendored runtime"
    result = subprocess.run([node, "-e", LOAD, str(VENDOR)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found == {"version": refresh_tool().PACKAGES["vega"][0], "y": 3.25, "handler": "function"}


def test_the_wrapper_refuses_a_module_of_another_shape():
    tool = refresh_tool()
    good = "import { isString } from 'vega-util';\nconst a = 1;\nexport { a as b };\n"
    wrapped = tool.classic(good, "x@1", "X")
    assert "var isString = vega.isString;" in wrapped and 'self.X = { "b": a };' in wrapped
    for bad in (good.replace("const a", "import z from 'other';\nconst a"),
                good.replace("export { a as b };", "export default a;"),
                good.replace("'vega-util'", "'vega-scale'")):
        with pytest.raises(SystemExit):
            tool.classic(bad, "x@1", "X")
