/* sd-animation.js: the round animation and its running tally.
 *
 * Each round is decided up front by the seeded run (SpeculativeDecoding.model.createRun), then
 * played on the screen's clock by its timeline (sd-phases.js), the stage's
 * data-phase naming the phase:
 *
 *   worked (done) --Play/Step--> draft: word j appears, one after another
 *     --> verify: one target pass scores every draft at once
 *     --> decide: the pass's decisions read left to right; the first rejected
 *         word struck, the tail after it dies; the target's word last
 *     --> done: words join the text, tally, history --Play?--> (a hold) next round
 *
 * Nothing of the outcome is on screen before the verify phase ends: the target's
 * slot stays neutral ("target", no kind) until its word comes. "Step" plays one
 * round's phases and stops (a Step during a stepped round finishes it at once);
 * under Play a Step stops once the round in flight is decided. The speed select
 * scales the clock. Reduced motion: CSS drops transitions and the clock hands
 * jump from event to event; the phases still come one by one, in order.
 *
 * "worked": after load or a reset, the run's first round shown finished, not
 * counted (as without JavaScript); the first Step plays that round's phases. Words:
 * sd-words.js; plain decoding writes one word per whole pass, on the same clock.
 * A changed alpha, gamma, c or seed starts a fresh run (a link replays the same
 * rounds) at once; a slider's new worked round is drawn once the sliders rest
 * (frames.HOLD_MS), so a drag repaints the readout and the curve, not the stage.
 *
 * Per frame: one requestAnimationFrame loop, elapsed time capped, only the steps
 * due applied; clocks move by transform; nodes recycled, texts edited in place;
 * nothing reads layout. Registers SpeculativeDecoding.animation; touches the DOM
 * only from create() and the functions it is given nodes for.
 */
