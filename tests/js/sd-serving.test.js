// static/sd-serving.js (the port of serving.py, the serving panel's words and
// chart rows) and the panel's state keys, against the Python functions
// (serving.py, serving_panel.py), whose values are produced here by python.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");

const { load, python, serving } = require("./widget.js");
const SD = load(["sd-model.js", "sd-serving.js", "sd-state.js", "sd-readout.js", "sd-serving-panel.js"]);
const SV = SD.serving;
const S = SD.state;
const P = serving();

function close(a, b, rtol = 1e-12) {
  if (a === b) return true;
  return Math.abs(a - b) <= rtol * Math.max(1, Math.abs(a), Math.abs(b));
}

// configurations: every hardware x pairing at a short, a mid and a long context, on
// 1 and 8 devices, with the pairing's own c, a free draft and a draft as large as the target
const STATES = [];
for (const hw of P.hardware)
  for (const pair of P.pairings)
    for (const ctx of [0, 4096, 131072])
      for (const devices of [1, 8])
        for (const c of [pair.c, 0, 1]) STATES.push({ alpha: 0.8, gamma: 5, c, seed: 1, batch: 1, ctx, devices, hw: hw.id, pair: pair.id });
const ALPHAS = [0, 0.3, 0.8, 1];
const GAMMAS = [0, 1, 5, 16];
const BATCHES = [1, 2, 3.5, 49.2, 157, 1000, 4096];

// The Python functions broadcast over every argument: one call per state gives
// the whole alpha x gamma x batch grid (element by element, 24,000 calls took
// most of this file's 16 s; the values are the same function's at the same points).
const PY = `
import json, sys, math
import numpy as np
from site_builder.explainers.speculative_decoding import serving as s, serving_panel as sp
states, alphas, gammas, batches = json.loads(sys.stdin.read())
A, G, B = (np.array(v, dtype=float) for v in (alphas, gammas, batches))
out = []
for st in states:
    cfg = sp.config(st)
    kw = cfg["kw"]
    hw = {k: kw[k] for k in ("bytes_per_param", "bandwidth", "flops")}
    fp = {k: kw[k] for k in ("target_params", "draft_params", "bytes_per_param", "target_kv_bytes", "draft_kv_bytes")}
    row = {"kw": kw, "memory": cfg["memory"], "fit": sp.max_fitting_batch(cfg["memory"], kw),
           "S": s.speedup_at_batch(A[:, None, None], G[None, :, None], B[None, None, :], **kw).tolist(),
           "step": s.step_time(kw["target_params"], B, 6, kw["target_kv_bytes"], **hw).tolist(),
           "foot": s.memory_footprint(B, **fp).tolist(),
           "ridge": [float(s.ridge_batch(kw["target_params"], t, kw["target_kv_bytes"], **hw)) for t in (1, 6, 17)],
           "be": [[s.break_even_batch(a, g, **kw) for g in gammas] for a in alphas],
           "best": [[list(s.best_gamma_at_batch(a, b, **kw)) for b in batches] for a in alphas]}
    out.append(row)
print(json.dumps(out).replace("Infinity", '"inf"'))
`;
const FX = python(PY, JSON.stringify([STATES, ALPHAS, GAMMAS, BATCHES]));
const inf = (x) => (x === "inf" ? Infinity : x);

test("config: the model's arguments for a state are serving_panel.config's", () => {
  STATES.forEach((st, i) => {
    const cfg = SV.config(st);
    const kw = FX[i].kw;
    assert.equal(cfg.targetParams, kw.target_params);
    assert.equal(cfg.draftParams, kw.draft_params);
    assert.equal(cfg.bandwidth, kw.bandwidth);
    assert.equal(cfg.flops, kw.flops);
    assert.equal(cfg.targetKvBytes, kw.target_kv_bytes);
    assert.equal(cfg.draftKvBytes, kw.draft_kv_bytes);
    assert.equal(cfg.bytesPerParam, kw.bytes_per_param);
    assert.equal(cfg.memory, FX[i].memory);
  });
});

