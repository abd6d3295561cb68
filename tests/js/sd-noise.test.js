// The noise band (issue 34): a run of n rounds' mean tokens per round lands in
// E ± 2 sqrt(Var / n) about 95% of the time. The variance sd-model.js uses is
// checked against two independent computations in Python: exact enumeration of
// the capped geometric law from its definition (P(at least k) = alpha^(k-1)),
// and a numpy Monte Carlo of rounds drawn draft by draft.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { load, python } = require("./widget.js");

const SD = load();
const M = SD.model;
const SETTINGS = [[0.8, 5], [0.6, 6], [0.9, 3], [0.3, 1], [0.5, 16], [0.99, 16], [0, 4], [1, 4], [0.72, 9]];

const PY = `
import json, sys
import numpy as np
out = []
rng = np.random.default_rng(34)
for alpha, gamma in json.loads(sys.stdin.read()):
    # exact: P(K >= k) = alpha**(k-1) for k = 1..gamma+1 (a prefix property), so
    # E[K^2] = sum_k (2k - 1) P(K >= k)
    tail = [alpha ** (k - 1) for k in range(1, gamma + 2)]
    mean = sum(tail)
    second = sum((2 * k - 1) * t for k, t in zip(range(1, gamma + 2), tail))
    # Monte Carlo: each round draws gamma accept tests; the tokens are the
    # accepted prefix plus the target's one
    n = 200_000
    accept = rng.random((n, gamma)) < alpha
    prefix = np.where(accept.all(axis=1), gamma, np.argmin(accept, axis=1))
    tokens = prefix + 1
    out.append({"exact": second - mean ** 2, "mc": float(tokens.var()), "mc_mean": float(tokens.mean())})
print(json.dumps(out))
`;

test("the per-round variance matches exact enumeration and a numpy Monte Carlo", () => {
  const ref = python(PY, JSON.stringify(SETTINGS));
  SETTINGS.forEach(([alpha, gamma], i) => {
    const v = M.tokenVariance(alpha, gamma);
    assert.ok(Math.abs(v - ref[i].exact) < 1e-9, `exact at ${alpha}, ${gamma}: ${v} vs ${ref[i].exact}`);
    // 200,000 rounds: the sample variance is within a few per cent (or 0.01 absolute)
    assert.ok(Math.abs(v - ref[i].mc) <= 0.03 * v + 0.01, `Monte Carlo at ${alpha}, ${gamma}: ${v} vs ${ref[i].mc}`);
    assert.ok(Math.abs(M.expectedTokens(alpha, gamma) - ref[i].mc_mean) < 0.03, "and the mean");
  });
});

test("the band narrows as 1 / sqrt(n) around E, and about 95% of seeded runs land in it", () => {
  const b100 = M.meanBand(0.8, 5, 100), b400 = M.meanBand(0.8, 5, 400);
  assert.equal(M.meanBand(0.8, 5, 0), null);
  assert.ok(Math.abs(b100.mean - M.expectedTokens(0.8, 5)) < 1e-12);
  assert.ok(Math.abs((b100.hi - b100.lo) / (b400.hi - b400.lo) - 2) < 1e-9);
  let inside = 0;
  const runs = 400;
  for (let seed = 1; seed <= runs; seed++) {
    const run = M.createRun(0.8, 5, 0.05, seed);
    for (let r = 0; r < 100; r++) run.nextRound();
    const mean = run.tokens / run.rounds;
    if (mean >= b100.lo && mean <= b100.hi) inside++;
  }
  assert.ok(inside / runs > 0.9 && inside / runs < 0.99, `${inside} of ${runs} runs inside`);
});

test("the tally says whether the run is inside its band", () => {
  const R = SD.readout;
  const s = { alpha: 0.8, gamma: 5, c: 0.05 };
  const run = M.createRun(0.8, 5, 0.05, 1);
  assert.equal(R.tallyValues(run, s).noise, "–");
  for (let r = 0; r < 100; r++) run.nextRound();
  const v = R.tallyValues(run, s), band = M.meanBand(0.8, 5, 100), mean = run.tokens / 100;
  assert.equal(v.band, band.lo.toFixed(2) + " to " + band.hi.toFixed(2));
  assert.equal(v.noise.startsWith("inside"), mean >= band.lo && mean <= band.hi);
  // a run pinned outside its band says so
  const fake = { rounds: 100, tokens: 100 * (band.hi + 0.5), targetPasses: 100, draftCalls: 500, time: 125, realisedSpeedup: () => 1 };
  assert.ok(R.tallyValues(fake, s).noise.startsWith("outside"));
});

test("each histogram bar's band: p ± 2 sqrt(p(1 - p) / n), within [0, 1], on the exact rows of a run", () => {
  const b = M.shareBand(0.2, 100);
  assert.ok(Math.abs(b.lo - 0.12) < 1e-12 && Math.abs(b.hi - 0.28) < 1e-12);
  assert.deepEqual(M.shareBand(0, 10), { lo: 0, hi: 0 });
  const run = M.createRun(0.8, 5, 0.05, 1);
  assert.ok(M.histogramRows(run, null).every((r) => r.lo === undefined), "no run, no band");
  for (let r = 0; r < 50; r++) run.nextRound();
  const rows = M.histogramRows(run, null);
  for (const r of rows.filter((x) => x.kind === "exact")) {
    const w = M.shareBand(r.share, 50);
    assert.ok(r.lo === w.lo && r.hi === w.hi);
  }
  assert.ok(rows.filter((x) => x.kind === "simulated").every((r) => r.lo === undefined));
});
