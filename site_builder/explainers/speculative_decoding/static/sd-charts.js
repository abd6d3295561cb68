/* sd-charts.js: the live Vega charts, loaded lazily.
 *
 * Lifecycle of the figure's charts: the kit's (kit-charts.js create: static
 * pictures, then on need the runtime and the views one at a time, swapped in
 * without a shift, data-charts="loading" / "live" / "static"), with what is this
 * figure's own: once a control is used the curve is built first of all (it is
 * the view a slider moves; its spec loads beside the runtime), the serving
 * panel's script comes too, each view follows the state from the frame after
 * it is built, and the canvas curve is drawn afresh when the scheme changes.
 *
 * The serving panel's script (its presets, model and controls) loads on its
 * own: when the panel nears the viewport, or with the runtime when a control
 * of the figure is used (a keyboard reader tabs on into the panel, whose
 * controls must not be disabled then); onServing() listeners hear when it is
 * in. Its live view follows the state once the script is in.
 *
 * Views are built with the AST expression interpreter (ast: true): nothing is
 * eval'd and a strict CSP holds.
 *
 * The scripts it loads are never named by the page (issue 30): the build writes
 * their file names into this script (data.assets, page.lazy_assets), resolved
 * beside the kit's script, in the same folder (kit-charts.js; test_script_wall.py).
 *
 * Updates, once live. The store and the run only mark what is dirty; one
 * requestAnimationFrame applies it, however many inputs arrived:
 *
 *   state (alpha, gamma, c) -> the curve's tuples modified in place (a Vega
 *                              changeset of the fields that changed: marks are
 *                              updated, never removed and re-entered)
 *   rest (a round finished, -> the histogram's rows and the plane's one-row
 *         or the state moved)  "current" dataset (the marker), held back while a
 *                              slider moves (until it has rested HOLD_MS) and,
 *                              while the animation plays, at most once per HOLD_MS
 *   serving (batch, ctx,    -> the serving chart's two datasets (sd-serving.js
 *     devices, hw, pair)       chartRows()) and its y axis, in that frame; when
 *                              alpha, gamma or c move, with "rest" instead
 *
 * The curve is the one view a drag must move every frame; repainting the plane
 * (hundreds of cells) for its marker would cost more than the curve itself, and
 * the serving chart follows the main sliders once they rest for the same reason.
 * For the same reason the curve is drawn on a canvas (CANVAS): one element to
 * repaint, where Vega's SVG renderer edits, restyles and re-lays out dozens of
 * nodes a frame. A canvas cannot take the page's text colour from
 * "currentColor" (the live theme's ink, which SVG inherits), so its spec gets
 * the chart's computed colour instead (inked), and the view is built afresh
 * when the colour scheme changes.
 *
 * Built on the kit (kit-frames.js, kit-charts.js). One part of the widget's
 * script: registers SpeculativeDecoding.charts. The
 * DOM is touched only from create(); the pure parts are tested under node.
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  var KIT = Object.prototype.hasOwnProperty.call(root, "ExplainerKit") ? root.ExplainerKit : {}; // the explainer kit's shared script, loaded before this one
  SD.charts = factory(root, SD.model, KIT.frames, SD.curve, KIT.charts);
})(typeof self !== "undefined" ? self : this, function (root, M, F, K, C) {
  "use strict";

  // a script the build named, beside the kit's script (kit-charts.js): all the assets share one folder
  var loadAsset = C.loadAsset;
  // text in a mark's colour: the views' goodInk and badInk parameters (charts.TEXT_INKS) take the figure's
  var INKS = [["goodInk", "--sd-good"], ["badInk", "--sd-bad"]];
  function assets() { return (root.SpeculativeDecoding.data || {}).assets || { specs: {} }; }

  var curveRows = K.curveRows, curveEdits = K.curveEdits, yTop = K.yTop, currentRow = K.currentRow, inked = K.inked;
  // views drawn to their container's width (plot width limits, height as a share
  // of the width); the others keep their build-time size and scale down when narrow
  var FIT = {
    curve: { min: 200, max: 560, ratio: 0.58, minH: 200, maxH: 300 },
    hist: { min: 200, max: 440, ratio: 0.55, minH: 180, maxH: 260 },
    plane: { min: 180, max: 300, ratio: 0.87, minH: 156, maxH: 260 },
    serving: { min: 200, max: 520, ratio: 0.62, minH: 180, maxH: 300 },
  };
  // views drawn on a canvas (see the header); the others stay SVG
  var CANVAS = { curve: true };
  // the state the serving chart draws, and the part of it its own controls set
  var SERVING_KEYS = ["alpha", "gamma", "c", "batch", "ctx", "devices", "hw", "pair"];
  var SERVING_OWN = ["batch", "ctx", "devices", "hw", "pair"];

  /** The serving chart's state, as one string: a view redraws only when it changes. */
  function servingKey(s) {
    return SERVING_KEYS.map(function (k) { return s[k]; }).join("/");
  }

  function create(figure, store, animation) {
    var views = {};
    var sets = {}; // view name -> {dataset name: true}
    var builtHist = null; // the histogram's build-time rows (see sd-model.js histogramRows)
    var shown = {}; // view name -> the state its "current" row shows
    var lifecycle = null; // the kit's (kit-charts.js create), made last
    var last = Promise.resolve();
    var servingNow = false; // a serving control moved: redraw that chart in the next frame
    var onServing = [];

    function hasData(view, name) {
      try { view.data(name); return true; } catch (e) { return false; }
    }

    /** Bring the curve view to state s; false when nothing changed. */
    function setCurve(view, s) {
      var rows = curveRows(s.alpha, s.c, s.gamma);
      var top = yTop(rows);
      var touched = false;
      if (view.signal("ymax") !== top) {
        view.signal("ymax", top);
        touched = true;
      }
      var edits = curveEdits(view.data("curve"), rows);
      if (!edits) {
        view.data("curve", rows);
        return true;
      }
      if (!edits.length) return touched;
      var cs = view.changeset();
      for (var i = 0; i < edits.length; i++) cs.modify(edits[i][0], edits[i][1], edits[i][2]);
      view.change("curve", cs);
      return true;
    }

    /** Bring the serving view to state s (a new state only): its rows, marks and y axis. */
    function setServing(view, s) {
      var d = root.SpeculativeDecoding.serving.chartRows(s); // the panel's lazy script (apply() waits for it)
      var top = yTop(d.serving);
      if (view.signal("ymax") !== top) view.signal("ymax", top);
      view.data("serving", d.serving);
      view.data("serving_marks", d.serving_marks);
    }

    /** Push the store's state into the curve (state), the run and the state
     * into the histogram and the plane's marker (rest), and the state into the
     * serving chart (in the next frame when its own controls moved, else at rest). */
    function apply(state, rest) {
      var s = store.get();
      var key = s.alpha + "/" + s.gamma + "/" + s.c;
      var jobs = [];
      Object.keys(views).forEach(function (name) {
        var v = views[name], has = sets[name], touched = false;
        if (state && has.curve && setCurve(v, s)) touched = true;
        if (rest && has.current && shown[name] !== key) { v.data("current", currentRow(s)); shown[name] = key; touched = true; }
        if (rest && has.hist) { v.data("hist", M.histogramRows(animation.run(), builtHist)); touched = true; }
        // the serving rows come from the panel's own script: until it is in, the view keeps its build-time rows
        if ((rest || servingNow) && has.serving && root.SpeculativeDecoding.serving && shown[name] !== servingKey(s)) {
          setServing(v, s);
          shown[name] = servingKey(s);
          touched = true;
        }
        if (touched) jobs.push(v.runAsync());
      });
      if (state) servingNow = false;
      last = Promise.all(jobs);
      return last;
    }

    var scheduler = F.createScheduler(
      {
        raf: function (fn) { return root.requestAnimationFrame(fn); },
        now: function () { return root.performance.now(); },
        setTimeout: function (fn, ms) { return root.setTimeout(fn, ms); },
        hot: function () { return animation.playing(); },
      },
      apply
    );

    /** The view of `spec` in `container`, drawn where its static picture is (or,
     * `replacing` the view drawn there now, at that view's size), a promise of it. */
    function embed(container, spec, replacing) {
      var name = container.getAttribute("data-chart");
      var renderer = CANVAS[name] ? "canvas" : "svg";
      if (renderer === "canvas") spec = inked(spec, root.getComputedStyle(container).color); // what its SVG would inherit
      var size = replacing ? function () { return { width: views[name].width(), height: views[name].height() }; } : null;
      // kit-charts.js: in the task that drew it, the picture (or the older view) goes, the view comes, in one frame
      return C.embed(container, spec, { className: "sd-vega kit-vega", renderer: renderer, size: size, replacing: replacing && function () {
        return container.querySelector(".sd-vega"); // whichever view is drawn there by now (two scheme changes may overlap)
      } }).then(function (view) {
        if (replacing) {
          var before = views[name];
          views[name] = view;
          if (before) before.finalize();
        }
        return view;
      });
    }

    /** Text in a mark's colour follows the page's scheme (INKS; kit-charts.js setInks). */
    function setInks(view) { return C.setInks(figure, view, INKS); }
    /** Build the canvas view `name` afresh, in the page's colours now (see the header). */
    function reink(name) {
      var container = figure.querySelector('[data-chart="' + name + '"]');
      var spec = (root.SpeculativeDecoding.specs || {})[name];
      if (!container || !container.querySelector(".sd-vega") || !spec) return;
      embed(container, spec, true).then(function (view) {
        if (setInks(view)) view.runAsync(); // drawn in the page's scheme now, not at the next update
        shown[name] = null;
        scheduler.mark("state");
        scheduler.mark("rest");
      }, warn); // the view drawn before stays
    }
    function curveContainer() { return figure.querySelector("[data-chart=curve]"); }
    function started() { return !!(lifecycle && lifecycle.started()); }
    function warn(err) {
      if (root.console) root.console.warn("speculative decoding explainer: stays static:", err);
    }

    var servingIn = null;
    /** The serving panel's script, loaded once; the panel works once it is in,
     * whether or not the runtime loads. */
    function loadServing() {
      if (servingIn) return servingIn;
      var name = assets().serving;
      servingIn = (name ? loadAsset(name) : Promise.resolve()).then(function () {
        onServing.forEach(function (fn) { fn(); });
        if (started()) { // a serving view built before the script came follows the state now
          scheduler.mark("state");
          scheduler.mark("rest");
        }
      });
      servingIn.catch(warn); // its controls stay disabled, the rest works
      return servingIn;
    }
    var servingPanel = figure.querySelector("[data-chart=serving]");
    servingPanel = servingPanel && servingPanel.closest("section");
    // the whole panel: on a phone its controls come a screen before its chart
    if (servingPanel) F.startLazily(root, servingPanel, loadServing, [servingPanel]);

    store.subscribe(function (s, changed) {
      if (!started()) return;
      if (changed.some(function (k) { return SERVING_OWN.indexOf(k) >= 0; })) servingNow = true;
      scheduler.mark("state");
      scheduler.mark("rest");
    });
    animation.onChange(function () {
      if (started()) scheduler.mark("rest");
    });

    // the kit's lifecycle (kit-charts.js): lazily, on the first use of a control
    // (the curve first of all then, and the serving panel's script) or when a chart
    // nears the viewport; each view, as it comes, follows the controls from the next frame
    lifecycle = C.create(figure, {
      name: "speculative decoding explainer", views: views, inks: INKS, fit: FIT,
      assets: assets, specs: function () { return root.SpeculativeDecoding.specs; },
      first: curveContainer,
      // a reader using the controls may tab on into the serving panel: its controls must be live by then
      onUse: loadServing,
      embed: function (c, spec) { return embed(c, spec); },
      built: function (name, view) {
        sets[name] = {};
        if (name === "hist") builtHist = view.data("hist").map(M.histogramRow);
        ["current", "curve", "hist", "serving"].forEach(function (d) {
          if (hasData(view, d)) sets[name][d] = true;
        });
        scheduler.mark("state");
        scheduler.mark("rest");
      },
      live: function () { return apply(true, true); },
      scheme: function (name) { // the canvas view is drawn afresh; the others take the page's inks
        if (CANVAS[name]) reink(name);
        else if (setInks(views[name])) views[name].runAsync();
      },
    });

    return {
      start: function (reason) { return lifecycle.start(reason); },
      loadServing: loadServing,
      views: views,
      /** fn() once the serving panel's script has loaded (lazily, see the header). */
      onServing: function (fn) { onServing.push(fn); },
      curveRows: curveRows,
      /** A promise settled once every marked update has reached the views (tests, benchmark). */
      flushed: function () {
        return new Promise(function (resolve) {
          (function wait() {
            if (scheduler.pending()) root.requestAnimationFrame(wait);
            else last.then(function () { resolve(); }, function () { resolve(); });
          })();
        });
      },
    };
  }

  return {
    create: create,
    curveRows: curveRows,
    curveEdits: curveEdits,
    yTop: yTop,
    Y_TOPS: K.Y_TOPS, // sd-curve.js, as the others above
    HEADROOM: K.HEADROOM,
    histRows: M.histogramRows, // sd-model.js: the tests know it as charts'
    createScheduler: F.createScheduler, // kit-frames.js: kept here for the tests that know it as charts'
    fitSize: F.fitSize, // kit-frames.js
    inked: inked,
    assetUrl: C.assetUrl, // kit-charts.js
    CANVAS: CANVAS,
    pictureFit: F.pictureFit, // kit-frames.js
    FIT: FIT,
    SMOOTH_STEP: K.SMOOTH_STEP,
    HOLD_MS: F.HOLD_MS,
  };
});