test("stepTime, speedupAtBatch, ridgeBatch, memoryFootprint match serving.py", () => {
  STATES.forEach((st, i) => {
    const cfg = SV.config(st), fx = FX[i];
    BATCHES.forEach((b, k) => {
      assert.ok(close(SV.stepTime(cfg.targetParams, b, 6, cfg.targetKvBytes, cfg), fx.step[k]), `step ${i} ${b}`);
      assert.ok(close(SV.memoryFootprint(b, cfg), fx.foot[k]), `footprint ${i} ${b}`);
    });
    [1, 6, 17].forEach((t, k) => assert.ok(close(SV.ridgeBatch(cfg.targetParams, t, cfg.targetKvBytes, cfg), inf(fx.ridge[k])), `ridge ${i} ${t}`));
    ALPHAS.forEach((a, ia) => GAMMAS.forEach((g, ig) => BATCHES.forEach((b, ib) => {
      const js = SV.speedupAtBatch(a, g, b, cfg), py = fx.S[ia][ig][ib];
      assert.ok(close(js, py), `S(${a}, ${g}, ${b}) state ${i}: ${js} vs ${py}`);
    })));
  });
});

test("breakEvenBatch, bestGammaAtBatch and maxFittingBatch match serving.py and serving_panel.py", () => {
  STATES.forEach((st, i) => {
    const cfg = SV.config(st), fx = FX[i];
    assert.equal(SV.maxFittingBatch(cfg.memory, cfg), fx.fit, `fit ${i}`);
    ALPHAS.forEach((a, ia) => {
      GAMMAS.forEach((g, ig) => assert.equal(SV.breakEvenBatch(a, g, cfg), fx.be[ia][ig], `break-even ${i} ${a} ${g}`));
      BATCHES.forEach((b, ib) => {
        const [g, s] = SV.bestGammaAtBatch(a, b, cfg);
        assert.equal(g, fx.best[ia][ib][0], `best depth ${i} ${a} ${b}`);
        assert.ok(close(s, fx.best[ia][ib][1]), `best S ${i} ${a} ${b}`);
      });
    });
  });
});

test("the issue's scale check: 70B target, 7B draft, BF16, H100, no KV term", () => {
  const cfg = { targetParams: 70e9, draftParams: 7e9, bytesPerParam: 2, bandwidth: 3.35e12, flops: 989.4e12, targetKvBytes: 0, draftKvBytes: 0 };
  assert.equal(SV.speedupAtBatch(0.8, 5, 1, cfg).toFixed(2), "2.46");
  assert.equal(SV.speedupAtBatch(0.8, 5, 49, cfg).toFixed(2), "2.46");
  assert.ok(SV.speedupAtBatch(0.8, 5, 50, cfg) < SV.speedupAtBatch(0.8, 5, 49, cfg));
  assert.equal(SV.breakEvenBatch(0.8, 5, cfg), 157);
  const eight = { ...cfg, bandwidth: 8 * cfg.bandwidth, flops: 8 * cfg.flops };
  assert.equal(SV.breakEvenBatch(0.8, 5, eight), 157, "8 devices, ideal tensor parallelism: the same ratios");
  assert.ok(close(SV.ridgeBatch(70e9, 6, 0, cfg), (2 * 989.4e12) / (2 * 6 * 3.35e12)));
});

test("at batch 1 with no KV term the panel's S is the main readout's E / (1 + gamma c)", () => {
  for (const pair of P.pairings)
    for (const hw of P.hardware)
      for (const [a, g] of [[0.8, 5], [0.6, 3], [0.3, 1], [0.95, 16]])
        for (const c of [pair.c, 0.05, 0.5]) {
          const st = { ...S.DEFAULTS, alpha: a, gamma: g, c, hw: hw.id, pair: pair.id, ctx: 0, batch: 1 };
          const d = SV.describe(st);
          assert.ok(close(d.S, SD.model.speedup(a, g, c), 1e-13), `${pair.id} ${hw.id} ${a} ${g} ${c}`);
          assert.equal(d.text.serving_S, SD.readout.describe(a, g, c).S.toFixed(3) + "×");
        }
});

// readout states: hardware x pairing x contexts x batches x depths, the memory
// limits included (one device: the weights do not fit; long contexts: few sequences do)
const READOUT = [];
for (const hw of P.hardware)
  for (const pair of P.pairings)
    for (const ctx of [0, 2048, 32768])
      for (const batch of [1, 48, 160, 768, 4096])
        for (const [alpha, gamma, c, devices] of [[0.8, 5, pair.c, 8], [0.3, 2, 0.2, 8], [0.95, 12, 0.01, 4], [0.8, 5, 0.05, 1]])
          READOUT.push({ alpha, gamma, c, seed: 1, batch, ctx, devices, hw: hw.id, pair: pair.id });

