/* site_builder: progressive enhancements for every page (no framework).
   Index page: a filter box that narrows the A-Z list as you type.
   Every page: a code block, table or display formula too wide for the screen
   scrolls sideways, so it becomes a tab stop (keyboard users scroll it with
   the arrow keys); one that fits is left out of the tab order. The search box
   shows, and its scripts (search-words.js, search-engine.js, search.js: ~21 KB
   in all) load the first time the box is focused or "/" is pressed: pages
   that are only read never fetch them.

   Elements are found where the page template puts them, never as the first
   match in the page: content (a term's body) may carry any id or class the
   scripts know (issue 30). <main id="main"> and the header come before all
   content, so getElementById finds the template's; below them the scripts
   look only at children of the template's own elements. The search scripts'
   URLs are not read from the page: the build writes their hashed names below
   and they are resolved against this script's own URL. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  // the build writes the hashed names (render/assets.py NAMED_ASSETS)
  var SEARCH_SCRIPTS = ["search-words.js", "search-engine.js", "search.js"];
  var HERE = document.currentScript ? document.currentScript.src : ""; // named only while this runs

  /** The template's header search box (templates/base.html), or null: the
   * element holding the <input id="search-input">, itself in the page's
   * <header class="site-header">, a child of <body>. Content cannot make one. */
  function searchBox() {
    var input = document.getElementById("search-input");
    var box = input && input.parentNode;
    var header = box && box.parentNode;
    if (!input || input.tagName !== "INPUT" || !box.classList || !box.classList.contains("site-search")) return null;
    return header && header.parentNode === document.body && header.classList.contains("site-header") ? box : null;
  }

  function normalise(text) {
    return text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[\s_-]+/g, " ").trim();
  }

  function setUpFilter() {
    // the index page's own (templates/index.html): children of <main>, which holds no content there
    var main = document.getElementById("main");
    var box = main && main.querySelector(":scope > .filter");
    var input = box && box.querySelector(":scope > input#filter-input");
    var status = box && box.querySelector(":scope > #filter-status");
    if (!input || !status) return;
    var entries = Array.prototype.slice.call(main.querySelectorAll(":scope > .glossary > .letter-group > .term-list > .entry"));
    var groups = Array.prototype.slice.call(main.querySelectorAll(":scope > .glossary > .letter-group"));
    var empty = main.querySelector(":scope > .filter-empty");
    var keys = entries.map(function (entry) {
      return normalise(entry.getAttribute("data-names") + " " + entry.textContent);
    });
    box.hidden = false;

    function apply() {
      var query = normalise(input.value);
      var shown = 0;
      entries.forEach(function (entry, i) {
        var match = !query || keys[i].indexOf(query) !== -1;
        entry.hidden = !match;
        if (match) shown += 1;
      });
      groups.forEach(function (group) {
        group.hidden = !group.querySelector(":scope > .term-list > .entry:not([hidden])");
      });
      if (empty) empty.hidden = shown !== 0;
      status.textContent = query ? shown + (shown === 1 ? " term matches" : " terms match") : "";
    }

    input.addEventListener("input", apply);
    var params = new URLSearchParams(window.location.search);
    if (params.get("q")) { input.value = params.get("q"); apply(); }
  }

  var SCROLLERS = ".prose pre, .prose table, .prose .math-display";
  var MARK = "data-scroll-stop"; // ours: never touch a tabindex the author set

  function markScrollers() {
    Array.prototype.forEach.call(document.querySelectorAll(SCROLLERS), function (el) {
      var wide = el.scrollWidth > el.clientWidth + 1;
      if (wide && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.setAttribute(MARK, "");
      } else if (!wide && el.hasAttribute(MARK)) {
        el.removeAttribute("tabindex");
        el.removeAttribute(MARK);
      }
    });
  }

  var pending = false;
  function onResize() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      markScrollers();
    });
  }

  function setUpSearch() {
    var box = searchBox();
    if (!box || !HERE) return;
    var input = document.getElementById("search-input");
    var loaded = false;
    function load() {
      if (loaded) return;
      loaded = true;
      SEARCH_SCRIPTS.forEach(function (name) {
        var script = document.createElement("script");
        script.src = new URL(name, HERE).href; // beside this script, in assets/
        script.async = false; // run in the listed order: the logic, then search.js, which
        document.head.appendChild(script); // binds the box and searches what was typed meanwhile
      });
    }
    box.hidden = false;
    input.addEventListener("focus", load);
    document.addEventListener("keydown", function (event) {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      var tag = event.target && event.target.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (event.target && event.target.isContentEditable)) return;
      event.preventDefault();
      input.focus(); // loads search.js the first time
      input.select();
    });
  }

  function setUp() {
    setUpFilter();
    setUpSearch();
    markScrollers();
    window.addEventListener("resize", onResize);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
