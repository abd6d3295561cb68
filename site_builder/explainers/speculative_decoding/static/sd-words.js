/* sd-words.js: the words on the round animation's tokens (pure; tested under node).
 *
 * Both lanes write one fixed sentence, SpeculativeDecoding.data.sentences
 * (sentences.json; sentences.py makes the same assignment for the page without
 * JavaScript, and a node test compares the two). The passages run on as one
 * stream of words; a round starting at word `start` that keeps `accepted` of
 * its `gamma` drafts shows
 *
 *   accepted drafts    the stream's words, which join the text
 *   the rejected draft the draft's wrong guess there (struck), and the target's
 *                      correction: the stream's word at that position
 *   the discarded tail the stream's next words: they might have been right,
 *                      but were drafted after a wrong word, so they go
 *   full acceptance    the bonus: the word after the last draft
 *
 * Acceptance is the seeded run's (sd-model.js): the words are illustration.
 * Registers SpeculativeDecoding.words.
 */
(function (root, factory) {
  "use strict";
  var SD = (root.SpeculativeDecoding = root.SpeculativeDecoding || {});
  SD.words = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var TEXT_WORDS = 12; // the text lines show this many of their latest words (sentences.TEXT_WORDS)

  function split(s) {
    return s.split(/\s+/).filter(function (w) { return w; });
  }

  /** [[target word, draft's wrong word], ...] for every position of the passages, in order. */
  function stream(corpus) {
    var out = [];
    corpus.passages.forEach(function (p) {
      var t = split(p.text), d = split(p.drafts);
      for (var i = 0; i < t.length; i++) out.push([t[i], d[i]]);
    });
    return out;
  }

  /** The words of one round (sentences.round_words). */
  function roundWords(words, start, gamma, accepted) {
    var n = words.length, drafts = [];
    function at(j) { return words[(start + j) % n]; }
    for (var j = 0; j < gamma; j++) drafts.push(j === accepted ? at(j)[1] : at(j)[0]);
    return { drafts: drafts, target: at(accepted)[0], replaces: accepted < gamma ? at(accepted)[1] : null, next: start + accepted + 1 };
  }

  /** The last TEXT_WORDS of the first `count` words of the stream, joined (sentences.text). */
  function text(words, count) {
    var out = [];
    for (var k = Math.max(0, count - TEXT_WORDS); k < count; k++) out.push(words[k % words.length][0]);
    return out.join(" ");
  }

  /** The text as two parts: the words before `from` and the ones from it on
   * (the latest round's, shown apart), together at most TEXT_WORDS words. */
  function textParts(words, from, count) {
    var first = Math.max(0, count - TEXT_WORDS), old = [], fresh = [];
    for (var k = first; k < count; k++) (k < from ? old : fresh).push(words[k % words.length][0]);
    return { old: old.join(" "), fresh: fresh.join(" ") };
  }

  /** Words plain decoding has written after `time` target passes: one per whole pass. */
  function plainCount(time) {
    return Math.floor(time + 1e-9);
  }

  var STATES = {
    accepted: "accepted",
    rejected: "rejected by the target",
    discarded: "discarded: drafted after the rejected word, never tested",
  };

  /** What a screen reader hears for one token (sentences.spoken). */
  function spoken(word, state, replaces) {
    if (state === "bonus") return "“" + word + "”: bonus word from the target, every draft was accepted";
    if (state === "correction") return "“" + word + "”: the target's correction, in place of “" + replaces + "”";
    return "“" + word + "”: " + STATES[state];
  }

  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  /** The phase line for a finished round (sentences.summary): its count, then its words. */
  function summary(index, gamma, accepted, w) {
    var head = "Round " + (index + 1) + ": " + accepted + " accepted + 1 from the target = " + plural(accepted + 1, "token", "tokens") + ". ";
    if (accepted === gamma) return head + "Every draft passed, so the target adds a bonus word, “" + w.target + "”.";
    var tail = gamma - accepted - 1;
    return head + "“" + w.drafts[accepted] + "” was rejected and the target wrote “" + w.target + "” in its place" +
      (tail ? "; the " + plural(tail, "word", "words") + " drafted after it " + (tail === 1 ? "is" : "are") + " discarded untested." : ".");
  }

  return { summary: summary, TEXT_WORDS: TEXT_WORDS, stream: stream, roundWords: roundWords, text: text, textParts: textParts,
    plainCount: plainCount, spoken: spoken, STATES: STATES };
});