test("the panel's words are serving_panel.describe's, state by state", () => {
  const py = `
import json, sys
from site_builder.explainers.speculative_decoding import serving_panel as sp
print(json.dumps([{"kind": d["kind"], "text": d["text"], "summary": d["summary"], "break_even": d["break_even"], "fit": d["fit"]}
                  for d in (sp.describe(st) for st in json.loads(sys.stdin.read()))]))`;
  const want = python(py, JSON.stringify(READOUT));
  const kinds = new Set(), tails = new Set();
  READOUT.forEach((st, i) => {
    const d = SV.describe(st);
    assert.deepEqual({ kind: d.kind, text: d.text, summary: d.summary, break_even: d.breakEven, fit: d.fit }, want[i], JSON.stringify(st));
    kinds.add(d.kind);
    const endings = { switch_off: "should switch speculation off", beyond_fit: "never gets busy enough", keeps_paying: "keeps paying",
      keeps_paying_fit: "pays at every batch that fits", no_fit: "alone", too_big: "no speedup to claim at this batch" };
    // a batch that does not fit is never called a speed-up: said first, in the text and the announcement
    if (d.fit < st.batch) {
      assert.equal(d.kind, "nofit");
      assert.ok(d.text.serving_verdict.startsWith("Does not fit"), d.text.serving_verdict);
      assert.ok(!/Pays off|paying|speedup \d/.test(d.text.serving_verdict + d.summary), d.text.serving_verdict + d.summary);
      assert.ok(d.summary.includes("does not fit in memory"));
      assert.ok(!d.text.serving_S.includes("×"));
      assert.equal(d.text.serving_best, "none: this batch does not fit", "not even the best depth's speedup");
    }
    for (const [key, phrase] of Object.entries(endings)) if (d.text.serving_verdict.includes(phrase)) tails.add(key);
    // the memory the words name is the vendor's printed GB per device (the summary's figure) times the devices
    const hw = P.hardware.find((h) => h.id === st.hw);
    const perDevice = Number(/, (\d+) GB HBM\w* per device \(printed\)\.$/.exec(hw.summary)[1]);
    for (const m of Object.values(d.text).join(" ").matchAll(/(?:of|in) ([\d,]+) GB/g))
      assert.equal(m[1], SV.group(perDevice * st.devices), JSON.stringify(st));
    assert.ok(!/GiB/.test(Object.values(d.text).join(" ") + hw.summary));
  });
  assert.deepEqual([...kinds].sort(), ["nofit", "slowdown", "win"]);
  assert.deepEqual([...tails].sort(), ["beyond_fit", "keeps_paying_fit", "no_fit", "switch_off", "too_big"], "every ending is exercised");
});

test("the readout says slowdown past the break-even batch, and 'switch speculation off'", () => {
  const st = { ...S.DEFAULTS };
  const be = SV.describe(st).breakEven;
  assert.equal(be, 170);
  assert.equal(SV.describe({ ...st, batch: be - 1 }).kind, "win");
  const past = SV.describe({ ...st, batch: be });
  assert.equal(past.kind, "slowdown");
  assert.match(past.text.serving_verdict, /^A slowdown at batch 170: .*compute-bound.*a server this busy should switch speculation off\.$/);
  const long = SV.describe({ ...st, ctx: 32768, batch: 16 });
  assert.match(long.text.serving_verdict, /It pays at every batch that fits, up to 32\.$/);
  assert.ok(!long.text.serving_verdict.includes("whole range"), "never a claim past what fits");
  // issue 34: MI300X x 8, 32k of context, batch 640: only 92 fit in 8 x 192 GB (AMD's decimal GB), and the verdict opens with it
  const mi = SV.describe({ ...st, hw: "mi300x", devices: 8, ctx: 32768, batch: 640 });
  assert.equal(mi.kind, "nofit");
  assert.match(mi.text.serving_verdict, /^Does not fit: batch 640 needs more memory than the 1,536 GB at this context, where at most 92 sequences fit/);
  assert.match(mi.summary, /does not fit in memory, at most 92 sequences fit/);
});

