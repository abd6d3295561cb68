// Unit tests of static/sd-model.js against the Python model (model.py,
// sampler.py), whose values are generated here by running python.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { pythonExecutable } = require("./python.js");

const ROOT = path.resolve(__dirname, "..", "..");
const M = require("./widget.js").load(["sd-model.js"]).model;

const PY = `
import json, numpy as np
from site_builder.explainers.speculative_decoding import model, sampler
alphas = [0.0, 0.05, 0.1, 0.3, 0.5, 0.6, 0.8, 0.9, 0.95, 0.99, 0.999999, 1.0]
costs = [0.0, 0.01, 0.05, 0.1, 0.2, 0.25, 0.5, 0.6, 0.9, 1.0]
gammas = list(range(0, 17))
A, G, C = np.meshgrid(alphas, gammas, costs, indexing="ij")
out = {
  "alphas": alphas, "costs": costs, "gammas": gammas,
  "E": model.expected_tokens(A[:, :, 0], G[:, :, 0]).tolist(),
  "S": model.speedup(A, G, C).tolist(),
  "pays": model.pays_off(A, G, C).tolist(),
  "best16": model.optimal_depth(np.array(alphas)[:, None], np.array(costs)[None, :], 16).tolist(),
  "best64": model.optimal_depth(np.array(alphas)[:, None], np.array(costs)[None, :]).tolist(),
  "cstar": model.threshold_cost(np.array(alphas)).tolist(),
  "uniforms": {str(s): sampler.mulberry32_uniforms(s, 64).tolist() for s in [0, 1, 42, 2**31, 2**32 - 1]},
}
print(json.dumps(out))
`;

function pythonFixture() {
  const exe = pythonExecutable();
  const out = execFileSync(exe, ["-c", PY], { cwd: ROOT, env: { ...process.env, PYTHONPATH: ROOT }, encoding: "utf8" });
  return JSON.parse(out);
}

const fx = pythonFixture();

function close(a, b, rtol = 1e-12) {
  return Math.abs(a - b) <= rtol * Math.max(1, Math.abs(a), Math.abs(b));
}

test("expected tokens E matches model.expected_tokens", () => {
  fx.alphas.forEach((a, i) =>
    fx.gammas.forEach((g, j) => {
      assert.ok(close(M.expectedTokens(a, g), fx.E[i][j]), `E(${a}, ${g}) = ${M.expectedTokens(a, g)} vs ${fx.E[i][j]}`);
    })
  );
});

test("speedup S and pays_off match the model", () => {
  fx.alphas.forEach((a, i) =>
    fx.gammas.forEach((g, j) =>
      fx.costs.forEach((c, k) => {
        assert.ok(close(M.speedup(a, g, c), fx.S[i][j][k]), `S(${a}, ${g}, ${c})`);
        assert.equal(M.paysOff(a, g, c), fx.pays[i][j][k], `pays_off(${a}, ${g}, ${c})`);
      })
    )
  );
});

test("optimal depth matches model.optimal_depth (max 16 and default 64)", () => {
  fx.alphas.forEach((a, i) =>
    fx.costs.forEach((c, k) => {
      assert.equal(M.optimalDepth(a, c, 16), fx.best16[i][k], `best16(${a}, ${c})`);
      assert.equal(M.optimalDepth(a, c), fx.best64[i][k], `best64(${a}, ${c})`);
    })
  );
});

test("threshold cost matches model.threshold_cost", () => {
  fx.alphas.forEach((a, i) => assert.ok(close(M.thresholdCost(a), fx.cstar[i]), `c*(${a})`));
});

test("mulberry32 replays sampler.mulberry32_uniforms bit for bit", () => {
  for (const [seed, us] of Object.entries(fx.uniforms)) {
    const next = M.mulberry32(Number(seed));
    us.forEach((u, i) => assert.equal(next(), u, `seed ${seed} draw ${i}`));
  }
});

test("known values: alpha 0.8, gamma 4, c 0.05", () => {
  assert.ok(close(M.expectedTokens(0.8, 4), 3.3616));
  assert.ok(close(M.speedup(0.8, 4, 0.05), 3.3616 / 1.2));
  assert.equal(M.paysOff(0.5, 1, 0.5), false); // alpha = c at depth 1 is a tie, not a win
  assert.equal(M.optimalDepth(0.1, 0.5), 0); // slowdown everywhere: do not speculate
});

test("rounds obey the rules and consume gamma draws each", () => {
  const run = M.createRun(0.7, 5, 0.1, 42);
  const ref = M.mulberry32(42);
  for (let r = 0; r < 200; r++) {
    const round = run.nextRound();
    const u = Array.from({ length: 5 }, () => ref());
    assert.deepEqual(round.uniforms, u);
    const k = u.findIndex((x) => !(x < 0.7));
    assert.equal(round.accepted, k < 0 ? 5 : k);
    assert.equal(round.rejectedAt, k);
    assert.equal(round.tokens, round.accepted + 1);
    assert.equal(round.accepted + (round.rejectedAt >= 0 ? 1 : 0) + round.discarded, 5);
    assert.equal(round.targetKind, k < 0 ? "bonus" : "correction");
  }
  assert.equal(run.rounds, 200);
  assert.equal(run.targetPasses, 200);
  assert.equal(run.draftCalls, 1000);
  assert.ok(close(run.time, 200 * 1.5));
});

test("token distribution sums to one and has mean E", () => {
  for (const a of [0, 0.3, 0.9, 1]) {
    for (const g of [1, 4, 16]) {
      const p = M.tokenDistribution(a, g);
      const total = p.reduce((s, x) => s + x, 0);
      const mean = p.reduce((s, x, k) => s + k * x, 0);
      assert.ok(close(total, 1, 1e-12));
      assert.ok(close(mean, M.expectedTokens(a, g), 1e-12));
    }
  }
});
