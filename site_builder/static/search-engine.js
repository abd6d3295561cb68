/* site_builder search, part 2 of 3: the engine (docs/search.md). What a query
   word stands for in the loaded shards, ranking (every word must match; pages
   with the query's words side by side first), what a result shows, the engine
   over a fetcher of the index's files (the manifest, then only the shards of
   the query's words and the chunks of the pages shown), and the file://
   fallback over the page's own entries. Pure logic on self.GlossarySearch,
   after search-words.js; loadable by node's test runner. */
(function (self) {
  "use strict";
  var api = self.GlossarySearch;
  var words = api.words, queryWords = api.queryWords, shardKey = api.shardKey, fileName = api.fileName, forms = api.forms;
  var keysFor = api.keysFor, pairBucket = api.pairBucket, adjacent = api.adjacent, MAX_QUERY_CHARS = api.MAX_QUERY_CHARS;
  var EXACT = api.EXACT, PLURAL = api.PLURAL, PREFIX = api.PREFIX;
  var MAX_EXPANSIONS = 50;    // stems a prefix may stand for
  var RESULTS = 10;
  var TITLE = 60, ALIAS = 50, SUMMARY = 30; // search_text.TITLE, ALIAS, SUMMARY

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

  api.expand = expand; api.stemKeys = stemKeys; api.rank = rank; api.matcher = matcher; api.describe = describe;
  api.engine = engine; api.fallbackSearch = fallbackSearch; api.RESULTS = RESULTS; api.pairKeys = pairKeys;
  api.phraseRank = phraseRank;
})(typeof self !== "undefined" ? self : this);
