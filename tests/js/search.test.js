// static/search.js under node: the pure logic, and the engine over the files a
// real build writes (a small site built here with the project's CLI).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { pythonExecutable } = require("./python.js");

const ROOT = path.resolve(__dirname, "..", "..");
// the three parts in the order a page loads them (templates/base.html's data-script)
const PARTS = ["search-words.js", "search-engine.js", "search.js"];
const SOURCES = PARTS.map((name) => fs.readFileSync(path.join(ROOT, "site_builder/static", name), "utf8"));

function load() {
  const self = {};
  for (const source of SOURCES) new Function("self", source)(self);
  return self.GlossarySearch;
}
const S = load();

function python(code, input) {
  return JSON.parse(execFileSync(pythonExecutable(), ["-c", code], {
    cwd: ROOT, input, env: { ...process.env, PYTHONPATH: ROOT }, encoding: "utf8",
  }));
}

const TRICKY = ["Draft-Model", "café CAFÉ Ｆｕｌｌｗｉｄｔｈ", "snake_case and camelCase", "naïve résumé",
  "推测解码 とは", "فك التشفير التخميني", "שלום עולם", "x².y³ ½", "İstanbul ǅemal", "ΣΊΣΥΦΟΣ",
  "a".repeat(41) + " ok", "emoji 🚀 rocket", "tab\tand\nnewline", "", "!!!???...", "1e-3 0x10"];

test("fold and words agree with the build's (search_text.words)", () => {
  const expected = python("import json,sys\nfrom site_builder.outputs.search_text import words\n"
    + "print(json.dumps([words(t) for t in json.load(sys.stdin)]))", JSON.stringify(TRICKY));
  assert.deepEqual(TRICKY.map(S.words), expected);
});

test("shard keys and file names agree with the build's", () => {
  const sample = ["dr", "d", "中", "ca", "é", "ab🚀", "z9"];
  const expected = python("import json,sys\nfrom site_builder.outputs import search_index as s\n"
    + "print(json.dumps([s.file_name(s.shard_key(w)) for w in json.load(sys.stdin)]))", JSON.stringify(sample));
  assert.deepEqual(sample.map((w) => S.fileName(S.shardKey(w))), expected);
});

test("a query's words: distinct, at most eight, from a bounded prefix of the text", () => {
  assert.deepEqual(S.queryWords(""), []);
  assert.deepEqual(S.queryWords("  ?!.,;:  "), []);
  assert.deepEqual(S.queryWords("Draft draft DRAFT model"), ["draft", "model"]);
  assert.equal(S.queryWords("word ".repeat(2000) + Array.from({ length: 20 }, (_, i) => "w" + i).join(" ")).length, 1);
  assert.equal(S.queryWords(Array.from({ length: 20 }, (_, i) => "w" + i).join(" ")).length, 8);
  assert.deepEqual(S.queryWords("推测"), ["推", "测"]);
});

test("phrase pairs: buckets agree with the build's, pairs follow the query's order", () => {
  const sample = ["draft model", "memori bound", "推 测", "caf\u00e9 x", "ab🚀 z", "a b"];
  const expected = python("import json,sys\nfrom site_builder.outputs import search_index as s\n"
    + "print(json.dumps([s.pair_bucket(p) for p in json.load(sys.stdin)]))", JSON.stringify(sample));
  const buckets = python("from site_builder.outputs import search_index as s\nprint(s.PAIR_BUCKETS)", "");
  assert.deepEqual(sample.map((p) => S.pairBucket(p, buckets)), expected);
  // Indices into queryWords: each adjacent pair once, in order; a repeated word is the same index.
  assert.deepEqual(S.adjacent("draft model"), [[0, 1]]);
  assert.deepEqual(S.adjacent('"memory bound" draft'), [[0, 1], [1, 2]]);
  assert.deepEqual(S.adjacent("model draft model draft"), [[0, 1], [1, 0]]);
  assert.deepEqual(S.adjacent("draft"), []);
  assert.deepEqual(S.adjacent("?!"), []);
  assert.ok(S.adjacent("w ".repeat(5000)).length <= 1);
  // The pair's keys: own stems and plural forms' stems, never what a prefix stands for.
  const shards = { dr: { p: { draft: [0, 1], drafter: [0, 1] }, w: { drafts: "draft" } },
    mo: { p: { model: [0, 1] }, w: { models: "model" } } };
  assert.deepEqual(S.pairKeys(S.expand("drafts", shards), S.expand("models", shards)).sort(), ["draft model"]);
  assert.deepEqual(S.pairKeys(S.expand("dra", shards), S.expand("model", shards)), []);
});

