/* sd-words.js: the words on the round animation's tokens, as sentences.py (which
 * explains them) gives them; pure. Registers SpeculativeDecoding.words. */
(function (root, factory) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  SD.words = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var TEXT_WORDS = 6; // sentences.TEXT_WORDS

  /** [[target word, draft's wrong word], ...] in passage order. */
  function stream(corpus) {
    var out = [];
    corpus.passages.forEach(function (p) {
      var t = p.text.split(" "), d = p.drafts.split(" "); // one space apart (a node test checks)
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

  /** The latest TEXT_WORDS of the first `count` words: before `from`, and from it on. */
  function textParts(words, from, count) {
    var first = Math.max(0, count - TEXT_WORDS), old = [], fresh = [];
    for (var k = first; k < count; k++) (k < from ? old : fresh).push(words[k % words.length][0]);
    return { old: old.join(" "), fresh: fresh.join(" ") };
  }

  function text(words, count) { return textParts(words, count, count).old; } // sentences.text

  /** Words plain decoding writes in `time` target passes: one per whole pass. */
  function plainCount(time) { return Math.floor(time + 1e-9); }

  var STATES = {
    accepted: "accepted",
    rejected: "rejected by the target",
    discarded: "discarded: drafted after the rejected word, never tested",
  };

  /** A token's state in words, after its word (sentences.spoken). */
  function spoken(state, replaces) {
    if (state === "bonus") return "bonus word from the target, every draft was accepted";
    return state === "correction" ? "the target's correction, in place of “" + replaces + "”" : STATES[state];
  }

  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  /** The phase line of a finished round (sentences.summary). */
  function summary(index, gamma, accepted, w) {
    var head = "Round " + (index + 1) + ": " + accepted + " accepted + 1 from the target = " + plural(accepted + 1, "token", "tokens") + ". ";
    if (accepted === gamma) return head + "Every draft passed, so the target adds a bonus word, “" + w.target + "”.";
    var tail = gamma - accepted - 1;
    return head + "“" + w.drafts[accepted] + "” was rejected; the target wrote “" + w.target + "” instead" +
      (tail ? "; the " + plural(tail, "word", "words") + " drafted after it " + (tail === 1 ? "is" : "are") + " discarded untested." : ".");
  }

  return { summary: summary, TEXT_WORDS: TEXT_WORDS, stream: stream, roundWords: roundWords, text: text, textParts: textParts,
    plainCount: plainCount, spoken: spoken, STATES: STATES };
});
