"""The explainer read in order, in real headless Chromium: the plain
introduction before the figure, a finished worked round on load (with and
without JavaScript), real words on the tokens of both lanes, plain decoding
writing one word per target pass in step with the clock, and one pass scoring
every draft before the decisions are read left to right.

State is read from the DOM and the test hook SpeculativeDecoding.instance;
no test asserts a timing (waits are for conditions)."""

from __future__ import annotations

import pytest

from conftest_explainer import Watch, need, step_round

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - reported by need()
    Axe = None

pytestmark = pytest.mark.browser

PATH = "speculative-decoding/index.html"
READY = ".sd-explainer[data-ready]"
SETTING = "?alpha=0.6&gamma=6&c=0.1&seed=7"

ROW = """() => {
  const ol = document.querySelector('.sd-round-current');
  const tok = [...ol.querySelectorAll('.sd-tok')].map(li => ({
    state: li.dataset.state, kind: li.dataset.kind || null, scored: li.dataset.scored || null,
    word: li.querySelector('.sd-word').textContent, spoken: li.querySelector('.sd-vh').textContent, read: li.textContent, hidden: !!li.querySelector('[aria-hidden]'),
    strike: getComputedStyle(li.querySelector('.sd-word')).textDecorationLine,
    dying: getComputedStyle(li).animationName }));
  const spec = document.querySelector('.sd-text-spec'), plain = document.querySelector('.sd-text-plain');
  return { round: ol.dataset.round || null, accepted: ol.dataset.accepted === undefined ? null : +ol.dataset.accepted,
           tokens: ol.dataset.tokens === undefined ? null : +ol.dataset.tokens, worked: ol.dataset.worked || null, tok,
           phase: document.querySelector('.sd-phase').textContent,
           text: spec.querySelector('.sd-text-old').textContent.split(' ').concat(
                 spec.querySelector('.sd-text-new').textContent.split(' ')).filter(Boolean),
           fresh: spec.querySelector('.sd-text-new').textContent.split(' ').filter(Boolean),
           specWords: spec.dataset.words === undefined ? null : +spec.dataset.words,
           plainWords: plain.dataset.words === undefined ? null : +plain.dataset.words,
           plainText: plain.querySelector('.sd-text-old').textContent.split(' ').filter(Boolean),
           plainCount: document.querySelector('.sd-plain-count').textContent,
           rounds: document.querySelector('[data-tally=rounds]').textContent };
}"""

STREAM = "SpeculativeDecoding.words.stream(SpeculativeDecoding.data.sentences)"


def new_page(browser, **args):
    context = browser.new_context(**args)
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page


def assert_finished(row, gamma):
    """A finished round: the accepted prefix, at most one rejection, its tail
    discarded, the target's word last; every token carries a word."""
    states = [t["state"] for t in row["tok"]]
    k = row["accepted"]
    assert len(states) == gamma + 1 and states[-1] == "target"
    assert states[:k] == ["accepted"] * k
    if k < gamma:
        assert states[k] == "rejected" and states[k + 1:-1] == ["discarded"] * (gamma - k - 1)
    assert row["tokens"] == k + 1
    # a screen reader reads each token's word, then its state in words (the hidden text)
    assert all(t["word"] and t["spoken"] and not t["hidden"] and t["word"] in t["read"] and t["read"].endswith(t["spoken"])
               for t in row["tok"]), row["tok"]


@pytest.mark.parametrize("javascript", [False, True])
def test_the_introduction_comes_before_the_figure(browser, built_site, javascript):
    context, page = new_page(browser, java_script_enabled=javascript, viewport={"width": 1280, "height": 900})
    page.goto((built_site / PATH).as_uri())
    if javascript:
        page.wait_for_selector(READY, state="attached")
    order = page.evaluate("""() => {
      const opening = document.querySelector('.prose-opening'), figure = document.querySelector('#sd-explainer');
      const heading = document.querySelector('.prose h2');
      const before = (a, b) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
      return { paragraphs: opening.querySelectorAll('p').length, text: opening.textContent,
               openingFirst: before(opening, figure), headingAfter: before(figure, heading), heading: heading.textContent,
               top: [opening.getBoundingClientRect().top, figure.getBoundingClientRect().top] }; }""")
    assert 1 <= order["paragraphs"] <= 2
    assert order["openingFirst"] and order["headingAfter"], order
    assert order["heading"] == "Why there is room to speed anything up"
    assert order["top"][0] < order["top"][1]
    assert "above" not in order["text"], "the introduction comes before the figure: nothing is above it"
    context.close()


