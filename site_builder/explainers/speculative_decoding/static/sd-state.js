/* sd-state.js: the one source of truth for the explainer, and its URL form.
 *
 * A tiny store: get(), set(patch), subscribe(fn). Every value that enters it
 * goes through sanitize(), so neither a junk URL nor a control can put a value
 * there that the model would reject. The state (alpha, gamma, c, seed, and
 * the serving panel's batch, ctx, devices, hw, pair) is mirrored into the
 * query string with history.replaceState (debounced:
 * browsers throttle replaceState), falling back to the hash where the query
 * cannot be replaced.
 *
 * One part of the widget's script: registers SpeculativeDecoding.state. The
 * defaults come from SpeculativeDecoding.data (settings.json, which page.py
 * reads too). Touches `window` only in syncUrl(), given it.
 */
(function (root, factory) {
  "use strict";
  var SD = (root.SpeculativeDecoding = root.SpeculativeDecoding || {});
  SD.state = factory(SD.data);
})(typeof self !== "undefined" ? self : this, function (data) {
  "use strict";

  var SERVING = data.serving; // settings.json: the panel's lists
  // the preset ids (the presets themselves arrive with the panel's lazy script)
  var IDS = data.serving_ids || { hardware: [], pairings: [] };
  // min/max/step: a number, out of range or off a whole step is junk (the
  // main figure's keys, as before); clamp: out of range is brought into it
  // and rounded to a whole number (a batch of 10000 is a batch of 4096);
  // digits: kept to that many decimals rather than snapped to the slider's
  // step (a pairing sets c to its P_d / P_t, 0.113818); values: one of a list.
  var LIMITS = {
    alpha: { min: 0, max: 1, step: 0.001 },
    gamma: { min: 1, max: 16, step: 1 },
    c: { min: 0, max: 1, step: 0.001, digits: 6 },
    seed: { min: 0, max: 4294967295, step: 1 },
    batch: { min: 1, max: SERVING.max_batch, step: 1, clamp: true },
    ctx: { min: 0, max: SERVING.contexts[SERVING.contexts.length - 1], step: 1, clamp: true },
    devices: { values: SERVING.devices },
    hw: { values: IDS.hardware },
    pair: { values: IDS.pairings },
  };
  var DEFAULTS = data.defaults; // from settings.json, written into the script by the build
  var URL_KEYS = { alpha: "alpha", gamma: "gamma", c: "c", seed: "seed", batch: "batch", ctx: "ctx", devices: "devices", hw: "hw", pair: "pair" };
  var NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
  // a hash that holds the state (the fallback of syncUrl) is dropped once the query holds it
  var HASH_STATE = new RegExp("^#(" + Object.keys(URL_KEYS).join("|") + ")=.*$");

  /** A value for `key`, snapped to its step, or `fallback` when it is junk. */
  function clean(key, value, fallback) {
    var lim = LIMITS[key];
    var x;
    if (lim.values) {
      // a list of numbers takes "8" from a URL as 8; a list of ids takes the string as it is
      var v = typeof lim.values[0] === "number" && typeof value === "string" && NUMBER.test(value) ? Number(value) : value;
      return lim.values.indexOf(v) >= 0 ? v : fallback;
    }
    if (typeof value === "number") x = value;
    else if (typeof value === "string" && NUMBER.test(value)) x = Number(value);
    else return fallback;
    if (!isFinite(x)) return fallback;
    if (lim.clamp) return Math.round(Math.min(lim.max, Math.max(lim.min, x)));
    if (x < lim.min || x > lim.max) return fallback;
    if (lim.step === 1) return Math.round(x) === x ? x : fallback;
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

  /** Parse "?alpha=0.6&gamma=3" or "#alpha=..." (either may be empty). Junk falls back silently. */
  function parseParams(search, hash) {
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
    return sanitize(raw, DEFAULTS);
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
    serialize: serialize,
    syncUrl: syncUrl,
  };
});
