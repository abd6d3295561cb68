// The widget as the page gets it: page.shipped() minifies each part (rjsmin)
// (about half the bytes). Loaded under node, the shipped parts must give the same
// namespace, with the same functions computing the same values, as the sources.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { load, python, PARTS, SERVING_PARTS, KIT_PARTS, KIT_STATIC, STATIC } = require("./widget.js");

// the kit's parts (kit.script(): shared by every explainer) then the widget's, as the page gets them
const shipped = python(
  "import json, sys; from site_builder.explainers import kit; from site_builder.explainers.speculative_decoding import page as P; "
  + "print(json.dumps({n: P.shipped(((kit.STATIC if n.startswith('kit-') else P.STATIC) / n).read_text(encoding='utf-8')) "
  + "for n in json.load(sys.stdin)}))",
  JSON.stringify([...KIT_PARTS, ...PARTS, ...SERVING_PARTS]),
);
const source = (name) => fs.readFileSync(path.join(name.startsWith("kit-") ? KIT_STATIC : STATIC, name), "utf8");

/** The namespace after running the shipped parts, with the same page data as load() gives. */
function loadShipped() {
  const base = load([]);
  const self = { SpeculativeDecoding: { data: base.data, servingPresets: base.servingPresets } };
  for (const name of [...KIT_PARTS, ...PARTS, ...SERVING_PARTS]) new Function("self", shipped[name])(self);
  return self.SpeculativeDecoding;
}

test("the shipped parts carry no comment lines, and are smaller", () => {
  for (const name of [...KIT_PARTS, ...PARTS, ...SERVING_PARTS]) {
    const lines = shipped[name].split("\n").map((l) => l.trim());
    assert.ok(!lines.some((l) => l.startsWith("//") || l.startsWith("/*") || l.startsWith("* ")), name);
    assert.ok(shipped[name].length < 0.9 * source(name).length, name);
  }
});

test("the shipped parts give the namespace the sources give, computing the same values", () => {
  const a = load(), b = loadShipped();
  assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
  for (const key of Object.keys(a)) {
    if (a[key] && typeof a[key] === "object") assert.deepEqual(Object.keys(b[key]).sort(), Object.keys(a[key]).sort(), key);
  }
  assert.equal(b.model.speedup(0.8, 5, 0.05), a.model.speedup(0.8, 5, 0.05));
  assert.deepEqual(b.charts.curveRows(0.7, 0.1, 4), a.charts.curveRows(0.7, 0.1, 4));
  assert.deepEqual(b.readout.describe({ alpha: 0.6, gamma: 6, c: 0.3 }), a.readout.describe({ alpha: 0.6, gamma: 6, c: 0.3 }));
  assert.deepEqual(b.state.parseParams("?alpha=0.5&gamma=3", ""), a.state.parseParams("?alpha=0.5&gamma=3", ""));
});
