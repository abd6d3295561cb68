// sd-words.js: which word each token of a round shows, the text both lanes
// write, and the same assignment as sentences.py (the page without JavaScript).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { load, python, SENTENCES } = require("./widget.js");

const W = load().words;
const words = W.stream(SENTENCES);

test("the corpus: every passage has a wrong draft word for each of its words, never the word itself", () => {
  assert.ok(SENTENCES.passages.length >= 3);
  for (const p of SENTENCES.passages) {
    const t = p.text.split(" "), d = p.drafts.split(" ");
    assert.deepEqual(t, p.text.split(/\s+/), "one space between words");
    assert.deepEqual(d, p.drafts.split(/\s+/), "one space between words");
    assert.equal(t.length, d.length, p.text);
    t.forEach((w, i) => assert.notEqual(w.toLowerCase(), d[i].toLowerCase(), `${w} at ${i}`));
  }
  assert.equal(words.length, SENTENCES.passages.reduce((n, p) => n + p.text.split(/\s+/).length, 0));
});

test("a rejected round: accepted words, the struck guess, the correction, the tail that might have been right", () => {
  const w = W.roundWords(words, 0, 5, 2);
  assert.deepEqual(w.drafts, [words[0][0], words[1][0], words[2][1], words[3][0], words[4][0]]);
  assert.equal(w.target, words[2][0]);
  assert.equal(w.replaces, words[2][1]);
  assert.notEqual(w.target, w.replaces);
  assert.equal(w.next, 3);
});

test("full acceptance: every draft is the text's word and the bonus is the next one", () => {
  const w = W.roundWords(words, 4, 3, 3);
  assert.deepEqual(w.drafts, [words[4][0], words[5][0], words[6][0]]);
  assert.equal(w.target, words[7][0]);
  assert.equal(w.replaces, null);
  assert.equal(w.next, 8);
});

test("rounds follow on: each starts where the text stopped, and the stream wraps round", () => {
  let start = 0, text = [];
  for (const accepted of [0, 3, 5, 1, 2, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]) {
    const w = W.roundWords(words, start, 5, accepted);
    text.push(...w.drafts.slice(0, accepted), w.target);
    start = w.next;
  }
  assert.ok(start > words.length, "wrapped");
  assert.deepEqual(text, Array.from({ length: start }, (_, k) => words[k % words.length][0]));
  assert.equal(W.text(words, start), text.slice(-W.TEXT_WORDS).join(" "));
  const parts = W.textParts(words, start - 3, start);
  assert.equal(parts.fresh, text.slice(-3).join(" "));
  assert.equal(parts.old, text.slice(-W.TEXT_WORDS, -3).join(" "));
});

test("plain decoding writes one word per whole target pass", () => {
  assert.equal(W.plainCount(0), 0);
  assert.equal(W.plainCount(0.999), 0);
  assert.equal(W.plainCount(1.25), 1);
  assert.equal(W.plainCount(0.1 + 0.2 + 0.7), 1); // 0.9999999999999999: a whole pass all the same
  assert.equal(W.plainCount(12.5), 12);
});

test("the same words, phase lines and spoken text as sentences.py", () => {
  const cases = [];
  for (const start of [0, 7, 60, 131]) for (const gamma of [1, 3, 5, 16]) for (let accepted = 0; accepted <= gamma; accepted += Math.max(1, gamma >> 2)) cases.push([start, gamma, accepted]);
  const py = python(
    "import json, sys; from site_builder.explainers.speculative_decoding import sentences as s; w = s.stream();"
    + "out = [];\nfor start, g, a in json.load(sys.stdin):\n"
    + "    r = s.round_words(w, start, g, a); out.append([r, s.summary(start, g, a, r), s.text(w, r['next']),"
    + " [s.spoken(x) for x in ('accepted', 'rejected', 'discarded')], s.spoken('bonus' if r['replaces'] is None else 'correction', r['replaces'])])\n"
    + "print(json.dumps(out))", JSON.stringify(cases));
  cases.forEach(([start, gamma, accepted], i) => {
    const r = W.roundWords(words, start, gamma, accepted);
    assert.deepEqual(r, py[i][0]);
    assert.equal(W.summary(start, gamma, accepted, r), py[i][1]);
    assert.equal(W.text(words, r.next), py[i][2]);
    assert.deepEqual(["accepted", "rejected", "discarded"].map((x) => W.spoken(x)), py[i][3]);
    assert.equal(W.spoken(r.replaces === null ? "bonus" : "correction", r.replaces), py[i][4]);
  });
});

test("phase lines say what happened in words", () => {
  const w = W.roundWords(words, 0, 5, 2);
  const line = W.summary(0, 5, 2, w);
  assert.match(line, /^Round 1: 2 accepted \+ 1 from the target = 3 tokens\./);
  assert.ok(line.includes(`“${w.replaces}” was rejected; the target wrote “${w.target}” instead; the 2 words drafted after it are discarded`), line);
  assert.match(W.summary(3, 4, 4, W.roundWords(words, 0, 4, 4)), /^Round 4: 4 accepted \+ 1 from the target = 5 tokens\. Every draft passed, so the target adds a bonus word, “.+”\.$/);
  assert.match(W.summary(0, 2, 1, W.roundWords(words, 0, 2, 1)), /instead\.$/);
});
