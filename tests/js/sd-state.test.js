// sd-state.js (store, URL parsing) and sd-readout.js (the words) under node.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { pythonExecutable } = require("./python.js");

const ROOT = path.resolve(__dirname, "..", "..");
const SD = require("./widget.js").load(["sd-model.js", "sd-state.js", "sd-readout.js"]);
const S = SD.state;
const R = SD.readout;
const M = SD.model;

test("junk URL values (not numbers) fall back to defaults", () => {
  const junk = ["NaN", "Infinity", "abc", "", "0x10", "1e400", "-1e400", "%E0%A4%A", "0.5.5", "1,5"];
  for (const v of junk) {
    const s = S.parseParams(`?alpha=${v}&gamma=${v}&c=${v}&seed=${v}`, "");
    assert.deepEqual(s, S.DEFAULTS, `value ${v}`);
  }
});

test("out-of-range URL values are clamped, not reset", () => {
  const d = S.DEFAULTS;
  assert.deepEqual(S.parseParams("?gamma=17&alpha=1.7&c=2&seed=5e9", ""), { ...d, gamma: 16, alpha: 1, c: 1, seed: 4294967295 });
  assert.deepEqual(S.parseParams("?gamma=0&alpha=-0.3&c=-1&seed=-4", ""), { ...d, gamma: 1, alpha: 0, c: 0, seed: 0 });
  assert.deepEqual(S.parseParams("?gamma=1e9", ""), { ...d, gamma: 16 });
  assert.equal(S.parseParams("?gamma=3.5&gamma=17", "").gamma, 16, "the last of a repeated key");
  assert.equal(S.parseParams("?gamma=7.4", "").gamma, 7, "onto the slider's grid");
  assert.equal(Object.is(S.parseParams("?alpha=-0.0001", "").alpha, 0), true, "no negative zero");
});

test("an address with clamped or junk values is rewritten, a clean one left alone", () => {
  assert.equal(S.needsRewrite("?gamma=17", ""), true);
  assert.equal(S.needsRewrite("?alpha=abc", ""), true);
  assert.equal(S.needsRewrite("", "#c=-1"), true);
  assert.equal(S.needsRewrite("?batch=99999", ""), true);
  assert.equal(S.needsRewrite("?alpha=0.42&gamma=7&c=0.125&seed=99", ""), false);
  assert.equal(S.needsRewrite("?" + S.serialize(S.DEFAULTS), ""), false);
  assert.equal(S.needsRewrite("", ""), false);
  assert.equal(S.needsRewrite("?utm=x", ""), false, "keys that are not the state's are not its business");
  // syncUrl corrects the address as soon as it starts, before any change
  const calls = [];
  const win = {
    location: { pathname: "/p/", search: "?gamma=17&alpha=1.7&seed=text", hash: "" },
    history: { state: null, replaceState: (st, t, url) => calls.push(url) },
    setTimeout: () => 1, clearTimeout: () => {},
  };
  const store = S.createStore(S.parseParams(win.location.search, win.location.hash));
  S.syncUrl(store, win, 200);
  assert.equal(calls.length, 1);
  assert.match(calls[0], /[?&]gamma=16(&|$)/);
  assert.match(calls[0], /[?&]alpha=1(&|$)/);
  assert.match(calls[0], new RegExp("[?&]seed=" + S.DEFAULTS.seed + "(&|$)"));
  win.location.search = "?" + S.serialize(store.get());
  S.syncUrl(S.createStore(S.parseParams(win.location.search, "")), win, 200);
  assert.equal(calls.length, 1, "a clean address is not rewritten");
});

test("good URL values are read, from the query or the hash", () => {
  assert.deepEqual(S.parseParams("?alpha=0.42&gamma=7&c=0.125&seed=99", ""), { ...S.DEFAULTS, alpha: 0.42, gamma: 7, c: 0.125, seed: 99 });
  assert.deepEqual(S.parseParams("", "#alpha=1&gamma=16&c=0&seed=4294967295"), { ...S.DEFAULTS, alpha: 1, gamma: 16, c: 0, seed: 4294967295 });
  assert.equal(S.parseParams("?alpha=0.12345", "").alpha, 0.123);
});

test("the store notifies changes only, and never holds an invalid value", () => {
  const store = S.createStore({});
  const heard = [];
  store.subscribe((s, changed) => heard.push(changed));
  store.set({ alpha: 0.8 });
  store.set({ alpha: 0.5, gamma: 99, c: "x" });
  assert.deepEqual(heard, [["alpha", "gamma"]], "setting the default alpha is no change");
  assert.deepEqual(store.get(), { ...S.DEFAULTS, alpha: 0.5, gamma: 16 }, "99 clamped to 16, junk c ignored");
  assert.equal(S.serialize(store.get()), "alpha=0.5&gamma=16&c=0.05&seed=1&batch=1&ctx=0&devices=8&hw=h100-sxm&pair=llama-3.1-70b-8b");
});

test("every value the store accepts is accepted by the Python model", () => {
  const vals = [];
  for (const a of [0, 0.001, 0.5, 0.999, 1]) for (const g of [1, 8, 16]) for (const c of [0, 0.173, 1]) {
    const st = S.sanitize({ alpha: a, gamma: g, c: c }, S.DEFAULTS);
    vals.push([st.alpha, st.gamma, st.c, M.speedup(st.alpha, st.gamma, st.c)]);
  }
  const py = `
import json, sys
from site_builder.explainers.speculative_decoding import model
rows = json.loads(sys.stdin.read())
print(json.dumps([float(model.speedup(a, g, c)) for a, g, c, _ in rows]))`;
  const out = JSON.parse(execFileSync(pythonExecutable(), ["-c", py], { cwd: ROOT, input: JSON.stringify(vals), env: { ...process.env, PYTHONPATH: ROOT }, encoding: "utf8" }));
  out.forEach((s, i) => assert.ok(Math.abs(s - vals[i][3]) <= 1e-12 * Math.max(1, s), `row ${vals[i]}`));
});

