// Load the speculative decoding widget's parts under node, as the build joins
// them: a fresh namespace holding the page data (settings.json, which page.py
// reads too), then each part in page.SCRIPTS order, run with `self` bound to a
// plain object. No part touches `document` while it loads.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const PACKAGE = path.resolve(__dirname, "..", "..", "site_builder/explainers/speculative_decoding");
const STATIC = path.join(PACKAGE, "static");
const PARTS = ["sd-model.js", "sd-state.js", "sd-readout.js", "sd-animation.js", "sd-charts.js", "sd-explainer.js"];
const SETTINGS = JSON.parse(fs.readFileSync(path.join(PACKAGE, "settings.json"), "utf8"));

/** The namespace after loading `parts` (all of them by default), with `presets` as page data. */
function load(parts = PARTS, presets = []) {
  const self = { SpeculativeDecoding: { data: { ...SETTINGS, presets } } };
  for (const name of parts) new Function("self", fs.readFileSync(path.join(STATIC, name), "utf8"))(self);
  return self.SpeculativeDecoding;
}

module.exports = { load, PARTS, SETTINGS, STATIC, PACKAGE };
