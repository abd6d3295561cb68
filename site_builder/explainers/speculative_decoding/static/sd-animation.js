/* sd-animation.js: the round animation (left column) and its running tally.
 *
 * Each round is decided up front by the seeded run (SpeculativeDecoding.model.createRun), then
 * played as a timeline of visual steps on a clock measured in target passes:
 *
 *   idle --play/step--> drafting: token j appears at (j+1) c  (sequential)
 *        --> verifying: one batched target pass over every drafted token (1 unit)
 *        --> judging: positions accepted left to right (visual stagger, no cost)
 *              |-- first rejection: marked x, the tail after it dies at once
 *        --> target token: correction (after a rejection) or bonus (all accepted)
 *        --> done: tally updated, round moved to history --playing?--> next round
 *
 * Changing alpha, gamma, c or seed starts a fresh run (a link replays the same
 * rounds). "Step" finishes the round in flight, or plays one round instantly.
 * prefers-reduced-motion: the same steps happen, CSS simply drops transitions.
 *
 * Cost per frame stays small and bounded: one requestAnimationFrame loop, the
 * elapsed time capped (a background tab resumes where it left off), only the
 * steps that fell due applied; the clocks move with a transform (no layout);
 * token and history nodes are recycled, texts edited in place; nothing reads
 * layout.
 *
 * One part of the widget's script: registers SpeculativeDecoding.animation;
 * the DOM is touched only from create() and the functions it is given nodes for.
 */
