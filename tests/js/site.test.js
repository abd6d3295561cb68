// static/site.js under node (tests/js/fake-dom.js): the index's filter, the
// search box's lazy scripts and the "/" shortcut, wide blocks as tab stops.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { Element, Target, makeDocument, runScript } = require("./fake-dom.js");

function entry(names, text) {
  const el = new Element("div", { class: "entry", "data-names": names });
  el.text = text;
  return el;
}

function group(entries) {
  const el = new Element("section", { class: "letter-group" });
  entries.forEach((e) => el.appendChild(e));
  el.querySelector = (sel) => (sel === ":scope > .term-list > .entry:not([hidden])" ? entries.find((e) => !e.hidden) || null : null);
  return el;
}

const SCRIPT_URL = "https://example.org/glossary/assets/site.1.js";

/** A page as the templates make it: <main id="main"> holding the index's filter
 *  and list, <body> > <header class="site-header"> > .site-search > #search-input.
 *  site.js finds them only there (issue 30), so the stand-ins answer only the
 *  scoped selectors it uses. */
function page({ search = "", wide = [], loose = false } = {}) {
  const entries = [entry("Café|cache", "Café A place"), entry("Cache", "Cache Kept results"), entry("Latency", "Latency Delay")];
  const groups = [group(entries.slice(0, 2)), group(entries.slice(2))];
  const input = new Element("input", { id: "filter-input" });
  input.value = "";
  const status = new Element("p", { id: "filter-status" });
  const empty = new Element("p", { class: "filter-empty" });
  const filter = new Element("div", { class: "filter" });
  filter.hidden = true;
  filter.appendChild(input);
  filter.appendChild(status);
  filter.querySelector = (sel) => ({ ":scope > input#filter-input": input, ":scope > #filter-status": status })[sel] || null;
  const main = new Element("main", { id: "main" });
  main.querySelector = (sel) => ({ ":scope > .filter": filter, ":scope > .filter-empty": empty })[sel] || null;
  main.querySelectorAll = (sel) => ({
    ":scope > .glossary > .letter-group > .term-list > .entry": entries,
    ":scope > .glossary > .letter-group": groups,
  })[sel] || [];
  const searchInput = new Element("input", { id: "search-input" });
  searchInput.focus = () => searchInput.dispatch("focus");
  searchInput.select = () => {};
  const box = new Element("div", { class: "site-search" });
  box.hidden = true;
  box.appendChild(searchInput);
  const header = new Element("header", { class: "site-header" });
  header.appendChild(box);
  const document = makeDocument({ currentScript: { src: SCRIPT_URL }, selectors: {
    ".prose pre, .prose table, .prose .math-display": wide,
  } });
  document.body.appendChild(loose ? box : header); // loose: content's copy, outside the header
  document.body.appendChild(main);
  [input, status, main, searchInput].forEach((el) => document.register(el));
  const window = new Target();
  const frames = [];
  const context = runScript("site.js", {
    document, location: { search }, requestAnimationFrame: (fn) => frames.push(fn),
    addEventListener: window.addEventListener.bind(window),
  });
  return { context, document, window, frames, entries, groups, input, status, empty, filter, box, searchInput };
}

test("the filter narrows the list as one types, accents and case folded, and says how many match", () => {
  const p = page();
  assert.equal(p.filter.hidden, false);
  assert.ok(p.document.documentElement.classList.contains("js"));
  p.input.value = "CAFE";
  p.input.dispatch("input");
  assert.deepEqual(p.entries.map((e) => e.hidden), [false, true, true]);
  assert.deepEqual(p.groups.map((g) => g.hidden), [false, true]);
  assert.equal(p.status.textContent, "1 term matches");
  p.input.value = "  Ca ";
  p.input.dispatch("input");
  assert.deepEqual(p.entries.map((e) => e.hidden), [false, false, true]);
  assert.equal(p.status.textContent, "2 terms match");
  p.input.value = "kept_results";  // _ and - are spaces on both sides
  p.input.dispatch("input");
  assert.deepEqual(p.entries.map((e) => e.hidden), [true, false, true]);
  p.input.value = "nothing like it";
  p.input.dispatch("input");
  assert.equal(p.empty.hidden, false);
  assert.equal(p.status.textContent, "0 terms match");
  p.input.value = "";
  p.input.dispatch("input");
  assert.deepEqual(p.entries.map((e) => e.hidden), [false, false, false]);
  assert.equal(p.status.textContent, "");
});

test("?q= in the address fills the filter on load", () => {
  const p = page({ search: "?q=latency" });
  assert.equal(p.input.value, "latency");
  assert.deepEqual(p.entries.map((e) => e.hidden), [true, true, false]);
});

test("the search box loads its three scripts once, in order, on focus or /", () => {
  const p = page();
  assert.equal(p.box.hidden, false);
  const typing = p.document.dispatch("keydown", { key: "/", target: new Element("input") });
  assert.equal(typing.defaultPrevented, false, "a / typed in a field is left alone");
  assert.equal(p.document.dispatch("keydown", { key: "/", ctrlKey: true, target: p.document.body }).defaultPrevented, false);
  assert.equal(p.document.head.children.length, 0);
  const slash = p.document.dispatch("keydown", { key: "/", target: p.document.body });
  assert.equal(slash.defaultPrevented, true);
  const scripts = p.document.head.children;
  // beside site.js, by the names the build writes into it: never a URL read from the page
  assert.deepEqual(scripts.map((s) => s.src), ["search-words.js", "search-engine.js", "search.js"].map(
    (name) => "https://example.org/glossary/assets/" + name));
  assert.ok(scripts.every((s) => s.async === false), "async=false keeps the order they run in");
  p.searchInput.dispatch("focus");
  assert.equal(p.document.head.children.length, 3, "loaded once");
});

test("a search box that is not the template's (content's copy of it) loads nothing", () => {
  const p = page({ loose: true });
  assert.equal(p.box.hidden, true, "not shown");
  p.document.dispatch("keydown", { key: "/", target: p.document.body });
  p.searchInput.dispatch("focus");
  assert.equal(p.document.head.children.length, 0);
});

test("a wide block becomes a tab stop, and stops being one (only ours) once it fits", () => {
  const wide = new Element("pre");
  Object.assign(wide, { scrollWidth: 900, clientWidth: 400 });
  const authored = new Element("table", { tabindex: "-1" });
  Object.assign(authored, { scrollWidth: 900, clientWidth: 400 });
  const narrow = new Element("pre");
  Object.assign(narrow, { scrollWidth: 400, clientWidth: 400 });
  const p = page({ wide: [wide, authored, narrow] });
  assert.equal(wide.getAttribute("tabindex"), "0");
  assert.equal(authored.getAttribute("tabindex"), "-1");
  assert.equal(narrow.hasAttribute("tabindex"), false);
  wide.clientWidth = 900;
  authored.clientWidth = 900;
  p.window.dispatch("resize");
  p.window.dispatch("resize");
  assert.equal(p.frames.length, 1, "one frame for a burst of resizes");
  p.frames[0]();
  assert.equal(wide.hasAttribute("tabindex"), false);
  assert.equal(authored.getAttribute("tabindex"), "-1", "an author's tabindex is never touched");
});