(function (root) {
  "use strict";
  // own property only: an element with this id is named on window too (see vega.js_namespace)
  var SD = Object.prototype.hasOwnProperty.call(root, "SpeculativeDecoding") ? root.SpeculativeDecoding : (root.SpeculativeDecoding = {});
  var M = SD.model;
  var W = SD.words;
  var T = SD.tokens;
  var P = SD.phases;
  var setText = SD.readout.setText;
  var el = T.el, tokenRow = T.tokenRow, setToken = T.setToken, setTarget = T.setTarget, setData = T.setData,
    renderRound = T.renderRound;

  var HISTORY = 6;

  var fmt = SD.readout.fmt;

  /**
   * create(rootEl, store): wires the stage inside rootEl. Returns a controller
   * { play, pause, toggle, step, skip(n), reset, setSpeed, run(), playing(), busy() }.
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
    var specText = stage.querySelector(".sd-text-spec");
    var plainText = stage.querySelector(".sd-text-plain");
    var words = W.stream((SD.data && SD.data.sentences) || { passages: [] });
    var plainShown = -1; // words the plain lane shows
    var roundStart = 0; // run time (target passes) when the round in flight began
    var tallyEls = {};
    Array.prototype.forEach.call(rootEl.querySelectorAll("[data-tally]"), function (d) {
      tallyEls[d.getAttribute("data-tally")] = d;
    });

    var lane = rootEl.querySelector("[data-out=lane]");
    var run, round, steps, tl, clock, raf, lastTs, mode = "idle", speed = 1, listeners = [];
    var drawn = ""; // the (gamma, c) the clock segments show
    var clockFrac = -1;
    var redrawTimer = 0; // a worked round waiting for the sliders to rest
    var restMs = root.ExplainerKit.frames.HOLD_MS; // how long they must rest (kit-frames.js, the kit's shared script)

    /** A fresh run for the store's setting; its worked round drawn now, or
     * (`atRest`) once no reset has come for restMs. */
    function reset(atRest) {
      var s = store.get();
      run = M.createRun(s.alpha, s.gamma, s.c, s.seed);
      round = null;
      steps = [];
      if (history.firstChild) history.textContent = "";
      if (verifyBar.getAttribute("data-active") !== "false") verifyBar.setAttribute("data-active", "false"); // (a slider's every input: no needless restyle)
      if (lane) setText(lane, "Speculative: draft " + s.gamma + " word" + (s.gamma > 1 ? "s" : "") + ", then one target pass");
      if (redrawTimer) root.clearTimeout(redrawTimer);
      redrawTimer = 0;
      if (atRest) redrawTimer = root.setTimeout(redraw, restMs);
      else redraw();
      updateTally();
      notify();
    }

    /** The stage for a fresh run: its clock segments and worked round. */
    function redraw() {
      redrawTimer = 0;
      drawSegments();
      worked();
    }

    /** A round is about to be shown: a worked round still waiting is not wanted,
     * but the clock must show the run's setting. */
    function settle() {
      if (!redrawTimer) return;
      root.clearTimeout(redrawTimer);
      redrawTimer = 0;
      drawSegments();
    }

    /** The worked round: the first round, from a copy of the run. */
    function worked() {
      var s = store.get();
      var first = M.createRun(s.alpha, s.gamma, s.c, s.seed).nextRound();
      var w = W.roundWords(words, 0, first.gamma, first.accepted);
      renderRound(first, current, w);
      current.setAttribute("data-worked", "true");
      setPhase("done", W.summary(0, first.gamma, first.accepted, w));
      showText(0, first.tokens);
      showPlain(M.roundCost(s.gamma, s.c));
      setClock(1);
    }

    /** The speculative lane's text: `count` words, this round's from `from` on. */
    function showText(from, count) {
      var p = W.textParts(words, from, count);
      specText.setAttribute("data-words", String(count));
      markCut(specText, count);
      setText(specText.querySelector(".sd-text-old"), p.old);
      setText(specText.querySelector(".sd-text-new"), p.fresh);
    }

    /** Both lanes cut their text the same way: the latest TEXT_WORDS words, an
     * ellipsis before them (CSS, from data-cut) once earlier ones are left out. */
    function markCut(p, count) {
      var cut = count > W.TEXT_WORDS ? "true" : "false";
      if (p.getAttribute("data-cut") !== cut) p.setAttribute("data-cut", cut);
    }

    /** The plain lane at `time` target passes. */
    function showPlain(time) {
      setText(plainCount, fmt(time, 1));
      var n = W.plainCount(time);
      if (n === plainShown) return;
      plainShown = n;
      plainText.setAttribute("data-words", String(n));
      markCut(plainText, n);
      setText(plainText.querySelector(".sd-text-old"), W.text(words, n));
    }

    function updateTally() {
      var vals = SD.readout.tallyValues(run, store.get());
      for (var k in vals) if (tallyEls[k]) setText(tallyEls[k], vals[k]);
    }

    function notify() {
      for (var i = 0; i < listeners.length; i++) listeners[i](run);
    }

    /** The stage's phase (data-phase: draft, verify, decide, done) and its line. */
    function setPhase(name, line) {
      if (stage.getAttribute("data-phase") !== name) stage.setAttribute("data-phase", name);
      if (line !== undefined) setText(phaseText, line);
    }

    /** Start the next round of the run: its timeline (sd-phases.js) as steps,
     * nothing of its outcome on screen until the verify phase has ended. */
    function beginRound() {
      settle();
      var s = store.get();
      var start = run.tokens; // the words this round writes follow the text so far
      roundStart = run.time;
      round = run.nextRound();
      var g = round.gamma;
      var w = W.roundWords(words, start, g, round.accepted);
      var items = tokenRow(current, g);
      var target = items.pop();
      current.removeAttribute("data-worked");
      setData(current, round, false);
      showText(start, start);
      tl = P.timeline(round, s.c);
      setPhase("draft", "Round " + (round.index + 1) + ": the draft proposes " + g + " word" + (g > 1 ? "s" : "") + ", one after another.");
      var done = round;
      var act = {
        draft: function (ev) { setToken(items[ev.pos], "drafted", w.drafts[ev.pos]); },
        verify: function () {
          verifyBar.setAttribute("data-active", "true");
          items.forEach(function (li) { li.setAttribute("data-scored", "true"); });
          setPhase("verify", "The target scores all " + g + " draft" + (g > 1 ? "s" : "") + " at once, in one pass.");
        },
        decide: function () {
          verifyBar.setAttribute("data-active", "false");
          setPhase("decide", "The pass has decided every position; its decisions are read left to right, up to the first rejection.");
        },
        accept: function (ev) { setToken(items[ev.pos], "accepted", w.drafts[ev.pos]); },
        reject: function (ev) {
          var word = w.drafts[ev.pos];
          setToken(items[ev.pos], "rejected", word);
          setText(phaseText, "“" + word + "” is rejected at position " + (ev.pos + 1) + (done.discarded ? (done.discarded === 1 ? ": the word after it dies untested." : ": the " + done.discarded + " words after it die untested.") : "."));
        },
        discard: function (ev) { for (var m = ev.pos; m < g; m++) setToken(items[m], "discarded", w.drafts[m]); },
        target: function () {
          setTarget(target, done, w);
          setData(current, done, true);
          showText(start, w.next);
          setPhase("done", W.summary(done.index, g, done.accepted, w));
          finishRound(done);
        },
        done: function () {},
      };
      steps = tl.events.map(function (ev) { return { ms: ev.ms, ev: ev, fn: function () { act[ev.type](ev); } }; });
      clock = 0;
    }

    /** The decided round joins the history and the tally; the clocks show its whole cost. */
    function finishRound(done) {
      round = null;
      // the oldest history row is recycled as the newest
      var item = history.children.length >= HISTORY ? history.lastElementChild : el("li", "sd-history-item");
      var row = item.firstElementChild || item.appendChild(el("ol", "sd-round sd-round-past"));
      renderRound(done, row, W.roundWords(words, run.tokens - done.tokens, done.gamma, done.accepted));
      row.setAttribute("aria-label", "Round " + (done.index + 1) + ": " + done.tokens + " tokens");
      history.insertBefore(item, history.firstChild);
      updateTally();
      showPlain(run.time);
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

    /** Apply every step due at the round's screen clock (ms at speed 1). */
    function advance(dtMs) {
      clock += dtMs * speed;
      var shown = -1; // the screen time the clocks show: now, or under reduced motion the last event's
      while (steps.length && steps[0].ms <= clock) {
        var st = steps.shift();
        shown = st.ms;
        st.fn();
      }
      if (round) {
        if (!still()) shown = clock;
        if (shown >= 0) {
          var units = P.modelTime(tl, shown);
          setClock(units / tl.cost);
          showPlain(roundStart + units); // plain decoding on the same clock
        }
      }
    }

    /** Whether the reader asked for reduced motion: the phases still come in order,
     * but the clock hands jump from event to event instead of sliding. */
    function still() {
      return !!(root.matchMedia && root.matchMedia("(prefers-reduced-motion: reduce)").matches);
    }

    function frame(ts) {
      raf = 0;
      if (mode === "idle") return;
      var dt = lastTs === undefined ? 16 : Math.min(ts - lastTs, 100);
      lastTs = ts;
      if (!steps.length) {
        if (mode === "step") return stop();
        beginRound();
      }
      advance(dt);
      if (mode === "step" && !round) return stop(); // a stepped round ends once decided
      raf = root.requestAnimationFrame(frame);
    }

    function animate(next) {
      mode = next;
      lastTs = undefined;
      if (!raf) raf = root.requestAnimationFrame(frame);
      notify();
    }

    function stop() {
      mode = "idle";
      if (raf) root.cancelAnimationFrame(raf);
      raf = 0;
      if (!round) steps = []; // a decided round's hold is not kept
      notify();
    }

    function play() {
      if (mode !== "play") animate("play");
    }

    function pause() {
      if (mode !== "idle") stop();
    }

    /** Play one round's phases, then stop. Under Play: stop once the round in
     * flight is decided. During a stepped round: finish it now. */
    function step() {
      if (mode === "step" && round) {
        while (round && steps.length) steps.shift().fn();
        return stop();
      }
      if (!round) {
        steps = [];
        beginRound();
      }
      animate("step");
    }

    /** Run n rounds at once (no animation): the tally converges to theory. */
    function skip(n) {
      pause();
      settle();
      while (round && steps.length) steps.shift().fn();
      steps = [];
      var last = null, start = 0;
      for (var i = 0; i < n; i++) {
        start = run.tokens;
        last = run.nextRound();
      }
      if (last) {
        var w = W.roundWords(words, start, last.gamma, last.accepted);
        renderRound(last, current, w);
        current.removeAttribute("data-worked");
        showText(start, w.next);
        if (history.firstChild) history.textContent = "";
        setPhase("done", "Ran " + n + " rounds at once; the last one is shown.");
      }
      updateTally();
      showPlain(run.time);
      setClock(1);
      notify();
    }

    store.subscribe(function (s, changed) {
      var fresh = changed.some(function (k) { return k === "alpha" || k === "gamma" || k === "c" || k === "seed"; });
      // a new seed is a button press, drawn at once; a setting may be a drag
      if (fresh) reset(changed.indexOf("seed") < 0);
    });

    reset();
    return {
      play: play,
      pause: pause,
      toggle: function () { if (mode === "play") pause(); else play(); },
      step: step,
      skip: skip,
      reset: function () { reset(); },
      setSpeed: function (x) { speed = x; },
      run: function () { return run; },
      playing: function () { return mode === "play"; },
      busy: function () { return mode !== "idle"; },
      onChange: function (fn) { listeners.push(fn); },
    };
  }

  SD.animation = { create: create, fmt: fmt, WORDS: T.WORDS };
})(typeof self !== "undefined" ? self : this);
