// frames.buildInTurn: the live views are built one per task, those near the
// viewport first, the others only when they near it (or, with no
// IntersectionObserver to tell, one per idle period).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadKit } = require("./widget.js");

const KIT = loadKit();

/** A window whose timers, idle callbacks and intersection observer the test drives by hand. */
function fakeRoot() {
  const root = { timers: [], idles: [], observers: [] };
  root.setTimeout = (fn) => root.timers.push(fn);
  root.requestIdleCallback = (fn) => root.idles.push(fn);
  root.IntersectionObserver = function (callback) {
    this.callback = callback;
    this.watched = [];
    this.observe = (el) => this.watched.push(el);
    this.unobserve = (el) => { this.watched = this.watched.filter((w) => w !== el); };
    this.disconnect = () => { this.watched = []; };
    root.observers.push(this);
  };
  // only what an observer still watches is reported to it, as a real one does
  root.show = (...els) => root.observers.forEach((o) => {
    const seen = els.filter((el) => o.watched.includes(el));
    if (seen.length) o.callback(seen.map((target) => ({ target, isIntersecting: true })));
  });
  root.runTimers = () => root.timers.splice(0).forEach((fn) => fn());
  root.runIdle = () => root.idles.splice(0).forEach((fn) => fn());
  return root;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("views near the viewport are built, one per task; the others only as they near it", async () => {
  const root = fakeRoot();
  const built = [];
  const building = [];
  const done = KIT.frames.buildInTurn(root, ["curve", "plane", "hist"], (name) => {
    building.push(name);
    assert.equal(building.length - built.length, 1, "never two views at once");
    return Promise.resolve().then(() => built.push(name));
  });
  let finished = false, drained = false;
  done.then(() => { finished = true; });
  done.drained.then(() => { drained = true; });
  root.show("hist"); // on screen
  await settle();
  assert.deepEqual(built, ["hist"], "the visible view, alone");
  assert.ok(!drained, "drained only once the queue has run dry, after the yield");
  root.runTimers(); // the yield after it: nothing else is near the viewport
  await settle();
  assert.ok(drained, "the views wanted so far are built");
  root.runIdle(); // an idle page builds nothing more: off-screen views stay deferred
  root.runTimers();
  await settle();
  assert.deepEqual(built, ["hist"], "off-screen views wait, idle or not");
  assert.equal(root.idles.length, 0, "no idle callback is even asked for when an observer can tell what is near");
  root.show("plane"); // scrolled to
  root.runTimers();
  await settle();
  assert.deepEqual(built, ["hist", "plane"]);
  assert.ok(!finished, "settles only once every view is built");
  done.first("curve"); // a slider was used
  await settle();
  assert.deepEqual(built, ["hist", "plane", "curve"]);
  assert.ok(finished, "settles once every view is built");
});

test("without an IntersectionObserver every view is built, one per idle period, in document order", async () => {
  const root = fakeRoot();
  delete root.IntersectionObserver;
  const built = [];
  const done = KIT.frames.buildInTurn(root, ["curve", "plane"], (name) => Promise.resolve().then(() => built.push(name)));
  await settle();
  assert.deepEqual(built, [], "nothing before the page is idle");
  root.runIdle();
  await settle();
  assert.deepEqual(built, ["curve"]);
  root.runTimers();
  root.runIdle();
  await settle();
  assert.deepEqual(built, ["curve", "plane"]);
  await done;
});

test("a view that fails keeps its picture: the others are built still, and the whole reports the failure", async () => {
  const root = fakeRoot();
  const built = [];
  const done = KIT.frames.buildInTurn(root, ["curve", "plane", "hist"], (name) =>
    name === "plane" ? Promise.reject(new Error("no spec")) : Promise.resolve().then(() => built.push(name)));
  let rejected = null;
  done.catch((err) => { rejected = err; });
  root.show("curve");
  await settle();
  root.runTimers();
  await done.drained; // the curve is live
  root.show("plane"); // fails
  await settle();
  root.runTimers();
  root.show("hist"); // comes near after the failure: built all the same
  await settle();
  root.runTimers();
  await settle();
  assert.deepEqual(built, ["curve", "hist"]);
  assert.match(String(rejected), /no spec/, "settled once every view is done, with the failure");
});

test("drained fails only when every view wanted so far failed, and settles when nothing is near", async () => {
  const root = fakeRoot();
  const failing = KIT.frames.buildInTurn(root, ["curve", "plane"], () => Promise.reject(new Error("offline")));
  failing.catch(() => {});
  root.show("curve");
  await settle();
  root.runTimers();
  await assert.rejects(failing.drained, /offline/);
  const later = fakeRoot();
  const far = KIT.frames.buildInTurn(later, ["curve"], () => assert.fail("nothing is near"));
  later.observers[0].callback([{ target: "curve", isIntersecting: false }]); // the reader scrolled away meanwhile
  await far.drained; // settles: nothing is wanted yet
});

test("a failure rejects, and an empty list settles at once", async () => {
  const root = fakeRoot();
  await KIT.frames.buildInTurn(root, [], () => assert.fail("nothing to build"));
  const failing = KIT.frames.buildInTurn(root, ["curve"], () => Promise.reject(new Error("no runtime")));
  root.show("curve");
  await assert.rejects(failing, /no runtime/);
});

test("first(c) builds a view next, near the viewport or not, and never twice", async () => {
  const root = fakeRoot();
  const built = [];
  const done = KIT.frames.buildInTurn(root, ["curve", "plane", "hist"], (name) => Promise.resolve().then(() => built.push(name)));
  root.show("hist", "plane"); // both near: hist is being built, plane waits in the queue
  await settle();
  done.first("curve"); // a slider was used: the curve jumps the queue
  root.runTimers();
  await settle();
  assert.deepEqual(built, ["hist", "curve"]);
  done.first("curve"); // already built: nothing happens
  root.runTimers();
  await settle();
  root.runTimers();
  await settle();
  assert.deepEqual(built, ["hist", "curve", "plane"]);
});

test("inTasks: each step in a task of its own, in order, each given the last one's value", async () => {
  const root = fakeRoot();
  const ran = [];
  const result = KIT.frames.inTasks(root, [
    (v) => { ran.push(["parse", v]); return v + 1; },
    (v) => { ran.push(["view", v]); return Promise.resolve(v * 10); },
    (v) => { ran.push(["draw", v]); return "drawn " + v; },
  ], 1);
  await settle();
  assert.deepEqual(ran, [["parse", 1]], "the first step at once, the next only after a task boundary");
  root.runTimers();
  await settle();
  assert.deepEqual(ran.length, 2);
  root.runTimers();
  await settle();
  assert.equal(await result, "drawn 20");
  assert.deepEqual(ran, [["parse", 1], ["view", 2], ["draw", 20]]);
});

/** A figure with charts, listening as an element does (capture flags are recorded). */
function fakeFigure(charts) {
  const listeners = {};
  return {
    listeners,
    addEventListener: (type, fn) => { (listeners[type] = listeners[type] || []).push(fn); },
    removeEventListener: (type, fn) => { listeners[type] = (listeners[type] || []).filter((f) => f !== fn); },
    querySelectorAll: (sel) => (sel === "[data-chart]" ? charts : []),
    // an event on a control (a slider) or, with onControl false, on the figure's own text
    fire: (type, onControl = true) => (listeners[type] || []).slice()
      .forEach((fn) => fn({ type, target: { closest: (sel) => (onControl && sel.includes("input") ? {} : null) } })),
  };
}

/** A window that has loaded and painted (or not yet), with paint timing and an intersection observer. */
function pageRoot(loaded) {
  const root = fakeRoot();
  root.document = { readyState: loaded ? "complete" : "loading" };
  root.loads = [];
  root.addEventListener = (type, fn) => { if (type === "load") root.loads.push(fn); };
  root.performance = { getEntriesByName: () => [{ name: "first-contentful-paint" }] };
  return root;
}

test("startLazily: nothing starts while no chart is near and no control is used, however idle the page", () => {
  const root = pageRoot(true);
  const figure = fakeFigure(["curve", "plane"]);
  const reasons = [];
  KIT.frames.startLazily(root, figure, (why) => reasons.push(why));
  root.runTimers();
  root.runIdle();
  assert.deepEqual(reasons, []);
  assert.equal(root.observers.length, 1);
  assert.deepEqual(root.observers[0].watched, ["curve", "plane"], "the charts are watched, not the whole figure");
  root.observers[0].callback([{ target: "curve", isIntersecting: false }]);
  assert.deepEqual(reasons, []);
  root.show("plane");
  assert.deepEqual(reasons, ["near"]);
  figure.fire("focusin");
  root.show("curve");
  assert.deepEqual(reasons, ["near"], "once only");
});

test("startLazily: the first use of a control starts at once, even before the page has loaded", () => {
  for (const type of KIT.frames.USE_EVENTS) {
    const root = pageRoot(false);
    const figure = fakeFigure(["curve"]);
    const reasons = [];
    KIT.frames.startLazily(root, figure, (why) => reasons.push(why));
    assert.equal(root.observers.length, 0, "no chart is watched before load");
    figure.fire(type, false); // a finger scrolling across the figure, not on a control
    assert.deepEqual(reasons, [], type);
    figure.fire(type);
    figure.fire(type);
    assert.deepEqual(reasons, ["use"], type);
    root.loads.forEach((fn) => fn()); // the page loads afterwards: nothing more
    root.show("curve");
    assert.deepEqual(reasons, ["use"], type);
  }
  assert.ok(KIT.frames.USE_EVENTS.includes("focusin") && KIT.frames.USE_EVENTS.includes("pointerdown"));
});
