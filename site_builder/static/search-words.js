/* site_builder search, part 1 of 3: words (docs/search.md). Folding and
   splitting text as site_builder/outputs/search_text.py does, shard file names,
   plural forms, adjacent pairs and their buckets, marked segments: pure logic
   on the namespace self.GlossarySearch, loadable by node's test runner.
   search-engine.js (ranking, the engine, the file:// fallback) and search.js
   (the header box) follow it; site.js loads the three in order. */
(function (self) {
  "use strict";
  var api = self.GlossarySearch = self.GlossarySearch || {};

  var MARKS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;
  var WORD = /[\p{L}\p{N}]+/gu;
  var IDEOGRAPH = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]/;
  var IDEOGRAPHS = /([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff])/;
  var MAX_WORD = 40;          // search_text.MAX_WORD
  var MAX_QUERY_WORDS = 8;    // the rest of a very long query is ignored
  var MAX_QUERY_CHARS = 400;
  var EXACT = 1, PLURAL = 0.95, PREFIX = 0.7;  // weights of a word's own form, plurals, prefixes

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

  api.fold = fold; api.words = words; api.queryWords = queryWords; api.shardKey = shardKey; api.fileName = fileName;
  api.forms = forms; api.keysFor = keysFor; api.pairBucket = pairBucket; api.adjacent = adjacent; api.segments = segments;
  api.MAX_QUERY_CHARS = MAX_QUERY_CHARS; api.EXACT = EXACT; api.PLURAL = PLURAL; api.PREFIX = PREFIX;
})(typeof self !== "undefined" ? self : this);
