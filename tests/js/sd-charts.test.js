// sd-charts.js under node: the curve rows and their in-place edits, the
// stepped y axis, and the frame scheduler (one update per frame; the
// histogram held back while a slider moves and throttled while playing).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const { load } = require("./widget.js");
const SD = load(["sd-model.js", "sd-curve.js", "sd-charts.js"]);
const C = SD.charts;
const M = SD.model;

test("curve rows: the smooth grid, whole depths, one peak and one current point", () => {
  const rows = C.curveRows(0.8, 0.05, 5);
  assert.equal(rows.length, 16 / C.SMOOTH_STEP + 1);
  assert.deepEqual(rows.filter((r) => r.whole).map((r) => r.gamma), [...Array(17).keys()]);
  assert.equal(rows.filter((r) => r.peak).length, 1);
  assert.equal(rows.find((r) => r.peak).gamma, 8);
  assert.deepEqual(rows.filter((r) => r.current).map((r) => r.gamma), [5]);
  for (const r of rows) assert.equal(r.S, M.speedup(0.8, r.gamma, 0.05));
});

test("curve rows: no diamond when the readout's best depth lies beyond the chart", () => {
  const rows = C.curveRows(0.95, 0.01, 5); // best whole depth 40 (the readout searches to 64)
  assert.equal(M.optimalDepth(0.95, 0.01, 64), 40);
  assert.equal(rows.filter((r) => r.peak).length, 0);
  assert.equal(C.curveRows(0.8, 0, 5).filter((r) => r.peak).length, 0, "a free draft has no best depth");
});

test("curve edits change only what differs, and applying them gives the new rows", () => {
  const tuples = C.curveRows(0.8, 0.05, 5).reverse(); // order does not matter: matched by gamma
  assert.deepEqual(C.curveEdits(tuples, C.curveRows(0.8, 0.05, 5)), []);
  const onlyGamma = C.curveEdits(tuples, C.curveRows(0.8, 0.05, 7));
  assert.deepEqual(onlyGamma.map((e) => [e[0].gamma, e[1], e[2]]).sort(), [[5, "current", false], [7, "current", true]]);
  const next = C.curveRows(0.6, 0.1, 3);
  for (const [t, f, v] of C.curveEdits(tuples, next)) t[f] = v;
  assert.deepEqual(tuples.slice().reverse(), next);
  assert.equal(C.curveEdits(tuples.slice(1), next), null, "another grid: replace the rows");
});

test("the y axis top: the lowest step with headroom above the highest S", () => {
  for (const [a, c] of [[0.8, 0.05], [0.1, 0.9], [1, 0], [0.99, 0.001], [0.5, 0.5]]) {
    const rows = C.curveRows(a, c, 5);
    const top = C.yTop(rows);
    const maxS = Math.max(...rows.map((r) => r.S));
    assert.ok(top >= maxS * C.HEADROOM || top === C.Y_TOPS[C.Y_TOPS.length - 1], `${a} ${c}`);
    assert.ok(top >= maxS, "never clips the curve");
    const lower = C.Y_TOPS.filter((t) => t < top);
    assert.ok(lower.every((t) => t < maxS * C.HEADROOM));
  }
});

function fakeEnv() {
  const env = { t: 0, frames: [], timers: [], playing: false };
  env.raf = (fn) => env.frames.push(fn);
  env.now = () => env.t;
  env.setTimeout = (fn, ms) => env.timers.push({ at: env.t + ms, fn });
  env.hot = () => env.playing;
  env.frame = () => {
    env.t += 16;
    const due = env.timers.filter((x) => x.at <= env.t);
    env.timers = env.timers.filter((x) => x.at > env.t);
    due.forEach((x) => x.fn());
    const fns = env.frames.splice(0);
    fns.forEach((fn) => fn(env.t));
  };
  return env;
}

test("scheduler: many marks, one update per frame", () => {
  const env = fakeEnv();
  const calls = [];
  const s = C.createScheduler(env, (state, rest) => calls.push([state, rest]), 250);
  for (let i = 0; i < 10; i++) s.mark("state");
  assert.equal(env.frames.length, 1);
  env.frame();
  assert.deepEqual(calls, [[true, false]]);
  assert.equal(s.pending(), false);
  env.frame();
  assert.equal(calls.length, 1, "no work without a mark");
});

test("scheduler: the histogram waits until the sliders rest", () => {
  const env = fakeEnv();
  const calls = [];
  const s = C.createScheduler(env, (state, rest) => calls.push([env.t, state, rest]), 250);
  for (let i = 0; i < 20; i++) { // a drag: every frame changes the state and resets the run
    s.mark("state");
    s.mark("rest");
    env.frame();
  }
  assert.ok(calls.every((c) => c[1] && !c[2]), "no histogram update during the drag");
  const lastDrag = env.t;
  while (s.pending()) env.frame();
  const runs = calls.filter((c) => c[2]);
  assert.equal(runs.length, 1);
  assert.ok(runs[0][0] >= lastDrag + 250 && runs[0][0] <= lastDrag + 250 + 32, String(runs[0][0] - lastDrag));
});

