/* site_builder: progressive enhancements for every page (no framework).
   Index page: a filter box that narrows the A-Z list as you type.
   Every page: a code block, table or display formula too wide for the screen
   scrolls sideways, so it becomes a tab stop (keyboard users scroll it with
   the arrow keys); one that fits is left out of the tab order. The search box
   shows, and its scripts (search-words.js, search-engine.js, search.js: ~21 KB
   in all) load the first time the box is focused or "/" is pressed: pages
   that are only read never fetch them. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function normalise(text) {
    return text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[\s_-]+/g, " ").trim();
  }

  function setUpFilter() {
    var box = document.querySelector(".filter");
    var input = document.getElementById("filter-input");
    if (!box || !input) return;
    var entries = Array.prototype.slice.call(document.querySelectorAll(".entry"));
    var groups = Array.prototype.slice.call(document.querySelectorAll(".letter-group"));
    var empty = document.querySelector(".filter-empty");
    var status = document.getElementById("filter-status");
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
        group.hidden = !group.querySelector(".entry:not([hidden])");
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
    var box = document.querySelector(".site-search[data-script]");
    if (!box) return;
    var input = box.querySelector("input");
    var loaded = false;
    function load() {
      if (loaded) return;
      loaded = true;
      box.getAttribute("data-script").split(" ").forEach(function (url) {
        var script = document.createElement("script");
        script.src = url;
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
