/* glossary-cards: a card with the title and summary of a glossary entry,
   shown beside any link to it. No dependencies, no inline styles, no HTML
   from the data (textContent only), so it runs under
   Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'.

   Data, whichever is present:
   - <script type="application/json" id="glossary-cards-data">{slug: [title, summary]}
     on the glossary's own pages (a data block, never executed, so CSP-safe and
     file:// safe; or window.glossaryCardsData); links: a.term-link[data-term];
   - otherwise <script src=".../embed/glossary-cards.js" data-glossary="BASE">
     fetches BASE + "glossary.json"; links: any <a> whose URL is an entry's
     page (BASE + "slug/", with or without index.html, any #anchor).

   The one card's states:

     hidden --pointer rests on link (150 ms)--> shown(link)
     hidden --link gets focus----------------> shown(link)
     hidden --tap on link (touch)------------> shown(link)   (navigation held back;
                                                              a second tap follows the link)
     shown  --pointer leaves link and card (200 ms), focus leaves,
              Escape, tap elsewhere----------> hidden
     shown(a) --another link is hovered/focused/tapped--> shown(b)

   While shown, the link's aria-describedby names the card (role=tooltip).

   What the page's content could forge is not trusted (issue 30): the data
   block counts only as a <script type="application/json"> in <head> or
   directly in <body> (where the templates and the MkDocs plugin put it; a
   term's body can make neither), window.glossaryCardsData only as a real
   global (an element with that id is named on window too), and a card is
   shown only for a link that goes to the page of the term it names. */
