/* kit-state.js: an explainer's one source of truth, and its URL form.
 *
 *   create({limits, defaults, keys})   a state module: a tiny store (get(),
 *            set(patch), subscribe(fn)) whose every value goes through
 *            sanitize(), so neither a junk URL nor a control can put a value
 *            there the model would reject: out-of-range numbers are clamped,
 *            junk falls back to the default, and an address holding either is
 *            corrected at once (syncUrl). The state is mirrored into the query
 *            string with history.replaceState (debounced: browsers throttle
 *            replaceState), falling back to the hash where the query cannot be
 *            replaced. `keys` maps a state key to its URL name (default: itself).
 *   limitsFrom(figure, prefix, keys)   each key's limits read from its slider
 *            (<input type=range id="<prefix>-<key>">, found by id inside the
 *            figure: never by a class content could write), so the URL obeys
 *            the limits the reader sees.
 *
 * One rule for every key of `limits`: a value that is not a number (or not a
 * known id) is junk and falls back; a number is brought into range (gamma=17
 * is 16) and onto the control's grid: step 1 rounds to a whole number, digits
 * keeps that many decimals rather than snapping to the step, another step
 * snaps to it (three decimals), a list of numbers takes its nearest entry
 * (ties go up, as Math.round does), a list of ids only its own.
 *
 * One part of the explainer kit's shared script: registers ExplainerKit.state.
 * Touches `window` only in syncUrl(), given it, and the DOM only in limitsFrom().
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var KIT = Object.prototype.hasOwnProperty.call(root, "ExplainerKit") ? root.ExplainerKit : (root.ExplainerKit = {});
  KIT.state = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

  /** A number from a URL string or a control, or NaN for junk. */
  function toNumber(value) {
    if (typeof value === "number") return isFinite(value) ? value : NaN;
    return typeof value === "string" && NUMBER.test(value) ? Number(value) : NaN; // "1e400" is Infinity: junk
  }

  /** The entry of a sorted list of numbers nearest to x (ties go to the larger). */
  function nearest(list, x) {
    var best = list[0];
    for (var i = 1; i < list.length; i++) if (Math.abs(list[i] - x) <= Math.abs(best - x)) best = list[i];
    return best;
  }

  /** Each of `keys`' limits from its slider in `figure` (see the header); a key with
   * no slider there is left out. */
  function limitsFrom(figure, prefix, keys) {
    var out = {};
    keys.forEach(function (key) {
      var input = figure.ownerDocument.getElementById(prefix + "-" + key);
      if (!input || !figure.contains(input) || input.type !== "range") return;
      var lim = { min: toNumber(input.min), max: toNumber(input.max), step: toNumber(input.step) };
      if (isFinite(lim.min) && isFinite(lim.max) && isFinite(lim.step) && lim.step > 0) out[key] = lim;
    });
    return out;
  }

  function create(options) {
    var LIMITS = options.limits;
    var DEFAULTS = options.defaults;
    var URL_KEYS = {};
    Object.keys(LIMITS).forEach(function (key) { URL_KEYS[key] = (options.keys && options.keys[key]) || key; });
    // a hash that holds the state (the fallback of syncUrl) is dropped once the query holds it
    var HASH_STATE = new RegExp("^#(" + Object.keys(URL_KEYS).join("|") + ")=.*$");

    /** A value for `key`: clamped into range and snapped to its grid, or `fallback` when it is junk. */
    function clean(key, value, fallback) {
      var lim = LIMITS[key];
      var x;
      if (lim.values && typeof lim.values[0] !== "number") return lim.values.indexOf(value) >= 0 ? value : fallback;
      x = toNumber(value);
      if (!isFinite(x)) return fallback;
      if (lim.values) return nearest(lim.values, x);
      x = Math.min(lim.max, Math.max(lim.min, x));
      if (lim.step === 1) return Math.round(x);
      if (lim.digits) return Number(x.toFixed(lim.digits));
      // snap to the slider's grid so the range input shows exactly this value
      var snapped = Math.round(x / lim.step) * lim.step;
      return Number(snapped.toFixed(3));
    }

    function sanitize(patch, base) {
      var out = {};
      for (var key in LIMITS) {
        var prev = base && key in base ? base[key] : DEFAULTS[key];
        out[key] = patch && key in patch ? clean(key, patch[key], prev) : prev;
      }
      return out;
    }

    function createStore(initial) {
      var state = sanitize(initial, DEFAULTS);
      var listeners = [];
      return {
        get: function () {
          return state;
        },
        /** Merge a patch; listeners hear (state, changedKeys) only when something changed. */
        set: function (patch) {
          var next = sanitize(patch, state);
          var changed = [];
          for (var key in next) if (next[key] !== state[key]) changed.push(key);
          if (!changed.length) return state;
          state = next;
          for (var i = 0; i < listeners.length; i++) listeners[i](state, changed);
          return state;
        },
        subscribe: function (fn) {
          listeners.push(fn);
          return function () {
            listeners = listeners.filter(function (f) {
              return f !== fn;
            });
          };
        },
      };
    }

    /** The state's keys as written in "?alpha=0.6&gamma=3" or "#alpha=..." (the
     * query wins), raw strings. */
    function rawParams(search, hash) {
      var raw = {};
      [hash, search].forEach(function (part) {
        if (!part) return;
        part.replace(/^[?#]/, "").split("&").forEach(function (pair) {
          var i = pair.indexOf("=");
          if (i < 0) return;
          var k, v;
          try {
            k = decodeURIComponent(pair.slice(0, i));
            v = decodeURIComponent(pair.slice(i + 1));
          } catch (e) {
            return;
          }
          for (var key in URL_KEYS) if (URL_KEYS[key] === k) raw[key] = v;
        });
      });
      return raw;
    }

    /** Parse "?alpha=0.6&gamma=3" or "#alpha=..." (either may be empty): values
     * clamped into range, junk silently the default. */
    function parseParams(search, hash) {
      return sanitize(rawParams(search, hash), DEFAULTS);
    }

    /** Whether the address holds a state value other than as the store keeps it
     * (clamped, snapped, junk replaced): then it is rewritten at once. */
    function needsRewrite(search, hash) {
      var raw = rawParams(search, hash);
      var clean = sanitize(raw, DEFAULTS);
      return Object.keys(raw).some(function (key) { return raw[key] !== String(clean[key]); });
    }

    function serialize(state) {
      return Object.keys(URL_KEYS)
        .map(function (key) {
          return URL_KEYS[key] + "=" + String(state[key]);
        })
        .join("&");
    }

    /** Keep location in step with the store (debounced). Returns a flush function. */
    function syncUrl(store, win, delay) {
      var timer = null;
      function write() {
        timer = null;
        var q = serialize(store.get());
        var loc = win.location;
        try {
          win.history.replaceState(win.history.state, "", loc.pathname + "?" + q + loc.hash.replace(HASH_STATE, ""));
        } catch (e) {
          try {
            win.history.replaceState(win.history.state, "", "#" + q);
          } catch (e2) {
            /* a sandboxed frame: the state simply stays local */
          }
        }
      }
      store.subscribe(function () {
        if (timer) win.clearTimeout(timer);
        timer = win.setTimeout(write, delay === undefined ? 200 : delay);
      });
      // a shared link with gamma=17 shows gamma=16 in the address bar too
      if (needsRewrite(win.location.search, win.location.hash)) write();
      return function flush() {
        if (timer) {
          win.clearTimeout(timer);
          write();
        }
      };
    }

    return {
      LIMITS: LIMITS,
      DEFAULTS: DEFAULTS,
      clean: clean,
      sanitize: sanitize,
      createStore: createStore,
      parseParams: parseParams,
      needsRewrite: needsRewrite,
      serialize: serialize,
      syncUrl: syncUrl,
    };
  }

  return { create: create, limitsFrom: limitsFrom, toNumber: toNumber, nearest: nearest };
});
