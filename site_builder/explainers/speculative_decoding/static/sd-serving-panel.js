/* sd-serving-panel.js: the serving-under-load panel's controls and readout.
 *
 *   controls (hardware, devices, pairing selects; batch and context sliders)
 *       --set--> store (the figure's one state object) --subscribe--> render()
 *
 * The batch and context sliders move along the lists of settings.json
 * ("serving": batches, contexts): a slider's value is a position in its list,
 * the state holds the number itself (any whole batch 1..4096 from a URL; the
 * slider then shows the nearest listed one). Choosing a pairing also sets the
 * figure's c to the pairing's memory-bound ratio P_d / P_t. The numbers and
 * words come from sd-serving.js describe(); the visible readout is not a live
 * region: its summary is announced from the panel's own polite region once the
 * control has rested, and only when one of the panel's own controls moved.
 * The panel's own controls redraw it at once; the figure's alpha, gamma and c
 * sliders (above it) once they rest (frames.HOLD_MS), as its chart does: a drag of
 * those repaints the curve and its readout every frame, not this panel too.
 *
 * One part of the serving panel's script, loaded lazily, when the panel nears
 * the viewport or a control is used (sd-charts.js loadServing(), then
 * sd-explainer.js calls create()): until then the
 * panel is as built, its controls disabled. Registers
 * SpeculativeDecoding.servingPanel. DOM code runs only from create();
 * position() is tested under node.
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  var KIT = Object.prototype.hasOwnProperty.call(root, "ExplainerKit") ? root.ExplainerKit : {}; // the explainer kit's shared script
  SD.servingPanel = factory(SD.serving, SD.readout, SD.data, SD.servingPresets, KIT.frames);
})(typeof self !== "undefined" ? self : this, function (SV, R, data, presets, F) {
  "use strict";

  var CFG = data.serving;
  var W = CFG.words;
  var PRESETS = presets || { hardware: [], pairings: [] };
  var OWN = ["batch", "ctx", "devices", "hw", "pair"];
  var SLIDERS = { batch: CFG.batches, ctx: CFG.contexts };

  /** The slider position showing x: the nearest listed value on a log scale,
   * ties to the lower one (page._position). */
  function position(list, x) {
    var best = 0, dist = Infinity;
    for (var i = 0; i < list.length; i++) {
      var d = Math.abs(Math.log2(list[i] + 1) - Math.log2(x + 1));
      if (d < dist) {
        dist = d;
        best = i;
      }
    }
    return best;
  }

  function spoken(key, value) {
    return key === "batch" ? SV.fill(W.batch_spoken, { batch: SV.group(value) }) : SV.fill(W.ctx_spoken, { ctx: SV.group(value) });
  }

  function find(list, id) {
    for (var i = 0; i < list.length; i++) if (list[i].id === id) return list[i];
    return null;
  }

  /** Rewrite a sources line (the sources() macro's markup): "Source(s): " and links, then the text. */
  function writeSources(el, links, text) {
    el.textContent = "";
    if (links.length) el.appendChild(document.createTextNode(links.length > 1 ? "Sources: " : "Source: "));
    links.forEach(function (link, i) {
      var a = document.createElement("a");
      a.href = link.url;
      a.textContent = link.text;
      el.appendChild(a);
      el.appendChild(document.createTextNode(i < links.length - 1 ? ", " : ". "));
    });
    el.appendChild(document.createTextNode(text));
  }

  /** Wire the panel inside `figure` to `store`; `announcer(el)` makes a say(text) for a live region. */
  function create(figure, store, announcer) {
    var fieldset = figure.querySelector(".sd-serving");
    var readoutEl = figure.querySelector(".sd-readout-serving");
    if (!fieldset || !readoutEl) return null;
    var inputs = {};
    Object.keys(SLIDERS).forEach(function (key) {
      inputs[key] = fieldset.querySelector("input[data-key=" + key + "]");
    });
    var selects = {
      hw: fieldset.querySelector("select[data-role=hardware]"),
      devices: fieldset.querySelector("select[data-role=devices]"),
      pair: fieldset.querySelector("select[data-role=pairing]"),
    };
    var hwSource = fieldset.querySelector("[data-out=serving_hw]");
    var pairSource = fieldset.querySelector("[data-out=serving_pair]");
    var draftEl = fieldset.querySelector("[data-out=serving_draft]");
    var liveEl = figure.querySelector("[data-announce-serving]");
    var say = liveEl ? announcer(liveEl) : function () {};
    var shownHw = null, shownPair = null;
    fieldset.disabled = false;
    figure.setAttribute("data-serving", "ready");

    Object.keys(inputs).forEach(function (key) {
      var input = inputs[key];
      if (!input) return;
      input.addEventListener("input", function () {
        var patch = {};
        patch[key] = SLIDERS[key][Number(input.value)];
        store.set(patch);
      });
    });
    if (selects.hw) selects.hw.addEventListener("change", function () { store.set({ hw: selects.hw.value }); });
    if (selects.devices) selects.devices.addEventListener("change", function () { store.set({ devices: Number(selects.devices.value) }); });
    if (selects.pair) {
      selects.pair.addEventListener("change", function () {
        var p = find(PRESETS.pairings, selects.pair.value);
        // the pairing's draft becomes the figure's: c is its memory-bound ratio
        if (p) store.set({ pair: p.id, c: p.c });
      });
    }

    /** Write the state into the panel's controls, sources and readout. */
    function render(s) {
      Object.keys(inputs).forEach(function (key) {
        var input = inputs[key];
        if (!input) return;
        var pos = String(position(SLIDERS[key], s[key]));
        if (input.value !== pos) input.value = pos;
        var words = spoken(key, s[key]);
        if (input.getAttribute("aria-valuetext") !== words) input.setAttribute("aria-valuetext", words);
        var out = fieldset.querySelector("output[data-val=" + key + "]");
        if (out) R.setText(out, SV.group(s[key]));
      });
      Object.keys(selects).forEach(function (key) {
        if (selects[key] && selects[key].value !== String(s[key])) selects[key].value = String(s[key]);
      });
      var hw = find(PRESETS.hardware, s.hw), pair = find(PRESETS.pairings, s.pair);
      if (hwSource && hw && shownHw !== hw.id) { writeSources(hwSource, hw.citations, hw.summary); shownHw = hw.id; }
      if (pairSource && pair && shownPair !== pair.id) { writeSources(pairSource, pair.citations, pair.summary); shownPair = pair.id; }
      var d = SV.describe(s);
      if (draftEl) R.setText(draftEl, d.text.serving_draft);
      var outs = readoutEl.querySelectorAll("[data-out]");
      for (var i = 0; i < outs.length; i++) {
        var key = outs[i].getAttribute("data-out");
        if (key in d.text) R.setText(outs[i], d.text[key]);
      }
      if (readoutEl.getAttribute("data-verdict") !== d.kind) readoutEl.setAttribute("data-verdict", d.kind);
      return d;
    }

    var later = 0;
    store.subscribe(function (s, changed) {
      if (later) clearTimeout(later);
      later = 0;
      if (changed.some(function (k) { return OWN.indexOf(k) >= 0; })) say(render(s).summary);
      else later = setTimeout(function () { later = 0; render(store.get()); }, F.HOLD_MS);
    });
    render(store.get());
    return { render: render };
  }

  return { create: create, position: position, spoken: spoken, OWN: OWN };
});