test("scheduler: at rest a finished round shows at once; while playing, at most every 250 ms", () => {
  const env = fakeEnv();
  const calls = [];
  const s = C.createScheduler(env, (state, rest) => rest && calls.push(env.t), 250);
  env.t = 1000;
  s.mark("rest");
  env.frame();
  assert.deepEqual(calls, [1016], "a step: the next frame");
  env.playing = true;
  for (let i = 0; i < 120; i++) { // rounds finishing every frame for about 2 s
    s.mark("rest");
    env.frame();
  }
  for (let i = 1; i < calls.length; i++) assert.ok(calls[i] - calls[i - 1] >= 250, String(calls));
  assert.ok(calls.length >= 7, String(calls.length));
});

test("histogram rows: simulated bars only where there are some, the build-time ones at their own setting", () => {
  const built = [{ tokens: 1, kind: "exact", share: 0.2, alpha: 0.8, gamma: 5 }, { tokens: 1, kind: "simulated", share: 0.21, alpha: 0.8, gamma: 5 }];
  const fresh = M.createRun(0.8, 5, 0.05, 1);
  assert.equal(C.histRows(fresh, built), built, "no round yet, same setting: the bars the caption describes");
  const other = M.createRun(0.5, 5, 0.05, 1);
  const exactOnly = C.histRows(other, built);
  assert.deepEqual([...new Set(exactOnly.map((r) => r.kind))], ["exact"], "another setting: no simulated series at all");
  assert.equal(exactOnly.length, 6);
  assert.deepEqual([...new Set(C.histRows(fresh, null).map((r) => r.kind))], ["exact"]);
  for (let i = 0; i < 40; i++) fresh.nextRound();
  const rows = C.histRows(fresh, built);
  const sim = rows.filter((r) => r.kind === "simulated");
  assert.equal(sim.length, 6, "the reader's run replaces the build-time bars");
  assert.ok(Math.abs(sim.reduce((a, r) => a + r.share, 0) - 1) < 1e-12);
  assert.deepEqual(sim.map((r) => r.share), [1, 2, 3, 4, 5, 6].map((k) => fresh.histogram[k] / 40));
});

test("pictureFit: the live view takes the static picture's box, the axes keeping their room", () => {
  // the curve's picture: drawn at 373 x 307 from a 320 x 220 plot, shown 366 px wide
  const size = SD.charts.pictureFit({ width: 320, height: 220 }, 373, 307, 366, 366 * 307 / 373);
  assert.deepEqual(size, { width: 313, height: 214 });
  assert.deepEqual(SD.charts.pictureFit({ width: 320, height: 220 }, 373, 307, 373, 307), { width: 320, height: 220 });
});

test("inked: every currentColor of a spec becomes the given colour, nothing else changes", () => {
  const spec = {
    config: { axis: { labelColor: "currentColor", gridColor: "#8884" }, title: { color: "currentColor" } },
    marks: [{ encode: { update: { fill: { value: "currentColor" }, text: { value: "currentColor is a word here" } } } }],
    data: [{ name: "curve", values: [{ S: 1, whole: true }] }],
    width: 320,
  };
  const out = C.inked(spec, "rgb(232, 232, 232)");
  assert.equal(out.config.axis.labelColor, "rgb(232, 232, 232)");
  assert.equal(out.config.title.color, "rgb(232, 232, 232)");
  assert.equal(out.marks[0].encode.update.fill.value, "rgb(232, 232, 232)");
  assert.equal(out.marks[0].encode.update.text.value, "currentColor is a word here", "only whole values");
  assert.equal(out.config.axis.gridColor, "#8884");
  assert.deepEqual(out.data, spec.data);
  assert.equal(out.width, 320);
  assert.equal(spec.config.axis.labelColor, "currentColor", "the spec itself is left as it was");
  assert.ok(C.CANVAS.curve && !C.CANVAS.plane, "the curve, the view a slider redraws, is the canvas one");
});

test("issue 30: a script is loaded only from a file name beside the widget's script", () => {
  const here = "https://example.org/glossary/assets/speculative-decoding.0123456789.js";
  assert.equal(C.assetUrl("vega-runtime.abc.js", here), "https://example.org/glossary/assets/vega-runtime.abc.js");
  assert.equal(C.assetUrl("sd-specs-curve.abc.js", "file:///site/assets/w.js"), "file:///site/assets/sd-specs-curve.abc.js");
  for (const bad of ["data:text/javascript,alert(1)", "javascript:alert(1)//.js", "//evil.example/x.js", "../x.js",
    "/x.js", "a/b.js", "https://evil.example/x.js", ".hidden.js", "x.js?y", "x.css", "", null, undefined, 1, {}, ["x.js"]]) {
    assert.equal(C.assetUrl(bad, here), "", String(bad));
  }
  assert.equal(C.assetUrl("x.js", ""), "", "no base (the script's URL unknown): nothing is loaded");
});

test("issue 30: an element named SpeculativeDecoding on window is not taken for the namespace", () => {
  const fs = require("node:fs");
  const { STATIC } = require("./widget.js");
  const named = { tagName: "P", nodeType: 1 };
  const self = Object.create({ SpeculativeDecoding: named }); // as named access puts it: not an own property
  new Function("self", fs.readFileSync(path.join(STATIC, "sd-model.js"), "utf8"))(self);
  assert.ok(Object.prototype.hasOwnProperty.call(self, "SpeculativeDecoding"));
  assert.notEqual(self.SpeculativeDecoding, named);
  assert.equal(typeof self.SpeculativeDecoding.model.speedup, "function");
  assert.equal(named.model, undefined);
});
