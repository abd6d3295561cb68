/* site_builder serve: live reload. Added to pages by the dev server only, never to output/.

   States (one EventSource per page):

     load ──> connected ──"reload" (token differs)──> location.reload()
                 │  ├──"problems" [path:line: message, ...]──> banner shown
                 │  └──"ok"──> banner removed
                 └──connection lost──> EventSource retries (500 ms); the server
                                       compares tokens on reconnect, so a page
                                       from a restarted server reloads too.

   No inline styles or scripts: it runs under CSP script-src 'self'; style-src 'self'
   (element.style set from script is CSSOM, which that CSP allows). */
(function () {
  "use strict";
  var script = document.currentScript;
  var token = (script && script.getAttribute("data-token")) || "";
  if (!window.EventSource) return;

  var banner = null;

  function showProblems(problems) {
    if (!banner) {
      banner = document.createElement("div");
      banner.setAttribute("role", "alert");
      var s = banner.style;
      s.position = "fixed"; s.left = "0"; s.right = "0"; s.bottom = "0"; s.zIndex = "2147483647";
      s.maxHeight = "40vh"; s.overflow = "auto"; s.margin = "0"; s.padding = "0.75em 1em";
      s.background = "#fff4f4"; s.color = "#600"; s.borderTop = "3px solid #c00";
      s.font = "13px/1.4 ui-monospace, monospace"; s.whiteSpace = "pre-wrap";
      document.body.appendChild(banner);
    }
    banner.textContent = "Build failed; showing the previous site.\n" + problems.join("\n");
  }

  function hideProblems() {
    if (banner) banner.remove();
    banner = null;
  }

  var source = new EventSource("/__livereload?since=" + encodeURIComponent(token));
  source.addEventListener("reload", function (event) {
    if (event.data !== token) {
      source.close();
      window.location.reload();
    }
  });
  source.addEventListener("problems", function (event) {
    var problems = [];
    try { problems = JSON.parse(event.data); } catch (e) { problems = [event.data]; }
    problems.forEach(function (line) { console.error(line); });
    showProblems(problems);
  });
  source.addEventListener("ok", hideProblems);
  window.addEventListener("pagehide", function () { source.close(); });
})();