def test_a_finished_round_on_load_without_javascript(browser, built_site):
    context, page = new_page(browser, java_script_enabled=False)
    page.goto((built_site / PATH).as_uri())
    row = page.evaluate(ROW)
    assert_finished(row, 5)
    assert row["phase"].startswith("Round 1: ")
    assert row["text"] == row["fresh"] and len(row["text"]) == row["tokens"]
    assert row["plainCount"] == "1.3" and len(row["plainText"]) == 1
    assert row["plainText"][0] == row["text"][0], "both lanes write the same sentence"
    context.close()


def test_a_finished_round_on_load_with_javascript_the_same_as_without(browser, built_site, http_server):
    context, page = new_page(browser, java_script_enabled=False)
    page.goto((built_site / PATH).as_uri())
    static = page.evaluate(ROW)
    context.close()
    context, page = new_page(browser)
    watch = Watch(page, (http_server.url,))
    page.goto(f"{http_server.url}/{PATH}")
    page.wait_for_selector(READY, state="attached")
    live = page.evaluate(ROW)
    assert live["worked"] == "true" and live["rounds"] == "0", "shown, not yet counted"
    for key in ("accepted", "tokens", "phase", "text", "plainText", "plainCount"):
        assert live[key] == static[key], key
    assert live["specWords"] == live["tokens"] and live["plainWords"] == 1
    assert [(t["state"], t["word"], t["spoken"]) for t in live["tok"]] == \
        [(t["state"], t["word"], t["spoken"]) for t in static["tok"]]
    # another setting: the worked round is that setting's first round (once the slider
    # rests: see the next test), until the reader runs rounds
    page.evaluate("() => { const i = document.querySelector('#sd-gamma'); i.value = '9'; i.dispatchEvent(new Event('input', {bubbles: true})); }")
    page.wait_for_function("() => document.querySelector('.sd-round-current').dataset.gamma === '9'")
    row = page.evaluate(ROW)
    assert row["worked"] == "true"
    assert_finished(row, 9)
    step_round(page)
    row = page.evaluate(ROW)
    assert row["worked"] is None and row["rounds"] == "1"
    assert "Press play" not in row["phase"]
    watch.assert_clean()
    context.close()


DRAG = """async (values) => {
  const input = document.querySelector('#sd-gamma'), ol = document.querySelector('.sd-round-current'), seen = [];
  for (const v of values) {
    input.value = String(v); input.dispatchEvent(new Event('input', {bubbles: true}));
    await new Promise(r => requestAnimationFrame(r));
    seen.push({ stage: ol.dataset.gamma, rounds: document.querySelector('[data-tally=rounds]').textContent,
                lane: document.querySelector('[data-out=lane]').textContent });
  }
  return seen;
}"""


