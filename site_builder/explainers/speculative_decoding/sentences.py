"""The words on the round animation's tokens, and the worked round drawn without JavaScript.

Both lanes write one fixed sentence (``sentences.json``, read here and written
into the widget's script for ``static/sd-words.js``, which does the same
assignment in the browser; a node test compares the two). The passages run on
as one endless stream of words; a round starting at word ``start`` shows:

- accepted drafts: the stream's own words, which join the text;
- the rejected draft: the draft's wrong guess at that position (struck), and
  the target's correction, the stream's word there;
- the discarded tail: the stream's next words, which might have been right
  and go anyway (they were drafted after a wrong word);
- on full acceptance, the bonus: the word after the last draft.

Which drafts are accepted is the seeded run's (``sampler.simulate_rounds``,
the page's alpha): the words are illustration, the maths is unchanged.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from .sampler import simulate_rounds
from .serving_panel import fixed

CORPUS = json.loads(Path(__file__).with_name("sentences.json").read_text(encoding="utf-8"))
"""The passages: ``{"text": ..., "drafts": ...}``, the same number of words in each."""

TEXT_WORDS = 6
"""The text lines show at most this many of their latest words (as sd-words.js)."""


def stream(corpus: dict = CORPUS) -> list[tuple[str, str]]:
    """(target word, draft's wrong word) for every position of the passages, in order."""
    return [pair for p in corpus["passages"] for pair in zip(p["text"].split(), p["drafts"].split())]


def round_words(words: list[tuple[str, str]], start: int, gamma: int, accepted: int) -> dict:
    """The words of one round that starts at stream position ``start`` and keeps
    ``accepted`` of its ``gamma`` drafts (as sd-words.js roundWords)."""
    n = len(words)
    at = [words[(start + j) % n] for j in range(gamma + 1)]
    drafts = [at[j][1] if j == accepted else at[j][0] for j in range(gamma)]
    return {"drafts": drafts, "target": at[accepted][0],
            "replaces": at[accepted][1] if accepted < gamma else None, "next": start + accepted + 1}


def text(words: list[tuple[str, str]], count: int) -> str:
    """The last ``TEXT_WORDS`` of the first ``count`` words of the stream, joined
    (as sd-words.js text)."""
    return " ".join(words[k % len(words)][0] for k in range(max(0, count - TEXT_WORDS), count))


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def summary(index: int, gamma: int, accepted: int, w: dict) -> str:
    """The phase line for a finished round, its count then its words (as sd-words.js summary)."""
    head = f"Round {index + 1}: {accepted} accepted + 1 from the target = {_plural(accepted + 1, 'token', 'tokens')}. "
    if accepted == gamma:
        return head + f"Every draft passed, so the target adds a bonus word, “{w['target']}”."
    tail = gamma - accepted - 1
    rest = (f"; the {_plural(tail, 'word', 'words')} drafted after it {'is' if tail == 1 else 'are'} discarded untested."
            if tail else ".")
    return head + f"“{w['drafts'][accepted]}” was rejected; the target wrote “{w['target']}” instead" + rest


STATES = {
    "accepted": ("✓", "accepted"),
    "rejected": ("✗", "rejected by the target"),
    "discarded": ("⊘", "discarded: drafted after the rejected word, never tested"),
}


def spoken(state: str, replaces: str | None = None) -> str:
    """A token's state in words, read after its word (as sd-words.js spoken)."""
    if state == "bonus":
        return "bonus word from the target, every draft was accepted"
    return f"the target's correction, in place of “{replaces}”" if state == "correction" else STATES[state][1]


def worked_round(alpha: float, gamma: int, c: float, seed: int) -> dict:
    """The first round of the seeded run, worked in full for the markup: each
    draft's word and state, the target's word, the text both lanes have written
    by the end of it (plain decoding: one word per target pass on the same clock)."""
    r = simulate_rounds(alpha, gamma, 1, seed)
    accepted = int(r.accepted[0])
    words = stream()
    w = round_words(words, 0, gamma, accepted)
    drafts = []
    for j, word in enumerate(w["drafts"]):
        state = "accepted" if j < accepted else "rejected" if j == accepted else "discarded"
        drafts.append({"state": state, "glyph": STATES[state][0], "word": word, "words": spoken(state)})
    bonus = accepted == gamma
    kind = "bonus" if bonus else "correction"
    target = {"kind": kind, "glyph": "★" if bonus else "↺", "num": "bonus" if bonus else "fix", "word": w["target"],
              "words": spoken(kind, w["replaces"])}
    cost = 1 + gamma * c
    plain = math.floor(cost + 1e-9)
    return {"accepted": accepted, "phase": summary(0, gamma, accepted, w), "drafts": drafts, "target": target,
            "tokens": accepted + 1, "text": text(words, accepted + 1),
            "plain_text": text(words, plain), "plain_count": fixed(cost, 1)}
