// sd-phases.js: a round's phases on the screen's clock. Every phase lasts long
// enough to see at every setting, no event that shows the outcome comes before
// the verification has ended, the decisions go left to right, and the clocks
// map screen time onto the model's cost (gamma c + 1 target passes).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { load } = require("./widget.js");

const SD = load();
const P = SD.phases;
const M = SD.model;

/** Every round shape the sliders allow: gamma 1..16, accepted 0..gamma. */
function shapes() {
  const out = [];
  for (let g = 1; g <= 16; g++) {
    for (let k = 0; k <= g; k++) {
      out.push({ gamma: g, accepted: k, rejectedAt: k < g ? k : -1, discarded: k < g ? g - k - 1 : 0, targetKind: k < g ? "correction" : "bonus" });
    }
  }
  return out;
}

const COSTS = [0, 0.001, 0.01, 0.05, 0.1, 0.3, 0.7, 1];

test("every phase lasts at least PHASE_MIN_MS, every drafted word at least TOKEN_MIN_MS, at every c", () => {
  assert.ok(P.PHASE_MIN_MS >= 400);
  for (const r of shapes()) {
    for (const c of COSTS) {
      const tl = P.timeline(r, c);
      assert.ok(tl.draftEnd >= P.PHASE_MIN_MS - 1e-9, `draft ${tl.draftEnd} at gamma ${r.gamma}, c ${c}`);
      assert.ok(tl.verifyEnd - tl.draftEnd >= P.PHASE_MIN_MS, "verify");
      assert.ok(tl.decideEnd - tl.verifyEnd >= P.PHASE_MIN_MS - 1e-9, "decide");
      const drafts = tl.events.filter((e) => e.type === "draft");
      assert.deepEqual(drafts.map((e) => e.pos), [...Array(r.gamma).keys()], "one draft event per position, in order");
      let prev = 0;
      for (const d of drafts) {
        assert.ok(d.ms - prev >= P.TOKEN_MIN_MS - 1e-9, "a drafted word has its own moment");
        assert.ok(d.ms - prev >= c * P.PASS_MS - 1e-9, "never faster than the model's draft cost");
        prev = d.ms;
      }
    }
  }
});

test("nothing decided shows before the verify phase ends; the decisions go left to right", () => {
  for (const r of shapes()) {
    const tl = P.timeline(r, 0.05);
    const times = tl.events.map((e) => e.ms);
    assert.deepEqual(times, [...times].sort((a, b) => a - b), "events in time order");
    const decisions = tl.events.filter((e) => P.isDecision(e.type));
    assert.ok(decisions.length >= 1);
    for (const e of decisions) {
      assert.ok(e.ms > tl.verifyEnd - 1e-9, `${e.type} at ${e.ms} before the verification ends at ${tl.verifyEnd}`);
      assert.notEqual(P.phaseAt(tl, e.ms - 1e-6), "draft");
    }
    for (const e of tl.events.filter((x) => !P.isDecision(x.type) && x.type !== "done" && x.type !== "decide")) {
      assert.ok(e.ms <= tl.verifyEnd, `${e.type} belongs to drafting or verifying`);
    }
    const order = decisions.map((e) => e.type + (e.pos === undefined ? "" : e.pos));
    const want = [];
    for (let k = 0; k < r.accepted; k++) want.push("accept" + k);
    if (r.rejectedAt >= 0) {
      want.push("reject" + r.rejectedAt);
      if (r.rejectedAt + 1 < r.gamma) want.push("discard" + (r.rejectedAt + 1));
    }
    want.push("target");
    assert.deepEqual(order, want);
    assert.equal(tl.events[tl.events.length - 1].type, "done");
  }
});

test("phaseAt names the phases in order: draft, verify, decide, done", () => {
  const tl = P.timeline({ gamma: 4, accepted: 2, rejectedAt: 2, discarded: 1, targetKind: "correction" }, 0.05);
  assert.equal(P.phaseAt(tl, 0), "draft");
  assert.equal(P.phaseAt(tl, tl.draftEnd), "verify");
  assert.equal(P.phaseAt(tl, tl.verifyEnd), "decide");
  assert.equal(P.phaseAt(tl, tl.decideEnd), "done");
});

test("the clocks run on model time: gamma c for the drafts, one pass to verify, nothing to decide", () => {
  for (const c of COSTS) {
    for (const g of [1, 3, 8, 16]) {
      const tl = P.timeline({ gamma: g, accepted: 0, rejectedAt: 0, discarded: g - 1, targetKind: "correction" }, c);
      assert.ok(Math.abs(tl.cost - M.roundCost(g, c)) < 1e-12);
      assert.ok(Math.abs(P.modelTime(tl, tl.draftEnd) - g * c) < 1e-9);
      assert.ok(Math.abs(P.modelTime(tl, tl.verifyEnd) - M.roundCost(g, c)) < 1e-9);
      assert.equal(P.modelTime(tl, tl.end), tl.cost);
      let prev = -1;
      for (let ms = 0; ms <= tl.end; ms += 7) {
        const u = P.modelTime(tl, ms);
        assert.ok(u >= prev - 1e-12, "never runs backwards");
        prev = u;
      }
      // the j-th drafted word lands at j c passes on the clock
      for (const e of tl.events.filter((x) => x.type === "draft")) {
        assert.ok(Math.abs(P.modelTime(tl, e.ms - 1e-9) - (e.pos + 1) * c) < 1e-6);
      }
    }
  }
});
