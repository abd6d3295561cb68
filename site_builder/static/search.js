/* site_builder: the search box in every page's header (docs/search.md).
   One namespace, self.GlossarySearch: pure logic first (folding and splitting
   words as site_builder/outputs/search_text.py does, shard keys, ranking, the
   file:// fallback), loadable by node's test runner; the DOM code last, run
   only in a page. The index is fetched on demand from search/ beside the
   pages: the manifest, then only the shards of the query's words and the
   chunks of the pages shown. Text from the index is put in with textContent
   and <mark> elements made here: titles and summaries are never markup. */
(function (self) {
  "use strict";

  var MARKS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;
  var WORD = /[\p{L}\p{N}]+/gu;
  var IDEOGRAPH = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  var IDEOGRAPHS = /([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])/;
  var MAX_WORD = 40;          // search_text.MAX_WORD
  var MAX_QUERY_WORDS = 8;    // the rest of a very long query is ignored
  var MAX_QUERY_CHARS = 400;
  var MAX_EXPANSIONS = 50;    // stems a prefix may stand for
  var RESULTS = 10;
  var EXACT = 1, PLURAL = 0.95, PREFIX = 0.7;
  var TITLE = 60, ALIAS = 50, SUMMARY = 30; // search_text.TITLE, ALIAS, SUMMARY

  function fold(text) {
    return /^[\x00-\x7f]*$/.test(text) ? text.toLowerCase() : text.normalize("NFKD").toLowerCase().replace(MARKS, "");
  }

  /** The folded words of text, in order (search_text.words). */
  function words(text) {
    var found = fold(String(text)).match(WORD) || [];
    var out = [];
    found.forEach(function (word) {
      var pieces = IDEOGRAPH.test(word) ? word.split(IDEOGRAPHS).filter(Boolean) : [word];
      pieces.forEach(function (piece) { if (Array.from(piece).length <= MAX_WORD) out.push(piece); });
    });
    return out;
  }

  /** The distinct words of a query, at most MAX_QUERY_WORDS of them. */
  function queryWords(text) {
    var seen = [];
    words(String(text || "").slice(0, MAX_QUERY_CHARS)).forEach(function (word) {
      if (seen.indexOf(word) === -1 && seen.length < MAX_QUERY_WORDS) seen.push(word);
    });
    return seen;
  }

  function shardKey(word) { return Array.from(word).slice(0, 2).join(""); }

  /** search_index.file_name: a-z, 0-9 as they are, any other character as _ and its hex code point. */
  function fileName(key) {
    return Array.from(key).map(function (c) {
      return (c >= "a" && c <= "z") || (c >= "0" && c <= "9") ? c : "_" + c.codePointAt(0).toString(16);
    }).join("");
  }

  /** The word and its simple plural or singular forms, as [[...]] links resolve them (names.py). */
  function forms(word) {
    var out = [[word, EXACT], [word + "s", PLURAL]];
    [["ies", "y"], ["es", ""], ["s", ""]].forEach(function (rule) {
      if (word.length > rule[0].length && word.slice(-rule[0].length) === rule[0]) {
        out.push([word.slice(0, -rule[0].length) + rule[1], PLURAL]);
      }
    });
    return out;
  }

  /** Shard keys a query word needs first. */
  function keysFor(word) {
    var keys = [];
    forms(word).forEach(function (f) { var k = shardKey(f[0]); if (keys.indexOf(k) === -1) keys.push(k); });
    return keys;
  }

  /** What a query word stands for in the loaded shards: stem -> weight, and the
      folded surface words to mark. shards: key -> {p: {stem: postings}, w: {word: stem}}. */
  function expand(word, shards) {
    var stems = new Map();
    var marks = new Set();
    function offer(stem, weight) { if (!(stems.get(stem) >= weight)) stems.set(stem, weight); }
    forms(word).forEach(function (f) {
      var shard = shards[shardKey(f[0])];
      if (!shard) return;
      if (Object.prototype.hasOwnProperty.call(shard.p, f[0])) offer(f[0], f[1]);
      if (Object.prototype.hasOwnProperty.call(shard.w, f[0])) offer(shard.w[f[0]], f[1]);
    });
    var own = shards[shardKey(word)];
    if (own && Array.from(word).length >= 2) {
      var prefixed = Object.keys(own.p).concat(Object.keys(own.w)).filter(function (k) {
        return k.length > word.length && k.slice(0, word.length) === word;
      }).sort().slice(0, MAX_EXPANSIONS);
      prefixed.forEach(function (k) { offer(Object.prototype.hasOwnProperty.call(own.p, k) ? k : own.w[k], PREFIX); });
    }
    stems.forEach(function (weight, stem) {
      marks.add(stem);
      var shard = shards[shardKey(stem)];
      [own, shard].forEach(function (s) {
        if (!s) return;
        Object.keys(s.w).forEach(function (w) { if (s.w[w] === stem) marks.add(w); });
      });
    });
    forms(word).forEach(function (f) { marks.add(f[0]); });
    return { stems: stems, marks: marks, prefix: word };
  }

  /** Shard keys the expanded stems live in (a stem may start differently from its words). */
  function stemKeys(expansions) {
    var keys = [];
    expansions.forEach(function (e) {
      e.stems.forEach(function (_, stem) { var k = shardKey(stem); if (keys.indexOf(k) === -1) keys.push(k); });
    });
    return keys;
  }

  var FIELDS = { title: 3, alias: 2, summary: 1, body: 0 };

  function field(score) {
    return score >= TITLE ? "title" : score >= ALIAS ? "alias" : score >= SUMMARY ? "summary" : "body";
  }

  /** Rank pages: every query word must match (through any of its stems); a page
      scores the sum over words of its best posting's score times the match's
      weight. Returns [{doc, score, field, where, alias}] best first (ties: doc
      order); alias: the index of an alias some word matched best in, or -1. */
  function rank(expansions, shards, limit) {
    var total = null;
    expansions.forEach(function (e) {
      var best = new Map();
      e.stems.forEach(function (weight, stem) {
        var shard = shards[shardKey(stem)];
        var flat = shard && Object.prototype.hasOwnProperty.call(shard.p, stem) ? shard.p[stem] : null;
        if (!flat) return;
        var doc = 0;
        for (var i = 0; i + 1 < flat.length; i += 2) {
          doc += flat[i];
          if (total !== null && !total.has(doc)) continue;
          var code = flat[i + 1], score = (code % 64) * weight;
          var had = best.get(doc);
          if (!had || score > had.score) best.set(doc, { score: score, code: code });
        }
      });
      // What a result shows comes from its best field, and among body matches from
      // the rarest word's ("memory-bound": the section "bound" is first in).
      var next = new Map(), df = best.size;
      best.forEach(function (hit, doc) {
        var before = total === null ? null : total.get(doc);
        hit.df = df;
        var top = before && (FIELDS[field(before.top.code % 64)] > FIELDS[field(hit.code % 64)] ||
          (field(before.top.code % 64) === field(hit.code % 64) && before.top.df <= df)) ? before.top : hit;
        var alias = field(hit.code % 64) === "alias" ? Math.floor(hit.code / 64) : before ? before.alias : -1;
        next.set(doc, { score: (before ? before.score : 0) + hit.score, top: top, alias: alias });
      });
      total = next;
    });
    var out = [];
    (total || new Map()).forEach(function (value, doc) {
      out.push({ doc: doc, score: value.score, field: field(value.top.code % 64), where: Math.floor(value.top.code / 64),
        alias: value.alias });
    });
    out.sort(function (a, b) { return b.score - a.score || a.doc - b.doc; });
    return limit ? out.slice(0, limit) : out;
  }

  var CRC = [];
  for (var n = 0; n < 256; n++) {
    var c = n;
    for (var k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    CRC.push(c >>> 0);
  }

  /** search_index.pair_bucket: the CRC-32 (zlib's) of the pair's UTF-8 bytes, modulo buckets. */
  function pairBucket(pair, buckets) {
    var crc = 0xffffffff;
    new TextEncoder().encode(pair).forEach(function (byte) { crc = CRC[(crc ^ byte) & 255] ^ (crc >>> 8); });
    return ((crc ^ 0xffffffff) >>> 0) % buckets;
  }

  /** The query's adjacent word pairs, in its order (from its first words, as many as
      queryWords keeps): [[i, j], ...] indices into queryWords(text), each pair once. */
  function adjacent(text) {
    var qwords = queryWords(text), out = [], seen = new Set(), last = -1;
    words(String(text || "").slice(0, MAX_QUERY_CHARS)).some(function (word) {
      var at = qwords.indexOf(word);
      if (at === -1) return true;  // past the words the query keeps
      if (last !== -1 && !seen.has(last + " " + at)) { seen.add(last + " " + at); out.push([last, at]); }
      last = at;
      return false;
    });
    return out;
  }

  /** The "stem stem" keys a pair of expanded query words may be indexed under
      (search_text.pairs): their own stems and plural forms', never prefixes. */
  function pairKeys(first, second) {
    var out = [];
    first.stems.forEach(function (w1, a) {
      if (w1 < PLURAL) return;
      second.stems.forEach(function (w2, b) { if (w2 >= PLURAL) out.push(a + " " + b); });
    });
    return out;
  }

  /** Pages with the query's words side by side first: those of hits (best first)
      that have some of the query's adjacent pairs (pairDocs: one Set of docs per
      pair), by how many, then score, then doc order; then the rest as they were.
      Only the few pages with a pair are sorted again (a common word has thousands). */
  function phraseRank(hits, pairDocs) {
    var counts = new Map();
    pairDocs.forEach(function (docs) { docs.forEach(function (doc) { counts.set(doc, (counts.get(doc) || 0) + 1); }); });
    if (!counts.size) return hits;
    var front = [], rest = [];
    hits.forEach(function (hit) { (counts.has(hit.doc) ? front : rest).push(hit); });
    front.sort(function (a, b) { return counts.get(b.doc) - counts.get(a.doc) || b.score - a.score || a.doc - b.doc; });
    return front.concat(rest);
  }

  /** Split text into [piece, marked] pairs, marking the words `isMatch` accepts. */
  function segments(text, isMatch) {
    var out = [], at = 0, match;
    var pattern = /[\p{L}\p{N}\p{M}]+/gu;
    while ((match = pattern.exec(text)) !== null) {
      var hit = words(match[0]).some(isMatch);
      if (!hit) continue;
      if (match.index > at) out.push([text.slice(at, match.index), false]);
      out.push([match[0], true]);
      at = match.index + match[0].length;
    }
    if (at < text.length) out.push([text.slice(at), false]);
    return out;
  }

  /** A matcher for the query's expansions: a word is marked when it is one of
      the surface forms found or starts with a query word. */
  function matcher(expansions) {
    return function (word) {
      return expansions.some(function (e) {
        return e.marks.has(word) || (Array.from(e.prefix).length >= 2 && word.slice(0, e.prefix.length) === e.prefix);
      });
    };
  }

  /** What one result shows: doc is [url, title, summary, aliases, headings]. */
  function describe(hit, doc, root) {
    var out = { href: root + doc[0], title: doc[1], summary: doc[2], alias: "", heading: "" };
    if (hit.alias >= 0 && doc[3][hit.alias] !== undefined) out.alias = doc[3][hit.alias];
    if (hit.field === "body" && hit.where > 0 && doc[4][hit.where - 1]) {
      out.heading = doc[4][hit.where - 1][1];
      out.href += "#" + doc[4][hit.where - 1][0];
    }
    return out;
  }

  /** The search engine over a fetcher: fetchJSON(relative path) -> Promise of the parsed file. */
  function engine(fetchJSON, root) {
    var manifest = null, shards = {}, chunks = {}, buckets = {};
    function load(key) {
      if (!manifest.keys.has(key)) return Promise.resolve(null);
      if (!shards[key]) shards[key] = fetchJSON("search/t/" + fileName(key) + ".json");
      return shards[key];
    }
    function loaded(keys) {
      return Promise.all(keys.map(load)).then(function () {
        var out = {};
        return Promise.all(Object.keys(shards).map(function (k) {
          return shards[k].then(function (s) { if (s) out[k] = s; });
        })).then(function () { return out; });
      });
    }
    /** Set of docs per adjacent pair of the query (an empty Set: not side by side anywhere). */
    function together(text, expansions) {
      return Promise.all(adjacent(text).map(function (pair) {
        var keys = pairKeys(expansions[pair[0]], expansions[pair[1]]);
        return Promise.all(keys.map(function (key) {
          var n = pairBucket(key, manifest.buckets);
          if (!manifest.pairs.has(n)) return null;
          if (!buckets[n]) buckets[n] = fetchJSON("search/p/" + n + ".json");
          return buckets[n].then(function (bucket) {
            return Object.prototype.hasOwnProperty.call(bucket, key) ? bucket[key] : null;
          });
        })).then(function (lists) {
          var docs = new Set();
          lists.forEach(function (gaps) {
            var doc = 0;
            (gaps || []).forEach(function (gap) { doc += gap; docs.add(doc); });
          });
          return docs;
        });
      }));
    }
    function chunk(n) {
      if (!chunks[n]) chunks[n] = fetchJSON("search/d/" + n + ".json");
      return chunks[n];
    }
    function start() {
      if (!manifest) {
        manifest = fetchJSON("search/index.json").then(function (m) {
          m.keys = new Set(m.keys); m.pairs = new Set(m.pairs || []); manifest = m; return m;
        });
        return manifest;
      }
      return Promise.resolve(manifest);
    }
    return {
      query: function (text) {
        var qwords = queryWords(text);
        if (!qwords.length) return Promise.resolve({ words: [], results: [], total: 0 });
        return start().then(function (m) {
          manifest = m;
          var keys = [];
          qwords.forEach(function (w) { keysFor(w).forEach(function (k) { if (keys.indexOf(k) === -1) keys.push(k); }); });
          return loaded(keys);
        }).then(function (have) {
          var expansions = qwords.map(function (w) { return expand(w, have); });
          return loaded(stemKeys(expansions)).then(function (all) {
            expansions = qwords.map(function (w) { return expand(w, all); });
            var hits = rank(expansions, all);
            if (qwords.length < 2 || hits.length < 2) return hits;
            return together(text, expansions).then(function (pairDocs) { return phraseRank(hits, pairDocs); });
          }).then(function (hits) {
            var top = hits.slice(0, RESULTS);
            return Promise.all(top.map(function (hit) { return chunk(Math.floor(hit.doc / manifest.chunk)); }))
              .then(function (files) {
                return {
                  words: qwords, total: hits.length, match: matcher(expansions),
                  results: top.map(function (hit, i) {
                    return describe(hit, files[i][hit.doc % manifest.chunk], root);
                  }),
                };
              });
          });
        });
      },
    };
  }

  /** The file:// fallback: entries [{title, aliases, summary, href}] from the page;
      every query word must start a word of the title, an alias or the summary. */
  function fallbackSearch(entries, text) {
    var qwords = queryWords(text);
    if (!qwords.length) return { words: [], results: [], total: 0 };
    function score(entry) {
      var fields = [[words(entry.title), 3, ""]].concat(entry.aliases.map(function (a) { return [words(a), 2, a]; }));
      fields.push([words(entry.summary), 1, ""]);
      var sum = 0, alias = "";
      for (var i = 0; i < qwords.length; i++) {
        var got = 0, gotAlias = "";
        fields.forEach(function (f) {
          if (f[1] > got && f[0].some(function (w) { return w.slice(0, qwords[i].length) === qwords[i]; })) {
            got = f[1]; gotAlias = f[2];
          }
        });
        if (!got) return null;
        sum += got;
        if (got === 2 && !alias) alias = gotAlias;  // shown whenever a word matched an alias best
      }
      return { score: sum, alias: alias };
    }
    var hits = [];
    entries.forEach(function (entry, i) {
      var s = score(entry);
      if (s) hits.push({ i: i, score: s.score, alias: s.alias });
    });
    hits.sort(function (a, b) { return b.score - a.score || a.i - b.i; });
    var match = function (word) { return qwords.some(function (q) { return word.slice(0, q.length) === q; }); };
    return {
      words: qwords, total: hits.length, match: match,
      results: hits.slice(0, RESULTS).map(function (h) {
        var e = entries[h.i];
        return { href: e.href, title: e.title, summary: e.summary, alias: h.alias, heading: "" };
      }),
    };
  }

  var api = {
    fold: fold, words: words, queryWords: queryWords, shardKey: shardKey, fileName: fileName, forms: forms,
    keysFor: keysFor, expand: expand, stemKeys: stemKeys, rank: rank, segments: segments, matcher: matcher,
    describe: describe, engine: engine, fallbackSearch: fallbackSearch, RESULTS: RESULTS,
    pairBucket: pairBucket, adjacent: adjacent, pairKeys: pairKeys, phraseRank: phraseRank,
  };
  self.GlossarySearch = api;

  if (typeof document === "undefined") return;

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
