/* site_builder search, part 3 of 3: the search box in every page's header
   (templates/base.html; docs/search.md). DOM code only, run in a page after
   search-words.js and search-engine.js, whose logic it takes from
   self.GlossarySearch. Text from the index is put in with textContent and
   <mark> elements made here: titles and summaries are never markup. */
(function (self) {
  "use strict";
  if (typeof document === "undefined") return;
  var api = self.GlossarySearch;
  var queryWords = api.queryWords, segments = api.segments, engine = api.engine, fallbackSearch = api.fallbackSearch, RESULTS = api.RESULTS;

  // ---- DOM: the header box (templates/base.html) ----
  // Found where the template puts it, never as the first match in the page:
  // content may carry any id or class this script knows (issue 30). The site's
  // root comes from this script's own URL (it lives in <root>assets/), not
  // from the page, so every URL fetched or followed is the site's.

  var HERE = document.currentScript ? document.currentScript.src : ""; // named only while this runs
  var SITE_ROOT = HERE ? new URL("../", HERE).href : "";
  var SLUG = /^[^\/\\:?#\s]+$/; // one path segment: no folder, scheme, query or fragment
  var FOLLOWED = { "http:": true, "https:": true, "file:": true };

  /** The template's search box, or null (see site.js searchBox: the same test). */
  function searchBox() {
    var input = document.getElementById("search-input");
    var box = input && input.parentNode;
    var header = box && box.parentNode;
    if (!input || input.tagName !== "INPUT" || !box.classList || !box.classList.contains("site-search")) return null;
    return header && header.parentNode === document.body && header.classList.contains("site-header") ? box : null;
  }

  /** A term page's URL from its slug, or "" when the slug is not one path segment. */
  function termHref(slug, page) {
    return SLUG.test(slug) && slug !== "." && slug !== ".." ? SITE_ROOT + slug + "/" + page : "";
  }

  var FILE_NOTE = "Full-text search needs the site to be served over HTTP: opened from a file, " +
    "only the titles, aliases and summaries on this page are searched.";

  function pageEntries(form) {
    var page = form.getAttribute("data-page") === "index.html" ? "index.html" : "";
    var main = document.getElementById("main");
    var entries = [];
    if (!main) return entries;
    // the index's list (templates/index.html) and the term's own header, not content
    Array.prototype.forEach.call(main.querySelectorAll(":scope > .glossary > .letter-group > .term-list > .entry"), function (el) {
      var link = el.querySelector(":scope > dt > a"), summary = el.querySelector(":scope > dd");
      if (!link) return;
      var names = [];
      try { names = JSON.parse(el.getAttribute("data-aliases") || "[]"); } catch (e) { /* none */ }
      entries.push({ title: link.textContent, aliases: names, summary: summary ? summary.textContent : "",
        href: link.href });
    });
    var article = main.querySelector(":scope > article.term");
    var head = article && article.querySelector(":scope > header");
    if (head) {
      var h1 = head.querySelector(":scope > h1"), lead = head.querySelector(":scope > .lead");
      entries.push({ title: h1 ? h1.textContent : "", summary: lead ? lead.textContent : "",
        aliases: Array.prototype.map.call(head.querySelectorAll(":scope > .aliases > .alias"), function (a) { return a.textContent; }),
        href: termHref(article.getAttribute("data-slug") || "", page) });
    }
    // the template's data block is in <head>, where content never is
    var data = document.getElementById("glossary-cards-data");
    if (data && data.parentNode === document.head) {
      try {
        var cards = JSON.parse(data.textContent);
        Object.keys(cards).sort().forEach(function (slug) {
          entries.push({ title: cards[slug][0], summary: cards[slug][1], aliases: [], href: termHref(slug, page) });
        });
      } catch (e) { /* no cards: the page's own entry is enough */ }
    }
    return entries.filter(function (e) { return e.href; });
  }

  function fill(el, text, match) {
    segments(text, match).forEach(function (part) {
      if (part[1]) {
        var mark = document.createElement("mark");
        mark.textContent = part[0];
        el.appendChild(mark);
      } else {
        el.appendChild(document.createTextNode(part[0]));
      }
    });
  }

  function setUp() {
    var form = searchBox();
    if (!form || !SITE_ROOT) return;
    var input = document.getElementById("search-input");
    var list = form.querySelector(":scope > #search-results");
    var status = form.querySelector(":scope > #search-status");
    if (!list || !status) return;
    var root = SITE_ROOT;
    var offline = window.location.protocol === "file:" || typeof fetch !== "function";
    var search = offline ? null : engine(function (path) {
      return fetch(root + path).then(function (r) {
        if (!r.ok) throw new Error(path + ": " + r.status);
        return r.json();
      });
    }, root);
    var entries = null, active = -1, shown = [], asked = 0;
    form.hidden = false;

    function open(yes) {
      list.hidden = !yes;
      input.setAttribute("aria-expanded", yes ? "true" : "false");
      if (!yes) { active = -1; input.removeAttribute("aria-activedescendant"); }
    }

    function say(text) { if (status.textContent !== text) status.textContent = text; }

    function paint(answer, note) {
      list.textContent = "";
      shown = answer.results;
      active = -1;
      input.removeAttribute("aria-activedescendant");
      shown.forEach(function (result, i) {
        var li = document.createElement("li");
        li.id = "search-option-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.className = "search-result";
        var title = document.createElement("span");
        title.className = "search-title";
        fill(title, result.title, answer.match);
        li.appendChild(title);
        if (result.alias) {
          var alias = document.createElement("span");
          alias.className = "search-alias";
          alias.appendChild(document.createTextNode("also known as "));
          fill(alias, result.alias, answer.match);
          li.appendChild(alias);
        }
        var summary = document.createElement("span");
        summary.className = "search-summary";
        fill(summary, result.summary, answer.match);
        li.appendChild(summary);
        if (result.heading) {
          var where = document.createElement("span");
          where.className = "search-section";
          where.textContent = "Found under: " + result.heading;
          li.appendChild(where);
        }
        li.addEventListener("mousedown", function (event) { event.preventDefault(); });
        li.addEventListener("click", function () { go(i); });
        list.appendChild(li);
      });
      open(answer.words.length > 0 && shown.length > 0);
      var count = answer.total === 0 ? "No results" : answer.total === 1 ? "1 result" :
        answer.total > shown.length ? answer.total + " results, the first " + shown.length + " shown" : answer.total + " results";
      say(answer.words.length ? count + (note ? ". " + note : "") : (note || ""));
      form.setAttribute("data-answered", input.value);  // what the results shown answer (tests wait on it)
    }

    function move(to) {
      if (!shown.length) return;
      if (active >= 0) list.children[active].setAttribute("aria-selected", "false");
      active = (to + shown.length) % shown.length;
      var li = list.children[active];
      li.setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", li.id);
      if (li.scrollIntoView) li.scrollIntoView({ block: "nearest" });
    }

    /** Follow result i: only to a page of the site (never a javascript: or data: URL). */
    function go(i) {
      if (!shown[i]) return;
      var to = new URL(shown[i].href, window.location.href);
      if (FOLLOWED[to.protocol]) window.location.href = to.href;
    }

    function fallback(note) {
      if (!entries) entries = pageEntries(form);
      paint(fallbackSearch(entries, input.value), note);
    }

    function update() {
      var text = input.value;
      var ticket = ++asked;
      if (!queryWords(text).length) { paint({ words: [], results: [], total: 0 }, offline ? FILE_NOTE : ""); open(false); return; }
      if (!search) { fallback(FILE_NOTE); return; }
      search.query(text).then(function (answer) {
        if (ticket === asked) paint(answer, "");
      }, function () {
        if (ticket !== asked) return;
        search = null;
        offline = true;
        form.classList.add("offline");
        fallback("The search index could not be loaded: only the titles, aliases and summaries on this page are searched.");
      });
    }

    input.addEventListener("input", update);
    input.addEventListener("focus", function () { if (shown.length && input.value) open(true); });
    input.addEventListener("blur", function () { open(false); });
    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown") { event.preventDefault(); if (list.hidden && shown.length) open(true); move(active + 1); }
      else if (event.key === "ArrowUp") { event.preventDefault(); if (list.hidden && shown.length) open(true); move(active - 1); }
      else if (event.key === "Escape") { if (!list.hidden) { event.preventDefault(); open(false); } }
      else if (event.key === "Enter") {
        event.preventDefault();
        if (!list.hidden && shown.length) go(active >= 0 ? active : 0);
      }
    });
    if (offline) form.classList.add("offline");
    if (input.value) update(); // typed while this script was loading (site.js loads it on focus)
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})(typeof self !== "undefined" ? self : this);