test("chart rows are serving_panel.chart_rows' (numpy on the build's grid)", () => {
  const states = [S.DEFAULTS, ...READOUT.filter((_, i) => i % 37 === 0)];
  const py = `
import json, sys
from site_builder.explainers.speculative_decoding import serving_panel as sp
print(json.dumps([sp.chart_rows(st) for st in json.loads(sys.stdin.read())]))`;
  const want = python(py, JSON.stringify(states));
  states.forEach((st, i) => {
    const got = SV.chartRows(st);
    for (const name of ["serving", "serving_marks"]) {
      assert.equal(got[name].length, want[i][name].length, `${name} rows, state ${i}`);
      got[name].forEach((row, k) => {
        const w = want[i][name][k];
        assert.deepEqual(Object.keys(row).sort(), Object.keys(w).sort());
        for (const f of Object.keys(row)) {
          if (typeof row[f] === "number" && typeof w[f] === "number") assert.ok(Math.abs(row[f] - w[f]) <= 1e-6 * Math.max(1, Math.abs(w[f])), `${name}[${k}].${f} state ${i}`);
          else assert.equal(row[f], w[f], `${name}[${k}].${f} state ${i}`);
        }
      });
    }
  });
  const grid = SV.batchGrid();
  assert.equal(grid[0], 1);
  assert.equal(grid[grid.length - 1], 4096);
});

test("the panel's state keys: junk falls back, numbers clamp, ids must be known", () => {
  const d = S.DEFAULTS;
  assert.deepEqual(S.parseParams("?batch=abc&ctx=NaN&devices=x&hw=tpu&pair=%3Cscript%3E", ""), d);
  // devices follow the main sliders' rule: a number is brought to the nearest listed count
  assert.equal(S.parseParams("?devices=3", "").devices, 4, "between two counts: the nearer, ties up");
  assert.equal(S.parseParams("?devices=16", "").devices, 8);
  assert.equal(S.parseParams("?devices=0", "").devices, 1);
  assert.equal(S.parseParams("?devices=1e400", "").devices, d.devices, "not a finite number: junk");
  assert.deepEqual(S.parseParams("?batch=0&ctx=-5", ""), { ...d, batch: 1, ctx: 0 });
  assert.deepEqual(S.parseParams("?batch=99999&ctx=1e9", ""), { ...d, batch: 4096, ctx: 131072 });
  assert.deepEqual(S.parseParams("?batch=156.6&ctx=3000&devices=2&hw=mi300x&pair=llama-2-70b-7b", ""),
    { ...d, batch: 157, ctx: 3000, devices: 2, hw: "mi300x", pair: "llama-2-70b-7b" });
  assert.equal(S.parseParams("?c=0.113818", "").c, 0.113818, "a pairing's c survives a shared link");
  assert.equal(S.parseParams("?c=0.1138177", "").c, 0.113818);
  assert.equal(S.parseParams("?batch=1e400", "").batch, d.batch, "not a finite number: junk");
  const round = S.parseParams("?" + S.serialize({ ...d, batch: 157, ctx: 3000, hw: "a100-80gb-sxm", pair: "llama-3.1-70b-3.2-1b", devices: 4 }), "");
  assert.deepEqual(round, { ...d, batch: 157, ctx: 3000, hw: "a100-80gb-sxm", pair: "llama-3.1-70b-3.2-1b", devices: 4 });
  for (const pair of P.pairings) assert.equal(S.clean("c", pair.c, -1), pair.c, `${pair.id}'s c is a state value as it is`);
});

test("slider positions: the nearest listed value on a log scale, as page._position", () => {
  const SP = SD.servingPanel;
  const cfg = SD.data.serving;
  const xs = [1, 2, 7, 100, 157, 3000, 4096];
  const cs = [0, 100, 300, 1000, 3000, 50000, 131072];
  const py = `
import json, sys
from site_builder.explainers.speculative_decoding import page, serving_panel as sp
xs, cs = json.loads(sys.stdin.read())
print(json.dumps([[page._position(sp.SERVING["batches"], x) for x in xs], [page._position(sp.SERVING["contexts"], x) for x in cs]]))`;
  const [bx, cx] = python(py, JSON.stringify([xs, cs]));
  assert.deepEqual(xs.map((x) => SP.position(cfg.batches, x)), bx);
  assert.deepEqual(cs.map((x) => SP.position(cfg.contexts, x)), cx);
  cfg.batches.forEach((b, i) => assert.equal(SP.position(cfg.batches, b), i));
  cfg.contexts.forEach((c, i) => assert.equal(SP.position(cfg.contexts, c), i));
  assert.equal(SP.spoken("batch", 4096), "batch size 4,096");
});
