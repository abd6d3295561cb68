/* sd-readout.js: the numbers and the plain-words verdict for one setting.
 *
 * describe(alpha, gamma, c) is pure (unit-tested under node); render() writes
 * it into the readout elements ([data-out=...]) of the figure at once, on every
 * input. The visible readout is not a live region (it would chatter during a
 * slider drag); announcer() speaks summary() from a separate visually hidden
 * polite region once the value has settled.
 *
 * The words are templates from settings.json (SpeculativeDecoding.data.words),
 * the ones page.describe() fills for the page as built: one source for both.
 * One part of the widget's script: registers SpeculativeDecoding.readout.
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  SD.readout = factory(SD.model, SD.data.words);
})(typeof self !== "undefined" ? self : this, function (M, W) {
  "use strict";

  var MAX_DEPTH = 64; // the depths searched for the best one, as page.BEST_SEARCH
  var SLIDER_MAX = 16;

  /** A template of settings.json with its {name} holes filled from `values`. */
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (hole, name) {
      return String(values[name]);
    });
  }

  /** Up to three decimals, no trailing zeros beyond two: 0.05, 0.015, 0.8 -> "0.80". */
  function num(x) {
    var t = x.toFixed(3);
    return t.charAt(t.length - 1) === "0" ? x.toFixed(2) : t;
  }

  /** A fraction as a whole percentage; "less than 1%" rather than "0%" for a real but tiny loss. */
  function pct(x) {
    return x * 100 < 0.5 ? W.tiny_loss : Math.round(x * 100) + "%";
  }

  /** S for the verdict: three decimals near 1, so "pays off" never reads 1.00×. */
  function ratio(S) {
    return Math.abs(S - 1) < 0.005 ? S.toFixed(3) : S.toFixed(2);
  }

  function describe(alpha, gamma, c) {
    var E = M.expectedTokens(alpha, gamma);
    var cost = M.roundCost(gamma, c);
    var S = M.speedup(alpha, gamma, c);
    var best = M.optimalDepth(alpha, c, MAX_DEPTH);
    var bestS = M.speedup(alpha, best, c);
    var pays = M.paysOff(alpha, gamma, c);
    var tie = !pays && Math.abs(S - 1) <= 1e-12;
    // A free draft gains at every depth (less and less): no whole depth is best.
    var finite = !(c === 0 && alpha > 0);
    var verdict, kind;
    if (pays) {
      kind = "win";
      verdict = fill(W.win, { cost: cost.toFixed(2), E: E.toFixed(2), S: ratio(S) });
    } else if (tie) {
      kind = "even";
      verdict = fill(W.even, { cost: cost.toFixed(2), E: E.toFixed(2) });
    } else {
      kind = "slowdown";
      verdict = fill(W.slowdown, { cost: cost.toFixed(2), E: E.toFixed(2), S: ratio(S), loss: pct(1 - S) }) +
        (c >= alpha ? fill(W.no_depth, { c: num(c), alpha: num(alpha) }) : W.shallower);
    }
    var bestText;
    if (!finite) bestText = alpha >= 1 ? W.best_unbounded : fill(W.best_approaching, { limit: (1 / (1 - alpha)).toFixed(2) });
    else if (best === 0) bestText = W.best_none;
    else if (best >= MAX_DEPTH) bestText = fill(W.best_beyond, { max: MAX_DEPTH, best_s: bestS.toFixed(2) });
    else bestText = fill(W.best_at, { best: best, best_s: bestS.toFixed(2) }) + (best > SLIDER_MAX ? W.best_deeper : "");
    return { E: E, cost: cost, S: S, best: best, bestS: bestS, finite: finite, pays: pays, kind: kind, verdict: verdict, bestText: bestText };
  }

  /** A short sentence for screen readers: the setting, the speedup, the verdict, the best depth. */
  function summary(state) {
    var d = describe(state.alpha, state.gamma, state.c);
    var verdict = d.kind === "win" ? "pays off" : d.kind === "even" ? "break-even" : "a slowdown";
    return "Acceptance " + num(state.alpha) + ", depth " + state.gamma + ", draft cost " + num(state.c) +
      ": speedup " + d.S.toFixed(2) + " times, " + verdict + ". Best depth: " +
      (!d.finite ? "none, a free draft gains at every depth" : d.best === 0 ? "do not speculate" : String(d.best)) + ".";
  }

  /**
   * announcer(el, delayMs, timers): say(text) writes text into the live region
   * el once no new text has come for delayMs (a slider drag announces only
   * where it stops), and never repeats the last announcement.
   * timers: { setTimeout, clearTimeout } (the window, or fakes in tests).
   */
  function announcer(el, delayMs, timers) {
    var timer = null;
    var last = el.textContent;
    return function say(text) {
      if (timer !== null) timers.clearTimeout(timer);
      timer = timers.setTimeout(function () {
        timer = null;
        if (text === last) return;
        last = text;
        el.textContent = text;
      }, delayMs);
    };
  }

  /** Set an element's text, editing its one text node in place when it has one:
   * no node is removed or inserted, so no layout or :has() invalidation beyond it. */
  function setText(el, text) {
    var t = el.firstChild;
    if (t && t.nodeType === 3 && t === el.lastChild) {
      if (t.data !== text) t.data = text;
    } else if (el.textContent !== text) {
      el.textContent = text;
    }
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
      if (key in text) setText(outs[i], text[key]);
    }
    if (rootEl.getAttribute("data-verdict") !== d.kind) rootEl.setAttribute("data-verdict", d.kind);
    return d;
  }

  function fmt(x, d) {
    return isFinite(x) ? x.toFixed(d) : "–";
  }

  /** The run's tally as the texts its [data-tally] cells show (pure): the counts,
   * the mean against E, and the band a run of this many rounds lands in about
   * 95% of the time (E ± 2 standard errors, sd-model.js meanBand), with whether
   * this run is inside it: noise shown as noise, not as a wrong model. */
  function tallyValues(run, s) {
    var band = M.meanBand(s.alpha, s.gamma, run.rounds), mean = run.rounds ? run.tokens / run.rounds : NaN;
    var inside = band && mean >= band.lo - 1e-12 && mean <= band.hi + 1e-12;
    return {
      rounds: String(run.rounds), tokens: String(run.tokens), passes: String(run.targetPasses), drafts: String(run.draftCalls),
      time: fmt(run.time, 2),
      mean: run.rounds ? fmt(mean, 3) : "–",
      expected: fmt(M.expectedTokens(s.alpha, s.gamma), 3),
      band: band ? fmt(band.lo, 2) + " to " + fmt(band.hi, 2) : "–",
      noise: !band ? "–" : inside ? "inside: the gap to E is noise" : "outside: 1 run in 20 lands there by chance",
      realised: run.rounds ? fmt(run.realisedSpeedup(), 3) + "×" : "–",
      theory: fmt(M.speedup(s.alpha, s.gamma, s.c), 3) + "×",
    };
  }

  return { describe: describe, fill: fill, tallyValues: tallyValues, fmt: fmt, render: render, summary: summary, announcer: announcer, setText: setText, MAX_DEPTH: MAX_DEPTH };
});