test("phraseRank: pages with the words side by side come first, then score, then doc order", () => {
  // hits come best first (rank's order); docs 4 and 5 have pairs but are not hits.
  const hits = [{ doc: 0, score: 120 }, { doc: 3, score: 90 }, { doc: 1, score: 62 }, { doc: 2, score: 62 }];
  const ranked = S.phraseRank(hits, [new Set([2, 3, 4]), new Set([2, 5])]);
  assert.deepEqual(ranked.map((h) => h.doc), [2, 3, 0, 1]);
  assert.deepEqual(S.phraseRank(hits, [new Set([1, 2])]).map((h) => h.doc), [1, 2, 0, 3]);
  assert.deepEqual(S.phraseRank(hits, [new Set()]).map((h) => h.doc), [0, 3, 1, 2]);
  assert.deepEqual(hits.map((h) => h.doc), [0, 3, 1, 2]);  // the hits given are left as they were
});

test("plural forms are the ones [[...]] links resolve", () => {
  assert.deepEqual(S.forms("memories").map((f) => f[0]), ["memories", "memoriess", "memory", "memori", "memorie"]);
  assert.deepEqual(S.forms("cache").map((f) => f[0]), ["cache", "caches"]);
});

test("rank: AND over words, best posting per word, title over alias over summary over body", () => {
  // docs 0..3; codes: score + 64 * where
  const shards = {
    dr: { p: { draft: [0, 60, 1, 50, 1, 31, 1, 3 + 64 * 2] }, w: { drafted: "draft" } },
    mo: { p: { model: [0, 5, 3, 5] }, w: {} },
  };
  const one = S.rank([S.expand("draft", shards)], shards);
  assert.deepEqual(one.map((h) => [h.doc, h.field]), [[0, "title"], [1, "alias"], [2, "summary"], [3, "body"]]);
  assert.equal(one[3].where, 2);
  const both = S.rank([S.expand("draft", shards), S.expand("model", shards)], shards);
  assert.deepEqual(both.map((h) => h.doc), [0, 3]);
  // A prefix stands for longer words and weighs less than the word itself.
  const prefix = S.rank([S.expand("dra", shards)], shards);
  assert.deepEqual(prefix.map((h) => h.doc), [0, 1, 2, 3]);
  assert.ok(prefix[0].score < one[0].score);
  // A surface word finds its stem's pages.
  assert.deepEqual(S.rank([S.expand("drafted", shards)], shards).length, 4);
});

test("segments mark whole words, and never lose or add text", () => {
  const match = (w) => w === "draft" || w.startsWith("tok");
  const text = "A draft <b>proposes</b> tokens; drafting isn't marked.";
  const parts = S.segments(text, match);
  assert.equal(parts.map((p) => p[0]).join(""), text);
  assert.deepEqual(parts.filter((p) => p[1]).map((p) => p[0]), ["draft", "tokens"]);
});

test("the file:// fallback ranks titles over aliases over summaries, by word prefix", () => {
  const entries = [
    { title: "Latency", aliases: [], summary: "Time until the draft answer.", href: "l/" },
    { title: "Verifier", aliases: ["draft checker"], summary: "Checks.", href: "v/" },
    { title: "Draft model", aliases: [], summary: "Small.", href: "d/" },
  ];
  const answer = S.fallbackSearch(entries, "draf");
  assert.deepEqual(answer.results.map((r) => r.href), ["d/", "v/", "l/"]);
  assert.equal(answer.results[1].alias, "draft checker");
  for (const q of ["", "!!!", "x".repeat(10000), "推测", "שלום"]) assert.ok(Array.isArray(S.fallbackSearch(entries, q).results));
});

// ---- the engine over a real build ----

