/* sd-curve.js: the curve chart's data, computed in the browser as charts.py
 * computes it at build time (the tests compare them), and what a canvas view's
 * spec needs. Pure: no DOM.
 *
 *   curveRows(alpha, c, gamma)   the "curve" rows: whole depths (points) and a smooth line
 *   curveEdits(tuples, rows)     the in-place edits turning a view's tuples into rows
 *   yTop(rows)                   the stepped top of the y axis (it stays still while a slider moves)
 *   currentRow(s)                the plane's one-row "current" dataset
 *   inked(spec, ink)             a compiled spec with "currentColor" replaced (see sd-charts.js)
 *
 * One part of the widget's script: registers SpeculativeDecoding.curve
 * (sd-charts.js re-exports it as before).
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  SD.curve = factory(SD.model);
})(typeof self !== "undefined" ? self : this, function (M) {
  "use strict";

  var GAMMA_MAX = 16;
  var BEST_SEARCH = 64; // as charts.BEST_SEARCH and the readout: a best depth off the chart gets no diamond
  var SMOOTH_STEP = 0.5; // as charts.SMOOTH_STEP (a test keeps them equal)
  // the curve's y axis tops, as charts.Y_TOPS and HEADROOM: stepped, so the
  // axis stays still (and cheap) while a slider moves
  var Y_TOPS = [1.5, 2, 2.5, 3, 3.5, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20];
  var HEADROOM = 1.12;
  var CURVE_FIELDS = ["S", "E", "cost", "peak", "current"];
  /** A copy of the compiled spec `spec` with every "currentColor" replaced by
   * `ink` (a CSS colour): what a canvas view draws its text and axes in. */
  function inked(spec, ink) {
    if (spec === "currentColor") return ink;
    if (Array.isArray(spec)) return spec.map(function (x) { return inked(x, ink); });
    if (spec && typeof spec === "object") {
      var out = {};
      Object.keys(spec).forEach(function (k) { out[k] = inked(spec[k], ink); });
      return out;
    }
    return spec;
  }

  /** Rows of the curve for (alpha, c): whole depths (points) and a smooth line. */
  function curveRows(alpha, c, gamma) {
    var best = M.optimalDepth(alpha, c, BEST_SEARCH);
    var rows = [];
    var n = Math.round(GAMMA_MAX / SMOOTH_STEP);
    for (var i = 0; i <= n; i++) {
      var g = i * SMOOTH_STEP;
      var whole = g === Math.round(g);
      rows.push({
        gamma: g,
        S: M.speedup(alpha, g, c),
        E: M.expectedTokens(alpha, g),
        cost: M.roundCost(g, c),
        whole: whole,
        peak: whole && g === best,
        current: whole && g === gamma,
      });
    }
    return rows;
  }

  /** The top of the curve's y axis for these rows. */
  function yTop(rows) {
    var need = 0;
    for (var i = 0; i < rows.length; i++) need = Math.max(need, rows[i].S);
    need *= HEADROOM;
    for (var j = 0; j < Y_TOPS.length; j++) if (Y_TOPS[j] >= need) return Y_TOPS[j];
    return Y_TOPS[Y_TOPS.length - 1];
  }

  /** The edits that turn `tuples` into `rows`, matched by gamma: [[tuple, field, value]],
   * or null when the two do not describe the same grid (then the rows replace the data). */
  function curveEdits(tuples, rows) {
    if (!tuples || tuples.length !== rows.length) return null;
    var byGamma = {};
    for (var i = 0; i < tuples.length; i++) byGamma[tuples[i].gamma] = tuples[i];
    var edits = [];
    for (var j = 0; j < rows.length; j++) {
      var t = byGamma[rows[j].gamma];
      if (!t) return null;
      for (var k = 0; k < CURVE_FIELDS.length; k++) {
        var f = CURVE_FIELDS[k];
        if (t[f] !== rows[j][f]) edits.push([t, f, rows[j][f]]);
      }
    }
    return edits;
  }

  function currentRow(s) {
    return [{ alpha: s.alpha, c: s.c, gamma: s.gamma, S: M.speedup(s.alpha, s.gamma, s.c), best: M.optimalDepth(s.alpha, s.c, BEST_SEARCH) }];
  }

  return {
    curveRows: curveRows, curveEdits: curveEdits, yTop: yTop, currentRow: currentRow, inked: inked,
    Y_TOPS: Y_TOPS, HEADROOM: HEADROOM, SMOOTH_STEP: SMOOTH_STEP, BEST_SEARCH: BEST_SEARCH,
  };
});
