/* kit-charts.js: an explainer's live charts, from static pictures to live views.
 *
 * Lifecycle of a figure's charts (create()):
 *
 *   static (the <img> SVGs rendered at build time, light and dark)
 *     --a control is first used, or (after `load` and first paint) a chart nears
 *       the viewport (frames.startLazily); never merely because the page is idle-->
 *   loading: the Vega runtime injected (vendored: vega, vega-interpreter,
 *            vega-tooltip), then the views built one at a time, each from its
 *            own spec script, in small tasks (frames.buildView): those near the
 *            viewport, the others as the reader nears them (frames.buildInTurn).
 *            A picture stays until its view is drawn, at the box the picture
 *            had, so the swap moves nothing
 *     --the views wanted so far built--> live (data-charts="live" on the figure;
 *            data-live on each chart as its view comes)
 *     --a script fails-->   static (data-charts="static"; the pictures stay)
 *
 * The scripts it loads are never named by the page: the build writes their
 * file names into the explainer's own script (kit/__init__.py asset_names),
 * and they are resolved beside the kit's own script (assetUrl): every
 * explainer asset is in that one folder. Charts are found inside the figure
 * (the explainer's, found by id), by their data-chart attribute.
 *
 * Views are built with the AST expression interpreter (ast: true): nothing is
 * eval'd and a strict CSP holds. Text drawn in a mark's colour follows the
 * page's scheme: `inks` pairs a view's signal with a custom property of the
 * figure, set when the view is built and again when the scheme changes (the
 * system's, or the site's toggle, which sets data-scheme on <html>).
 *
 * One part of the explainer kit's shared script: registers ExplainerKit.charts
 * (after kit-frames.js). The DOM is touched only when called.
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var KIT = Object.prototype.hasOwnProperty.call(root, "ExplainerKit") ? root.ExplainerKit : (root.ExplainerKit = {});
  KIT.charts = factory(root, KIT.frames);
})(typeof self !== "undefined" ? self : this, function (root, F) {
  "use strict";

  // the kit's own URL: document.currentScript names it only while it runs
  var HERE = typeof document !== "undefined" && document.currentScript ? document.currentScript.src : "";
  var FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\.js$/; // a file beside this script: no folder, no scheme

  /** The URL of file `name` beside `here`; "" (never loaded) for a path, a scheme, a non-string. */
  function assetUrl(name, here) {
    if (typeof name !== "string" || !FILE_NAME.test(name) || !here) return "";
    return new URL(name, here).href;
  }
  /** A script the build named, beside the kit's script, loaded once (a promise); refused when it named none. */
  function loadAsset(name) {
    var url = assetUrl(name, HERE);
    return url ? F.loadScript(url) : Promise.reject(new Error("no script named " + String(name)));
  }

  /** The view of `spec` in `container` (a promise of it), drawn into a new element
   * of class `opts.className` (default "kit-vega") at the box the container's
   * picture has now, or at `opts.size()`; `opts.renderer` "svg" (default) or
   * "canvas"; `opts.replacing`: the element of an older view (or a function
   * finding it then), swapped out in the task the new one is drawn in. The picture or old view goes in that task too. */
  function embed(container, spec, opts) {
    opts = opts || {};
    var target = document.createElement("div");
    target.className = opts.className || "kit-vega";
    // One image to assistive technology, named by the spec's description, as
    // the static <img> was by its alt: Vega's marks stay out of the tree.
    target.setAttribute("role", "img");
    target.setAttribute("aria-label", spec.description || "");
    var size = opts.size || function () { return F.pictureSize(container, spec); };
    return F.buildView(root, target, spec, size, opts.renderer).then(function (view) {
      var drawn = target.querySelector("svg, canvas");
      if (drawn) drawn.setAttribute("aria-hidden", "true");
      var before = typeof opts.replacing === "function" ? opts.replacing() : opts.replacing;
      if (before && before.parentNode === container) container.replaceChild(target, before);
      else container.appendChild(target);
      container.setAttribute("data-live", "true");
      return view;
    });
  }

  /** Set each [signal, custom property] of `inks` on `view` from `figure`'s computed
   * style; whether any changed (then run the view). */
  function setInks(figure, view, inks) {
    var css = root.getComputedStyle(figure);
    var touched = false;
    (inks || []).forEach(function (pair) {
      var value = css.getPropertyValue(pair[1]).trim();
      try {
        if (value && view.signal(pair[0]) !== value) touched = !!view.signal(pair[0], value); // (the view)
      } catch (e) { /* this view draws no coloured text */ }
    });
    return touched;
  }

  /** fn() whenever the colour scheme changes: the system's, or the site's toggle. */
  function onScheme(fn) {
    if (!root.matchMedia) return;
    var scheme = root.matchMedia("(prefers-color-scheme: dark)");
    if (scheme.addEventListener) scheme.addEventListener("change", fn);
    else if (scheme.addListener) scheme.addListener(fn);
    if (root.MutationObserver) new root.MutationObserver(fn).observe( // the site's toggle (scheme.js)
      root.document.documentElement, { attributes: true, attributeFilter: ["data-scheme"] });
  }

  /** The charts of `figure`, live once needed (see the header). options:
   *   assets   {runtime: file, specs: {chart: file}} as the build wrote them (or a function giving them)
   *   specs    () -> the object the spec scripts fill (window.<Namespace>.specs)
   *   built    (name, view) called as each view comes (feed it the state there)
   *   inks     [[signal, custom property]] (setInks)
   *   fit      {chart: frames.fitSize limits}: views kept as wide as their container
   *   name     the explainer's name, for the console's warnings
   * and, for a figure with more to do (the speculative-decoding explainer):
   *   views    the object to keep the views in (name -> view)
   *   first    () -> the chart built first of all once a control is used (the one a slider moves):
   *            its spec loads beside the runtime then, and it jumps the queue
   *   onUse    () called on the first use of a control (start("use"))
   *   embed    (container, spec) -> a promise of the view, in place of embed()
   *   live     () -> a promise settled before the figure says live (the views brought up to date)
   *   scheme   (name, view) on a colour scheme change, in place of setInks
   * Returns {start(reason), views, started() -> the promise of start (null before)}. */
  function create(figure, options) {
    var views = options.views || {}, ready = null, turn = null, wanted = false;
    function assets() { return (typeof options.assets === "function" ? options.assets() : options.assets) || { specs: {} }; }
    function first() { return options.first ? options.first() : null; }
    function warn(err) {
      if (root.console) root.console.warn((options.name || "explainer") + ": stays static:", err);
    }
    /** The spec of the chart in container c, once its script is in (a promise). */
    function specOf(c) {
      var name = c.getAttribute("data-chart");
      return loadAsset(assets().specs[name]).then(function () {
        return (options.specs() || {})[name] || Promise.reject(new Error("no spec for " + name));
      });
    }
    /** Load the runtime and build the views (once); reason "use" (a control was
     * used: first() first) or "near" (a chart nears the viewport). */
    function start(reason) {
      if (reason === "use") {
        if (options.onUse) options.onUse();
        wanted = true;
        if (ready && first()) specOf(first()).catch(warn); // the runtime is on its way: the first view's spec beside it
        if (turn && first()) turn.first(first());
      }
      if (ready) return ready;
      figure.setAttribute("data-charts", "loading");
      var runtimeIn = loadAsset(assets().runtime);
      if (wanted && first()) specOf(first()).catch(warn); // beside the runtime, not after it (its build reports a failure)
      ready = runtimeIn
        .then(function () {
          var containers = Array.prototype.filter.call(figure.querySelectorAll("[data-chart]"), function (c) {
            return Object.prototype.hasOwnProperty.call(assets().specs, c.getAttribute("data-chart"));
          });
          turn = F.buildInTurn(root, containers, function (c) {
            var name = c.getAttribute("data-chart");
            return specOf(c).then(function (spec) { return options.embed ? options.embed(c, spec) : embed(c, spec); }).then(function (view) {
              views[name] = view;
              if (setInks(figure, view, options.inks)) view.runAsync(); // drawn in the page's scheme now
              // (the one drawn now: a view may be rebuilt, options.scheme)
              F.fitToContainer(root, c, (options.fit || {})[name], function () { return views[name]; });
              if (options.built) options.built(name, view);
            });
          });
          if (wanted && first()) turn.first(first());
          turn.catch(warn); // a view that fails keeps its picture; the others are built still
          return turn.drained;
        })
        .then(function () { return options.live ? options.live() : null; })
        .then(function () {
          figure.setAttribute("data-charts", "live");
          return views;
        })
        .catch(function (err) {
          figure.setAttribute("data-charts", "static");
          warn(err);
          return views;
        });
      return ready;
    }
    onScheme(function () {
      Object.keys(views).forEach(function (name) {
        if (options.scheme) options.scheme(name, views[name]);
        else if (setInks(figure, views[name], options.inks)) views[name].runAsync();
      });
    });
    // lazily: on the first use of a control, or when a chart nears the viewport
    F.startLazily(root, figure, start);
    // a control used after the charts started (a chart was near): the first view goes first
    F.USE_EVENTS.forEach(function (type) {
      figure.addEventListener(type, function (e) { if (ready && !wanted && F.isControl(e.target)) start("use"); }, { capture: true, passive: true });
    });
    return { start: start, views: views, started: function () { return ready; } };
  }

  return { create: create, embed: embed, setInks: setInks, onScheme: onScheme, assetUrl: assetUrl, loadAsset: loadAsset, HERE: HERE };
});
