// Load the speculative decoding widget's parts under node, as the build joins
// them: the explainer kit's parts (loaded first, as the page loads its shared
// script first), then a fresh namespace holding the page data (settings.json, which page.py
// reads too, and the serving panel's presets as serving_panel.presets_data()
// gives them), then each part in page.SCRIPTS order, run with `self` bound to
// a plain object. No part touches `document` while it loads.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { pythonExecutable } = require("./python.js");

const ROOT = path.resolve(__dirname, "..", "..");
const PACKAGE = path.resolve(ROOT, "site_builder/explainers/speculative_decoding");
const STATIC = path.join(PACKAGE, "static");
const PARTS = ["sd-model.js", "sd-state.js", "sd-readout.js", "sd-words.js", "sd-tokens.js", "sd-phases.js", "sd-animation.js", "sd-curve.js", "sd-charts.js", "sd-explainer.js"];
// the explainer kit's shared script (kit.SCRIPTS), which the page loads before the widget's
const KIT_STATIC = path.resolve(ROOT, "site_builder/explainers/kit/static");
const KIT_PARTS = ["kit-frames.js", "kit-state.js", "kit-charts.js"];
// the serving panel's lazy script (page.SERVING_SCRIPTS), loaded after the others as in the browser
const SERVING_PARTS = ["sd-serving.js", "sd-serving-panel.js"];
const SETTINGS = JSON.parse(fs.readFileSync(path.join(PACKAGE, "settings.json"), "utf8"));
// the sentence the round animation writes (sentences.json), page data as the build writes it
const SENTENCES = JSON.parse(fs.readFileSync(path.join(PACKAGE, "sentences.json"), "utf8"));

/** Run a Python snippet in the repository (stdin: `input`) and parse the JSON it prints. */
function python(code, input) {
  const out = execFileSync(pythonExecutable(), ["-c", code], {
    cwd: ROOT, input, env: { ...process.env, PYTHONPATH: ROOT }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out);
}

let servingPresets = null;
/** The serving presets the build writes into the page (one Python run per test file). */
function serving() {
  if (!servingPresets) {
    servingPresets = python("import json; from site_builder.explainers.speculative_decoding import serving_panel as s; "
      + "print(json.dumps(s.presets_data()))");
  }
  return servingPresets;
}

/** The namespace after loading `parts` (all of them by default), with `presets` as page data: the
 * page data as the widget's script sets it, the serving presets as the panel's lazy script does. */
function load(parts = [...PARTS, ...SERVING_PARTS], presets = []) {
  const sp = serving();
  const ids = { hardware: sp.hardware.map((p) => p.id), pairings: sp.pairings.map((p) => p.id) };
  const self = { SpeculativeDecoding: { data: { ...SETTINGS, presets, serving_ids: ids, sentences: SENTENCES }, servingPresets: sp } };
  loadKit(self);
  for (const name of parts) new Function("self", fs.readFileSync(path.join(STATIC, name), "utf8"))(self);
  return self.SpeculativeDecoding;
}

/** The kit's namespace (window.ExplainerKit) after loading its parts into `self` (a fresh one by default). */
function loadKit(self = {}) {
  for (const name of KIT_PARTS) new Function("self", fs.readFileSync(path.join(KIT_STATIC, name), "utf8"))(self);
  return self.ExplainerKit;
}

module.exports = { load, loadKit, python, serving, PARTS, KIT_PARTS, KIT_STATIC, SERVING_PARTS, SETTINGS, SENTENCES, STATIC, PACKAGE, ROOT };