def test_a_drag_redraws_the_stage_once_the_slider_rests(browser, http_server):
    """While a slider moves the stage keeps its round (a drag repaints the readout
    and the curve, not the stage, every frame) but the run is already the new
    setting's; once the slider rests the new worked round is drawn. A Step taken
    before then shows the new setting's round, and the waiting redraw never
    overwrites it."""
    context, page = new_page(browser)
    watch = Watch(page, (http_server.url,))
    page.goto(f"{http_server.url}/{PATH}{SETTING}")
    page.wait_for_selector(READY, state="attached")
    step_round(page)
    assert page.evaluate(ROW)["rounds"] == "1"
    seen = page.evaluate(DRAG, [7, 8, 9, 10, 11])
    assert [s["stage"] for s in seen] == ["6"] * 5, "the stage waits for the slider to rest"
    assert {s["rounds"] for s in seen} == {"0"}, "the run (and its tally) is the new setting's at once"
    assert seen[-1]["lane"].startswith("Speculative: draft 11 words")
    page.wait_for_function("() => document.querySelector('.sd-round-current').dataset.gamma === '11'")
    row = page.evaluate(ROW)
    assert row["worked"] == "true" and row["rounds"] == "0"
    assert_finished(row, 11)
    # a step before the slider rests: the new setting's round, and it stays
    page.evaluate(DRAG, [4])
    step_round(page)
    row = page.evaluate(ROW)
    assert row["worked"] is None and row["rounds"] == "1" and len(row["tok"]) == 5, row
    page.wait_for_timeout(600)  # past any redraw that was waiting
    after = page.evaluate(ROW)
    assert after["worked"] is None and after["tok"] == row["tok"] and after["phase"] == row["phase"]
    clock = page.evaluate("document.querySelectorAll('.sd-clock-spec .sd-seg').length")
    assert clock == 4 + 1, "the clock shows the new depth's draft segments and its pass"
    watch.assert_clean()
    context.close()


def test_real_words_after_a_step(browser, http_server):
    context, page = new_page(browser)
    watch = Watch(page, (http_server.url,))
    page.goto(f"{http_server.url}/{PATH}{SETTING}")
    page.wait_for_selector(READY, state="attached")
    stream = page.evaluate(f"{STREAM}.map(p => p[0])")
    drafts = page.evaluate(f"{STREAM}.map(p => p[1])")
    done = 0
    seen_rejection = False
    for _ in range(6):
        step_round(page)
        row = page.evaluate(ROW)
        assert_finished(row, 6)
        k, tok = row["accepted"], row["tok"]
        start = done
        done += row["tokens"]
        assert [t["word"] for t in tok[:k]] == stream[start:start + k], "accepted words are the sentence's"
        assert row["fresh"] == stream[start:done] and row["text"][-len(row["fresh"]):] == row["fresh"], \
            "the accepted prefix and the target's word join the text"
        assert all(t["strike"] == "none" for t in tok[:k])
        if k < 6:
            seen_rejection = True
            rejected, target = tok[k], tok[-1]
            assert rejected["word"] == drafts[start + k] != target["word"] == stream[start + k]
            assert "line-through" in rejected["strike"], "the rejected word is struck"
            assert target["kind"] == "correction" and f"in place of “{rejected['word']}”" in target["spoken"]
            tail = tok[k + 1:-1]
            assert [t["word"] for t in tail] == stream[start + k + 1:start + 6], "the tail: words that might have been right"
            assert all(t["dying"] == "sd-die" and "line-through" in t["strike"] for t in tail), tail
            assert f"“{rejected['word']}” was rejected; the target wrote “{target['word']}” instead" in row["phase"]
        assert row["specWords"] == done == page.evaluate("SpeculativeDecoding.instance.animation.run().tokens")
    assert seen_rejection
    # history rows carry their words too, for screen readers: visually hidden, but
    # rendered (innerText leaves out what display: none takes from the accessibility tree)
    read = page.evaluate("[...document.querySelectorAll('.sd-history .sd-tok')].map(e => [e.querySelector('.sd-word').textContent, e.querySelector('.sd-vh').textContent, e.innerText])")
    assert len(read) == 6 * 7 and all(word and state and word in spoken for word, state, spoken in read)
    watch.assert_clean()
    context.close()


def test_the_bonus_word_on_full_acceptance(browser, http_server):
    context, page = new_page(browser)
    page.goto(f"{http_server.url}/{PATH}?alpha=0.9&gamma=3&c=0.1&seed=11")
    page.wait_for_selector(READY, state="attached")
    stream = page.evaluate(f"{STREAM}.map(p => p[0])")
    for _ in range(20):  # seeded: the same rounds every time
        step_round(page)
        row = page.evaluate(ROW)
        if row["accepted"] == 3:
            break
    else:
        pytest.fail("no full acceptance in 20 seeded rounds at alpha 0.9")
    start = page.evaluate("SpeculativeDecoding.instance.animation.run().tokens") - 4
    target = row["tok"][-1]
    assert target["kind"] == "bonus" and target["word"] == stream[start + 3]
    assert [t["word"] for t in row["tok"][:3]] == stream[start:start + 3]
    assert row["fresh"] == stream[start:start + 4]
    assert "bonus word" in target["spoken"] and f"bonus word, “{target['word']}”" in row["phase"]
    context.close()


