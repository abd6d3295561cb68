// frames.buildInTurn: the live views are built one per task, those near the
// viewport first, the others only when they near it or the page is idle.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { load } = require("./widget.js");

const SD = load(["sd-frames.js"]);

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
    root.observers.push(this);
  };
  root.show = (...els) => root.observers.forEach((o) => o.callback(els.map((target) => ({ target, isIntersecting: true }))));
  root.runTimers = () => root.timers.splice(0).forEach((fn) => fn());
  root.runIdle = () => root.idles.splice(0).forEach((fn) => fn());
  return root;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("views near the viewport are built first, one per task; the rest wait for idle time", async () => {
  const root = fakeRoot();
  const built = [];
  const building = [];
  const done = SD.frames.buildInTurn(root, ["curve", "plane", "hist"], (name) => {
    building.push(name);
    assert.equal(building.length - built.length, 1, "never two views at once");
    return Promise.resolve().then(() => built.push(name));
  });
  let finished = false;
  done.then(() => { finished = true; });
  root.show("hist"); // on screen
  await settle();
  assert.deepEqual(built, ["hist"], "the visible view first, alone");
  root.runTimers(); // the yield after it: nothing else is near the viewport
  await settle();
  assert.deepEqual(built, ["hist"], "off-screen views wait");
  root.runIdle(); // the page is idle: the next off-screen view, in document order
  await settle();
  assert.deepEqual(built, ["hist", "curve"]);
  root.show("plane"); // scrolled to
  root.runTimers();
  await settle();
  assert.deepEqual(built, ["hist", "curve", "plane"]);
  assert.ok(finished, "settles once every view is built");
});

test("a failure rejects, and an empty list settles at once", async () => {
  const root = fakeRoot();
  await SD.frames.buildInTurn(root, [], () => assert.fail("nothing to build"));
  const failing = SD.frames.buildInTurn(root, ["curve"], () => Promise.reject(new Error("no runtime")));
  root.show("curve");
  await assert.rejects(failing, /no runtime/);
});
