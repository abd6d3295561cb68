/* sd-readout.js: the numbers and the plain-words verdict for one setting.
 *
 * describe(alpha, gamma, c) is pure (unit-tested under node); render() writes
 * it into the readout elements ([data-out=...]) of the figure. The readout is
 * an aria-live="polite" region in the markup.
 */
(function (root, factory) {
  "use strict";
  var M = typeof module === "object" && module.exports ? require("./sd-model.js") : root.SDModel;
  var api = factory(M);
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.SDReadout = api;
})(typeof self !== "undefined" ? self : this, function (M) {
  "use strict";

  var MAX_DEPTH = 64; // the depths searched for the best one, as model.optimal_depth
  var SLIDER_MAX = 16;

  /** Up to three decimals, no trailing zeros beyond two: 0.05, 0.015, 0.8 -> "0.80". */
  function num(x) {
    var t = x.toFixed(3);
    return t.charAt(t.length - 1) === "0" ? x.toFixed(2) : t;
  }

  function pct(x) {
    return Math.round(x * 100) + "%";
  }

  function describe(alpha, gamma, c) {
    var E = M.expectedTokens(alpha, gamma);
    var cost = M.roundCost(gamma, c);
    var S = M.speedup(alpha, gamma, c);
    var best = M.optimalDepth(alpha, c, MAX_DEPTH);
    var bestS = M.speedup(alpha, best, c);
    var pays = M.paysOff(alpha, gamma, c);
    var tie = !pays && Math.abs(S - 1) <= 1e-12;
    var verdict, kind;
    if (pays) {
      kind = "win";
      verdict = "Pays off: a round costs " + cost.toFixed(2) + " target passes and yields " + E.toFixed(2) +
        " tokens on average, " + S.toFixed(2) + "× the speed of plain decoding.";
    } else if (tie) {
      kind = "even";
      verdict = "Break-even: a round costs exactly what it yields (" + E.toFixed(2) + " tokens for " + cost.toFixed(2) +
        " passes). Speculating here buys nothing.";
    } else {
      kind = "slowdown";
      verdict = "This is a slowdown: a round costs " + cost.toFixed(2) + " target passes but yields only " + E.toFixed(2) +
        " tokens, so generation runs at " + S.toFixed(2) + "× plain decoding, " + pct(1 - S) + " fewer tokens per second than not speculating at all." +
        (c >= alpha
          ? " With the draft's cost (" + num(c) + ") at or above its acceptance rate (" + num(alpha) + "), no depth pays off."
          : " A shallower depth would do better.");
    }
    var bestText;
    if (best === 0) bestText = "none: do not speculate (plain decoding, 1.00×, is best)";
    else bestText = "γ = " + best + " at " + bestS.toFixed(2) + "×" + (best > SLIDER_MAX ? " (deeper than this slider goes)" : "");
    return { E: E, cost: cost, S: S, best: best, bestS: bestS, pays: pays, kind: kind, verdict: verdict, bestText: bestText };
  }

  /** Write describe(state) into the [data-out] elements under rootEl. */
  function render(rootEl, state) {
    var d = describe(state.alpha, state.gamma, state.c);
    var outs = rootEl.querySelectorAll("[data-out]");
    var text = {
      E: d.E.toFixed(3),
      cost: d.cost.toFixed(2),
      S: d.S.toFixed(3) + "×",
      best: d.bestText,
      verdict: d.verdict,
      formula: "1 + " + state.gamma + " × " + num(state.c),
    };
    for (var i = 0; i < outs.length; i++) {
      var key = outs[i].getAttribute("data-out");
      if (key in text && outs[i].textContent !== text[key]) outs[i].textContent = text[key];
    }
    rootEl.setAttribute("data-verdict", d.kind);
    return d;
  }

  return { describe: describe, render: render, MAX_DEPTH: MAX_DEPTH };
});