def test_plain_decoding_writes_one_word_per_pass_in_step_with_the_clock(browser, http_server):
    context, page = new_page(browser)
    page.goto(f"{http_server.url}/{PATH}{SETTING}&speed=0.5")
    page.wait_for_selector(READY, state="attached")
    stream = page.evaluate(f"{STREAM}.map(p => p[0])")
    for _ in range(3):
        step_round(page)
    run = page.evaluate("(() => { const r = SpeculativeDecoding.instance.animation.run(); return {time: r.time, passes: r.targetPasses}; })()")
    row = page.evaluate(ROW)
    assert row["plainCount"] == f"{run['time']:.1f}" and page.inner_text("[data-tally=time]") == f"{run['time']:.2f}"
    assert row["plainWords"] == int(run["time"] + 1e-9) == 4  # 3 rounds of 1.6 passes: 4 whole passes, 4 words
    assert row["plainText"] == stream[:4][-len(row["plainText"]):]
    # mid-round, the counter runs with the clock instead of lagging a round behind
    page.click("[data-action=play]")
    page.wait_for_function("""() => { const ol = document.querySelector('.sd-round-current');
      const r = SpeculativeDecoding.instance.animation.run();
      return ol.dataset.accepted === undefined && r.rounds === 4
        && parseFloat(document.querySelector('.sd-plain-count').textContent) > 5.0; }""")
    page.click("[data-action=play]")  # pause mid-round
    row = page.evaluate(ROW)
    if row["accepted"] is None:  # still in flight (the pause may land after it finished)
        shown = float(row["plainCount"])
        assert 4.8 < shown <= 6.4 + 1e-9, shown  # past the last round's end (4.8), within this one
        assert row["plainWords"] in (int(shown), int(shown) - 1, int(shown) + 1) and row["plainWords"] >= 5
        assert len(row["plainText"]) == row["plainWords"]
    context.close()


def test_one_pass_scores_every_draft_before_the_decisions(browser, http_server):
    context, page = new_page(browser)
    page.goto(f"{http_server.url}/{PATH}{SETTING}&speed=0.5")
    page.wait_for_selector(READY, state="attached")
    page.click("[data-action=play]")
    page.wait_for_function("""() => { if (document.querySelector('.sd-verify').dataset.active !== 'true') return false;
      window.__scoring = [...document.querySelectorAll('.sd-round-current .sd-tok:not(.sd-target)')]
        .map(li => [li.dataset.state, li.dataset.scored, li.querySelector('.sd-word').textContent]);
      window.__phase = document.querySelector('.sd-phase').textContent; return true; }""")
    scoring = page.evaluate("window.__scoring")
    assert len(scoring) == 6 and all(s == ["drafted", "true", s[2]] and s[2] for s in scoring), scoring
    assert "all 6 drafts at once, in one pass" in page.evaluate("window.__phase")
    page.wait_for_function("() => document.querySelector('.sd-phase').textContent.startsWith('The pass has decided every position')")
    assert "left to right" in page.inner_text(".sd-phase")
    page.click("[data-action=play]")
    assert "scores every draft at once" in page.inner_text(".sd-verify")
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_axe_violation_with_words_after_a_step(browser, http_server, scheme):
    need(Axe is not None, "axe-playwright-python is not installed")
    context, page = new_page(browser, viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page.goto(f"{http_server.url}/{PATH}{SETTING}")
    page.wait_for_selector(READY, state="attached")
    for _ in range(3):
        step_round(page)
    page.wait_for_timeout(800)  # the discarded tail's animation has ended: axe reads final colours
    violations = Axe().run(page, context=".sd-stage").response["violations"]
    assert [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations] == []
    context.close()