let built = null;
function site() {
  if (built) return built;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "search-js-"));
  const terms = path.join(dir, "content", "terms");
  fs.mkdirSync(terms, { recursive: true });
  const term = (slug, front, body) => fs.writeFileSync(path.join(terms, slug + ".md"), `---\n${front}\n---\n${body}\n`);
  term("draft-model", "title: Draft model\nsummary: A small model that proposes tokens for a larger one.\naliases: [drafter, assistant model]",
    "The draft runs first.\n\n## Acceptance\n\nSome tokens are drafted and then nucleus sampling keeps a few.\n\n"
    + "```\nsecretcodeword = 1\n```\n\nIts rate is $\\alpha^k$.\n");
  term("verifier", "title: Verifier\nsummary: The large model that checks what the drafter proposed.",
    "It scores every proposal in one memory-bound pass.\n");
  term("memory-batch", "title: Memory batch\nsummary: Pages grouped for one pass.", "Plain text.\n");
  term("pooling", "title: Pooling\nsummary: Batch memory is shared across requests.", "Plain text.\n");
  term("hostile", 'title: "<img src=x onerror=alert(1)>"\nsummary: "<script>alert(2)</script> & more"', "Plain.\n");
  term("sushi", "title: 寿司\nsummary: 日本の料理。\naliases: [سوشي]", "生の魚。\n");
  execFileSync(pythonExecutable(), ["-m", "site_builder", "build", "--quiet", "--no-cache",
    "--content", path.join(dir, "content"), "--output", path.join(dir, "out")], { cwd: ROOT });
  const out = path.join(dir, "out");
  const fetched = [];
  const engine = S.engine((rel) => {
    fetched.push(rel);
    return Promise.resolve(JSON.parse(fs.readFileSync(path.join(out, rel), "utf8")));
  }, "../");
  built = { engine, fetched, out };
  return built;
}

test("engine: a body-only phrase finds its term, under its heading", async () => {
  const answer = await site().engine.query("nucleus sampling");
  assert.equal(answer.results[0].title, "Draft model");
  assert.equal(answer.results[0].heading, "Acceptance");
  assert.equal(answer.results[0].href, "../draft-model/index.html#acceptance");
  const bound = await site().engine.query("memory-bound");
  assert.deepEqual(bound.results.map((r) => r.title), ["Verifier"]);
});

test("engine: a page with the query's words side by side, in order, ranks above one that merely has them", async () => {
  // Memory batch has both words in its title (the higher score), in the other order;
  // Pooling's summary has "batch memory" side by side.
  assert.deepEqual((await site().engine.query("batch memory")).results.map((r) => r.title), ["Pooling", "Memory batch"]);
  assert.deepEqual((await site().engine.query('"memory batch"')).results.map((r) => r.title), ["Memory batch", "Pooling"]);
  assert.deepEqual((await site().engine.query("batches memories")).results.map((r) => r.title), ["Pooling", "Memory batch"]);
  assert.ok(site().fetched.some((f) => f.startsWith("search/p/")));
});

test("engine: an alias finds its term and is named; titles rank first", async () => {
  const answer = await site().engine.query("assistant");
  assert.equal(answer.results[0].title, "Draft model");
  assert.equal(answer.results[0].alias, "assistant model");
  const drafter = await site().engine.query("drafter");
  assert.deepEqual(drafter.results.map((r) => r.title), ["Draft model", "Verifier"]);
});

test("engine: prefixes and stems find longer words; maths by alttext; code not indexed", async () => {
  const prefix = await site().engine.query("propos");
  assert.deepEqual(prefix.results.map((r) => r.title).sort(), ["Draft model", "Verifier"]);
  // "drafts" is in no page: its singular is, and every word with the same stem ("drafted") is marked.
  const plural = await site().engine.query("drafts");
  assert.equal(plural.results[0].title, "Draft model");
  assert.ok(plural.match("drafted") && plural.match("draft") && !plural.match("drafter"));
  // "draft" finds "drafted" by its stem, with no prefix needed.
  const shards = { dr: { p: { draft: [1, 3] }, w: { drafted: "draft" } } };
  assert.deepEqual(S.rank([S.expand("drafted", shards)], shards).map((h) => h.doc), [1]);
  assert.equal((await site().engine.query("alpha")).results[0].title, "Draft model");
  assert.equal((await site().engine.query("secretcodeword")).total, 0);
});

test("engine: bad queries answer without an error; CJK and RTL find their terms", async () => {
  for (const q of ["", "   ", "?!.,", "x".repeat(10000), "a ".repeat(5000), "\u0000\u202e", "zzzzqqq"]) {
    const answer = await site().engine.query(q);
    assert.ok(Array.isArray(answer.results), q.slice(0, 20));
  }
  assert.equal((await site().engine.query("寿司")).results[0].title, "寿司");
  assert.equal((await site().engine.query("魚")).results[0].title, "寿司");
  assert.equal((await site().engine.query("سوشي")).results[0].alias, "سوشي");
  const hostile = await site().engine.query("onerror");
  assert.equal(hostile.results[0].title, "<img src=x onerror=alert(1)>");
});

test("engine: fetches only the manifest, the query's shards and the shown pages' chunks, each once", async () => {
  const { engine, fetched } = site();
  await engine.query("verifier");
  const before = fetched.length;
  await engine.query("verifier");
  assert.equal(fetched.length, before);
  assert.equal(fetched.filter((f) => f === "search/index.json").length, 1);
  assert.ok(fetched.every((f) => f.startsWith("search/")));
});
