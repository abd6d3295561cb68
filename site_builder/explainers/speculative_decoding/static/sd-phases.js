/* sd-phases.js: one round's phases on the screen's clock; pure. Registers
 * SpeculativeDecoding.phases.
 *
 * A round the seeded run has decided is played in three phases, each lasting at
 * least PHASE_MIN_MS at speed 1, so a reader sees every one at every setting:
 *
 *   draft:  word j appears at (j + 1) * perToken, where perToken is c passes of
 *           PASS_MS, but never under TOKEN_MIN_MS (c = 0.01 still shows the
 *           words one at a time) nor so short that the phase is under PHASE_MIN_MS
 *   verify: one target pass scores every draft at once (PASS_MS)
 *   decide: the pass's decisions read left to right, JUDGE_MS apart: the accepted
 *           prefix, the rejected word, the dying tail, then the target's word
 *           (correction or bonus); a hold, and the round is done
 *
 * No decision event lies before the verify phase ends: the screen shows nothing
 * of the outcome before the target has scored the drafts. modelTime() maps
 * screen time to model time (target passes) for the clocks: the drafts cost
 * gamma * c, the verification 1, the decisions nothing (they are the pass's
 * result, spread out for the eye only).
 */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  SD.phases = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var PASS_MS = 900; // one target pass at speed 1
  var PHASE_MIN_MS = 450; // no phase is shorter at speed 1
  var TOKEN_MIN_MS = 120; // nor one drafted word
  var JUDGE_MS = 220; // one decision after the other
  var HOLD_MS = 700; // the finished round stays before the next begins (under Play)
  var DECISIONS = { accept: true, reject: true, discard: true, target: true };

  /** The screen times (ms at speed 1) of a round's events. `round` is the run's
   * { gamma, accepted, rejectedAt, discarded, targetKind }; c the draft cost.
   * Returns { events: [{ ms, type, pos? }] in time order, draftEnd, verifyEnd,
   * decideEnd, end, cost }; types: draft, verify, decide, accept, reject,
   * discard, target, done. */
  function timeline(round, c) {
    var g = round.gamma;
    var perToken = Math.max(c * PASS_MS, TOKEN_MIN_MS, PHASE_MIN_MS / g);
    var events = [];
    for (var j = 0; j < g; j++) events.push({ ms: (j + 1) * perToken, type: "draft", pos: j });
    var draftEnd = g * perToken;
    events.push({ ms: draftEnd, type: "verify" });
    var verifyEnd = draftEnd + Math.max(PASS_MS, PHASE_MIN_MS);
    events.push({ ms: verifyEnd, type: "decide" });
    var t = verifyEnd;
    for (var k = 0; k < round.accepted; k++) events.push({ ms: (t += JUDGE_MS), type: "accept", pos: k });
    if (round.rejectedAt >= 0) {
      events.push({ ms: (t += JUDGE_MS), type: "reject", pos: round.rejectedAt });
      if (round.rejectedAt + 1 < g) events.push({ ms: (t += JUDGE_MS), type: "discard", pos: round.rejectedAt + 1 });
    }
    t = Math.max(t + JUDGE_MS, verifyEnd + PHASE_MIN_MS);
    events.push({ ms: t, type: "target" });
    var decideEnd = t;
    events.push({ ms: t + HOLD_MS, type: "done" });
    return { events: events, draftEnd: draftEnd, verifyEnd: verifyEnd, decideEnd: decideEnd, end: t + HOLD_MS, cost: g * c + 1, draftCost: g * c };
  }

  /** Model time (target passes into the round) at screen time `ms` of timeline `tl`. */
  function modelTime(tl, ms) {
    if (ms <= 0) return 0;
    if (ms < tl.draftEnd) return (tl.draftCost * ms) / tl.draftEnd;
    if (ms < tl.verifyEnd) return tl.draftCost + (ms - tl.draftEnd) / (tl.verifyEnd - tl.draftEnd);
    return tl.cost;
  }

  /** The phase at screen time `ms`: draft, verify, decide or done. */
  function phaseAt(tl, ms) {
    return ms < tl.draftEnd ? "draft" : ms < tl.verifyEnd ? "verify" : ms < tl.decideEnd ? "decide" : "done";
  }

  /** Whether an event type shows (part of) the round's outcome. */
  function isDecision(type) {
    return DECISIONS[type] === true;
  }

  return { PASS_MS: PASS_MS, PHASE_MIN_MS: PHASE_MIN_MS, TOKEN_MIN_MS: TOKEN_MIN_MS, JUDGE_MS: JUDGE_MS, HOLD_MS: HOLD_MS,
    timeline: timeline, modelTime: modelTime, phaseAt: phaseAt, isDecision: isDecision };
});
