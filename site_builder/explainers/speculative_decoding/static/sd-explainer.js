/* sd-explainer.js: wires the explainer figure together (load last).
 *
 *   URL --parseParams--> store <--set-- controls (range inputs, presets,
 *                          |              the serving panel's: sd-serving-panel.js,
 *                          |              wired once its lazy script is in)
 *                          |subscribe
 *          +---------------+----------------+------------+---------------+
 *          readout       animation (run)   charts       serving panel   URL (debounced)
 *
 * Marks <html> with the class "sd-js" so the CSS can show what needs
 * JavaScript; the markup works without it (static SVGs, a worked round).
 *
 * The last part of the widget's script: registers SpeculativeDecoding.init
 * and .boot, and boots when there is a document (not under node, whose tests
 * call the pure helpers). Test hook: SpeculativeDecoding.instance.
 */
(function (root) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  var S = SD.state;
  var ANNOUNCE_MS = 500; // the live region speaks once a slider has rested this long
  var setText = SD.readout.setText;

  var CUSTOM = SD.data.words.custom;

  /** What was measured and what was worked out: a value derived from the
   * measured speedup reproduces it by construction, so it is not a check. */
  function provenance(p) {
    var src = p.sources || {};
    var derived = function (key) { return String(src[key] || "").indexOf("derived") === 0; };
    var text = "Measured speedup " + p.measured_speedup + "×" + (derived("alpha")
      ? "; α is derived from it, so this model matches it by construction."
      : "; this model gives " + p.model_speedup + "×.");
    if (derived("c")) text += " Derived c: " + String(src.c).replace(/^derived:\s*/, "") + ".";
    return text;
  }

  function fmtValue(key, v) {
    if (key === "alpha") return { text: v.toFixed(3).replace(/0$/, ""), spoken: Number((v * 100).toFixed(1)) + " percent of drafts accepted" };
    if (key === "c") return { text: v.toFixed(3).replace(/0$/, ""), spoken: "draft call costs " + v.toFixed(3).replace(/0$/, "") + " of a target pass" };
    if (key === "gamma") return { text: String(v), spoken: v + (v === 1 ? " drafted token" : " drafted tokens") + " per round" };
    return { text: String(v), spoken: String(v) };
  }

  /** The index (as a string) of the preset that is exactly state s, or "". */
  function presetIndex(presets, s) {
    var match = "";
    presets.forEach(function (p, i) {
      if (Math.abs(p.alpha - s.alpha) < 1e-9 && p.gamma === s.gamma && Math.abs(p.c - s.c) < 1e-9) match = String(i);
    });
    return match;
  }

  /** alpha and c keep a fine step (published values have three decimals); the
   * keyboard moves them by delta (0.01, 0.1) onto that coarser grid, within [0, 1]. */
  function keyStep(v, delta) {
    var unit = Math.abs(delta);
    var next = delta > 0 ? Math.floor(v / unit + 1e-6) * unit + unit : Math.ceil(v / unit - 1e-6) * unit - unit;
    return Math.min(1, Math.max(0, Number(next.toFixed(3))));
  }

  /** The seed "New seed" moves to (a linear congruential step, kept in range). */
  function nextSeed(seed) {
    return S.clean("seed", (seed * 1103515245 + 12345) % 4294967296, 1);
  }

  function init(figure) {
    var store = S.createStore(S.parseParams(root.location.search, root.location.hash));
    var inputs = {};
    // the main sliders; the serving panel wires its own (sd-serving-panel.js)
    Array.prototype.forEach.call(figure.querySelectorAll(".sd-controls input[type=range][data-key]"), function (input) {
      inputs[input.getAttribute("data-key")] = input;
    });
    var preset = figure.querySelector("select[data-role=preset]");
    var citation = figure.querySelector("[data-out=citation]");
    var presets = SD.data.presets || [];

    function showState(s) {
      Object.keys(inputs).forEach(function (key) {
        var input = inputs[key];
        var f = fmtValue(key, s[key]);
        if (Number(input.value) !== s[key]) input.value = String(s[key]);
        if (input.getAttribute("aria-valuetext") !== f.spoken) input.setAttribute("aria-valuetext", f.spoken);
        var out = figure.querySelector("output[data-val=" + key + "]");
        if (out) setText(out, f.text);
      });
      var match = presetIndex(presets, s);
      if (preset && preset.value !== match) preset.value = match;
      if (citation && citation.getAttribute("data-preset") !== match) {
        var p = match === "" ? null : presets[Number(match)];
        citation.setAttribute("data-preset", match);
        citation.textContent = "";
        if (p) {
          citation.appendChild(document.createTextNode("Source: "));
          var a = document.createElement("a");
          a.href = p.citation.url;
          a.textContent = p.citation.text;
          citation.appendChild(a);
          citation.appendChild(document.createTextNode(". " + provenance(p)));
        } else {
          citation.textContent = CUSTOM;
        }
      }
      var seedOut = figure.querySelector("[data-out=seed]");
      if (seedOut) setText(seedOut, String(s.seed));
    }

    // inputs -> store (one source of truth); store -> everything else.
    // alpha and c keep a fine step (published values have three decimals);
    // the keyboard moves them in comfortable 0.01 / 0.1 steps on the 0.01 grid.
    Object.keys(inputs).forEach(function (key) {
      if (key === "alpha" || key === "c") {
        inputs[key].addEventListener("keydown", function (ev) {
          var delta = { ArrowRight: 0.01, ArrowUp: 0.01, ArrowLeft: -0.01, ArrowDown: -0.01, PageUp: 0.1, PageDown: -0.1 }[ev.key];
          if (!delta) return;
          ev.preventDefault();
          var patch = {};
          patch[key] = keyStep(store.get()[key], delta);
          store.set(patch);
        });
      }
    });
    Object.keys(inputs).forEach(function (key) {
      inputs[key].addEventListener("input", function () {
        var patch = {};
        patch[key] = Number(inputs[key].value);
        store.set(patch);
      });
    });
    if (preset) {
      preset.addEventListener("change", function () {
        var p = presets[Number(preset.value)];
        if (preset.value !== "" && p) store.set({ alpha: p.alpha, gamma: p.gamma, c: p.c });
      });
    }

    var readoutEl = figure.querySelector(".sd-readout");
    var announceEl = figure.querySelector("[data-announce]");
    var say = announceEl ? SD.readout.announcer(announceEl, ANNOUNCE_MS, root) : function () {};
    var animation = SD.animation.create(figure, store);
    var charts = SD.charts.create(figure, store, animation);
    store.subscribe(function (s, changed) {
      SD.readout.render(readoutEl, s); // at once, on every input
      showState(s);
      // once it settles; the serving panel announces its own controls
      if (changed.some(function (k) { return k === "alpha" || k === "gamma" || k === "c"; })) say(SD.readout.summary(s));
    });
    S.syncUrl(store, root, 200);

    // buttons
    var playBtn = figure.querySelector("[data-action=play]");
    function showPlaying() {
      var on = animation.playing() ? "true" : "false";
      if (playBtn.getAttribute("aria-pressed") === on) return; // most calls: a round finished
      // both labels are in the button (figure.html): the stylesheet shows the one
      // aria-pressed names, so the button keeps its width and nothing moves
      playBtn.setAttribute("aria-pressed", on);
    }
    animation.onChange(showPlaying);
    var actions = {
      play: function () { animation.toggle(); },
      step: function () { animation.step(); },
      skip: function () { animation.skip(100); },
      reset: function () { animation.pause(); animation.reset(); },
      reseed: function () {
        store.set({ seed: nextSeed(store.get().seed) });
      },
      defaults: function () { store.set(S.DEFAULTS); },
    };
    Array.prototype.forEach.call(figure.querySelectorAll("[data-action]"), function (btn) {
      btn.addEventListener("click", function () {
        var fn = actions[btn.getAttribute("data-action")];
        if (fn) fn();
      });
    });
    var speed = figure.querySelector("select[data-role=speed]");
    if (speed) {
      speed.addEventListener("change", function () { animation.setSpeed(Number(speed.value) || 1); });
      animation.setSpeed(Number(speed.value) || 1);
    }

    SD.readout.render(readoutEl, store.get());
    showState(store.get());
    showPlaying();
    // the serving panel's controls wait for its script (below)
    var fieldsets = figure.querySelectorAll("fieldset[disabled]:not(.sd-serving)");
    Array.prototype.forEach.call(fieldsets, function (f) { f.disabled = false; });
    figure.setAttribute("data-ready", "true");

    var instance = { store: store, animation: animation, charts: charts, views: charts.views, state: S, model: SD.model, serving: null };
    // the serving panel's script loads lazily, when the panel nears the viewport (sd-charts.js loadServing())
    charts.onServing(function () {
      instance.serving = SD.servingPanel.create(figure, store, function (el) { return SD.readout.announcer(el, ANNOUNCE_MS, root); });
    });
    return instance;
  }

  var FIGURE_ID = "sd-explainer";

  /** The page's own figure, or null: <figure id="sd-explainer"> where the
   * page template puts an explainer, a child of the term's <article> in
   * <main id="main">. Never the first element that has the class or the id:
   * content comes before the figure (its opening section) and may carry
   * either (issue 30), but cannot make an element a child of the article.
   * <main> is found by its id safely: it comes before all content. */
  function ownFigure(doc) {
    var main = doc.getElementById("main");
    var article = main && main.querySelector(":scope > article.term");
    if (!article) return null;
    for (var el = article.firstElementChild; el; el = el.nextElementSibling) {
      if (el.id === FIGURE_ID && el.tagName === "FIGURE") return el;
    }
    return null;
  }

  /** Wire the page's figure, if it has one (SpeculativeDecoding.instance is the test hook). */
  function boot(doc) {
    doc.documentElement.classList.add("sd-js");
    var figure = ownFigure(doc);
    if (figure) SD.instance = init(figure);
  }

  SD.init = init;
  SD.boot = boot;
  SD.explainer = { provenance: provenance, fmtValue: fmtValue, presetIndex: presetIndex, keyStep: keyStep, nextSeed: nextSeed, CUSTOM: CUSTOM, ownFigure: ownFigure };
  if (typeof document !== "undefined") boot(document);
})(typeof self !== "undefined" ? self : this);
