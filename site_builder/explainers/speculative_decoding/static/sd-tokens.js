/* sd-tokens.js: the rows of word tokens sd-animation.js draws (DOM only when
 * called). Registers SpeculativeDecoding.tokens. */
(function (root) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  var W = SD.words;
  var setText = SD.readout.setText;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // every glyph is in the legend (figure.html); the discarded one is no dash, so
  // that a struck-out position never reads as a negative number
  var GLYPH = { pending: "·", drafted: "?", accepted: "✓", rejected: "✗", discarded: "⊘" };
  var WORDS = Object.assign({ pending: "not drafted yet", drafted: "drafted, waiting for the target" }, W.STATES);

  /** A token's state and word; its state in words for screen readers. */
  function setToken(li, state, word, label) {
    li.setAttribute("data-state", state);
    setText(li.children[0], state === "target" ? (li.getAttribute("data-kind") === "bonus" ? "★" : "↺") : GLYPH[state]);
    setText(li.children[1], word || "");
    setText(li.children[3], label || WORDS[state] || "");
  }

  function parts(li, num) {
    li.appendChild(el("span", "sd-glyph", "·"));
    li.appendChild(el("span", "sd-word", ""));
    li.appendChild(el("span", "sd-num", num));
    li.appendChild(el("span", "sd-vh", ""));
    li.setAttribute("data-state", "pending");
    return li;
  }

  function tokenItem(pos) {
    var li = el("li", "sd-tok");
    li.setAttribute("data-pos", String(pos));
    return parts(li, String(pos));
  }

  /** Give `ol` exactly gamma draft tokens (pending) and one target item, reusing
   * the nodes it has; the target's slot neutral (no kind, labelled "target"):
   * nothing says correction or bonus before the target has decided. Returns
   * [draft items..., target item]. */
  function tokenRow(ol, gamma) {
    var target = ol.lastElementChild && ol.lastElementChild.classList.contains("sd-target") ? ol.lastElementChild : null;
    var drafts = ol.children.length - (target ? 1 : 0);
    while (drafts > gamma) {
      ol.removeChild(target ? target.previousElementSibling : ol.lastElementChild);
      drafts--;
    }
    while (drafts < gamma) {
      ol.insertBefore(tokenItem(drafts + 1), target);
      drafts++;
    }
    if (!target) target = ol.appendChild(targetItem());
    else {
      target.removeAttribute("data-kind");
      setText(target.children[2], "target");
    }
    var items = Array.prototype.slice.call(ol.children);
    for (var j = 0; j < gamma; j++) {
      setToken(items[j], "pending");
      items[j].removeAttribute("data-scored");
    }
    setToken(target, "pending");
    return items;
  }

  function setData(ol, round, done) {
    ol.setAttribute("data-round", String(round.index + 1));
    ol.setAttribute("data-gamma", String(round.gamma));
    if (done) {
      ol.setAttribute("data-accepted", String(round.accepted));
      ol.setAttribute("data-tokens", String(round.tokens));
    } else {
      ol.removeAttribute("data-accepted");
      ol.removeAttribute("data-tokens");
    }
  }

  function draftState(round, j) {
    return j < round.accepted ? "accepted" : j === round.rejectedAt ? "rejected" : "discarded";
  }

  /** The target's token, once decided: its kind, word and label; a correction says what it replaced. */
  function setTarget(li, round, w) {
    li.setAttribute("data-kind", round.targetKind);
    setText(li.children[2], round.targetKind === "bonus" ? "bonus" : "fix");
    setToken(li, "target", w.target, W.spoken(round.targetKind === "bonus" ? "bonus" : "correction", w.replaces));
  }

  /** A finished round with its words `w` (roundWords) as a row, reusing ol's nodes. */
  function renderRound(round, ol, w) {
    var items = tokenRow(ol, round.gamma);
    setData(ol, round, true);
    for (var j = 0; j < round.gamma; j++) setToken(items[j], draftState(round, j), w.drafts[j]);
    setTarget(items[round.gamma], round, w);
    return ol;
  }

  function targetItem() {
    return parts(el("li", "sd-tok sd-target"), "target");
  }

  SD.tokens = { el: el, GLYPH: GLYPH, WORDS: WORDS, setToken: setToken, tokenRow: tokenRow, setData: setData,
    setTarget: setTarget, renderRound: renderRound };
})(typeof self !== "undefined" ? self : this);
