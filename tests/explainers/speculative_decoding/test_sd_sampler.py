"""Random rounds: mulberry32 against JavaScript, the replay rule, Monte Carlo and chi-square checks.

Chi-square critical values use the Wilson-Hilferty approximation
chi2_{k, 1-a} ~= k (1 - 2/(9k) + z sqrt(2/(9k)))^3 with z = 3.0902 (a = 0.001):
for k = 5 it gives 20.75 against the tabled 20.52, on the lenient side.
All seeds are fixed, so every run draws the same numbers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.explainers.speculative_decoding import (
    acceptance_rate,
    expected_tokens,
    mulberry32_uniforms,
    simulate_rounds,
    speculative_sample,
)

# Computed with node 20 from the reference JavaScript mulberry32:
#   function mulberry32(a){return function(){a|=0;a=a+0x6D2B79F5|0;
#     var t=Math.imul(a^a>>>15,1|a);t=t+Math.imul(t^t>>>7,61|t)^t;
#     return((t^t>>>14)>>>0)/4294967296;}}
JS_OUTPUTS = {
    42: [0.6011037519201636, 0.44829055899754167, 0.8524657934904099, 0.6697340414393693, 0.17481389874592423, 0.5265925421845168],
    0: [0.26642920868471265, 0.0003297457005828619, 0.2232720274478197, 0.1462021479383111, 0.46732782293111086, 0.5450490827206522],
    1: [0.6270739405881613, 0.002735721180215478, 0.5274470399599522, 0.9810509674716741, 0.9683778982143849, 0.281103502959013],
    4294967295: [0.8964226141106337, 0.189478256739676, 0.7156526781618595, 0.9440599093213677, 0.8452364315744489, 0.5391399988438934],
}
JS_SEED7_DRAWS_1000_TO_1002 = [0.5559569308534265, 0.4839879455976188, 0.525013072649017]
# node: the same generator, seed 42, alpha 0.7, gamma 5, a plain loop over 20 rounds
JS_REPLAY_42 = [2, 3, 1, 5, 0, 2, 1, 5, 4, 0, 4, 1, 5, 0, 0, 0, 3, 1, 5, 1]

Z_999 = 3.0902


def chi2_critical(dof: int) -> float:
    """Wilson-Hilferty upper 0.1% point of chi-square with ``dof`` degrees of freedom."""
    h = 2.0 / (9.0 * dof)
    return dof * (1.0 - h + Z_999 * math.sqrt(h)) ** 3


def chi2_stat(counts: np.ndarray, probs: np.ndarray) -> float:
    expected = counts.sum() * probs
    keep = expected > 0
    return float((((counts - expected) ** 2)[keep] / expected[keep]).sum())


# -- mulberry32 ---------------------------------------------------------------


@pytest.mark.parametrize("seed", sorted(JS_OUTPUTS))
def test_mulberry32_matches_javascript(seed):
    assert mulberry32_uniforms(seed, 6).tolist() == JS_OUTPUTS[seed]


def test_mulberry32_far_into_the_stream_matches_javascript():
    assert mulberry32_uniforms(7, 3, start=1000).tolist() == JS_SEED7_DRAWS_1000_TO_1002


@given(st.integers(0, 2**32 - 1), st.integers(0, 50), st.integers(0, 50))
def test_mulberry32_windows_are_slices_of_one_stream(seed, start, n):
    whole = mulberry32_uniforms(seed, start + n)
    assert np.array_equal(mulberry32_uniforms(seed, n, start=start), whole[start:])


def test_mulberry32_range_and_resolution():
    u = mulberry32_uniforms(123, 100_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    k = u * 2**32
    assert np.array_equal(k, np.floor(k))  # every draw is an exact uint32 / 2^32
    assert abs(u.mean() - 0.5) < 4 * math.sqrt(1 / 12 / u.size)


@pytest.mark.parametrize("seed", [-1, 2**32, 1.5, True, "42"])
def test_mulberry32_rejects_bad_seeds(seed):
    with pytest.raises(ValueError, match="^seed "):
        mulberry32_uniforms(seed, 3)


# -- simulate_rounds ----------------------------------------------------------


def loop_replay(alpha: float, gamma: int, n_rounds: int, seed: int) -> tuple[list[int], list[int]]:
    """The documented rule, as a plain loop over the stream: the independent computation."""
    u = mulberry32_uniforms(seed, n_rounds * gamma).tolist()
    accepted, first = [], []
    for r in range(n_rounds):
        k = next((j for j in range(gamma) if not u[r * gamma + j] < alpha), None)
        accepted.append(gamma if k is None else k)
        first.append(-1 if k is None else k)
    return accepted, first


def test_replay_matches_javascript():
    assert simulate_rounds(0.7, 5, 20, 42).accepted.tolist() == JS_REPLAY_42


@settings(max_examples=50)
@given(st.floats(0.0, 1.0), st.integers(0, 9), st.integers(0, 60), st.integers(0, 2**32 - 1))
def test_simulate_rounds_follows_the_documented_rule(alpha, gamma, n_rounds, seed):
    rounds = simulate_rounds(alpha, gamma, n_rounds, seed)
    accepted, first = loop_replay(alpha, gamma, n_rounds, seed)
    assert rounds.accepted.tolist() == accepted
    assert rounds.first_rejection.tolist() == first
    assert np.array_equal(rounds.tokens, rounds.accepted + 1)
    assert rounds.accepted.shape == rounds.first_rejection.shape == rounds.tokens.shape == (n_rounds,)


def test_simulate_rounds_edges():
    r = simulate_rounds(0.0, 4, 100, 9)
    assert np.all(r.accepted == 0) and np.all(r.first_rejection == 0) and np.all(r.tokens == 1)
    r = simulate_rounds(1.0, 4, 100, 9)
    assert np.all(r.accepted == 4) and np.all(r.first_rejection == -1) and np.all(r.tokens == 5)
    r = simulate_rounds(0.6, 0, 100, 9)
    assert np.all(r.tokens == 1) and np.all(r.first_rejection == -1)


def test_a_rejection_kills_the_tail():
    # round 0 of seed 42 reads 0.601, 0.448, 0.852, 0.670, 0.175: at alpha 0.7 position 2 is
    # rejected and positions 3 and 4 are discarded although their draws were below alpha
    r = simulate_rounds(0.7, 5, 1, 42)
    assert r.accepted.tolist() == [2] and r.first_rejection.tolist() == [2]


@pytest.mark.parametrize("alpha, gamma", [(0.8, 5), (0.5, 3), (0.95, 12), (0.2, 2)])
def test_monte_carlo_mean_within_four_standard_errors(alpha, gamma):
    n = 20_000
    tokens = simulate_rounds(alpha, gamma, n, seed=2024).tokens
    # exact mean and variance of the capped geometric law, by a plain loop
    pmf = {k: alpha ** (k - 1) * (1 - alpha) for k in range(1, gamma + 1)}
    pmf[gamma + 1] = alpha**gamma
    mean = sum(k * p for k, p in pmf.items())
    var = sum((k - mean) ** 2 * p for k, p in pmf.items())
    assert mean == pytest.approx(float(expected_tokens(alpha, gamma)), rel=1e-12)
    assert abs(tokens.mean() - mean) < 4 * math.sqrt(var / n)
    counts = np.bincount(tokens, minlength=gamma + 2)[1:]
    assert chi2_stat(counts, np.array([pmf[k] for k in range(1, gamma + 2)])) < chi2_critical(gamma)


@pytest.mark.parametrize(
    "args, name",
    [
        ((1.2, 3, 10, 1), "alpha"),
        ((0.5, 2.5, 10, 1), "gamma"),
        ((0.5, -1, 10, 1), "gamma"),
        ((0.5, 3, -1, 1), "n_rounds"),
        ((0.5, 3, 10, -7), "seed"),
    ],
)
def test_simulate_rounds_validation(args, name):
    with pytest.raises(ValueError, match=f"^{name} "):
        simulate_rounds(*args)


# -- the real algorithm on toy distributions -----------------------------------

P = np.array([0.30, 0.20, 0.18, 0.14, 0.10, 0.08])
QS = {
    "close": np.array([0.28, 0.22, 0.17, 0.15, 0.10, 0.08]),
    "mediocre": np.array([0.45, 0.05, 0.25, 0.05, 0.15, 0.05]),
    "poor": np.array([0.05, 0.05, 0.05, 0.10, 0.35, 0.40]),
    "blind": np.array([0.0, 0.0, 0.0, 0.0, 0.5, 0.5]),  # never drafts most tokens
}


def test_acceptance_rate_is_sum_of_minima():
    for q in QS.values():
        assert acceptance_rate(P, q) == pytest.approx(sum(min(a, b) for a, b in zip(P, q)))
    assert acceptance_rate(P, P) == pytest.approx(1.0)


@pytest.mark.parametrize("name", sorted(QS))
def test_output_follows_the_target_not_the_draft(name):
    q = QS[name]
    n = 20_000
    sample = speculative_sample(P, q, gamma=4, n=n, seed=11)
    # the first n tokens form a fixed-length prefix of an i.i.d. p stream (a round emits >= 1 token)
    counts = np.bincount(sample.tokens[:n], minlength=P.size)
    crit = chi2_critical(P.size - 1)
    assert chi2_stat(counts, P) < crit
    if name != "close":  # the close draft needs more tokens to tell apart: see the next test
        assert chi2_stat(counts, q) > 10 * crit


def test_a_close_draft_is_still_distinguishable_with_enough_tokens():
    sample = speculative_sample(P, QS["close"], gamma=4, n=100_000, seed=5)
    counts = np.bincount(sample.tokens[:100_000], minlength=P.size)
    assert chi2_stat(counts, P) < chi2_critical(5) < chi2_stat(counts, QS["close"])


@pytest.mark.parametrize("name", sorted(QS))
def test_measured_acceptance_within_four_standard_errors(name):
    q = QS[name]
    sample = speculative_sample(P, q, gamma=3, n=20_000, seed=3)
    beta = acceptance_rate(P, q)
    checked = sample.accepted.sum() + np.sum(sample.accepted < 3)
    assert abs(sample.acceptance_rate - beta) < 4 * math.sqrt(beta * (1 - beta) / checked)


def test_sample_bookkeeping_and_determinism():
    a = speculative_sample(P, QS["mediocre"], gamma=5, n=500, seed=8)
    b = speculative_sample(P, QS["mediocre"], gamma=5, n=500, seed=8)
    c = speculative_sample(P, QS["mediocre"], gamma=5, n=500, seed=9)
    assert np.array_equal(a.tokens, b.tokens) and not np.array_equal(a.tokens, c.tokens)
    assert a.round_lengths.sum() == a.tokens.size
    assert np.array_equal(a.round_lengths, a.accepted + 1)
    assert a.accepted.min() >= 0 and a.accepted.max() <= 5
    assert a.tokens.min() >= 0 and a.tokens.max() < P.size


def test_identical_draft_is_never_rejected():
    s = speculative_sample(P, P, gamma=4, n=1000, seed=1)
    assert np.all(s.accepted == 4) and s.acceptance_rate == 1.0


def test_depth_zero_emits_only_target_tokens():
    s = speculative_sample(P, QS["poor"], gamma=0, n=20_000, seed=4)
    assert np.all(s.round_lengths == 1) and math.isnan(s.acceptance_rate)
    assert chi2_stat(np.bincount(s.tokens, minlength=P.size), P) < chi2_critical(5)


@pytest.mark.parametrize(
    "p, q, name",
    [
        ([0.5, 0.6], [0.5, 0.5], "p"),
        ([0.5, 0.5], [1.5, -0.5], "q"),
        ([0.5, float("nan")], [0.5, 0.5], "p"),
        ([[0.5, 0.5]], [[0.5, 0.5]], "p"),
        ([], [], "p"),
        ([0.5, 0.5], [0.2, 0.3, 0.5], "p and q"),
    ],
)
def test_bad_distributions_raise(p, q, name):
    with pytest.raises(ValueError, match=f"^{name} "):
        speculative_sample(p, q, gamma=2, n=10, seed=0)
    if name != "p and q" or len(p) != len(q):
        with pytest.raises(ValueError, match=f"^{name} "):
            acceptance_rate(p, q)


@pytest.mark.parametrize("gamma, n, name", [(1.5, 10, "gamma"), (-1, 10, "gamma"), (2, -3, "n")])
def test_bad_sample_sizes_raise(gamma, n, name):
    with pytest.raises(ValueError, match=f"^{name} "):
        speculative_sample(P, P, gamma=gamma, n=n, seed=0)
