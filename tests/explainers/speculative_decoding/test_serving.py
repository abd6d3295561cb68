"""The serving-under-load roofline model against independent computations: scalar loops, brute force, known values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from site_builder.explainers.speculative_decoding import speedup
from site_builder.explainers.speculative_decoding import serving_presets as sp
from site_builder.explainers.speculative_decoding.serving import (
    MAX_BATCH,
    best_gamma_at_batch,
    break_even_batch,
    memory_bound_cost,
    memory_footprint,
    ridge_batch,
    speedup_at_batch,
    step_time,
)

TOL = 1e-12  # the model's TIE_RTOL, restated: the tests must not import the rule they check

# H100 SXM as the issue's scale check assumes it: 3.35 TB/s, dense BF16 989.4 TFLOP/s, BF16 weights
H100 = {"bytes_per_param": 2, "bandwidth": 3.35e12, "flops": 989.4e12}
ISSUE = {"target_params": 70e9, "draft_params": 7e9, **H100}


# -- the independent computation: plain Python floats, no numpy, no module helpers ------------------------------


def t_pass(P, B, T, kv, b, BW, F):
    return max((P * b + B * kv) / BW, 2.0 * P * B * T / F)


def e_sum(alpha, gamma):
    return sum(alpha**k for k in range(gamma + 1))


def s_direct(alpha, gamma, B, Pt, Pd, b, BW, F, kvt=0.0, kvd=0.0):
    if gamma == 0:
        return 1.0
    plain = t_pass(Pt, B, 1, kvt, b, BW, F)
    rnd = gamma * t_pass(Pd, B, 1, kvd, b, BW, F) + t_pass(Pt, B, gamma + 1, kvt, b, BW, F)
    return e_sum(alpha, gamma) * plain / rnd


def kw_to_args(kw):
    return (kw["target_params"], kw["draft_params"], kw["bytes_per_param"], kw["bandwidth"], kw["flops"],
            kw.get("target_kv_bytes", 0.0), kw.get("draft_kv_bytes", 0.0))


def s_kw(alpha, gamma, B, kw):
    Pt, Pd, b, BW, F, kvt, kvd = kw_to_args(kw)
    return s_direct(alpha, gamma, B, Pt, Pd, b, BW, F, kvt, kvd)


def brute_break_even(alpha, gamma, kw, tol=TOL):
    for B in range(1, 4097):
        if s_kw(alpha, gamma, B, kw) < 1.0 - tol:
            return B
    return None


def brute_speedups(alpha, B, kw, max_gamma=64):
    return [s_kw(alpha, g, B, kw) for g in range(max_gamma + 1)]


def brute_best_gamma(alpha, B, kw, max_gamma=64):
    s = brute_speedups(alpha, B, kw, max_gamma)
    best = max(s)
    g = next(i for i, v in enumerate(s) if v >= best * (1.0 - TOL))
    return g, s[g]


alphas = st.floats(0.0, 1.0)
depths = st.integers(0, 20)
batches = st.integers(1, 4096)


@st.composite
def systems(draw, kv=True):
    """A random target/draft pair on random hardware; drafts up to 1.5x the target, KV up to 1e9 bytes."""
    pt = draw(st.floats(1e8, 1e12))
    pd = pt * draw(st.floats(0.0, 1.5))
    out = {"target_params": pt, "draft_params": pd, "bytes_per_param": draw(st.sampled_from([0.5, 1, 2, 4])),
           "bandwidth": draw(st.floats(1e11, 1e13)), "flops": draw(st.floats(1e13, 1e16))}
    if kv:
        out["target_kv_bytes"] = draw(st.one_of(st.just(0.0), st.floats(0.0, 1e9)))
        out["draft_kv_bytes"] = draw(st.one_of(st.just(0.0), st.floats(0.0, 1e9)))
    return out


# -- step_time ----------------------------------------------------------------------------------------------


@given(st.floats(0, 1e12), st.floats(0, 4096), st.floats(0, 64), st.floats(0, 1e9), st.sampled_from([1, 2]),
       st.floats(1e11, 1e13), st.floats(1e13, 1e16))
def test_step_time_matches_direct_roofline(P, B, T, kv, b, BW, F):
    got = float(step_time(P, B, T, kv, bytes_per_param=b, bandwidth=BW, flops=F))
    assert got == pytest.approx(t_pass(P, B, T, kv, b, BW, F), rel=1e-12, abs=0.0)


def test_step_time_broadcasts_like_a_ufunc():
    P = np.array([[1e9], [7e9], [70e9]])
    B = np.array([1.0, 10.0, 100.0, 1000.0])
    got = step_time(P, B, 6, 327680 * 4096, **H100)
    assert got.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            assert got[i, j] == pytest.approx(t_pass(P[i, 0], B[j], 6, 327680 * 4096, 2, 3.35e12, 989.4e12), rel=1e-12)
    assert step_time(70e9, 1, 1, 0, **H100).shape == ()


def test_step_time_known_values():
    # batch 1, no KV: reading 140 GB at 3.35 TB/s
    assert float(step_time(70e9, 1, 1, 0, **H100)) == pytest.approx(140e9 / 3.35e12, rel=1e-15)
    # batch 1000: 2 * 70e9 * 1000 FLOPs at 989.4 TFLOP/s, compute-bound
    assert float(step_time(70e9, 1000, 1, 0, **H100)) == pytest.approx(1.4e14 / 989.4e12, rel=1e-15)
    assert float(step_time(0, 5, 3, 0, **H100)) == 0.0


# -- speedup_at_batch ---------------------------------------------------------------------------------------


@settings(max_examples=300)
@given(alphas, depths, st.one_of(batches, st.floats(1.0, 4096.0)), systems())
def test_speedup_matches_direct_scalar_evaluation(alpha, gamma, B, kw):
    got = float(speedup_at_batch(alpha, gamma, B, **kw))
    assert got == pytest.approx(s_kw(alpha, gamma, B, kw), rel=1e-12, abs=0.0)


def test_speedup_broadcasts_over_alpha_gamma_batch_and_models():
    a = np.array([0.0, 0.5, 0.8, 1.0])[:, None, None]
    g = np.array([0, 1, 5])[None, :, None]
    B = np.array([1, 49, 157, 4096])[None, None, :]
    got = speedup_at_batch(a, g, B, **ISSUE)
    assert got.shape == (4, 3, 4)
    for i, ai in enumerate(a.ravel()):
        for j, gj in enumerate(g.ravel()):
            for k, bk in enumerate(B.ravel()):
                assert got[i, j, k] == pytest.approx(s_kw(ai, int(gj), bk, ISSUE), rel=1e-12)
    # array-valued model sizes broadcast too
    pd = np.array([0.0, 7e9, 70e9])
    got = speedup_at_batch(0.8, 5, 100, target_params=70e9, draft_params=pd, **H100)
    assert got.shape == (3,)
    assert list(got) == pytest.approx([s_direct(0.8, 5, 100, 70e9, p, 2, 3.35e12, 989.4e12) for p in pd], rel=1e-12)


def test_gamma_zero_is_plain_decoding_exactly():
    for kw in (ISSUE, {**ISSUE, "target_kv_bytes": 1e9, "draft_kv_bytes": 5e8}):
        s = speedup_at_batch(np.linspace(0, 1, 11)[:, None], 0, np.arange(1, 4097)[None, :], **kw)
        assert np.all(s == 1.0)
        assert break_even_batch(0.3, 0, **kw) is None
    assert best_gamma_at_batch(0.0, 1, **ISSUE) == (0, 1.0)


def test_alpha_edges():
    # alpha = 1: E = gamma + 1, so at batch 1 (memory-bound) S = (gamma + 1) / (1 + gamma c)
    for g in range(1, 20):
        assert float(speedup_at_batch(1.0, g, 1, **ISSUE)) == pytest.approx((g + 1) / (1 + g * 0.1), rel=1e-12)
    # alpha = 0: one token per round whatever gamma, so every depth is a slowdown from batch 1
    for g in range(1, 20):
        s = float(speedup_at_batch(0.0, g, 1, **ISSUE))
        assert s == pytest.approx(1 / (1 + g * 0.1), rel=1e-12) and s < 1
        assert break_even_batch(0.0, g, **ISSUE) == 1
    assert best_gamma_at_batch(0.0, 1, **ISSUE) == (0, 1.0)
    assert best_gamma_at_batch(0.0, 4096, **ISSUE) == (0, 1.0)


def test_draft_as_large_as_the_target():
    kw = {**H100, "target_params": 70e9, "draft_params": 70e9}
    # memory-bound: a round costs gamma + 1 passes, so S = E / (gamma + 1) <= 1, equal only at alpha = 1
    assert float(speedup_at_batch(1.0, 5, 1, **kw)) == pytest.approx(1.0, rel=1e-12)
    assert float(speedup_at_batch(0.9, 5, 1, **kw)) == pytest.approx(e_sum(0.9, 5) / 6, rel=1e-12)
    # compute-bound: gamma draft passes plus gamma + 1 tokens of verification
    assert float(speedup_at_batch(1.0, 5, 4096, **kw)) == pytest.approx(6 / 11, rel=1e-12)
    # alpha = 1 ties plain decoding until the verification turns compute-bound (past batch 295 / 6)
    assert break_even_batch(1.0, 5, **kw) == brute_break_even(1.0, 5, kw) == 50
    assert best_gamma_at_batch(0.9, 1, **kw) == (0, 1.0)


def test_free_draft_with_perfect_acceptance_never_slows_down():
    kw = {**H100, "target_params": 70e9, "draft_params": 0.0}
    # past every ridge S = (gamma + 1) / (gamma + 1) = 1: a tie, not a slowdown
    assert float(speedup_at_batch(1.0, 5, 4096, **kw)) == pytest.approx(1.0, rel=1e-12)
    assert break_even_batch(1.0, 5, **kw) is None


def test_fully_compute_bound_regime_is_exact():
    # kv = 0, batch 4096 on an H100: every pass is compute-bound, so times are proportional to P x tokens
    for pair in sp.pairings():
        kw = {**H100, "target_params": sp.model(pair.target).params, "draft_params": sp.model(pair.draft).params}
        for g in range(1, 9):
            want = e_sum(0.8, g) / (g + 1 + g * pair.c)
            assert float(speedup_at_batch(0.8, g, 4096, **kw)) == pytest.approx(want, rel=1e-12)


@given(alphas, st.integers(0, 12), systems())
def test_speedup_never_exceeds_expected_tokens(alpha, gamma, kw):
    # verification costs at least one plain pass, so a round can at best be worth E plain steps
    s = speedup_at_batch(alpha, gamma, np.arange(1, 4097), **kw)
    assert np.all(s <= e_sum(alpha, gamma) * (1 + 1e-12))


@given(alphas, st.integers(1, 12), systems(kv=False))
def test_without_kv_the_speedup_only_falls_with_batch(alpha, gamma, kw):
    # kv = 0: S = E / (gamma c + verify / plain) and verify / plain rises from 1 to gamma + 1
    s = speedup_at_batch(alpha, gamma, np.arange(1, 4097), **kw)
    assert np.all(np.diff(s) <= np.abs(s[1:]) * 1e-12)


# -- the issue's scale check and the consistency with the page ----------------------------------------------


def test_issue_scale_check():
    s = speedup_at_batch(0.8, 5, np.arange(1, 4097), **ISSUE)
    e = e_sum(0.8, 5)  # 3.68928
    assert s[0] == pytest.approx(e / 1.5, rel=1e-12) == pytest.approx(2.45952, rel=1e-12)
    # flat while the verification of 6 tokens is memory-bound: its ridge is 2 x 989.4 / (2 x 6 x 3.35) = 49.2
    assert np.allclose(s[:49], 2.45952, rtol=1e-12, atol=0)
    assert s[49] < 2.45952 * (1 - 1e-6)
    assert float(ridge_batch(70e9, 6, 0, **H100)) == pytest.approx(989.4 / 3.35 / 6, rel=1e-12)
    # below 1 from batch 157
    assert s[155] > 1.0 > s[156]
    assert break_even_batch(0.8, 5, **ISSUE) == 157 == brute_break_even(0.8, 5, ISSUE)
    # only F / BW matters; the data sheet's halved sparse figure (989.5) moves the break-even one batch
    assert break_even_batch(0.8, 5, **{**ISSUE, "flops": 1979e12 / 2}) == 158
    # the same on 8 devices with ideal tensor parallelism: bandwidth and compute scale together
    eight = {**ISSUE, "bandwidth": 8 * 3.35e12, "flops": 8 * 989.4e12}
    assert break_even_batch(0.8, 5, **eight) == 157
    # with the presets' own parameter counts (68.98B / 6.74B, c = 0.0977) and the H100 preset
    h100 = next(a for a in sp.accelerators() if a.id == "h100-sxm")
    pair = {"target_params": sp.model("llama-2-70b").params, "draft_params": sp.model("llama-2-7b").params,
            "bytes_per_param": sp.BF16_BYTES, "bandwidth": h100.bandwidth, "flops": h100.flops}
    assert break_even_batch(0.8, 5, **pair) == brute_break_even(0.8, 5, pair) == 158
    assert float(speedup_at_batch(0.8, 5, 1, **pair)) == pytest.approx(e / (1 + 5 * 6738415616 / 68976648192))


@pytest.mark.parametrize("pair", sp.pairings(), ids=lambda p: p.id)
@pytest.mark.parametrize("acc", sp.accelerators(), ids=lambda a: a.id)
def test_batch_one_without_kv_is_the_pages_model(pair, acc):
    kw = {"target_params": sp.model(pair.target).params, "draft_params": sp.model(pair.draft).params,
          "bytes_per_param": sp.BF16_BYTES, "bandwidth": acc.bandwidth, "flops": acc.flops}
    ridge = sp.BF16_BYTES * acc.flops / (2 * acc.bandwidth)  # tokens a batch-1 pass scores before compute-bound
    for alpha in (0.0, 0.3, 0.8, 1.0):
        for g in range(0, 65):
            assert g + 1 <= ridge  # every pass is memory-bound at batch 1 on these devices
            page = float(speedup(alpha, g, pair.c))  # the page's E / (1 + gamma c)
            assert float(speedup_at_batch(alpha, g, 1, **kw)) == pytest.approx(page, rel=1e-12)


def test_batch_one_departs_from_the_page_when_verification_is_compute_bound():
    # a hypothetical device with 30 FLOP/byte: at batch 1 a pass turns compute-bound past 30 tokens
    kw = {"target_params": 70e9, "draft_params": 7e9, "bytes_per_param": 2, "bandwidth": 1e12, "flops": 3e13}
    for g in range(1, 30):
        assert float(speedup_at_batch(0.9, g, 1, **kw)) == pytest.approx(float(speedup(0.9, g, 0.1)), rel=1e-12)
    for g in range(30, 65):
        assert float(speedup_at_batch(0.9, g, 1, **kw)) < float(speedup(0.9, g, 0.1)) * (1 - 1e-9)
        assert float(speedup_at_batch(0.9, g, 1, **kw)) == pytest.approx(s_kw(0.9, g, 1, kw), rel=1e-12)


# -- break_even_batch and best_gamma_at_batch against brute force --------------------------------------------


@settings(max_examples=60, deadline=None)
@given(alphas, st.integers(0, 16), systems())
def test_break_even_matches_brute_force(alpha, gamma, kw):
    got = break_even_batch(alpha, gamma, **kw)
    # the tie rule (S < 1 - 1e-12), with a little slack for loop-vs-closed-form rounding: the module's answer lies
    # between the brute-force answers for a slightly stricter and a slightly looser threshold (None = never)
    early, late = brute_break_even(alpha, gamma, kw, 0.9e-12), brute_break_even(alpha, gamma, kw, 1.1e-12)
    never = math.inf
    assert (early or never) <= (got or never) <= (late or never)
    if early == late:
        assert got == early


@settings(max_examples=80, deadline=None)
@given(alphas, batches, systems())
def test_best_gamma_matches_brute_force(alpha, B, kw):
    g, s = best_gamma_at_batch(alpha, B, **kw)
    brute = brute_speedups(alpha, B, kw)
    best = max(brute)
    assert 0 <= g <= 64
    assert s == pytest.approx(brute[g], rel=1e-12)
    # the tie rule, with slack for rounding (as test_sd_model's optimal_depth check): the chosen depth is within
    # the tolerance of the best, and every smaller depth falls short of it by more than the tolerance
    assert brute[g] >= best * (1 - 1.1e-12)
    assert all(brute[d] < best * (1 - 0.9e-12) for d in range(g))
    assert (g == 0) == (s == 1.0)


def test_best_gamma_known_values():
    g, s = best_gamma_at_batch(0.8, 1, **ISSUE)
    assert (g, s) == (brute_best_gamma(0.8, 1, ISSUE)[0], pytest.approx(brute_best_gamma(0.8, 1, ISSUE)[1], rel=1e-12))
    assert g == 6 and s == pytest.approx(e_sum(0.8, 6) / 1.6, rel=1e-12)  # one deeper than the issue's gamma 5
    assert best_gamma_at_batch(0.8, 1000, **ISSUE) == (0, 1.0)  # past the ridge speculation is off
    assert best_gamma_at_batch(0.8, 1, max_gamma=0, **ISSUE) == (0, 1.0)
    # a free draft that is always right: deeper is always better, up to the cap while memory-bound
    free = {**H100, "target_params": 70e9, "draft_params": 0.0}
    assert best_gamma_at_batch(1.0, 1, max_gamma=64, **free) == (64, 65.0)
    assert best_gamma_at_batch(1.0, 1, max_gamma=10, **free) == (10, 11.0)


def test_break_even_range_is_the_panels():
    assert MAX_BATCH == 4096
    # a pairing that pays at every batch up to 4096 but would slow down beyond: None, not 4097
    kw = {**ISSUE, "flops": 989.4e12 * 100}
    assert brute_break_even(0.8, 5, kw) is None and break_even_batch(0.8, 5, **kw) is None


# -- ridge, cost ratio, footprint ---------------------------------------------------------------------------


@given(st.floats(1e8, 1e12), st.integers(1, 65), st.floats(0, 1e9), st.floats(1e11, 1e13), st.floats(1e13, 1e16))
def test_ridge_is_where_the_two_terms_meet(P, T, kv, BW, F):
    r = float(ridge_batch(P, T, kv, bytes_per_param=2, bandwidth=BW, flops=F))
    if kv / BW >= 2 * P * T / F:
        assert r == math.inf
        for B in (1, 4096, 1e9):  # memory-bound at every batch size
            assert (P * 2 + B * kv) / BW >= 2 * P * B * T / F
    else:
        assume(r < 1e15)
        assert (P * 2 + r * kv) / BW == pytest.approx(2 * P * r * T / F, rel=1e-9)


def test_ridge_without_kv_depends_on_hardware_only():
    for P in (1e9, 7e9, 70e9):
        assert float(ridge_batch(P, 1, 0, **H100)) == pytest.approx(2 * 989.4e12 / (2 * 3.35e12), rel=1e-12)
    assert ridge_batch(0, 1, 0, **H100) == np.inf


def test_memory_bound_cost():
    assert float(memory_bound_cost(70e9, 7e9, bytes_per_param=2)) == pytest.approx(0.1, rel=1e-15)
    for pair in sp.pairings():
        t, d = sp.model(pair.target), sp.model(pair.draft)
        assert float(memory_bound_cost(t.params, d.params, bytes_per_param=2)) == pytest.approx(pair.c, rel=1e-15)
        # with a KV term: the ratio of the two memory-bound pass times at that batch
        kvt, kvd = 8192 * t.kv_bytes_per_token, 8192 * d.kv_bytes_per_token
        want = (d.params * 2 + 64 * kvd) / (t.params * 2 + 64 * kvt)
        assert float(memory_bound_cost(t.params, d.params, 64, bytes_per_param=2, target_kv_bytes=kvt,
                                       draft_kv_bytes=kvd)) == pytest.approx(want, rel=1e-12)


def test_memory_footprint():
    got = memory_footprint(np.array([1, 10]), target_params=70e9, draft_params=7e9, bytes_per_param=2,
                           target_kv_bytes=1e9, draft_kv_bytes=2e8)
    assert list(got) == pytest.approx([154e9 + 1.2e9, 154e9 + 12e9], rel=1e-15)


# -- long contexts: the MagicDec shape ----------------------------------------------------------------------


def test_long_context_with_a_windowed_draft_cache_pays_more_as_the_batch_grows():
    # Llama 3.1 70B verified at a 32k context, the 8B draft keeping a 512-token window (StreamingLLM-style)
    t, d = sp.model("llama-3.1-70b"), sp.model("llama-3.1-8b")
    kw = {"target_params": t.params, "draft_params": d.params, **H100,
          "target_kv_bytes": 32768 * t.kv_bytes_per_token, "draft_kv_bytes": 512 * d.kv_bytes_per_token}
    assert float(ridge_batch(t.params, 6, kw["target_kv_bytes"], **H100)) == math.inf
    s = speedup_at_batch(0.8, 5, np.arange(1, 4097), **kw)
    assert np.all(np.diff(s) > 0)  # S rises with batch: the weights are amortised, the KV read is not
    limit = e_sum(0.8, 5) * kw["target_kv_bytes"] / (5 * kw["draft_kv_bytes"] + kw["target_kv_bytes"])
    assert s[-1] < limit and s[-1] == pytest.approx(limit, rel=1e-2)
    assert break_even_batch(0.8, 5, **kw) is None == brute_break_even(0.8, 5, kw)


def test_long_context_with_a_full_cache_llama2_draft_hurts_early():
    # Llama 2 7B has no GQA: its cache per token (512 KiB) outweighs the 70B target's (320 KiB)
    t, d = sp.model("llama-2-70b"), sp.model("llama-2-7b")
    assert d.kv_bytes_per_token > t.kv_bytes_per_token
    kw = {"target_params": t.params, "draft_params": d.params, **H100,
          "target_kv_bytes": 32768 * t.kv_bytes_per_token, "draft_kv_bytes": 32768 * d.kv_bytes_per_token}
    be = break_even_batch(0.8, 5, **kw)
    assert be == brute_break_even(0.8, 5, kw) and be < 20


# -- input checking -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("call, match", [
    (lambda: step_time(-1, 1, 1, 0, **H100), "params"),
    (lambda: step_time(1e9, 1, 1, float("nan"), **H100), "kv_bytes"),
    (lambda: step_time(1e9, 1, 1, 0, bytes_per_param=2, bandwidth=0, flops=1e15), "bandwidth"),
    (lambda: step_time(1e9, 1, 1, 0, bytes_per_param=2, bandwidth=1e12, flops=-1), "flops"),
    (lambda: speedup_at_batch(1.5, 5, 1, **ISSUE), "alpha"),
    (lambda: speedup_at_batch(0.8, 2.5, 1, **ISSUE), "gamma"),
    (lambda: speedup_at_batch(0.8, 5, -1, **ISSUE), "batch"),
    (lambda: speedup_at_batch(0.8, 5, 1, **{**ISSUE, "target_params": 0}), "target_params"),
    (lambda: speedup_at_batch(0.8, 5, 1, **{**ISSUE, "draft_kv_bytes": -1}), "draft_kv_bytes"),
    (lambda: break_even_batch(np.array([0.5, 0.8]), 5, **ISSUE), "alpha"),
    (lambda: break_even_batch(0.8, 5, **{**ISSUE, "target_params": np.array([7e10, 8e10])}), "target_params"),
    (lambda: best_gamma_at_batch(0.8, np.arange(3), **ISSUE), "batch"),
    (lambda: best_gamma_at_batch(0.8, 1, max_gamma=True, **ISSUE), "max_gamma"),
    (lambda: best_gamma_at_batch(0.8, 1, max_gamma=-1, **ISSUE), "max_gamma"),
])
def test_invalid_input_raises_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# -- the presets: sources and derivations -------------------------------------------------------------------


def tagged(text):
    return text.startswith("printed: ") or text.startswith("derived: ")


@pytest.mark.parametrize("acc", sp.accelerators(), ids=lambda a: a.id)
def test_accelerator_values_are_sourced(acc):
    assert set(acc.sources) == {"bandwidth", "flops", "memory"}
    assert all(tagged(v) for v in acc.sources.values())
    assert acc.citations and all(c["url"].startswith("https://") for c in acc.citations)
    assert 1e12 < acc.bandwidth < 1e13 and 1e14 < acc.flops < 2e15 and 4e10 < acc.memory < 3e11
    assert acc.to_dict()["id"] == acc.id


def test_accelerator_numbers_as_printed():
    by = {a.id: a for a in sp.accelerators()}
    assert {"a100-80gb-sxm", "h100-sxm", "h200-sxm", "mi300x"} <= set(by)
    a100 = by["a100-80gb-sxm"]
    assert (a100.bandwidth, a100.flops, a100.memory) == (2.039e12, 312e12, 80e9)
    assert (by["h100-sxm"].bandwidth, by["h100-sxm"].flops, by["h100-sxm"].memory) == (3.35e12, 989.4e12, 80e9)
    assert (by["h200-sxm"].bandwidth, by["h200-sxm"].memory) == (4.8e12, 141e9)
    assert by["h200-sxm"].flops == 1979e12 / 2 and by["h200-sxm"].sources["flops"].startswith("derived: ")
    # AMD prints 192 GB (decimal); the preset took ROCm's 192 GiB before, and the page showed 1,649 GB for eight
    assert (by["mi300x"].bandwidth, by["mi300x"].flops, by["mi300x"].memory) == (5.3e12, 1307.4e12, 192e9)
    # dense, not sparse: each is half or less of the with-sparsity figure the vendor prints next to it
    assert by["h100-sxm"].flops == pytest.approx(1978.9e12 / 2, rel=1e-4)
    assert by["a100-80gb-sxm"].flops == 624e12 / 2


def test_kv_bytes_per_token_is_the_formula():
    expect = {  # layers x KV heads x head dim x 2 x 2 bytes, written out
        "llama-2-70b": 80 * 8 * 128 * 2 * 2,  # 327,680 = 320 KiB
        "llama-2-7b": 32 * 32 * 128 * 2 * 2,  # 524,288 = 512 KiB
        "llama-3.1-70b": 80 * 8 * 128 * 2 * 2,
        "llama-3.1-8b": 32 * 8 * 128 * 2 * 2,  # 131,072 = 128 KiB
        "llama-3.2-1b": 16 * 8 * 64 * 2 * 2,  # 32,768 = 32 KiB
    }
    assert {m.id: m.kv_bytes_per_token for m in sp.models()} == expect
    assert sp.kv_bytes_per_token(80, 8, 128, 1) == 163840  # an FP8 cache halves it


def test_parameter_counts_from_the_configs():
    # written out per model: embeddings, per-layer attention + MLP + two norms, final norm, output head
    def count(h, inter, layers, heads, kvh, vocab, tied, hd=None):
        hd = hd or h // heads
        per_layer = h * heads * hd * 2 + h * kvh * hd * 2 + 3 * h * inter + 2 * h
        return vocab * h + layers * per_layer + h + (0 if tied else vocab * h)

    assert sp.model("llama-2-70b").params == count(8192, 28672, 80, 64, 8, 32000, False) == 68_976_648_192
    assert sp.model("llama-2-7b").params == count(4096, 11008, 32, 32, 32, 32000, False) == 6_738_415_616
    assert sp.model("llama-3.1-70b").params == count(8192, 28672, 80, 64, 8, 128256, False) == 70_553_706_496
    assert sp.model("llama-3.1-8b").params == count(4096, 14336, 32, 32, 8, 128256, False) == 8_030_261_248
    assert sp.model("llama-3.2-1b").params == count(2048, 8192, 16, 32, 8, 128256, True, 64) == 1_235_814_400
    # the model card prints "1B (1.23B)": the derived count agrees to the digits printed, truncated (1.2358B)
    assert math.floor(sp.model("llama-3.2-1b").params / 1e7) / 100 == 1.23
    # Meta's FFN sizing gives the intermediate sizes the configs print
    assert sp.llama_ffn_dim(8192, 1.3, 4096) == 28672 and sp.llama_ffn_dim(4096, 1.3, 1024) == 14336


def test_models_and_pairings_are_sourced():
    for m in sp.models():
        assert set(m.sources) == {"config", "params", "kv_bytes_per_token"} and all(map(tagged, m.sources.values()))
        assert m.citations and all(c["url"].startswith("https://") for c in m.citations)
        assert m.to_dict()["params"] == m.params
    assert len(sp.pairings()) >= 2
    for p in sp.pairings():
        assert all(tagged(v) for v in p.sources.values())
        assert p.c == sp.model(p.draft).params / sp.model(p.target).params
        assert 0 < p.c < 1
    assert sp.MAGICDEC["url"] == "https://arxiv.org/abs/2408.11049"

