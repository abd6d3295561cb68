// static/scheme.js under node (tests/js/fake-dom.js): the colour toggle's
// choice read from storage, applied to <html> at once, saved, and the menu
// bound only where the template puts it. The first-paint and keyboard checks
// are Chromium's (tests/browser/test_themed_site.py).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { Element, Target, makeDocument, runScript } = require("./fake-dom.js");

function storage(initial = {}, { refuse = false } = {}) {
  const items = new Map(Object.entries(initial));
  const check = () => { if (refuse) throw new Error("SecurityError"); };
  return {
    items,
    getItem: (k) => { check(); return items.has(k) ? items.get(k) : null; },
    setItem: (k, v) => { check(); items.set(k, String(v)); },
    removeItem: (k) => { check(); items.delete(k); },
  };
}

function page({ stored = {}, refuse = false, inHeader = true } = {}) {
  const document = makeDocument();
  const select = document.register(new Element("select", { id: "scheme-select" }));
  select.value = "auto";
  const box = new Element("div", { class: "scheme-toggle" });
  box.hidden = true;
  box.appendChild(select);
  const header = new Element(inHeader ? "header" : "div", { class: inHeader ? "site-header" : "prose" });
  header.appendChild(box);
  document.body.appendChild(header);
  // (the fake DOM keeps .parent; the script walks parentNode, as a browser's)
  select.parentNode = box;
  box.parentNode = header;
  header.parentNode = document.body;
  const window = new Target();
  const localStorage = storage(stored, { refuse });
  const context = runScript("scheme.js", { document, localStorage, addEventListener: window.addEventListener.bind(window) });
  return { context, document, select, box, window, localStorage, html: document.documentElement };
}

test("a stored choice is on <html> as soon as the script runs; auto or junk leaves it off", () => {
  assert.equal(page({ stored: { "site_builder.scheme": "dark" } }).html.getAttribute("data-scheme"), "dark");
  assert.equal(page({ stored: { "site_builder.scheme": "light" } }).html.getAttribute("data-scheme"), "light");
  for (const value of [undefined, "auto", "purple", "", "dark "]) {
    const stored = value === undefined ? {} : { "site_builder.scheme": value };
    assert.equal(page({ stored }).html.hasAttribute("data-scheme"), false, String(value));
  }
});

test("choosing saves and applies; auto clears the storage; the menu shows the choice", () => {
  const p = page({ stored: { "site_builder.scheme": "light" } });
  assert.equal(p.select.value, "light");
  assert.equal(p.box.hidden, false);
  p.select.value = "dark";
  p.select.dispatch("change");
  assert.equal(p.html.getAttribute("data-scheme"), "dark");
  assert.equal(p.localStorage.items.get("site_builder.scheme"), "dark");
  p.select.value = "auto";
  p.select.dispatch("change");
  assert.equal(p.html.hasAttribute("data-scheme"), false);
  assert.equal(p.localStorage.items.size, 0);
});

test("another tab's choice is followed", () => {
  const p = page();
  p.localStorage.items.set("site_builder.scheme", "dark");
  p.window.dispatch("storage", { key: "site_builder.scheme" });
  assert.equal(p.html.getAttribute("data-scheme"), "dark");
  assert.equal(p.select.value, "dark");
});

test("refused storage: the choice still holds for the page", () => {
  const p = page({ refuse: true });
  p.select.value = "dark";
  p.select.dispatch("change");
  assert.equal(p.html.getAttribute("data-scheme"), "dark");
});

test("a select with the id outside the template's header is not bound (content cannot make one)", () => {
  const p = page({ inHeader: false, stored: { "site_builder.scheme": "dark" } });
  assert.equal(p.box.hidden, true);
  assert.equal(p.select.listeners.change, undefined);
  assert.equal(p.html.getAttribute("data-scheme"), "dark"); // the stored choice still applies
});

test("the chart pictures' dark source follows the choice: all, not all, or the system's query for auto", () => {
  const source = new Element("source", { media: "(prefers-color-scheme: dark)", srcset: "curve-dark.svg" });
  const document = makeDocument({ selectors: { 'picture > source[srcset*="-dark."]': [source] } });
  const select = document.register(new Element("select", { id: "scheme-select" }));
  const box = new Element("div", { class: "scheme-toggle" });
  const header = new Element("header", { class: "site-header" });
  box.appendChild(select);
  header.appendChild(box);
  document.body.appendChild(header);
  const window = new Target();
  const context = runScript("scheme.js", { document, localStorage: storage({ "site_builder.scheme": "dark" }),
    addEventListener: window.addEventListener.bind(window) });
  assert.equal(source.getAttribute("media"), "all", "a stored dark choice: the dark file whatever the system says");
  for (const [choice, media] of [["light", "not all"], ["auto", "(prefers-color-scheme: dark)"], ["dark", "all"]]) {
    select.value = choice;
    select.dispatch("change");
    assert.equal(source.getAttribute("media"), media, choice);
    assert.equal(context.SiteScheme.darkMedia(choice), media);
  }
});
