// The parts node's tests did not load before: sd-animation.js and
// sd-explainer.js. Every part loads with no document (DOM code runs only when
// called); the pure helpers are checked here, the DOM wiring in the browser
// tests (tests/browser/test_explainer.py).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const { pythonExecutable } = require("./python.js");
const path = require("node:path");
const { load, loadKit, PARTS, SERVING_PARTS, KIT_PARTS, SETTINGS } = require("./widget.js");

const ROOT = path.resolve(__dirname, "..", "..");

test("every part loads under node in the build's order, into one namespace", () => {
  assert.equal(typeof document, "undefined");
  const SD = load();
  for (const key of ["model", "serving", "state", "readout", "words", "tokens", "phases", "animation", "curve", "charts", "servingPanel", "explainer", "init", "boot"]) assert.ok(SD[key], key);
  assert.equal(SD.instance, undefined, "no document: nothing booted");
  assert.deepEqual(Object.keys(SD).sort(), ["animation", "boot", "charts", "curve", "data", "explainer", "init", "model", "phases", "readout", "serving", "servingPanel", "servingPresets", "state", "tokens", "words"]);
  assert.equal(PARTS.length, 10);
  // the kit's parts are its own namespace's (the page loads them from one shared script first)
  assert.deepEqual(Object.keys(loadKit()).sort(), ["charts", "frames", "state"]);
  assert.deepEqual(SERVING_PARTS, ["sd-serving.js", "sd-serving-panel.js"]);
});

test("the parts are the build's, in its order", () => {
  const py = "import json; from site_builder.explainers import kit; from site_builder.explainers.speculative_decoding import page; "
    + "print(json.dumps([page.SCRIPTS, page.SERVING_SCRIPTS, kit.SCRIPTS]))";
  const order = JSON.parse(execFileSync(pythonExecutable(), ["-c", py], { cwd: ROOT, env: { ...process.env, PYTHONPATH: ROOT }, encoding: "utf8" }));
  assert.deepEqual(order, [PARTS, SERVING_PARTS, KIT_PARTS]);
});

test("the defaults and the custom-setting words come from settings.json", () => {
  const SD = load();
  assert.deepEqual(SD.state.DEFAULTS, SETTINGS.defaults);
  assert.equal(SD.explainer.CUSTOM, SETTINGS.words.custom);
  assert.deepEqual(SD.state.createStore({}).get(), SETTINGS.defaults);
});

test("fmtValue: what each slider shows and says", () => {
  const E = load().explainer;
  assert.deepEqual(E.fmtValue("alpha", 0.8), { text: "0.80", spoken: "80 percent of drafts accepted" });
  assert.deepEqual(E.fmtValue("alpha", 0.125), { text: "0.125", spoken: "12.5 percent of drafts accepted" });
  assert.deepEqual(E.fmtValue("c", 0.05), { text: "0.05", spoken: "draft call costs 0.05 of a target pass" });
  assert.deepEqual(E.fmtValue("gamma", 1), { text: "1", spoken: "1 drafted token per round" });
  assert.deepEqual(E.fmtValue("gamma", 5), { text: "5", spoken: "5 drafted tokens per round" });
});

test("keyboard steps land on the 0.01 / 0.1 grid and stay within [0, 1]", () => {
  const E = load().explainer;
  assert.equal(E.keyStep(0.8, 0.01), 0.81);
  assert.equal(E.keyStep(0.8, -0.01), 0.79);
  assert.equal(E.keyStep(0.805, 0.01), 0.81, "off the grid: up to the next grid value");
  assert.equal(E.keyStep(0.805, -0.01), 0.8);
  assert.equal(E.keyStep(0.75, 0.1), 0.8);
  assert.equal(E.keyStep(0.995, 0.01), 1);
  assert.equal(E.keyStep(0.005, -0.1), 0);
});

test("a preset matches the state exactly, or none does; provenance says what was derived", () => {
  const presets = [
    { alpha: 0.6, gamma: 4, c: 0.05, measured_speedup: 2.1, model_speedup: 2.05, sources: { alpha: "paper", c: "derived: from the latency table" } },
    { alpha: 0.7, gamma: 3, c: 0.1, measured_speedup: 1.8, model_speedup: 1.8, sources: { alpha: "derived: from the speedup" } },
  ];
  const E = load(undefined, presets).explainer;
  assert.equal(E.presetIndex(presets, { alpha: 0.6, gamma: 4, c: 0.05 }), "0");
  assert.equal(E.presetIndex(presets, { alpha: 0.7, gamma: 3, c: 0.1 }), "1");
  assert.equal(E.presetIndex(presets, { alpha: 0.7, gamma: 4, c: 0.1 }), "");
  assert.equal(E.provenance(presets[0]), "Measured speedup 2.1×; this model gives 2.05×. Derived c: from the latency table.");
  assert.equal(E.provenance(presets[1]), "Measured speedup 1.8×; α is derived from it, so this model matches it by construction.");
});

test("new seeds stay valid seeds", () => {
  const SD = load();
  let seed = 1;
  const seen = new Set();
  for (let i = 0; i < 50; i++) {
    seed = SD.explainer.nextSeed(seed);
    assert.equal(SD.state.clean("seed", seed, -1), seed);
    seen.add(seed);
  }
  assert.equal(seen.size, 50);
});

test("the animation's words for the target's token and its number format", () => {
  const SD = load();
  const A = SD.animation;
  assert.equal(SD.words.spoken("bonus"), "bonus word from the target, every draft was accepted");
  assert.equal(SD.words.spoken("correction", "guard"), "the target's correction, in place of “guard”");
  assert.equal(A.fmt(1.23456, 3), "1.235");
  assert.equal(A.fmt(NaN, 2), "–");
  assert.equal(A.WORDS.discarded, "discarded: drafted after the rejected word, never tested");
});
