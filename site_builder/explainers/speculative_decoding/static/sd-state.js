/* sd-state.js: the explainer's state, on the kit's store (kit-state.js).
 *
 * The state (alpha, gamma, c, seed, and the serving panel's batch, ctx,
 * devices, hw, pair) with each key's limits: kit-state.js clamps, snaps or
 * refuses every value that enters the store, from a control or from the URL,
 * and mirrors the state into the query string.
 *
 * One part of the widget's script: registers SpeculativeDecoding.state. The
 * defaults come from SpeculativeDecoding.data (settings.json, which page.py
 * reads too).
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  var KIT = Object.prototype.hasOwnProperty.call(root, "ExplainerKit") ? root.ExplainerKit : {}; // the kit's shared script
  SD.state = factory(SD.data, KIT.state);
})(typeof self !== "undefined" ? self : this, function (data, kitState) {
  "use strict";

  var SERVING = data.serving; // settings.json: the panel's lists
  // the preset ids (the presets themselves arrive with the panel's lazy script)
  var IDS = data.serving_ids || { hardware: [], pairings: [] };
  // the main sliders' limits are page.SLIDERS' (the build writes them into the
  // data: one source for the markup and the state); c keeps six decimals rather
  // than snapping to its slider's step (a pairing sets c to its P_d / P_t, 0.113818)
  var SLIDERS = data.limits;
  var LIMITS = {
    alpha: SLIDERS.alpha,
    gamma: SLIDERS.gamma,
    c: { min: SLIDERS.c.min, max: SLIDERS.c.max, step: SLIDERS.c.step, digits: 6 },
    seed: { min: 0, max: 4294967295, step: 1 },
    batch: { min: 1, max: SERVING.max_batch, step: 1 },
    ctx: { min: 0, max: SERVING.contexts[SERVING.contexts.length - 1], step: 1 },
    devices: { values: SERVING.devices },
    hw: { values: IDS.hardware },
    pair: { values: IDS.pairings },
  };
  return kitState.create({ limits: LIMITS, defaults: data.defaults });
});
