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

  var FILE_NOTE = "Full-text search needs the site to be served over HTTP: opened from a file, " +
    "only the titles, aliases and summaries on this page are searched.";

  function pageEntries(form) {
    var page = form.getAttribute("data-page") || "";
    var root = form.getAttribute("data-root") || "";
    var entries = [];
    Array.prototype.forEach.call(document.querySelectorAll(".entry"), function (el) {
      var link = el.querySelector("dt a"), summary = el.querySelector("dd");
      if (!link) return;
      var names = [];
      try { names = JSON.parse(el.getAttribute("data-aliases") || "[]"); } catch (e) { /* none */ }
      entries.push({ title: link.textContent, aliases: names, summary: summary ? summary.textContent : "",
        href: link.getAttribute("href") });
    });
    var article = document.querySelector("article.term");
    if (article) {
      var h1 = article.querySelector("h1"), lead = article.querySelector(".lead");
      entries.push({ title: h1 ? h1.textContent : "", summary: lead ? lead.textContent : "",
        aliases: Array.prototype.map.call(article.querySelectorAll(".alias"), function (a) { return a.textContent; }),
        href: root + article.getAttribute("data-slug") + "/" + page });
    }
    var data = document.getElementById("glossary-cards-data");
    if (data) {
      try {
        var cards = JSON.parse(data.textContent);
        Object.keys(cards).sort().forEach(function (slug) {
          entries.push({ title: cards[slug][0], summary: cards[slug][1], aliases: [], href: root + slug + "/" + page });
        });
      } catch (e) { /* no cards: the page's own entry is enough */ }
    }
    return entries;
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
    var form = document.querySelector(".site-search");
    if (!form) return;
    var input = form.querySelector("input");
    var list = form.querySelector("[role=listbox]");
    var status = form.querySelector(".search-status");
    var root = form.getAttribute("data-root") || "";
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

    function go(i) { if (shown[i]) window.location.href = shown[i].href; }

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
