/* site_builder: progressive enhancements for every page (no framework).
   Index page: a filter box that narrows the A-Z list as you type. */
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

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpFilter);
  } else {
    setUpFilter();
  }
})();
