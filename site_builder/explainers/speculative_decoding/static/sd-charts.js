/* sd-charts.js: the live Vega charts, loaded lazily.
 *
 * Until the figure nears the viewport (IntersectionObserver) or the page has
 * painted and gone idle, each chart is the static SVG rendered at build time
 * (<img> inside [data-chart]). Then two classic scripts are injected: the Vega
 * runtime (vl-convert's bundle, exposing vegaEmbed) and the compiled Vega
 * specs (window.SD_VEGA_SPECS). Views are built with the AST expression
 * interpreter (ast: true), so nothing is eval'd and a strict CSP holds.
 *
 * Live data, all driven from the store: every view has a one-row "current"
 * dataset; the curve also gets its "curve" rows, the histogram its "hist"
 * rows from the running simulation.
 */
(function (root) {
  "use strict";
  var M = root.SDModel;
  var GAMMA_MAX = 16;
  var SMOOTH_STEP = 0.125;

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.async = false;
      s.onload = resolve;
      s.onerror = function () {
        reject(new Error("could not load " + src));
      };
      document.head.appendChild(s);
    });
  }

  /** Rows of the curve for (alpha, c): whole depths (points) and a smooth line. */
  function curveRows(alpha, c, gamma) {
    var best = M.optimalDepth(alpha, c, GAMMA_MAX);
    var rows = [];
    for (var g = 0; g <= GAMMA_MAX + 1e-9; g += SMOOTH_STEP) {
      var whole = Math.abs(g - Math.round(g)) < 1e-9;
      var gg = whole ? Math.round(g) : g;
      rows.push({
        gamma: gg,
        S: M.speedup(alpha, gg, c),
        E: M.expectedTokens(alpha, gg),
        cost: M.roundCost(gg, c),
        whole: whole,
        peak: whole && gg === best,
        current: whole && gg === gamma,
      });
    }
    return rows;
  }

  function currentRow(s) {
    return [{ alpha: s.alpha, c: s.c, gamma: s.gamma, S: M.speedup(s.alpha, s.gamma, s.c), best: M.optimalDepth(s.alpha, s.c, 64) }];
  }

  function histRows(run) {
    var p = M.tokenDistribution(run.alpha, run.gamma);
    var rows = [];
    for (var k = 1; k < p.length; k++) {
      rows.push({ tokens: k, kind: "exact", share: p[k] });
      rows.push({ tokens: k, kind: "simulated", share: run.rounds ? run.histogram[k] / run.rounds : 0 });
    }
    return rows;
  }

  function create(figure, store, animation) {
    var views = {};
    var ready;
    var pending = false;

    function has(view, name) {
      try {
        view.data(name);
        return true;
      } catch (e) {
        return false;
      }
    }

    /** Push the store's state (and the run) into the views. `what` limits the
     * work: a finished round only changes the histogram. */
    function update(what) {
      pending = false;
      var s = store.get();
      var onlyRun = what === "run";
      var jobs = [];
      Object.keys(views).forEach(function (name) {
        var v = views[name];
        var touched = false;
        if (!onlyRun && has(v, "current")) { v.data("current", currentRow(s)); touched = true; }
        if (!onlyRun && has(v, "curve")) { v.data("curve", curveRows(s.alpha, s.c, s.gamma)); touched = true; }
        if (has(v, "hist")) { v.data("hist", histRows(animation.run())); touched = true; }
        if (touched) jobs.push(v.runAsync());
      });
      return Promise.all(jobs);
    }

    function embed(container, spec) {
      var target = document.createElement("div");
      target.className = "sd-vega";
      container.appendChild(target);
      return root
        .vegaEmbed(target, spec, {
          mode: "vega",
          ast: true, // the expression interpreter, not eval: CSP-safe
          renderer: "svg",
          actions: false,
          defaultStyle: false,
          tooltip: { disableDefaultStyle: true, theme: "custom" },
        })
        .then(function (result) {
          container.setAttribute("data-live", "true");
          return result.view;
        });
    }

    function start() {
      if (ready) return ready;
      var runtime = figure.getAttribute("data-vega-src");
      var specs = figure.getAttribute("data-specs-src");
      ready = Promise.all([loadScript(runtime), loadScript(specs)])
        .then(function () {
          var containers = figure.querySelectorAll("[data-chart]");
          return Promise.all(
            Array.prototype.map.call(containers, function (c) {
              var name = c.getAttribute("data-chart");
              var spec = root.SD_VEGA_SPECS && root.SD_VEGA_SPECS[name];
              if (!spec) return null;
              return embed(c, spec).then(function (view) {
                views[name] = view;
              });
            })
          );
        })
        .then(function () { return update(); })
        .then(function () {
          figure.setAttribute("data-charts", "live");
          return views;
        })
        .catch(function (err) {
          figure.setAttribute("data-charts", "static");
          if (root.console) root.console.warn("speculative decoding explainer: charts stay static:", err);
          return views;
        });
      return ready;
    }

    function schedule() {
      if (pending || !ready) return;
      pending = true;
      // one chart update per frame, however many inputs arrived
      root.requestAnimationFrame(function () { update("run"); });
    }

    store.subscribe(function () {
      if (Object.keys(views).length) update();
    });
    animation.onChange(schedule);

    // lazily: when the figure nears the viewport, or once the page is idle
    if ("IntersectionObserver" in root) {
      var io = new root.IntersectionObserver(
        function (entries) {
          if (entries.some(function (e) { return e.isIntersecting; })) {
            io.disconnect();
            start();
          }
        },
        { rootMargin: "300px" }
      );
      io.observe(figure);
    }
    var idle = root.requestIdleCallback || function (fn) { return root.setTimeout(fn, 200); };
    root.addEventListener("load", function () {
      idle(function () { start(); }, { timeout: 2000 });
    });

    return { start: start, views: views, update: update, curveRows: curveRows };
  }

  root.SDCharts = { create: create, curveRows: curveRows, histRows: histRows };
})(typeof self !== "undefined" ? self : this);
