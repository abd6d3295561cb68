/* site_builder: the colour scheme toggle (light, dark or auto), in one namespace.
   Loaded in <head> without defer, before the style sheet: it sets
   data-scheme="light" or "dark" on <html> before the first paint, so a page
   never flashes the wrong scheme (no inline script: the pages' CSP forbids it).
   "auto" (the default) leaves the attribute off and site.css follows the
   system's prefers-color-scheme. The choice is kept in localStorage (where a
   browser refuses storage, it holds for the page). The header's <select
   id="scheme-select"> is found where the template puts it, never as the first
   match in the page (issue 30): a child of <div class="scheme-toggle"> in
   <header class="site-header">, a child of <body>, before all content. */
(function () {
  "use strict";
  var KEY = "site_builder.scheme";
  var CHOICES = { auto: true, light: true, dark: true };
  var root = document.documentElement;

  /** The stored choice: "light", "dark" or "auto" (pure: storage in, choice out). */
  function read(storage) {
    var value = null;
    try { value = storage && storage.getItem(KEY); } catch (e) { value = null; }
    return value && CHOICES[value] && value !== "auto" ? value : "auto";
  }

  function storage() {
    try { return window.localStorage; } catch (e) { return null; } // file:// or a sandbox may refuse
  }

  /** The media a chart picture's dark source takes under `choice` (pure): a
   *  picture (explainers/macros.html) picks its dark file by media query, which
   *  knows only the system's scheme, so a choice made here sets it outright. */
  function darkMedia(choice) {
    return choice === "dark" ? "all" : choice === "light" ? "not all" : "(prefers-color-scheme: dark)";
  }

  /** The build's pictures follow `choice`: the charts' (until their live views
   *  replace them) and a term's images with a dark variant (markup/images.py,
   *  published as `name.<hash>-dark.ext`; content itself writes no <source>). */
  function pictures(choice) {
    var sources = document.querySelectorAll('picture > source[srcset*="-dark."]');
    for (var i = 0; i < sources.length; i++) {
      if (sources[i].getAttribute("media") !== darkMedia(choice)) sources[i].setAttribute("media", darkMedia(choice));
    }
  }

  /** Show `choice` on <html>: data-scheme for light or dark, none for auto. */
  function apply(choice) {
    if (choice === "light" || choice === "dark") root.setAttribute("data-scheme", choice);
    else root.removeAttribute("data-scheme");
    pictures(choice);
  }

  function save(choice) {
    var store = storage();
    try {
      if (!store) return;
      if (choice === "auto") store.removeItem(KEY);
      else store.setItem(KEY, choice);
    } catch (e) { /* full or refused: the choice holds for this page */ }
  }

  /** The template's <select>, or null (see the header). */
  function ownSelect() {
    var select = document.getElementById("scheme-select");
    var box = select && select.parentNode;
    var header = box && box.parentNode;
    if (!select || select.tagName !== "SELECT" || !box.classList || !box.classList.contains("scheme-toggle")) return null;
    return header && header.parentNode === document.body && header.classList.contains("site-header") ? select : null;
  }

  apply(read(storage())); // now, before the body is parsed or painted

  function setUp() {
    pictures(read(storage())); // the pictures parsed since the first apply
    var select = ownSelect();
    if (!select) return;
    select.value = read(storage());
    select.addEventListener("change", function () {
      var choice = CHOICES[select.value] ? select.value : "auto";
      save(choice);
      apply(choice);
    });
    window.addEventListener("storage", function (event) { // another tab chose
      if (event.key !== KEY && event.key !== null) return;
      var choice = read(storage());
      select.value = choice;
      apply(choice);
    });
    select.parentNode.hidden = false;
  }

  window.SiteScheme = { read: read, apply: apply, darkMedia: darkMedia, KEY: KEY };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