test("the replay fixture of the page data is reproduced", () => {
  const py = "import json; from site_builder.explainers.speculative_decoding import data; print(json.dumps(data.replay_fixture()))";
  const fx = JSON.parse(execFileSync(pythonExecutable(), ["-c", py], { cwd: ROOT, env: { ...process.env, PYTHONPATH: ROOT }, encoding: "utf8" }));
  const next = M.mulberry32(fx.seed);
  fx.uniforms.forEach((u, i) => assert.equal(next(), u, `draw ${i}`));
  const run = M.createRun(fx.alpha, fx.gamma, 0.1, fx.seed);
  for (let r = 0; r < fx.n_rounds; r++) {
    const round = run.nextRound();
    assert.equal(round.accepted, fx.accepted[r], `round ${r}`);
    assert.equal(round.rejectedAt, fx.first_rejection[r], `round ${r}`);
  }
});

test("the readout's words are the page's, setting by setting (Python describe against JS describe)", () => {
  const grid = [];
  for (const a of [0, 0.001, 0.1, 0.3, 0.31, 0.5, 0.6, 0.8, 0.95, 0.999, 1])
    for (const g of [1, 2, 3, 5, 8, 16])
      for (const c of [0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 0.6, 1]) grid.push([a, g, c]);
  const py = `
import json, sys
from site_builder.explainers.speculative_decoding import page
rows = json.loads(sys.stdin.read())
print(json.dumps([{k: d[k] for k in ("kind", "verdict", "best_text", "best", "finite")} for d in (page.describe(a, g, c) for a, g, c in rows)]))`;
  const out = JSON.parse(execFileSync(pythonExecutable(), ["-c", py], { cwd: ROOT, input: JSON.stringify(grid), env: { ...process.env, PYTHONPATH: ROOT }, encoding: "utf8" }));
  grid.forEach(([a, g, c], i) => {
    const d = R.describe(a, g, c);
    const want = out[i];
    assert.deepEqual({ kind: d.kind, verdict: d.verdict, best_text: d.bestText, best: d.best, finite: d.finite }, want, `alpha ${a} gamma ${g} c ${c}`);
  });
});

test("the readout never contradicts itself near S = 1, nor invents a best depth for a free draft", () => {
  const near = R.describe(0.31, 2, 0.2); // S = 1.004: pays off, by a hair (1.00× at two decimals)
  assert.equal(near.kind, "win");
  assert.match(near.verdict, /1\.004× the speed/);
  const tiny = R.describe(0.3, 1, 0.305); // S = 0.996
  assert.equal(tiny.kind, "slowdown");
  assert.match(tiny.verdict, /less than 1% fewer/);
  const free = R.describe(0.8, 5, 0);
  assert.equal(free.finite, false);
  assert.equal(free.bestText, "none: a free draft gains a little at every depth, approaching 5.00×");
  assert.match(R.summary({ alpha: 0.8, gamma: 5, c: 0 }), /Best depth: none, a free draft gains at every depth\./);
  assert.match(R.describe(0.999, 5, 0.0001).bestText, /^γ = 64 or deeper/);
});

test("the readout says slowdown in plain words", () => {
  const d = R.describe(0.1, 4, 0.5);
  assert.equal(d.kind, "slowdown");
  assert.match(d.verdict, /slowdown/);
  assert.match(d.verdict, /no depth pays off/);
  assert.equal(d.best, 0);
  assert.equal(R.describe(0.8, 5, 0.05).kind, "win");
  assert.equal(R.describe(0.5, 1, 0.5).kind, "even");
  assert.equal(R.describe(0.8, 5, 0.05).best, 8);
});

test("the announcer speaks once a value has settled, and never repeats itself", () => {
  const el = { textContent: "" };
  let now = 0;
  let timers = [];
  const fake = {
    setTimeout: (fn, ms) => { const t = { at: now + ms, fn }; timers.push(t); return t; },
    clearTimeout: (t) => { timers = timers.filter((x) => x !== t); },
  };
  const advance = (ms) => {
    now += ms;
    const due = timers.filter((t) => t.at <= now);
    timers = timers.filter((t) => t.at > now);
    due.forEach((t) => t.fn());
  };
  const say = R.announcer(el, 500, fake);
  const spoken = [];
  for (let i = 0; i < 30; i++) { // a drag: an input every 16 ms
    say(R.summary({ alpha: 0.5 + i / 100, gamma: 5, c: 0.05 }));
    advance(16);
    spoken.push(el.textContent);
  }
  assert.ok(spoken.every((t) => t === ""), "silent during the drag");
  advance(500);
  assert.equal(el.textContent, R.summary({ alpha: 0.79, gamma: 5, c: 0.05 }));
  assert.match(el.textContent, /^Acceptance 0\.79, depth 5, draft cost 0\.05: speedup \d\.\d\d times, pays off\. Best depth: \d+\.$/);
  el.textContent = "changed by hand";
  say(R.summary({ alpha: 0.79, gamma: 5, c: 0.05 })); // the same sentence as last time: not repeated
  advance(600);
  assert.equal(el.textContent, "changed by hand");
  say(R.summary({ alpha: 0.1, gamma: 4, c: 0.5 }));
  advance(600);
  assert.match(el.textContent, /a slowdown\. Best depth: do not speculate\.$/);
});
