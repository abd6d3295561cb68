// static/livereload.js (serve only) under node (tests/js/fake-dom.js): one
// EventSource per page; a reload only for another build's token; the failed
// build's problems in a banner, gone when a build is ok again.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { Element, Target, makeDocument, runScript } = require("./fake-dom.js");

function page(token, { eventSource = true } = {}) {
  const sources = [];
  class FakeEventSource extends Target {
    constructor(url) { super(); this.url = url; this.closed = false; sources.push(this); }
    close() { this.closed = true; }
  }
  const script = new Element("script", { "data-token": token });
  const document = makeDocument({ currentScript: script });
  const reloads = [];
  const errors = [];
  const window = new Target();
  runScript("livereload.js", {
    document, EventSource: eventSource ? FakeEventSource : undefined,
    location: { reload: () => reloads.push(1) }, addEventListener: window.addEventListener.bind(window),
    console: { error: (line) => errors.push(line) },
  });
  return { sources, document, reloads, errors, window };
}

test("it listens from its own build's token and reloads only for another one", () => {
  const p = page("b 7/x");
  assert.equal(p.sources.length, 1);
  assert.equal(p.sources[0].url, "/__livereload?since=b%207%2Fx");
  p.sources[0].dispatch("reload", { data: "b 7/x" });
  assert.deepEqual(p.reloads, []);
  p.sources[0].dispatch("reload", { data: "b 8" });
  assert.deepEqual(p.reloads, [1]);
  assert.equal(p.sources[0].closed, true);
});

test("a failed build's problems show in one alert banner, as text, until a build is ok", () => {
  const p = page("t");
  const source = p.sources[0];
  source.dispatch("problems", { data: JSON.stringify(["terms/a.md:3: <b>bad</b>", "terms/b.md:9: worse"]) });
  const banners = p.document.body.children;
  assert.equal(banners.length, 1);
  assert.equal(banners[0].getAttribute("role"), "alert");
  assert.equal(banners[0].textContent, "Build failed; showing the previous site.\nterms/a.md:3: <b>bad</b>\nterms/b.md:9: worse");
  assert.deepEqual(p.errors, ["terms/a.md:3: <b>bad</b>", "terms/b.md:9: worse"]);
  source.dispatch("problems", { data: "not JSON" });
  assert.equal(p.document.body.children.length, 1, "the same banner, refilled");
  assert.match(p.document.body.children[0].textContent, /\nnot JSON$/);
  source.dispatch("ok");
  assert.equal(p.document.body.children.length, 0);
  source.dispatch("ok");  // nothing to remove: no error
  p.window.dispatch("pagehide");
  assert.equal(source.closed, true);
});

test("without EventSource it does nothing", () => {
  const p = page("t", { eventSource: false });
  assert.equal(p.sources.length, 0);
});