(function (root) {
  "use strict";
  var SD = (root.SpeculativeDecoding = root.SpeculativeDecoding || {});
  var M = SD.model;
  var setText = SD.readout.setText;

  var PASS_MS = 900; // one target pass at speed 1
  var JUDGE_MS = 140; // visual stagger per judged position at speed 1
  var HISTORY = 6;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  var GLYPH = { pending: "·", drafted: "d", accepted: "✓", rejected: "✗", discarded: "–", target: "+1" };
  var WORDS = {
    pending: "not drafted yet",
    drafted: "drafted, waiting for the target",
    accepted: "accepted",
    rejected: "rejected by the target",
    discarded: "discarded: drafted after the rejected token, never tested",
  };

  function setToken(li, state, label) {
    li.setAttribute("data-state", state);
    setText(li.children[0], state === "target" ? (li.getAttribute("data-kind") === "bonus" ? "★" : "↺") : GLYPH[state]);
    setText(li.children[2], label || WORDS[state] || "");
  }

  function tokenItem(pos) {
    var li = el("li", "sd-tok");
    li.setAttribute("data-pos", String(pos));
    li.appendChild(el("span", "sd-glyph", "·"));
    li.appendChild(el("span", "sd-num", String(pos)));
    li.appendChild(el("span", "sd-vh", ""));
    li.setAttribute("data-state", "pending");
    return li;
  }

  /** Give `ol` exactly gamma draft tokens (pending) and one target item, reusing
   * the nodes it has. Returns [draft items..., target item]. */
  function tokenRow(ol, gamma, kind) {
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
    if (!target) target = ol.appendChild(targetItem(kind));
    else {
      target.setAttribute("data-kind", kind);
      setText(target.children[1], kind === "bonus" ? "bonus" : "fix");
    }
    var items = Array.prototype.slice.call(ol.children);
    for (var j = 0; j < gamma; j++) setToken(items[j], "pending");
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

  /** Render a finished round as a compact row (history, or a step), reusing ol's nodes. */
  function renderRound(round, ol) {
    var items = tokenRow(ol, round.gamma, round.targetKind);
    setData(ol, round, true);
    for (var j = 0; j < round.gamma; j++) {
      setToken(items[j], j < round.accepted ? "accepted" : j === round.rejectedAt ? "rejected" : "discarded");
    }
    setToken(items[round.gamma], "target", targetWords(round));
    return ol;
  }

  function targetItem(kind) {
    var li = el("li", "sd-tok sd-target");
    li.setAttribute("data-kind", kind);
    li.appendChild(el("span", "sd-glyph", "·"));
    li.appendChild(el("span", "sd-num", kind === "bonus" ? "bonus" : "fix"));
    li.appendChild(el("span", "sd-vh", ""));
    li.setAttribute("data-state", "pending");
    return li;
  }

  function targetWords(round) {
    return round.targetKind === "bonus"
      ? "bonus token from the target: every draft was accepted"
      : "correction token from the target, replacing the rejected draft";
  }

  function fmt(x, d) {
    return isFinite(x) ? x.toFixed(d) : "–";
  }

  /**
   * create(rootEl, store): wires the stage inside rootEl. Returns a controller
   * { play, pause, toggle, step, skip(n), reset, setSpeed, run(), playing() }.
   */
  function create(rootEl, store) {
    var stage = rootEl.querySelector(".sd-stage");
    var current = stage.querySelector(".sd-round-current");
    var history = stage.querySelector(".sd-history");
    var phaseText = stage.querySelector(".sd-phase");
    var verifyBar = stage.querySelector(".sd-verify");
    var clockSpec = stage.querySelector(".sd-clock-spec .sd-fill");
    var clockPlain = stage.querySelector(".sd-clock-plain .sd-fill");
    var plainCount = stage.querySelector(".sd-plain-count");
    var tallyEls = {};
    Array.prototype.forEach.call(rootEl.querySelectorAll("[data-tally]"), function (d) {
      tallyEls[d.getAttribute("data-tally")] = d;
    });

    var lane = rootEl.querySelector("[data-out=lane]");
    var run, round, steps, clock, raf, lastTs, playing = false, speed = 1, listeners = [];
    var roundTime = 0; // elapsed target-pass units within the round in flight
    var drawn = ""; // the (gamma, c) the clock segments show
    var clockFrac = -1;

    function reset() {
      var s = store.get();
      run = M.createRun(s.alpha, s.gamma, s.c, s.seed);
      round = null;
      steps = [];
      roundTime = 0;
      // gamma + 1 empty slots, not an empty row: the round keeps its height when it runs
      tokenRow(current, s.gamma, "correction");
      current.removeAttribute("data-round");
      if (history.firstChild) history.textContent = "";
      setText(phaseText, "Press play or step to run a round.");
      verifyBar.setAttribute("data-active", "false");
      if (lane) setText(lane, "Speculative: draft " + s.gamma + " token" + (s.gamma > 1 ? "s" : "") + ", then one target pass");
      drawSegments();
      setClock(0);
      updateTally();
      notify();
    }

    function updateTally() {
      var s = store.get();
      var theory = M.speedup(s.alpha, s.gamma, s.c);
      var vals = {
        rounds: String(run.rounds),
        tokens: String(run.tokens),
        passes: String(run.targetPasses),
        drafts: String(run.draftCalls),
        time: fmt(run.time, 2),
        mean: run.rounds ? fmt(run.tokens / run.rounds, 3) : "–",
        expected: fmt(M.expectedTokens(s.alpha, s.gamma), 3),
        realised: run.rounds ? fmt(run.realisedSpeedup(), 3) + "×" : "–",
        theory: fmt(theory, 3) + "×",
      };
      for (var k in vals) if (tallyEls[k]) setText(tallyEls[k], vals[k]);
      // the plain lane: on the same clock, plain decoding makes one token per pass
      setText(plainCount, fmt(run.time, 1));
    }

    function notify() {
      for (var i = 0; i < listeners.length; i++) listeners[i](run);
    }

    /** Build the visual timeline of the next round (times in pass units, judge steps in ms). */
    function beginRound() {
      var s = store.get();
      round = run.nextRound();
      var g = round.gamma;
      var items = tokenRow(current, g, round.targetKind);
      var target = items.pop();
      setData(current, round, false);
      var t = 0;
      steps = [];
      setText(phaseText, "Round " + (round.index + 1) + ": the draft proposes " + g + " token" + (g > 1 ? "s" : "") + ", one after another.");
      items.forEach(function (li, idx) {
        t += s.c;
        steps.push({ t: t, fn: function () { setToken(li, "drafted"); } });
      });
      var draftEnd = t;
      steps.push({ t: draftEnd, fn: function () {
        verifyBar.setAttribute("data-active", "true");
        setText(phaseText, "The target scores all " + g + " drafts in one batched pass.");
      } });
      t += 1;
      var judgeStart = t;
      steps.push({ t: judgeStart, fn: function () { verifyBar.setAttribute("data-active", "false"); } });
      // judging and the target's token cost no extra clock time: they are the
      // verification pass's result, shown one position at a time for the eye
      var extra = 0;
      for (var k = 0; k < round.accepted; k++) {
        (function (li) {
          extra += 1;
          steps.push({ t: judgeStart, ms: extra * JUDGE_MS, fn: function () { setToken(li, "accepted"); } });
        })(items[k]);
      }
      if (round.rejectedAt >= 0) {
        extra += 1;
        steps.push({ t: judgeStart, ms: extra * JUDGE_MS, fn: function () {
          setToken(items[round.rejectedAt], "rejected");
          setText(phaseText, "Rejected at position " + (round.rejectedAt + 1) + (round.discarded ? (round.discarded === 1 ? ": the token after it is discarded untested." : ": the " + round.discarded + " tokens after it are discarded untested.") : "."));
        } });
        extra += 1;
        steps.push({ t: judgeStart, ms: extra * JUDGE_MS, fn: function () {
          for (var m = round.rejectedAt + 1; m < g; m++) setToken(items[m], "discarded");
        } });
      }
      extra += 1.5;
      steps.push({ t: judgeStart, ms: extra * JUDGE_MS, fn: function () {
        setToken(target, "target", targetWords(round));
        setData(current, round, true);
        setText(phaseText, "Round " + (round.index + 1) + ": " + round.accepted + " accepted + 1 from the target = " + round.tokens + " token" + (round.tokens > 1 ? "s" : "") + ".");
      } });
      extra += 3;
      steps.push({ t: judgeStart, ms: extra * JUDGE_MS, fn: finishRound });
      clock = 0;
      roundTime = judgeStart;
    }

    function finishRound() {
      var done = round;
      round = null;
      steps = [];
      // the oldest history row is recycled as the newest
      var item = history.children.length >= HISTORY ? history.lastElementChild : el("li", "sd-history-item");
      var row = item.firstElementChild || item.appendChild(el("ol", "sd-round sd-round-past"));
      renderRound(done, row);
      row.setAttribute("aria-label", "Round " + (done.index + 1) + ": " + done.tokens + " tokens");
      history.insertBefore(item, history.firstChild);
      updateTally();
      setClock(1);
      notify();
    }

    /** Move both clock hands: a transform of full-width fills, no layout. */
    function setClock(frac) {
      var f = Math.round(1000 * Math.max(0, Math.min(frac, 1))) / 10;
      if (f === clockFrac) return;
      clockFrac = f;
      var tr = "translateX(" + (f - 100) + "%)";
      clockSpec.style.transform = tr;
      clockPlain.style.transform = tr;
    }

    /** Segment both clock bars on one time scale: gamma drafts of c and one
     * verification pass above; plain decoding's one-pass tokens below. */
    function drawSegments() {
      var s = store.get();
      var key = s.gamma + "/" + s.c;
      if (key === drawn) return; // alpha and seed leave the clock as it is
      drawn = key;
      var total = M.roundCost(s.gamma, s.c);
      var segs = { spec: [], plain: [] };
      if (s.c > 0) for (var j = 0; j < s.gamma; j++) segs.spec.push([s.c, "sd-seg sd-seg-draft"]);
      segs.spec.push([1, "sd-seg sd-seg-verify"]);
      for (var left = total; left > 1e-9; left -= 1) segs.plain.push([Math.min(1, left), left >= 1 ? "sd-seg sd-seg-plain" : "sd-seg sd-seg-plain sd-seg-part"]);
      [[clockSpec, segs.spec], [clockPlain, segs.plain]].forEach(function (pair) {
        var parent = pair[0].parentNode.querySelector(".sd-segs");
        var want = pair[1];
        while (parent.children.length > want.length) parent.removeChild(parent.lastElementChild);
        while (parent.children.length < want.length) parent.appendChild(el("span"));
        for (var i = 0; i < want.length; i++) {
          var span = parent.children[i];
          if (span.className !== want[i][1]) span.className = want[i][1];
          span.style.width = ((100 * want[i][0]) / total).toFixed(3) + "%";
        }
      });
    }

    /** Apply every step due at clock (pass units) + judge ms. */
    function advance(dtMs) {
      clock += dtMs * speed;
      var unitsNow = clock / PASS_MS;
      while (steps.length) {
        var st = steps[0];
        var due = st.t * PASS_MS + (st.ms || 0);
        if (due > clock) break;
        steps.shift();
        st.fn();
      }
      if (round) setClock(Math.min(unitsNow / Math.max(roundTime, 1e-9), 1));
    }

    function frame(ts) {
      raf = 0;
      if (!playing) return;
      var dt = lastTs === undefined ? 16 : Math.min(ts - lastTs, 100);
      lastTs = ts;
      if (!round) beginRound();
      advance(dt);
      raf = root.requestAnimationFrame(frame);
    }

    function play() {
      if (playing) return;
      playing = true;
      lastTs = undefined;
      raf = root.requestAnimationFrame(frame);
      notify();
    }

    function pause() {
      playing = false;
      if (raf) root.cancelAnimationFrame(raf);
      raf = 0;
      notify();
    }

    /** Finish the round in flight, or play one round instantly. */
    function step() {
      pause();
      if (!round) beginRound();
      while (steps.length) steps.shift().fn();
    }

    /** Run n rounds at once (no animation): the tally converges to theory. */
    function skip(n) {
      pause();
      if (round) while (steps.length) steps.shift().fn();
      var last = null;
      for (var i = 0; i < n; i++) last = run.nextRound();
      if (last) {
        renderRound(last, current);
        if (history.firstChild) history.textContent = "";
        setText(phaseText, "Ran " + n + " rounds at once; the last one is shown.");
      }
      updateTally();
      notify();
    }

    store.subscribe(function (s, changed) {
      var fresh = changed.some(function (k) { return k === "alpha" || k === "gamma" || k === "c" || k === "seed"; });
      if (fresh) reset();
    });

    reset();
    return {
      play: play,
      pause: pause,
      toggle: function () { if (playing) pause(); else play(); },
      step: step,
      skip: skip,
      reset: reset,
      setSpeed: function (x) { speed = x; },
      run: function () { return run; },
      playing: function () { return playing; },
      onChange: function (fn) { listeners.push(fn); },
    };
  }

  SD.animation = { create: create, renderRound: renderRound, targetWords: targetWords, fmt: fmt, GLYPH: GLYPH, WORDS: WORDS };
})(typeof self !== "undefined" ? self : this);
