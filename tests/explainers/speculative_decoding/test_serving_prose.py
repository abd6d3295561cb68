"""Every number the page's serving prose quotes, recomputed from the model
(issue 34): a number that drifts from the model, or a claim past what fits in
memory, fails here. The prose is content/terms/speculative-decoding.md; the
model is serving_panel.describe at the states the prose names."""

from __future__ import annotations

import re
from pathlib import Path

from site_builder.explainers.speculative_decoding import serving_panel
from site_builder.explainers.speculative_decoding.page import DEFAULTS
from site_builder.explainers.speculative_decoding import serving_presets
from site_builder.explainers.speculative_decoding.serving_presets import PAIRINGS

PROSE = (Path(__file__).resolve().parents[3] / "content" / "terms" / "speculative-decoding.md").read_text(encoding="utf-8")
PAIRS = {p.id: p for p in PAIRINGS}


def paragraph(start: str) -> str:
    return next(p for p in PROSE.split("\n\n") if p.startswith(start))


CONTEXT = paragraph("Context length pulls the other way.")


def quoted(n: int) -> str:
    return f"{n:,}"


def test_the_small_kv_draft_claims_no_more_than_what_fits():
    pair = PAIRS["llama-3.1-70b-3.2-1b"]
    d = serving_panel.describe({**DEFAULTS, "pair": pair.id, "c": pair.c, "ctx": 32768})
    assert d["break_even"] is None  # "no slowdown at any batch up to 4,096"
    assert f"no slowdown at any batch up to {quoted(serving_panel.MAX_BATCH)}" in CONTEXT
    assert f"hold only {d['fit']} such sequences" in CONTEXT
    assert "paying at every batch up to" not in CONTEXT


def test_the_default_draft_and_the_named_one_each_get_their_own_numbers():
    # the panel's draft at the figure's c: c x the target, with the named draft's KV cache
    default = serving_panel.describe({**DEFAULTS, "ctx": 4096})
    pair = PAIRS[DEFAULTS["pair"]]
    draft_billions = DEFAULTS["c"] * serving_presets.model(pair.target).params / 1e9
    assert f"a {draft_billions:.2f}-billion-parameter draft with {serving_presets.model(pair.draft).label}'s cache" in CONTEXT
    assert f"at the figure's $c = {DEFAULTS['c']}$" in CONTEXT
    assert f"hold {quoted(default['fit'])} sequences while the first slowdown would come at batch {quoted(default['break_even'])}" in CONTEXT
    assert default["break_even"] > default["fit"]  # "can never get busy enough"
    real = serving_panel.describe({**DEFAULTS, "c": pair.c, "ctx": 4096})
    assert f"as the draft gives {quoted(real['fit'])} and {quoted(real['break_even'])}" in CONTEXT


def test_the_llama2_draft_hurts_within_ten_sequences():
    pair = PAIRS["llama-2-70b-7b"]
    d = serving_panel.describe({**DEFAULTS, "pair": pair.id, "c": pair.c, "ctx": 32768})
    assert d["break_even"] is not None and d["break_even"] <= 10
    assert "turns into a slowdown within the first ten sequences at 32,768 tokens" in PROSE


def test_the_pairing_select_names_the_draft_the_panel_uses():
    for p in PAIRINGS:
        assert "a draft of c × the target" in p.label and f"c = {p.c:.3f}" in p.label, p.label
