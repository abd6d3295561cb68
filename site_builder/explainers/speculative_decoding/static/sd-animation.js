/* sd-animation.js: the round animation (left column) and its running tally.
 *
 * Each round is decided up front by the seeded run (SDModel.createRun), then
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
 */
(function (root) {
  "use strict";
  var M = root.SDModel;

  var PASS_MS = 900; // one target pass at speed 1
  var JUDGE_MS = 140; // visual stagger per judged position at speed 1
  var HISTORY = 6;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  var GLYPH = { pending: "·", drafted: "d", accepted: "✓", rejected: "✗", discarded: "✗", target: "+1" };
  var WORDS = {
    pending: "not drafted yet",
    drafted: "drafted, waiting for the target",
    accepted: "accepted",
    rejected: "rejected by the target",
    discarded: "discarded: drafted after a rejection, never scored",
  };

  function setToken(li, state, label) {
    li.setAttribute("data-state", state);
    li.querySelector(".sd-glyph").textContent = state === "target" ? (li.getAttribute("data-kind") === "bonus" ? "★" : "↺") : GLYPH[state];
    li.querySelector(".sd-vh").textContent = label || WORDS[state] || "";
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

  /** Render a finished round as a compact row (history, or a step). */
  function renderRound(round, ol) {
    ol.textContent = "";
    ol.setAttribute("data-round", String(round.index + 1));
    ol.setAttribute("data-gamma", String(round.gamma));
    ol.setAttribute("data-accepted", String(round.accepted));
    ol.setAttribute("data-tokens", String(round.tokens));
    for (var j = 0; j < round.gamma; j++) {
      var li = tokenItem(j + 1);
      ol.appendChild(li);
      setToken(li, j < round.accepted ? "accepted" : j === round.rejectedAt ? "rejected" : "discarded");
    }
    var t = targetItem(round);
    ol.appendChild(t);
    setToken(t, "target", targetWords(round));
    return ol;
  }

  function targetItem(round) {
    var li = el("li", "sd-tok sd-target");
    li.setAttribute("data-kind", round.targetKind);
    li.appendChild(el("span", "sd-glyph", "·"));
    li.appendChild(el("span", "sd-num", round.targetKind === "bonus" ? "bonus" : "fix"));
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

    var run, round, steps, clock, raf, lastTs, playing = false, speed = 1, listeners = [];
    var roundTime = 0; // elapsed target-pass units within the round in flight

    function reset() {
      var s = store.get();
      run = M.createRun(s.alpha, s.gamma, s.c, s.seed);
      round = null;
      steps = [];
      roundTime = 0;
      current.textContent = "";
      current.removeAttribute("data-round");
      history.textContent = "";
      phaseText.textContent = "Press play or step to run a round.";
      verifyBar.setAttribute("data-active", "false");
      var lane = rootEl.querySelector("[data-out=lane]");
      if (lane) lane.textContent = "Speculative: draft " + store.get().gamma + " token" + (store.get().gamma > 1 ? "s" : "") + ", then one target pass";
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
      for (var k in vals) if (tallyEls[k]) tallyEls[k].textContent = vals[k];
      // the plain lane: on the same clock, plain decoding makes one token per pass
      plainCount.textContent = fmt(run.time, 1);
    }

    function notify() {
      for (var i = 0; i < listeners.length; i++) listeners[i](run);
    }

    /** Build the visual timeline of the next round (times in pass units, judge steps in ms). */
    function beginRound() {
      var s = store.get();
      round = run.nextRound();
      var g = round.gamma;
      current.textContent = "";
      current.setAttribute("data-round", String(round.index + 1));
      current.setAttribute("data-gamma", String(g));
      current.removeAttribute("data-accepted");
      current.removeAttribute("data-tokens");
      var items = [];
      for (var j = 0; j < g; j++) items.push(current.appendChild(tokenItem(j + 1)));
      var target = current.appendChild(targetItem(round));
      var t = 0;
      steps = [];
      phaseText.textContent = "Round " + (round.index + 1) + ": the draft proposes " + g + " token" + (g > 1 ? "s" : "") + ", one after another.";
      items.forEach(function (li, idx) {
        t += s.c;
        steps.push({ t: t, fn: function () { setToken(li, "drafted"); } });
      });
      var draftEnd = t;
      steps.push({ t: draftEnd, fn: function () {
        verifyBar.setAttribute("data-active", "true");
        phaseText.textContent = "The target scores all " + g + " drafts in one batched pass.";
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
          phaseText.textContent = "Rejected at position " + (round.rejectedAt + 1) + (round.discarded ? ": the " + round.discarded + " after it die unscored." : ".");
        } });
        extra += 1;
        steps.push({ t: judgeStart, ms: extra * JUDGE_MS, fn: function () {
          for (var m = round.rejectedAt + 1; m < g; m++) setToken(items[m], "discarded");
        } });
      }
      extra += 1.5;
      steps.push({ t: judgeStart, ms: extra * JUDGE_MS, fn: function () {
        setToken(target, "target", targetWords(round));
        current.setAttribute("data-accepted", String(round.accepted));
        current.setAttribute("data-tokens", String(round.tokens));
        phaseText.textContent = "Round " + (round.index + 1) + ": " + round.accepted + " accepted + 1 from the target = " + round.tokens + " token" + (round.tokens > 1 ? "s" : "") + ".";
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
      var row = renderRound(done, el("ol", "sd-round sd-round-past"));
      row.setAttribute("aria-label", "Round " + (done.index + 1) + ": " + done.tokens + " tokens");
      history.insertBefore(el("li", "sd-history-item"), history.firstChild).appendChild(row);
      while (history.children.length > HISTORY) history.removeChild(history.lastChild);
      updateTally();
      setClock(1);
      notify();
    }

    function setClock(frac) {
      var w = (100 * Math.max(0, Math.min(frac, 1))).toFixed(2) + "%";
      clockSpec.style.width = w;
      clockPlain.style.width = w;
    }

    /** Segment both clock bars on one time scale: gamma drafts of c and one
     * verification pass above; plain decoding's one-pass tokens below. */
    function drawSegments() {
      var s = store.get();
      var total = M.roundCost(s.gamma, s.c);
      var spec = clockSpec.parentNode.querySelector(".sd-segs");
      var plain = clockPlain.parentNode.querySelector(".sd-segs");
      spec.textContent = "";
      plain.textContent = "";
      function seg(parent, units, cls) {
        var span = el("span", "sd-seg " + cls);
        span.style.width = ((100 * units) / total).toFixed(3) + "%";
        parent.appendChild(span);
      }
      if (s.c > 0) for (var j = 0; j < s.gamma; j++) seg(spec, s.c, "sd-seg-draft");
      seg(spec, 1, "sd-seg-verify");
      for (var left = total; left > 1e-9; left -= 1) seg(plain, Math.min(1, left), left >= 1 ? "sd-seg-plain" : "sd-seg-plain sd-seg-part");
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
        history.textContent = "";
        phaseText.textContent = "Ran " + n + " rounds at once; the last one is shown.";
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

  root.SDAnimation = { create: create, renderRound: renderRound };
})(typeof self !== "undefined" ? self : this);
