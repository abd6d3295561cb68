/* sd-model.js: the closed-form model of speculative decoding and the seeded
 * round simulation, mirroring model.py / sampler.py of the Python package.
 *
 * One part of the widget's script: registers SpeculativeDecoding.model. Pure
 * (no DOM access), so node's tests load it as it is.
 *
 *   E(alpha, gamma)    = sum_{k=0..gamma} alpha^k   (tokens per round)
 *   cost(gamma, c)     = 1 + gamma c                 (target-pass units)
 *   S(alpha, gamma, c) = E / cost                    (speedup over plain decoding)
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  SD.model = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  /** Relative tolerance for ties, as model.TIE_RTOL. */
  var TIE_RTOL = 1e-12;

  function expectedTokens(alpha, gamma) {
    if (alpha === 1) return gamma + 1;
    if (alpha === 0) return 1;
    // expm1/log keep precision as alpha -> 1 (model.expected_tokens does the same)
    return Math.expm1((gamma + 1) * Math.log(alpha)) / (alpha - 1);
  }

  function roundCost(gamma, c) {
    return 1 + gamma * c;
  }

  function speedup(alpha, gamma, c) {
    return expectedTokens(alpha, gamma) / roundCost(gamma, c);
  }

  /** True when drafting gamma tokens beats plain decoding (E > 1 + gamma c). */
  function paysOff(alpha, gamma, c) {
    return speedup(alpha, gamma, c) > 1 + TIE_RTOL;
  }

  /** The whole depth 0..maxDepth with the largest speedup; ties go to the
   * smaller depth (0 means: do not speculate). Mirrors model.optimal_depth. */
  function optimalDepth(alpha, c, maxDepth) {
    if (maxDepth === undefined) maxDepth = 64;
    var s = new Array(maxDepth + 1);
    var best = -Infinity;
    for (var g = 0; g <= maxDepth; g++) {
      s[g] = speedup(alpha, g, c);
      if (s[g] > best) best = s[g];
    }
    for (var k = 0; k <= maxDepth; k++) {
      if (s[k] >= best * (1 - TIE_RTOL)) return k;
    }
    return 0;
  }

  /** c*(alpha) = -alpha ln(alpha) / (1 - alpha): above it the smooth curve
   * never rises. Whole depths: some depth pays off exactly when c < alpha. */
  function thresholdCost(alpha) {
    if (alpha === 0) return 0;
    if (alpha === 1) return 1;
    return (-alpha * Math.log(alpha)) / (1 - alpha);
  }

  /** Mulberry32, bit for bit the reference generator: uniforms in [0, 1). */
  function mulberry32(a) {
    return function () {
      a |= 0;
      a = (a + 0x6d2b79f5) | 0;
      var t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  /** Outcome of one round from its gamma uniforms (draws r*gamma .. r*gamma+gamma-1).
   * Position j (0-based) is accepted iff u[j] < alpha; the first rejection ends
   * the prefix, and the positions after it are thrown away untested. */
  function judgeRound(uniforms, alpha) {
    var gamma = uniforms.length;
    var accepted = 0;
    while (accepted < gamma && uniforms[accepted] < alpha) accepted++;
    var rejectedAt = accepted < gamma ? accepted : -1;
    return {
      gamma: gamma,
      accepted: accepted,
      rejectedAt: rejectedAt, // -1: everything accepted
      discarded: rejectedAt < 0 ? 0 : gamma - accepted - 1,
      targetKind: rejectedAt < 0 ? "bonus" : "correction",
      tokens: accepted + 1,
      uniforms: uniforms,
    };
  }

  /** A reproducible run: rounds drawn in order from mulberry32(seed). */
  function createRun(alpha, gamma, c, seed) {
    var next = mulberry32(seed);
    var run = {
      alpha: alpha,
      gamma: gamma,
      c: c,
      seed: seed,
      rounds: 0,
      tokens: 0,
      targetPasses: 0,
      draftCalls: 0,
      time: 0, // in target-pass units
      histogram: new Array(gamma + 2).fill(0), // tokens per round -> count (index 0 unused)
      nextRound: function () {
        var u = new Array(gamma);
        for (var j = 0; j < gamma; j++) u[j] = next();
        var r = judgeRound(u, alpha);
        r.index = run.rounds;
        run.rounds += 1;
        run.tokens += r.tokens;
        run.targetPasses += 1;
        run.draftCalls += gamma;
        run.time += roundCost(gamma, c);
        run.histogram[r.tokens] += 1;
        return r;
      },
      /** Tokens per unit time relative to plain decoding (1 token per pass). */
      realisedSpeedup: function () {
        return run.time > 0 ? run.tokens / run.time : NaN;
      },
    };
    return run;
  }

  /** P(a round yields exactly k tokens), k = 1..gamma+1 (index 0 unused). */
  function tokenDistribution(alpha, gamma) {
    var p = new Array(gamma + 2).fill(0);
    for (var k = 1; k <= gamma; k++) p[k] = Math.pow(alpha, k - 1) * (1 - alpha);
    p[gamma + 1] = Math.pow(alpha, gamma);
    return p;
  }

  /** The variance of the tokens one round yields (the capped geometric law
   * above): what a run's mean and bars wander by, not a model error. */
  function tokenVariance(alpha, gamma) {
    var p = tokenDistribution(alpha, gamma), m = 0, m2 = 0;
    for (var k = 1; k < p.length; k++) {
      m += k * p[k];
      m2 += k * k * p[k];
    }
    return Math.max(0, m2 - m * m);
  }

  var BAND_SE = 2; // the band is the exact value ± 2 standard errors (about 95% of runs)

  /** The band a run of n rounds' mean tokens per round falls in about 95% of
   * the time: E ± 2 sqrt(Var / n). Null before a round. */
  function meanBand(alpha, gamma, n) {
    if (!(n > 0)) return null;
    var e = expectedTokens(alpha, gamma), se = Math.sqrt(tokenVariance(alpha, gamma) / n);
    return { lo: e - BAND_SE * se, hi: e + BAND_SE * se, se: se, mean: e };
  }

  /** The same band for one bar: a share p of n rounds, p ± 2 sqrt(p (1 - p) / n), within [0, 1]. */
  function shareBand(p, n) {
    var se = Math.sqrt((p * (1 - p)) / n);
    return { lo: Math.max(0, p - BAND_SE * se), hi: Math.min(1, p + BAND_SE * se) };
  }

  /** A histogram row as plain data (a Vega tuple's fields, without its id). */
  function histogramRow(t) {
    var row = { tokens: t.tokens, kind: t.kind, share: t.share, alpha: t.alpha, gamma: t.gamma };
    if (t.lo !== undefined) { row.lo = t.lo; row.hi = t.hi; }
    return row;
  }

  /** The tokens-per-round chart's rows for a run: the exact law, and simulated
   * bars only where there are some (the legend names only the series drawn).
   * Before the run has a round, `built` (the build-time rows, simulated at the
   * alpha and gamma they carry) stand in at that setting; at another, the exact
   * law alone. */
  function histogramRows(run, built) {
    if (!run.rounds && built && built.length && built[0].alpha === run.alpha && built[0].gamma === run.gamma) return built;
    var p = tokenDistribution(run.alpha, run.gamma);
    var rows = [];
    for (var k = 1; k < p.length; k++) {
      var exact = { tokens: k, kind: "exact", share: p[k] };
      if (run.rounds) { // where a run of this length lands about 95% of the time
        var b = shareBand(p[k], run.rounds);
        exact.lo = b.lo;
        exact.hi = b.hi;
      }
      rows.push(exact);
      if (run.rounds) rows.push({ tokens: k, kind: "simulated", share: run.histogram[k] / run.rounds });
    }
    return rows;
  }

  return {
    TIE_RTOL: TIE_RTOL,
    expectedTokens: expectedTokens,
    roundCost: roundCost,
    speedup: speedup,
    paysOff: paysOff,
    optimalDepth: optimalDepth,
    thresholdCost: thresholdCost,
    mulberry32: mulberry32,
    judgeRound: judgeRound,
    createRun: createRun,
    tokenDistribution: tokenDistribution,
    tokenVariance: tokenVariance,
    BAND_SE: BAND_SE,
    meanBand: meanBand,
    shareBand: shareBand,
    histogramRow: histogramRow,
    histogramRows: histogramRows,
  };
});
