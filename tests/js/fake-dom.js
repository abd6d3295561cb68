// A small stand-in for the DOM, enough to run the site's own scripts unchanged
// under node: elements with attributes, classes, children and events, and a
// document whose querySelector(All) answers from a table the test gives. The
// real DOM is Chromium's (tests/browser/); these tests check the scripts'
// logic: what they decide from what the page holds and what the reader does.
"use strict";
const vm = require("node:vm");
const fs = require("node:fs");
const path = require("node:path");

class Target {
  constructor() { this.listeners = {}; }
  addEventListener(type, fn) { (this.listeners[type] = this.listeners[type] || []).push(fn); }
  removeEventListener(type, fn) { this.listeners[type] = (this.listeners[type] || []).filter((f) => f !== fn); }
  dispatch(type, fields = {}) {
    const event = { type, defaultPrevented: false, preventDefault() { this.defaultPrevented = true; }, ...fields };
    for (const fn of [...(this.listeners[type] || [])]) fn(event);
    return event;
  }
}

class Element extends Target {
  constructor(tag, attributes = {}) {
    super();
    this.tagName = tag.toUpperCase();
    this.attributes = new Map(Object.entries(attributes));
    this.children = [];
    this.parent = null;
    this.hidden = false;
    this.text = "";
    this.style = {};
    this.classes = new Set((attributes.class || "").split(/\s+/).filter(Boolean));
    const el = this;
    this.classList = { add: (c) => el.classes.add(c), contains: (c) => el.classes.has(c), remove: (c) => el.classes.delete(c) };
  }
  get parentNode() { return this.parent; }
  set parentNode(node) { this.parent = node; }
  get id() { return this.getAttribute("id") || ""; }
  set id(v) { this.setAttribute("id", v); }
  get className() { return [...this.classes].join(" "); }
  set className(v) { this.classes = new Set(v.split(/\s+/).filter(Boolean)); }
  get textContent() { return this.text + this.children.map((c) => c.textContent).join(""); }
  set textContent(v) { this.text = String(v); this.children = []; }
  getAttribute(name) { return this.attributes.has(name) ? this.attributes.get(name) : null; }
  setAttribute(name, value) { this.attributes.set(name, String(value)); }
  removeAttribute(name) { this.attributes.delete(name); }
  hasAttribute(name) { return this.attributes.has(name); }
  appendChild(child) { child.parent = this; this.children.push(child); return child; }
  remove() { if (this.parent) this.parent.children = this.parent.children.filter((c) => c !== this); this.parent = null; }
  contains(node) { for (let n = node; n; n = n.parent) if (n === this) return true; return false; }
  closest(selector) {
    if (selector !== "a[href]") throw new Error("fake closest: " + selector);
    for (let n = this; n; n = n.parent) if (n.tagName === "A" && n.hasAttribute("href")) return n;
    return null;
  }
  get href() { return new URL(this.getAttribute("href"), this.ownerBase).href; }
  getBoundingClientRect() { return { left: 10, top: 100, bottom: 120, right: 60 }; }
}

function makeDocument({ selectors = {}, base = "https://example.org/glossary/alpha/", currentScript = null } = {}) {
  const document = new Target();
  const byId = {};
  document.readyState = "complete";
  document.baseURI = base;
  document.currentScript = currentScript;
  document.documentElement = new Element("html");
  document.documentElement.clientWidth = 1000;
  document.head = new Element("head");
  document.body = new Element("body");
  document.createElement = (tag) => { const el = new Element(tag); el.ownerBase = base; return el; };
  document.createTextNode = (text) => { const el = new Element("#text"); el.text = text; return el; };
  document.getElementById = (id) => byId[id] || null;
  document.querySelector = (sel) => { const v = selectors[sel]; return Array.isArray(v) ? v[0] || null : v || null; };
  document.querySelectorAll = (sel) => { const v = selectors[sel]; return Array.isArray(v) ? v : v ? [v] : []; };
  document.register = (el) => { byId[el.id] = el; el.ownerBase = base; return el; };
  return document;
}

/** Run site_builder/static/<name> as a page would, in a fresh context with `document`,
 *  `window` (the context itself) and any other globals given. */
function runScript(name, globals) {
  const source = fs.readFileSync(path.resolve(__dirname, "..", "..", "site_builder", "static", name), "utf8");
  const context = { console, URL, URLSearchParams, JSON, setTimeout, clearTimeout, WeakMap, Promise, ...globals };
  context.window = context;
  vm.createContext(context);
  vm.runInContext(source, context, { filename: name });
  return context;
}

module.exports = { Element, Target, makeDocument, runScript };