(function () {
  "use strict";

  var CARD_ID = "glossary-card";
  var SHOW_DELAY = 150;
  var HIDE_DELAY = 200;
  var script = document.currentScript;
  var byLink = typeof WeakMap === "function" ? new WeakMap() : null;
  var lookup = null; // function (link) -> [title, summary] or null
  var card = null;
  var titleNode = null;
  var summaryNode = null;
  var hintNode = null;
  var current = null;
  var showTimer = 0;
  var hideTimer = 0;
  var lastPointer = "mouse";
  var tapped = null; // the link whose card a tap opened: the next tap on it follows it

  function pageKey(href) {
    var url;
    try { url = new URL(href, document.baseURI); } catch (e) { return null; }
    var path = url.pathname.replace(/index\.html$/, "");
    if (path.charAt(path.length - 1) !== "/") path += "/";
    return url.protocol + "//" + url.host + path;
  }

  /** Whether link goes to the page of the term `slug` (its last folder, any #anchor). */
  function goesTo(link, slug) {
    var key = pageKey(link.href);
    if (!key) return false;
    var parts = key.split("/");
    try { return decodeURIComponent(parts[parts.length - 2]) === slug; } catch (e) { return false; }
  }

  function ownLookup(data) {
    return function (link) {
      if (!link.classList.contains("term-link")) return null;
      var slug = link.getAttribute("data-term");
      var entry = slug && Object.prototype.hasOwnProperty.call(data, slug) ? data[slug] : null;
      return entry && goesTo(link, slug) ? entry : null;
    };
  }

  function remoteLookup(base, glossary) {
    var pages = Object.create(null);
    (glossary.terms || []).forEach(function (term) {
      var key = pageKey(new URL(term.url, base).href);
      if (key) pages[key] = [String(term.title), String(term.summary)];
    });
    return function (link) {
      var href = link.getAttribute("href");
      if (!href || href.charAt(0) === "#") return null;
      var key = pageKey(link.href);
      return key ? pages[key] || null : null;
    };
  }

  function entryFor(link) {
    if (!lookup || !link) return null;
    if (byLink && byLink.has(link)) return byLink.get(link);
    var entry = lookup(link);
    if (byLink) byLink.set(link, entry);
    return entry;
  }

  function linkFrom(node) {
    var link = node && node.closest ? node.closest("a[href]") : null;
    return link && entryFor(link) ? link : null;
  }

  function ensureCard() {
    if (card) return;
    card = document.createElement("div");
    card.id = CARD_ID;
    card.className = "glossary-card";
    card.setAttribute("role", "tooltip");
    card.hidden = true;
    titleNode = document.createElement("p");
    titleNode.className = "glossary-card-title";
    summaryNode = document.createElement("p");
    summaryNode.className = "glossary-card-summary";
    hintNode = document.createElement("p");
    hintNode.className = "glossary-card-hint";
    hintNode.textContent = "Tap the link again to open the entry.";
    card.appendChild(titleNode);
    card.appendChild(summaryNode);
    card.appendChild(hintNode);
    card.addEventListener("mouseenter", function () { clearTimeout(hideTimer); });
    card.addEventListener("mouseleave", function () { scheduleHide(); });
    document.body.appendChild(card);
  }

  function describedBy(link, add) {
    var ids = (link.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (id) {
      return id && id !== CARD_ID;
    });
    if (add) ids.push(CARD_ID);
    if (ids.length) link.setAttribute("aria-describedby", ids.join(" "));
    else link.removeAttribute("aria-describedby");
  }

  function place(link) {
    var rect = link.getBoundingClientRect();
    var margin = 8;
    var width = card.offsetWidth;
    var height = card.offsetHeight;
    var viewport = document.documentElement.clientWidth;
    var left = Math.max(margin, Math.min(rect.left, viewport - width - margin));
    var top = rect.bottom + 6;
    if (top + height > window.innerHeight && rect.top - height - 6 > 0) top = rect.top - height - 6;
    card.style.left = Math.round(left + window.pageXOffset) + "px";
    card.style.top = Math.round(top + window.pageYOffset) + "px";
  }

  function show(link, touch) {
    clearTimeout(showTimer);
    clearTimeout(hideTimer);
    var entry = entryFor(link);
    if (!entry) return;
    ensureCard();
    if (current && current !== link) describedBy(current, false);
    current = link;
    titleNode.textContent = entry[0];
    summaryNode.textContent = entry[1];
    hintNode.hidden = !touch;
    card.hidden = false;
    place(link);
    describedBy(link, true);
  }

  function hide() {
    clearTimeout(showTimer);
    clearTimeout(hideTimer);
    if (!card || card.hidden) { current = null; return; }
    card.hidden = true;
    if (current) describedBy(current, false);
    current = null;
    tapped = null;
  }

  function scheduleHide() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(hide, HIDE_DELAY);
  }

  function listen() {
    document.addEventListener("pointerover", function (event) {
      lastPointer = event.pointerType || "mouse";
    }, true);
    document.addEventListener("pointerdown", function (event) {
      lastPointer = event.pointerType || "mouse";
      if (card && !card.hidden && !card.contains(event.target) && !linkFrom(event.target)) hide();
    }, true);
    document.addEventListener("mouseover", function (event) {
      if (lastPointer === "touch") return;
      var link = linkFrom(event.target);
      if (!link) return;
      clearTimeout(hideTimer);
      if (link === current) return;
      clearTimeout(showTimer);
      showTimer = setTimeout(function () { show(link, false); }, SHOW_DELAY);
    });
    document.addEventListener("mouseout", function (event) {
      var link = linkFrom(event.target);
      if (!link || (event.relatedTarget && link.contains(event.relatedTarget))) return;
      clearTimeout(showTimer);
      if (link === current) scheduleHide();
    });
    document.addEventListener("focusin", function (event) {
      if (lastPointer === "touch") return; // the tap's click decides
      var link = linkFrom(event.target);
      if (link) show(link, false);
    });
    document.addEventListener("focusout", function (event) {
      if (current && event.target === current) scheduleHide();
    });
    document.addEventListener("click", function (event) {
      if (lastPointer !== "touch") return;
      var link = linkFrom(event.target);
      if (link && link !== tapped) {
        event.preventDefault();
        show(link, true);
        tapped = link;
      }
    });
    document.addEventListener("keydown", function (event) {
      lastPointer = "keyboard";
      if ((event.key === "Escape" || event.key === "Esc") && card && !card.hidden) hide();
    });
  }

  function dataBlock() {
    var blocks = document.querySelectorAll('script[type="application/json"]#glossary-cards-data');
    for (var i = 0; i < blocks.length; i++) {
      if (blocks[i].parentNode === document.head || blocks[i].parentNode === document.body) return blocks[i];
    }
    return null;
  }

  function ownData() {
    var block = dataBlock();
    if (block) {
      try { return JSON.parse(block.textContent); } catch (error) { return null; }
    }
    var given = Object.prototype.hasOwnProperty.call(window, "glossaryCardsData") ? window.glossaryCardsData : null;
    return given && typeof given === "object" && !given.nodeType ? given : null;
  }

  function start() {
    var own = ownData();
    if (own) {
      lookup = ownLookup(own);
      listen();
      return;
    }
    var base = script && script.getAttribute("data-glossary");
    if (!base || typeof fetch !== "function") return;
    base = new URL(base.replace(/\/?$/, "/"), document.baseURI).href;
    fetch(base + "glossary.json", { credentials: "omit" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.json();
      })
      .then(function (glossary) {
        lookup = remoteLookup(base, glossary);
        listen();
      })
      .catch(function (error) {
        if (window.console) console.warn("glossary-cards: cannot load " + base + "glossary.json: " + error.message);
      });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
