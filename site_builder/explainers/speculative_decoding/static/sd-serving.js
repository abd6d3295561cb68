/* sd-serving.js: speculative decoding under load, the roofline model of one
 * decoding step (a port of serving.py) and the serving panel's numbers, words
 * and chart rows (as serving_panel.py writes them for the page as built).
 *
 *   t(P, B, T, kv) = max((P b + B kv) / BW, 2 P B T / F)
 *   S(B) = E t(P_t, B, 1, kv_t) / (gamma t(P_d, B, 1, kv_d) + t(P_t, B, gamma + 1, kv_t))
 *
 * Scalars only (the browser needs one setting at a time); the operations run
 * in serving.py's order, so node's tests hold the two to 1e-12 on fixtures.
 * A setting becomes the model's arguments in config(): the pairing's target,
 * a draft of c x P_t parameters (the figure's c), ctx x each model's KV bytes
 * per token, the hardware times the device count.
 *
 * One part of the serving panel's script (page.SERVING_SCRIPTS, loaded lazily
 * with the Vega runtime): registers SpeculativeDecoding.serving. Pure (no DOM
 * access). Words and lists: settings.json "serving"; presets:
 * SpeculativeDecoding.servingPresets (serving_panel.presets_data(), written
 * at the head of that script).
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  SD.serving = factory(SD.model, SD.data, SD.servingPresets);
})(typeof self !== "undefined" ? self : this, function (M, data, presets) {
  "use strict";

  var CFG = data.serving;
  var W = CFG.words;
  var PRESETS = presets || { hardware: [], pairings: [] };
  var MAX_BATCH = CFG.max_batch; // as serving.MAX_BATCH (a Python test keeps them equal)
  var BEST_SEARCH = 64;
  var BYTES_PER_PARAM = 2; // BF16, as serving_presets.BF16_BYTES

  /** Seconds for one forward pass (serving.step_time). hw: {bytesPerParam, bandwidth, flops}. */
  function stepTime(params, batch, tokens, kvBytes, hw) {
    var memory = (params * hw.bytesPerParam + batch * kvBytes) / hw.bandwidth;
    var compute = (2.0 * params * batch * tokens) / hw.flops;
    return Math.max(memory, compute);
  }

  /** Speedup over plain decoding at batch B (serving.speedup_at_batch); gamma = 0 is exactly 1.
   * cfg: {targetParams, draftParams, bytesPerParam, bandwidth, flops, targetKvBytes, draftKvBytes}. */
  function speedupAtBatch(alpha, gamma, batch, cfg) {
    if (gamma === 0) return 1;
    var e = M.expectedTokens(alpha, gamma);
    var plain = stepTime(cfg.targetParams, batch, 1, cfg.targetKvBytes, cfg);
    var draft = stepTime(cfg.draftParams, batch, 1, cfg.draftKvBytes, cfg);
    var verify = stepTime(cfg.targetParams, batch, gamma + 1, cfg.targetKvBytes, cfg);
    return (e * plain) / (gamma * draft + verify);
  }

  /** The smallest whole batch 1..MAX_BATCH with S < 1 - TIE_RTOL, or null (serving.break_even_batch). */
  function breakEvenBatch(alpha, gamma, cfg) {
    for (var b = 1; b <= MAX_BATCH; b++) if (speedupAtBatch(alpha, gamma, b, cfg) < 1 - M.TIE_RTOL) return b;
    return null;
  }

  /** [gamma, S]: the whole depth 0..maxGamma with the best S, ties to the smaller (serving.best_gamma_at_batch). */
  function bestGammaAtBatch(alpha, batch, cfg, maxGamma) {
    if (maxGamma === undefined) maxGamma = BEST_SEARCH;
    var s = [], best = -Infinity;
    for (var g = 0; g <= maxGamma; g++) {
      s.push(speedupAtBatch(alpha, g, batch, cfg));
      if (s[g] > best) best = s[g];
    }
    for (var k = 0; k <= maxGamma; k++) if (s[k] >= best * (1 - M.TIE_RTOL)) return [k, s[k]];
    return [0, 1];
  }

  /** Where a pass turns compute-bound (serving.ridge_batch): Infinity when the KV read keeps it memory-bound. */
  function ridgeBatch(params, tokens, kvBytes, hw) {
    var slope = (2.0 * params * tokens) / hw.flops - kvBytes / hw.bandwidth;
    return slope > 0 ? (params * hw.bytesPerParam) / hw.bandwidth / slope : Infinity;
  }

  /** Bytes resident: both models' weights and every sequence's two caches (serving.memory_footprint). */
  function memoryFootprint(batch, cfg) {
    return (cfg.targetParams + cfg.draftParams) * cfg.bytesPerParam + batch * (cfg.targetKvBytes + cfg.draftKvBytes);
  }

  /** The largest batch 0..MAX_BATCH that fits in `memory` bytes (serving_panel.max_fitting_batch). */
  function maxFittingBatch(memory, cfg) {
    for (var b = 1; b <= MAX_BATCH; b++) if (!(memoryFootprint(b, cfg) <= memory)) return b - 1;
    return MAX_BATCH;
  }

  function find(list, id) {
    for (var i = 0; i < list.length; i++) if (list[i].id === id) return list[i];
    return null;
  }

  /** The model's arguments for one state (serving_panel.config). */
  function config(state, presets) {
    presets = presets || PRESETS;
    var hw = find(presets.hardware, state.hw);
    var pair = find(presets.pairings, state.pair);
    var n = state.devices;
    var target = pair.target_params;
    return {
      targetParams: target,
      draftParams: state.c * target,
      bytesPerParam: BYTES_PER_PARAM,
      bandwidth: hw.bandwidth * n,
      flops: hw.flops * n,
      targetKvBytes: state.ctx * pair.target_kv,
      draftKvBytes: state.ctx * pair.draft_kv,
      memory: hw.memory * n,
      hw: hw,
      pair: pair,
    };
  }

  // ---------------------------------------------------------------- words

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (hole, name) {
      return String(values[name]);
    });
  }

  /** 4096 -> "4,096" (serving_panel.group). */
  function group(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  /** Bytes as whole decimal GB, the unit the vendors print (serving_panel.gigabytes). */
  function gigabytes(x) {
    return group(Number((x / 1e9).toFixed(0)));
  }

  function ratio(S) {
    return Math.abs(S - 1) < 0.005 ? S.toFixed(3) : S.toFixed(2);
  }

  /** The figure's c: up to four decimals, at least two (serving_panel._c). */
  function cText(c) {
    var t = c.toFixed(4);
    while (t.charAt(t.length - 1) === "0" && t.split(".")[1].length > 2) t = t.slice(0, -1);
    return t;
  }

  /** The panel's readout for one state (serving_panel.describe). */
  function describe(state, presets) {
    var cfg = config(state, presets);
    var a = state.alpha, g = state.gamma, b = state.batch;
    var pt = cfg.targetParams, kvt = cfg.targetKvBytes;
    var plain = stepTime(pt, b, 1, kvt, cfg);
    var verify = stepTime(pt, b, g + 1, kvt, cfg);
    var draft = stepTime(cfg.draftParams, b, 1, cfg.draftKvBytes, cfg);
    var compute = (2.0 * pt * b * (g + 1)) / cfg.flops > (pt * cfg.bytesPerParam + b * kvt) / cfg.bandwidth;
    var E = M.expectedTokens(a, g);
    var S = speedupAtBatch(a, g, b, cfg);
    var be = breakEvenBatch(a, g, cfg);
    var fit = maxFittingBatch(cfg.memory, cfg);
    var ridge = ridgeBatch(pt, g + 1, kvt, cfg);
    var best = bestGammaAtBatch(a, b, cfg, BEST_SEARCH);
    var weights = (pt + cfg.draftParams) * cfg.bytesPerParam;
    var mx = group(MAX_BATCH);
    var kind = S > 1 + M.TIE_RTOL ? "win" : Math.abs(S - 1) <= M.TIE_RTOL ? "even" : "slowdown";
    var verifyCost = verify / plain, cost = (g * draft + verify) / plain;
    var verdict;
    // a batch that does not fit is never called a speed-up: the verdict says so first
    if (fit === 0) {
      kind = "nofit";
      verdict = fill(W.no_fit, { weights: gigabytes(weights), memory: gigabytes(cfg.memory) });
    } else if (b > fit) {
      kind = "nofit";
      verdict = fill(W.too_big, { batch: group(b), fit: group(fit), memory: gigabytes(cfg.memory) });
    } else {
      verdict = fill(W[kind], {
        batch: group(b), tokens: g + 1, verify: verifyCost.toFixed(2), bound: compute ? W.bound_compute : W.bound_memory,
        cost: cost.toFixed(2), E: E.toFixed(2), S: ratio(S),
      });
    }
    if (fit > 0) {
      if (be === null) verdict += fit >= MAX_BATCH ? fill(W.keeps_paying, { max: mx }) : fill(W.keeps_paying_fit, { fit: group(fit) });
      else if (be > fit) verdict += fill(W.beyond_fit, { break_even: group(be), fit: group(fit) });
      else verdict += fill(W.switch_off, { break_even: group(be) });
    }
    var fitText = fit === 0 ? fill(W.fit_none, { weights: gigabytes(weights) })
      : fit >= MAX_BATCH ? fill(W.fit_all, { max: mx, memory: gigabytes(cfg.memory) })
      : fill(W.fit_up_to, { fit: group(fit), memory: gigabytes(cfg.memory) });
    var first = fit === 0 ? "" : be !== null ? fill(W.summary_break, { break_even: group(be) })
      : fit >= MAX_BATCH ? fill(W.summary_none, { max: mx }) : fill(W.summary_none_fit, { fit: group(fit) });
    var summary = kind === "nofit"
      ? fill(W.summary_nofit, { batch: group(b), ctx: group(state.ctx), fit: group(fit), first: first }).replace(/\s+$/, "")
      : fill(W.summary, { batch: group(b), ctx: group(state.ctx), S: S.toFixed(2), kind: W["summary_" + kind], first: first });
    return {
      kind: kind, S: S, E: E, verify: verifyCost, cost: cost, computeBound: compute, breakEven: be, fit: fit,
      ridge: ridge, best: best[0], bestS: best[1],
      text: {
        serving_verify: verifyCost.toFixed(2),
        serving_cost: cost.toFixed(2),
        serving_S: kind === "nofit" ? W.not_fit_S : S.toFixed(3) + "×",
        serving_bound: compute ? W.compute_bound : W.memory_bound,
        serving_break: be !== null ? group(be) : fill(W.no_break_even, { max: mx }),
        serving_fit: fitText,
        // no speedup, not even the best depth's, is claimed for a batch that does not fit
        serving_best: kind === "nofit" ? W.best_nofit
          : best[0] ? fill(W.best_at, { best: best[0], best_s: best[1].toFixed(2) }) : W.best_none,
        serving_draft: fill(W.draft, { c: cText(state.c), draft: (cfg.draftParams / 1e9).toFixed(2), draft_name: cfg.pair.draft }),
        serving_verdict: verdict,
      },
      summary: summary,
    };
  }

  // ---------------------------------------------------------------- chart rows

  /** The chart's batch sizes: grid_per_octave per doubling, 1..MAX_BATCH (serving_panel.batch_grid). */
  function batchGrid() {
    var per = CFG.grid_per_octave, n = Math.round(Math.log2(MAX_BATCH)) * per, out = [];
    for (var k = 0; k <= n; k++) out.push(Math.pow(2, k / per));
    return out;
  }
  var GRID = batchGrid();

  /** One line's rows {batch, S, series, fits}, the last batch that fits written twice (serving_panel._line). */
  function line(a, g, cfg, series, fit) {
    var rows = [];
    for (var i = 0; i < GRID.length; i++) {
      var x = GRID[i];
      var row = { batch: x, S: speedupAtBatch(a, g, x, cfg), series: series, fits: x <= fit };
      if (!row.fits && rows.length && rows[rows.length - 1].fits) {
        var last = rows[rows.length - 1];
        rows.push({ batch: last.batch, S: last.S, series: series, fits: false });
      }
      rows.push(row);
    }
    return rows;
  }

  /** The chart's datasets for one state (serving_panel.chart_rows): {serving, serving_marks}. */
  function chartRows(state, presets) {
    var cfg = config(state, presets);
    var longState = {};
    for (var key in state) longState[key] = state[key];
    longState.ctx = CFG.long_context;
    var longCfg = config(longState, presets);
    var a = state.alpha, g = state.gamma;
    var fit = maxFittingBatch(cfg.memory, cfg);
    var rows = line(a, g, cfg, W.series_context, fit).concat(
      line(a, g, longCfg, fill(W.series_long, { ctx: group(CFG.long_context) }), maxFittingBatch(cfg.memory, longCfg)));
    var marks = [];
    if (fit < MAX_BATCH) marks.push({ kind: "nofit", batch: Math.max(fit, 1), batch2: MAX_BATCH, S: null, label: W.nofit });
    var ridge = ridgeBatch(cfg.targetParams, g + 1, cfg.targetKvBytes, cfg);
    if (ridge >= 1 && ridge <= MAX_BATCH) {
      marks.push({ kind: "ridge", batch: ridge, batch2: null, S: null, label: fill(W.ridge, { batch: group(Number(ridge.toFixed(0))) }) });
    }
    var be = breakEvenBatch(a, g, cfg);
    if (be !== null) {
      marks.push({ kind: "break_even", batch: be, batch2: null, S: speedupAtBatch(a, g, be, cfg), label: fill(W.break_even, { batch: group(be) }) });
    }
    // fits: whether the reader's batch fits in memory (the chart puts it on the axis when not)
    marks.push({ kind: "current", batch: state.batch, batch2: null, S: speedupAtBatch(a, g, state.batch, cfg), label: "", fits: state.batch <= fit });
    return { serving: rows, serving_marks: marks };
  }

  return {
    MAX_BATCH: MAX_BATCH,
    stepTime: stepTime,
    speedupAtBatch: speedupAtBatch,
    breakEvenBatch: breakEvenBatch,
    bestGammaAtBatch: bestGammaAtBatch,
    ridgeBatch: ridgeBatch,
    memoryFootprint: memoryFootprint,
    maxFittingBatch: maxFittingBatch,
    config: config,
    describe: describe,
    chartRows: chartRows,
    batchGrid: batchGrid,
    group: group,
    cText: cText,
    fill: fill,
  };
});
