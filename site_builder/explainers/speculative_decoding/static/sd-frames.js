/* sd-frames.js: when the live charts load and when they redraw.
 *
 *   loadScript(src)         a classic script injected once (the Vega runtime, the specs)
 *   startLazily(root, figure, start)
 *                           start() never before the page has loaded and painted its
 *                           static figure; then when the figure nears the viewport,
 *                           or once the page is idle (whichever comes first)
 *   buildView(root, target, spec)
 *                           a live Vega view of a compiled spec in `target`, built
 *                           with the vendored runtime (vega, vega-interpreter: no eval)
 *   buildInTurn(root, containers, build)
 *                           build(container) one at a time, a task each: those near
 *                           the viewport first, the others as they near it or when
 *                           the page is idle (no long task parses every spec at once)
 *   createScheduler(env, apply, holdMs)
 *                           one requestAnimationFrame applies whatever was marked
 *                           dirty, however many inputs arrived (see sd-charts.js)
 *
 * One part of the widget's script: registers SpeculativeDecoding.frames.
 * Touches the DOM only when called; the scheduler is tested under node.
 */
(function (root, factory) {
  "use strict";
  var SD = (root.SpeculativeDecoding = root.SpeculativeDecoding || {});
  SD.frames = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var HOLD_MS = 250;

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

  /**
   * The frame scheduler: mark("state") / mark("rest"), and apply(state, rest)
   * runs in the next animation frame; "rest" waits until no "state" has come
   * for holdMs, and while hot() (the animation plays) comes at most once per
   * holdMs. env: { raf, now, setTimeout, hot }. Pure of the DOM (tested in node).
   */
  function createScheduler(env, apply, holdMs) {
    var hold = holdMs === undefined ? HOLD_MS : holdMs;
    var dirty = { state: false, rest: false };
    var frame = 0, timer = 0;
    var lastState = -Infinity, lastRest = -Infinity;

    function request() {
      if (!frame) frame = env.raf(flush) || 1;
    }

    function later(ms) {
      if (timer) return;
      timer = env.setTimeout(function () {
        timer = 0;
        request();
      }, Math.max(0, ms));
    }

    function flush() {
      frame = 0;
      var t = env.now();
      var state = dirty.state;
      var rest = false;
      if (state) lastState = t;
      if (dirty.rest) {
        // after a state change, wait for the sliders to rest; while playing, throttle
        var due = Math.max(lastState + hold, env.hot() ? lastRest + hold : -Infinity);
        if (t >= due) rest = true;
        else later(due - t);
      }
      dirty.state = false;
      if (rest) {
        dirty.rest = false;
        lastRest = t;
      }
      if (state || rest) apply(state, rest);
    }

    return {
      mark: function (what) {
        dirty[what] = true;
        request();
      },
      pending: function () {
        return dirty.state || dirty.rest;
      },
    };
  }

  /** A live view of the Vega spec `spec` drawn as SVG into `target`; a promise of the view once run. */
  function buildView(root, target, spec) {
    var vega = root.vega;
    var view = new vega.View(vega.parse(spec, null, { ast: true }), {
      expr: root.vegaInterpreter.expressionInterpreter, // the interpreter, not eval: CSP-safe
      renderer: "svg",
      container: target,
      hover: true,
    });
    // vega-tooltip's own stylesheet would be an injected <style>, which the CSP refuses
    view.tooltip(new root.vegaTooltip.Handler({ disableDefaultStyle: true, theme: "custom" }).call);
    return view.runAsync();
  }

  /** Build every one of `containers` with build(c) (a promise), one per task; see the header.
   * Settles once all are built, or fails with the first failure. */
  function buildInTurn(root, containers, build) {
    var waiting = containers.slice(), queue = [], busy = false, built = 0;
    return new Promise(function (resolve, reject) {
      if (!waiting.length) return resolve();
      function pump() {
        if (busy || !queue.length) return;
        busy = true;
        build(queue.shift()).then(function () {
          busy = false;
          built += 1;
          if (built === containers.length) resolve();
          else root.setTimeout(pump, 0); // yield: input and painting come between views
        }, reject);
      }
      function take(c) {
        var at = waiting.indexOf(c);
        if (at < 0) return;
        waiting.splice(at, 1);
        queue.push(c);
        pump();
      }
      if ("IntersectionObserver" in root) {
        var io = new root.IntersectionObserver(
          function (entries) {
            entries.forEach(function (e) {
              if (e.isIntersecting) {
                io.unobserve(e.target);
                take(e.target);
              }
            });
          },
          { rootMargin: "200px" }
        );
        waiting.forEach(function (c) { io.observe(c); });
      }
      var idle = root.requestIdleCallback || function (fn) { return root.setTimeout(fn, 100); };
      (function whenIdle() {
        idle(function () {
          if (!waiting.length) return;
          if (!busy && !queue.length) take(waiting[0]);
          whenIdle();
        }, { timeout: 1000 });
      })();
    });
  }

  /** Call start() lazily (see the header); `root` is the window. */
  function startLazily(root, figure, start) {
    // never before the page has loaded and painted its static figure (the
    // runtime is ~520 KB, 186 KB gzip); then when the figure nears the viewport, or once idle
    function whenLoaded(fn) {
      if (document.readyState === "complete") fn();
      else root.addEventListener("load", fn);
    }
    function afterFirstPaint(fn) {
      var done = false;
      function go() {
        if (!done) {
          done = true;
          fn();
        }
      }
      try {
        if (root.performance.getEntriesByName("first-contentful-paint").length) return go();
        var po = new root.PerformanceObserver(function (list) {
          if (list.getEntriesByName("first-contentful-paint").length) {
            po.disconnect();
            go();
          }
        });
        po.observe({ type: "paint", buffered: true });
      } catch (e) {
        /* no paint timing here: the timeout below starts the charts */
      }
      root.setTimeout(go, 3000);
    }
    whenLoaded(function () { afterFirstPaint(nearOrIdle); });
    function nearOrIdle() {
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
      idle(function () { start(); }, { timeout: 2000 });
    }
  }

  return {
    HOLD_MS: HOLD_MS, loadScript: loadScript, startLazily: startLazily, createScheduler: createScheduler,
    buildView: buildView, buildInTurn: buildInTurn,
  };
});
