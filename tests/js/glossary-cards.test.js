// static/glossary-cards.js under node (tests/js/fake-dom.js): the card's states
// (hover after 150 ms, focus at once, a touch tap holding the navigation back,
// Escape), aria-describedby, and which links have a card, from the page's own
// data or from a glossary.json fetched from another site.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { Element, makeDocument, runScript } = require("./fake-dom.js");

function clock() {
  let now = 0, next = 1;
  const timers = new Map();
  return {
    setTimeout(fn, ms) { timers.set(next, [now + ms, fn]); return next++; },
    clearTimeout(id) { timers.delete(id); },
    advance(ms) {
      now += ms;
      for (const [id, [at, fn]] of [...timers].sort((a, b) => a[1][0] - b[1][0])) {
        if (at <= now && timers.has(id)) { timers.delete(id); fn(); }
      }
    },
  };
}

function link(href, attributes = {}) {
  const a = new Element("a", { href, ...attributes });
  a.ownerBase = "https://example.org/glossary/alpha/";
  return a;
}

function ownPage() {
  const data = new Element("script", { id: "glossary-cards-data", type: "application/json" });
  data.text = JSON.stringify({ beta: ["Beta", "The <second> term."], gamma: ["Gamma", "Third."] });
  // the template's block sits in <head>: glossary-cards.js takes no other (issue 30)
  const document = makeDocument({ selectors: { 'script[type="application/json"]#glossary-cards-data': data } });
  document.head.appendChild(data);
  document.register(data);
  const time = clock();
  runScript("glossary-cards.js", { document, setTimeout: time.setTimeout, clearTimeout: time.clearTimeout,
    innerHeight: 800, pageXOffset: 0, pageYOffset: 0 });
  const beta = document.body.appendChild(link("../beta/index.html", { class: "term-link", "data-term": "beta", "aria-describedby": "note" }));
  const gamma = document.body.appendChild(link("../gamma/", { class: "term-link", "data-term": "gamma" }));
  const plain = document.body.appendChild(link("https://elsewhere.example/"));
  const unknown = document.body.appendChild(link("../zeta/", { class: "term-link", "data-term": "zeta" }));
  const card = () => document.getElementById("glossary-card") || document.body.children.find((c) => c.id === "glossary-card");
  return { document, time, beta, gamma, plain, unknown, card };
}

test("hovering a term link shows its card after 150 ms, as text, described by the link", () => {
  const p = ownPage();
  p.document.dispatch("mouseover", { target: p.beta });
  p.time.advance(149);
  assert.equal(p.card(), undefined, "no card before the delay");
  p.time.advance(1);
  const card = p.card();
  assert.equal(card.hidden, false);
  assert.equal(card.getAttribute("role"), "tooltip");
  assert.equal(card.children[0].textContent, "Beta");
  assert.equal(card.children[1].textContent, "The <second> term.");
  assert.equal(card.children[2].hidden, true, "the tap hint only for touch");
  assert.equal(p.beta.getAttribute("aria-describedby"), "note glossary-card");
  p.document.dispatch("mouseout", { target: p.beta, relatedTarget: null });
  p.time.advance(200);
  assert.equal(card.hidden, true);
  assert.equal(p.beta.getAttribute("aria-describedby"), "note", "the author's own description is kept");
});

test("links without an entry get no card; focus shows one at once; Escape hides it", () => {
  const p = ownPage();
  for (const target of [p.plain, p.unknown]) {
    p.document.dispatch("mouseover", { target });
    p.time.advance(500);
  }
  assert.equal(p.card(), undefined);
  p.document.dispatch("focusin", { target: p.gamma });
  assert.equal(p.card().hidden, false);
  assert.equal(p.card().children[0].textContent, "Gamma");
  p.document.dispatch("focusin", { target: p.beta });
  assert.equal(p.gamma.hasAttribute("aria-describedby"), false, "one card: the last link only");
  p.document.dispatch("keydown", { key: "Escape" });
  assert.equal(p.card().hidden, true);
});

test("a tap shows the card and holds the navigation back; a second tap follows the link", () => {
  const p = ownPage();
  p.document.dispatch("pointerdown", { pointerType: "touch", target: p.beta });
  const first = p.document.dispatch("click", { target: p.beta });
  assert.equal(first.defaultPrevented, true);
  assert.equal(p.card().hidden, false);
  assert.equal(p.card().children[2].hidden, false, "the hint says a second tap opens it");
  const second = p.document.dispatch("click", { target: p.beta });
  assert.equal(second.defaultPrevented, false);
  p.document.dispatch("pointerdown", { pointerType: "touch", target: p.document.body });
  assert.equal(p.card().hidden, true, "a tap elsewhere hides it");
});

test("on another site, glossary.json decides which links have a card, by page URL", async () => {
  const script = new Element("script", { "data-glossary": "https://example.org/glossary" });
  const document = makeDocument({ base: "https://docs.example.net/guide/", currentScript: script });
  const fetched = [];
  const glossary = { terms: [{ url: "beta/", title: "Beta", summary: "Second." }, { url: "gamma/", title: 3, summary: null }] };
  const time = clock();
  runScript("glossary-cards.js", {
    document, setTimeout: time.setTimeout, clearTimeout: time.clearTimeout, innerHeight: 800, pageXOffset: 0, pageYOffset: 0,
    fetch: (url, options) => { fetched.push([url, options.credentials]); return Promise.resolve({ ok: true, json: () => Promise.resolve(glossary) }); },
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(fetched, [["https://example.org/glossary/glossary.json", "omit"]]);
  const at = (href) => { const a = new Element("a", { href }); a.ownerBase = "https://docs.example.net/guide/"; return document.body.appendChild(a); };
  const shown = (a) => {
    document.dispatch("focusin", { target: a });
    const card = document.body.children.find((c) => c.id === "glossary-card");
    const title = card && !card.hidden ? card.children[0].textContent : null;
    document.dispatch("keydown", { key: "Escape" });
    return title;
  };
  assert.equal(shown(at("https://example.org/glossary/beta/index.html#why")), "Beta");
  assert.equal(shown(at("https://example.org/glossary/beta")), "Beta");
  assert.equal(shown(at("https://example.org/glossary/gamma/")), "3", "title and summary as text, whatever their type");
  assert.equal(shown(at("https://example.org/glossary/delta/")), null);
  assert.equal(shown(at("#beta")), null);
  assert.equal(shown(at("https://example.org/other/beta/")), null);
});
