// The widget as the page gets it: page.shipped() minifies each part (rjsmin)
// (about half the bytes). Loaded under node, the shipped parts must give the same
// namespace, with the same functions computing the same values, as the sources.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { load, python, PARTS, SERVING_PARTS } = require("./widget.js");

const shipped = python(
  "import json, sys; from site_builder.explainers.speculative_decoding import page as P; "
  + "print(json.dumps({n: P.shipped((P.STATIC / n).read_text(encoding='utf-8')) for n in json.load(sys.stdin)}))",
  JSON.stringify([...PARTS, ...SERVING_PARTS]),
);

/** The namespace after running the shipped parts, with the same page data as load() gives. */
function loadShipped() {
  const base = load([]);
  const self = { SpeculativeDecoding: { data: base.data, servingPresets: base.servingPresets } };
  for (const name of [...PARTS, ...SERVING_PARTS]) new Function("self", shipped[name])(self);
  return self.SpeculativeDecoding;
}

test("the shipped parts carry no comment lines, and are smaller", () => {
  for (const name of [...PARTS, ...SERVING_PARTS]) {
    const lines = shipped[name].split("\n").map((l) => l.trim());
    assert.ok(!lines.some((l) => l.startsWith("//") || l.startsWith("/*") || l.startsWith("* ")), name);
    assert.ok(shipped[name].length < 0.9 * require("node:fs").readFileSync(require("node:path").join(__dirname, "../../site_builder/explainers/speculative_decoding/static", name), "utf8").length, name);
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
