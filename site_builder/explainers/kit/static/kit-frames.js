/* kit-frames.js: when an explainer's live charts load and when they redraw.
 *
 *   loadScript(src)         a classic script injected once per src (the Vega runtime, a spec)
 *   startLazily(root, figure, start, watched)
 *                           start(reason) once, when it is needed: on the first use of any
 *                           control in the figure (reason "use": pointer, touch, key, focus
 *                           or input on a control or its label; a touch elsewhere on the
 *                           figure is a reader scrolling), or, once the page has loaded and painted, when one of
 *                           its charts (or of the `watched` elements, when given) nears the
 *                           viewport (reason "near"). Never merely
 *                           because the page is idle: a reader who never scrolls to a chart
 *                           nor touches a control never pays for the runtime
 *   inTasks(root, steps, value)
 *                           value -> steps[0] -> steps[1] ..., each step in a task of its own
 *                           (a step may return a promise; the next waits for it)
 *   buildView(root, target, spec, size, renderer)
 *                           a live Vega view of a compiled spec, built with the vendored
 *                           runtime (vega, vega-interpreter: no eval) in four tasks: parse,
 *                           view, dataflow, then render into `target` (at `size` when given;
 *                           "svg" unless `renderer` says "canvas")
 *   pictureSize(container, spec), pictureFit(spec, naturalW, naturalH, boxW, boxH)
 *                           the plot size that draws a view at the box its static
 *                           picture has now (so the swap moves nothing)
 *   buildInTurn(root, containers, build)
 *                           build(container) one at a time, a task each: those near
 *                           the viewport, the others only as they near it (no long
 *                           task parses every spec at once; an off-screen view costs
 *                           nothing until it is needed); .first(c) builds c next,
 *                           near or not; .drained: the views wanted so far are done
 *   fitSize, fitToContainer a live view kept as wide as its container
 *   createScheduler(env, apply, holdMs)
 *                           one requestAnimationFrame applies whatever was marked
 *                           dirty, however many inputs arrived (see kit-charts.js)
 *
 * One part of the explainer kit's shared script: registers ExplainerKit.frames.
 * Touches the DOM only when called; the scheduler, inTasks, buildInTurn and
 * startLazily are tested under node with a window whose events they drive.
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var KIT = Object.prototype.hasOwnProperty.call(root, "ExplainerKit") ? root.ExplainerKit : (root.ExplainerKit = {});
  KIT.frames = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var HOLD_MS = 250;
  // "near the viewport": within this margin of it. Small, so that at a common
  // desktop size (1280 x 900) the curve, just below the fold, waits for the
  // reader to scroll or use a control: what loads before any interaction stays
  // within its budget (250 KB gzip; the runtime alone is 187 KB)
  var NEAR = "100px 0px";

  var loads = {};
  /** A classic script injected once per src (a promise; the same one for every caller). */
  function loadScript(src) {
    if (!loads[src]) {
      loads[src] = inject(src);
      loads[src].catch(function () { delete loads[src]; }); // a later call tries again
    }
    return loads[src];
  }
  function inject(src) {
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

  /** value -> steps[0](value) -> steps[1](...) ..., each step in a new task (a
   * zero-delay timer: input and painting can come between two steps). */
  function inTasks(root, steps, value) {
    return steps.reduce(function (prev, step, i) {
      return prev.then(function (v) {
        if (i === 0) return step(v);
        return new Promise(function (resolve) { root.setTimeout(resolve, 0); }).then(function () { return step(v); });
      });
    }, Promise.resolve(value));
  }

  /** A live view of the Vega spec `spec` drawn into `target` (as SVG, or on a
   * canvas when `renderer` is "canvas"), a promise of the view once drawn. The
   * work is cut into tasks (under a 4x slower CPU the first view costs ~0.35 s,
   * more than any one task should): parsing the spec,
   * making the view, running its dataflow headless, and last, in one task,
   * sizing it (size() -> {width, height}, or null for the spec's own size),
   * attaching it to `target` and drawing it. The caller's then() runs in that
   * same task, so the static picture and the live view never share a frame. */
  function buildView(root, target, spec, size, renderer) {
    var vega = root.vega, view;
    return inTasks(root, [
      function () { return vega.parse(spec, null, { ast: true }); },
      function (runtime) {
        view = new vega.View(runtime, {
          expr: root.vegaInterpreter.expressionInterpreter, // the interpreter, not eval: CSP-safe
          renderer: renderer || "svg",
          hover: true,
        });
        // vega-tooltip's own stylesheet would be an injected <style>, which the CSP refuses
        view.tooltip(new root.vegaTooltip.Handler({ disableDefaultStyle: true, theme: "custom" }).call);
      },
      function () { return view.runAsync(); }, // the dataflow, nothing drawn yet
      function () {
        var box = size ? size() : null;
        if (box) view.width(box.width).height(box.height);
        view.initialize(target);
        return view.runAsync();
      },
    ]);
  }

  /** The plot size (spec width and height) that draws a view whose picture, drawn
   * from `spec` at naturalW x naturalH, now shows at boxW x boxH: the axes and
   * titles keep their room, the plot takes the rest. */
  function pictureFit(spec, naturalW, naturalH, boxW, boxH) {
    return {
      width: Math.max(1, Math.round(spec.width + boxW - naturalW)),
      height: Math.max(1, Math.round(spec.height + boxH - naturalH)),
    };
  }

  /** The plot size that makes a view fill the box its static picture has now
   * in `container` (the picture was drawn from the same spec at its natural
   * size, so the axes take the same room), or null to keep the spec's own size. */
  function pictureSize(container, spec) {
    var img = container.querySelector("picture img");
    if (!img || typeof spec.width !== "number" || typeof spec.height !== "number") return null;
    var box = img.getBoundingClientRect();
    if (!box.width || !box.height) return null;
    return pictureFit(spec, Number(img.getAttribute("width")), Number(img.getAttribute("height")), box.width, box.height);
  }

  /** Build each of `containers` with build(c) (a promise), one per task; see the
   * header. A promise settled once every one is done: fulfilled if all were
   * built, else failed with the first failure (a view that fails keeps its
   * picture; the others are built still). .drained settles when the views
   * wanted so far are done (the queue first runs dry, or nothing is near when
   * the observer first reports): failed only if every one of them failed.
   * .first(c) builds c next. */
  function buildInTurn(root, containers, build) {
    var waiting = containers.slice(), queue = [], busy = false, built = 0, done = 0, failure = null;
    var take = function () {};
    var drain = {};
    var drained = new Promise(function (resolve, reject) { drain.resolve = resolve; drain.reject = reject; });
    drained.catch(function () {}); // a failure is the whole's too: reported there, not twice
    function dry() { // the queue has run dry: what was wanted is done
      if (failure && !built) drain.reject(failure);
      else drain.resolve(); // (a second time: a no-op)
    }
    var all = new Promise(function (resolve, reject) {
      if (!waiting.length) {
        drain.resolve();
        return resolve();
      }
      function finished() {
        busy = false;
        done += 1;
        if (done < containers.length) return root.setTimeout(pump, 0); // yield: input and painting come between views
        dry();
        if (failure) reject(failure);
        else resolve();
      }
      function pump() {
        if (busy) return;
        if (!queue.length) return dry();
        busy = true;
        build(queue.shift()).then(function () {
          built += 1;
          finished();
        }, function (err) {
          failure = failure || err;
          finished();
        });
      }
      take = function (c, first) {
        var at = waiting.indexOf(c);
        if (at < 0) {
          // already queued: a view the reader needs now goes first
          var q = queue.indexOf(c);
          if (first && q > 0) queue.unshift(queue.splice(q, 1)[0]);
          return;
        }
        waiting.splice(at, 1);
        if (first) queue.unshift(c);
        else queue.push(c);
        pump();
      };
      if ("IntersectionObserver" in root) {
        // an off-screen view waits until it nears the viewport: its spec, parse and
        // drawing cost nothing, before any interaction or during a drag, until then
        var io = new root.IntersectionObserver(
          function (entries) {
            entries.forEach(function (e) {
              if (e.isIntersecting) {
                io.unobserve(e.target);
                take(e.target);
              }
            });
            if (!busy && !queue.length) dry(); // nothing near now (the reader scrolled away meanwhile)
          },
          { rootMargin: "200px" }
        );
        waiting.forEach(function (c) { io.observe(c); });
      } else {
        // no way to tell what is near: every view, one per idle period, in document order
        var idle = root.requestIdleCallback || function (fn) { return root.setTimeout(fn, 100); };
        (function whenIdle() {
          idle(function () {
            if (!waiting.length) return;
            if (!busy && !queue.length) take(waiting[0]);
            whenIdle();
          }, { timeout: 1000 });
        })();
      }
    });
    /** Build `c` next (the curve, once a slider is used), whether or not it is near the viewport. */
    all.first = function (c) { take(c, true); };
    all.drained = drained;
    return all;
  }

  /** The plot size that makes a view with `extra` pixels of axes and padding
   * fill `available` pixels, within the limits of `fit`. */
  function fitSize(fit, available, extra) {
    var w = Math.round(Math.max(fit.min, Math.min(fit.max, available - extra)));
    var h = Math.round(Math.max(fit.minH, Math.min(fit.maxH, w * fit.ratio)));
    return { width: w, height: h };
  }

  /** Keep the view drawn in `container` (current(): the one there now) as wide as
   * the container, within `fit` (fitSize), once that width changes (the first
   * size is the static picture's: see pictureSize); resizing is rare, so a full
   * re-layout is fine. */
  function fitToContainer(root, container, fit, current) {
    if (!fit || !("ResizeObserver" in root)) return;
    var width = Math.floor(container.getBoundingClientRect().width);
    new root.ResizeObserver(function (entries) {
      var available = Math.floor(entries[entries.length - 1].contentRect.width);
      if (!available || available === width) return;
      width = available;
      var view = current();
      // the element Vega draws in (view.container()): found through the view, never by a class
      var host = view.container ? view.container() : null;
      var drawn = host ? host.querySelector("svg, canvas") : null;
      // the view's whole width: an SVG's own width, a canvas's CSS width (its pixels are scaled)
      var whole = drawn ? (drawn.tagName.toLowerCase() === "canvas" ? parseFloat(drawn.style.width) : Number(drawn.getAttribute("width"))) : NaN;
      var extra = whole ? whole - view.width() : 60;
      var size = fitSize(fit, available, extra);
      if (size.width !== view.width() || size.height !== view.height()) view.width(size.width).height(size.height).runAsync();
    }).observe(container);
  }

  /** The events that count as using a control: the runtime starts loading on the
   * first of them (focus comes first from the keyboard, pointerdown from a mouse). */
  var USE_EVENTS = ["pointerdown", "touchstart", "keydown", "focusin", "input", "change"];

  /** Whether `el` is (in) a control: an input, select, button or textarea, or a label of one. */
  function isControl(el) {
    return !!(el && el.closest && el.closest("input, select, button, textarea, label"));
  }

  /** Call start(reason) once, when needed (see the header); `root` is the window. */
  function startLazily(root, figure, start, watched) {
    var doc = root.document, started = false, io = null;
    function go(reason) {
      if (started) return;
      started = true;
      USE_EVENTS.forEach(function (type) { figure.removeEventListener(type, onUse, true); });
      if (io) io.disconnect();
      start(reason);
    }
    // a control, not the figure: a finger scrolling the page across the figure is no use of it
    function onUse(e) {
      if (isControl(e && e.target)) go("use");
    }
    USE_EVENTS.forEach(function (type) { figure.addEventListener(type, onUse, { capture: true, passive: true }); });

    // a chart near the viewport (NEAR): never before the page has loaded and painted its
    // static figure (the runtime is ~540 KB, 187 KB gzip, and its first view
    // ~0.35 s of work on a slow phone)
    function whenLoaded(fn) {
      if (doc.readyState === "complete") fn();
      else root.addEventListener("load", fn);
    }
    function afterFirstPaint(fn) {
      var done = false;
      function once() {
        if (!done) {
          done = true;
          fn();
        }
      }
      try {
        if (root.performance.getEntriesByName("first-contentful-paint").length) return once();
        var po = new root.PerformanceObserver(function (list) {
          if (list.getEntriesByName("first-contentful-paint").length) {
            po.disconnect();
            once();
          }
        });
        po.observe({ type: "paint", buffered: true });
      } catch (e) {
        /* no paint timing here: the timeout below stands in for it */
      }
      root.setTimeout(once, 3000);
    }
    whenLoaded(function () {
      afterFirstPaint(function () {
        if (started || !("IntersectionObserver" in root)) return; // without one: on first use only
        io = new root.IntersectionObserver(
          function (entries) {
            if (entries.some(function (e) { return e.isIntersecting; })) go("near");
          },
          { rootMargin: NEAR }
        );
        Array.prototype.forEach.call(watched || figure.querySelectorAll("[data-chart]"), function (c) { io.observe(c); });
      });
    });
  }

  return {
    HOLD_MS: HOLD_MS, NEAR: NEAR, loadScript: loadScript, startLazily: startLazily, createScheduler: createScheduler,
    inTasks: inTasks, buildView: buildView, pictureFit: pictureFit, pictureSize: pictureSize, buildInTurn: buildInTurn, USE_EVENTS: USE_EVENTS, isControl: isControl,
    fitSize: fitSize, fitToContainer: fitToContainer,
  };
});
