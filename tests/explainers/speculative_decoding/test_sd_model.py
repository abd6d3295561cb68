"""The closed-form model against independent computations: plain loops, brute force, known values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from site_builder.explainers.speculative_decoding import (
    expected_tokens,
    optimal_depth,
    pays_off,
    speedup,
    threshold_cost,
    turning_point,
)
from site_builder.explainers.speculative_decoding.lambertw import lambertw_m1, lambertw_m1_log

alphas = st.floats(0.0, 1.0)
costs = st.floats(0.0, 2.0)
depths = st.integers(0, 40)


def loop_expected(alpha: float, gamma: int) -> float:
    """E by direct summation: the independent computation."""
    return sum(alpha**k for k in range(gamma + 1))


def loop_speedups(alpha: float, c: float, max_depth: int) -> list[float]:
    return [loop_expected(alpha, g) / (1 + g * c) for g in range(max_depth + 1)]


# -- expected_tokens / speedup ------------------------------------------------


@given(alphas, depths)
def test_expected_tokens_matches_direct_sum(alpha, gamma):
    assert float(expected_tokens(alpha, gamma)) == pytest.approx(loop_expected(alpha, gamma), rel=1e-12)


@given(alphas, depths, costs)
def test_speedup_matches_direct_sum(alpha, gamma, c):
    want = loop_expected(alpha, gamma) / (1 + gamma * c)
    assert float(speedup(alpha, gamma, c)) == pytest.approx(want, rel=1e-12)


def test_expected_tokens_edges_are_exact():
    assert expected_tokens(1.0, 7) == 8.0
    assert expected_tokens(0.0, 7) == 1.0
    assert expected_tokens(0.3, 0) == 1.0
    assert expected_tokens(0.0, 0) == 1.0 and expected_tokens(1.0, 0) == 1.0
    assert speedup(1.0, 5, 0.0) == 6.0


def test_expected_tokens_near_one_keeps_precision():
    # the naive (1 - a^(g+1)) / (1 - a) loses ~8 digits here
    a = 1 - 1e-9
    assert float(expected_tokens(a, 10)) == pytest.approx(loop_expected(a, 10), rel=1e-12)


def test_broadcasting_shapes():
    a = np.linspace(0, 1, 5)[:, None, None]
    g = np.arange(4)[None, :, None]
    c = np.array([0.0, 0.1, 0.5])[None, None, :]
    assert speedup(a, g, c).shape == (5, 4, 3)
    assert optimal_depth(a[:, 0, :], c[0]).shape == (5, 3)
    assert turning_point(a[:, 0, :], c[0]).shape == (5, 3)


@given(st.floats(0.0, 0.999), st.floats(0.0, 30.0))
def test_real_gamma_is_the_smooth_continuation(alpha, gamma):
    e = float(expected_tokens(alpha, gamma))
    lo = loop_expected(alpha, math.floor(gamma))
    hi = loop_expected(alpha, math.ceil(gamma))
    assert lo - 1e-9 <= e <= hi + 1e-9


# -- pays_off / optimal_depth -------------------------------------------------


@given(alphas, depths, costs)
def test_pays_off_matches_direct_comparison(alpha, gamma, c):
    e, cost = loop_expected(alpha, gamma), 1 + gamma * c
    assume(abs(e - cost) > 1e-9 * cost)  # exact ties are covered separately
    assert bool(pays_off(alpha, gamma, c)) == (e > cost)


def test_pays_off_ties_are_not_wins():
    assert not pays_off(0.5, 1, 0.5)  # E = 1.5 = 1 + 1 * 0.5
    assert not pays_off(1.0, 3, 1.0)  # E = 4 = 1 + 3 * 1
    assert not pays_off(0.3, 0, 0.0)  # depth 0 is plain decoding


@settings(max_examples=200)
@given(alphas, st.floats(0.0, 1.5), st.integers(0, 24))
def test_optimal_depth_matches_brute_force(alpha, c, max_depth):
    s = loop_speedups(alpha, c, max_depth)
    best = max(s)
    got = int(optimal_depth(alpha, c, max_depth))
    assert 0 <= got <= max_depth
    # the tie rule (TIE_RTOL = 1e-12), with a little slack for loop-vs-closed-form rounding:
    # the chosen depth is within the tolerance of the best...
    assert s[got] >= best * (1 - 1.1e-12)
    # ...and every smaller depth falls short of the best by more than the tolerance
    assert all(s[d] < best * (1 - 0.9e-12) for d in range(got))


@pytest.mark.parametrize(
    "alpha, c, max_depth, want",
    [
        (0.0, 0.0, 64, 0),  # S = 1 everywhere: the tie goes to 0
        (0.0, 0.3, 64, 0),
        (1.0, 0.0, 64, 64),  # S = gamma + 1 grows forever
        (1.0, 0.0, 5, 5),
        (1.0, 1.0, 64, 0),  # S = 1 everywhere
        (1.0, 0.5, 64, 64),  # S rises towards 2
        (0.5, 0.2, 64, 1),  # exact tie S(1) = S(2) = 1.25
        (0.5, 0.5, 64, 0),  # c = alpha: depth 1 only breaks even
    ],
)
def test_optimal_depth_edges_and_ties(alpha, c, max_depth, want):
    assert int(optimal_depth(alpha, c, max_depth)) == want


@given(alphas, st.floats(0.0, 1.0))
def test_some_depth_wins_exactly_when_c_below_alpha(alpha, c):
    assume(abs(c - alpha) > 1e-9)
    d = int(optimal_depth(alpha, c))
    assert (d > 0) == (c < alpha)
    if c < alpha:
        assert pays_off(alpha, 1, c)  # depth 1 is a witness


def test_optimal_depth_agrees_with_pays_off_on_a_grid():
    a, c = np.meshgrid(np.linspace(0, 1, 41), np.linspace(0, 1, 41), indexing="ij")
    d = optimal_depth(a, c)
    assert np.array_equal(d > 0, pays_off(a, np.maximum(d, 1), c) & (d > 0))
    assert np.array_equal(d > 0, np.any(pays_off(a[..., None], np.arange(1, 65), c[..., None]), axis=-1))


# -- threshold_cost / turning_point ------------------------------------------


@given(st.floats(0.01, 0.99))
def test_threshold_is_where_the_slope_at_zero_changes_sign(alpha):
    c_star = float(threshold_cost(alpha))
    h = 1e-6
    below = (float(speedup(alpha, h, c_star * 0.99)) - 1.0) / h
    above = (float(speedup(alpha, h, c_star * 1.01)) - 1.0) / h
    assert below > 0 > above


def test_threshold_limits_and_known_value():
    assert threshold_cost(0.0) == 0.0
    assert threshold_cost(1.0) == 1.0
    assert float(threshold_cost(0.5)) == pytest.approx(math.log(2))
    assert float(threshold_cost(1 - 1e-12)) == pytest.approx(1.0)
    c = threshold_cost(np.linspace(0.01, 0.99, 99))
    assert np.all(np.diff(c) > 0)
    assert np.all(c > np.linspace(0.01, 0.99, 99))  # the smooth curve is more lenient than c < alpha


@settings(max_examples=60, deadline=None)
@given(st.floats(0.05, 0.97), st.floats(0.005, 0.9))
def test_turning_point_matches_brute_force_argmax(alpha, c):
    c_star = float(threshold_cost(alpha))
    assume(c < 0.97 * c_star)
    g_star = float(turning_point(alpha, c))
    assert 0 < g_star < math.inf
    grid = np.linspace(0, 3 * g_star + 3, 30001)
    s = speedup(alpha, grid, c)
    step = grid[1]
    assert abs(grid[np.argmax(s)] - g_star) <= 2 * step + 1e-3 * (1 + g_star)
    assert float(speedup(alpha, g_star, c)) >= s.max() * (1 - 1e-12)
    # and it is a root of the derivative's numerator f(g) = a^(g+1) (L (1 + g c) + c) - c
    big_l = -math.log(alpha)
    f = alpha ** (g_star + 1) * (big_l * (1 + g_star * c) + c) - c
    assert abs(f) <= 1e-9 * c


@given(st.floats(0.01, 0.99), st.floats(0.0, 2.0))
def test_no_turning_point_at_or_above_threshold(alpha, c):
    assume(c >= float(threshold_cost(alpha)))
    assert math.isnan(float(turning_point(alpha, c)))


@pytest.mark.parametrize(
    "alpha, c, want",
    [
        (0.5, 0.0, math.inf),  # S = E rises forever
        (0.99, 0.0, math.inf),
        (0.0, 0.0, math.nan),  # flat
        (0.0, 0.5, math.nan),  # falls
        (1.0, 0.0, math.inf),
        (1.0, 0.5, math.inf),  # (g + 1) / (1 + g c) rises for c < 1
        (1.0, 1.0, math.nan),  # flat
        (1.0, 1.5, math.nan),  # falls
        (0.5, math.log(2), math.nan),  # exactly at the threshold: slope 0 then falling
    ],
)
def test_turning_point_edge_cases(alpha, c, want):
    got = float(turning_point(alpha, c))
    assert (math.isnan(got) and math.isnan(want)) or got == want


def test_turning_point_stays_accurate_near_the_edges():
    # tiny c: z = -exp(L - 1 - L/c) underflows, the log-space solve must not
    g = float(turning_point(0.9, 1e-6))
    grid = np.linspace(0.8 * g, 1.2 * g, 20001)
    assert abs(grid[np.argmax(speedup(0.9, grid, 1e-6))] - g) < 1e-3 * g
    # alpha near 1: the root sits just past the branch point
    g = float(turning_point(0.999, 0.5))
    grid = np.linspace(0, 3 * g + 3, 30001)
    assert abs(grid[np.argmax(speedup(0.999, grid, 0.5))] - g) < 2 * grid[1] + 1e-3 * g


@pytest.mark.parametrize(
    "alpha, c",
    [(a, c) for a in (1e-3, 0.1, 0.5, 0.9, 0.9999999) for c in (5e-324, 1e-300, 1e-20, 1e-6)]
    + [(1e-300, 1e-301), (0.5, 0.69), (0.999, 0.999)],
)
def test_turning_point_root_condition_in_log_space(alpha, c):
    # a^(g+1) (L (1 + g c) + c) = c, taken in logs so that tiny c can be checked at all
    assert c < float(threshold_cost(alpha))
    g = float(turning_point(alpha, c))
    assert 0 < g < math.inf
    big_l = -math.log(alpha)
    lhs = -(g + 1) * big_l + math.log(big_l * (1 + g * c) + c)
    assert lhs == pytest.approx(math.log(c), rel=1e-12, abs=1e-9)


def test_smooth_peak_above_one_while_every_whole_depth_loses():
    alpha, c = 0.5, 0.6
    assert c < float(threshold_cost(alpha))  # the smooth curve still has a peak...
    g = float(turning_point(alpha, c))
    assert 0.15 < g < 0.25
    peak = float(speedup(alpha, g, c))
    assert 1.0 < peak < 1.02  # ...slightly above 1...
    assert not np.any(pays_off(alpha, np.arange(1, 65), c))  # ...yet every whole depth is a slowdown
    assert int(optimal_depth(alpha, c)) == 0


# -- Lambert W ----------------------------------------------------------------


def test_lambertw_known_values():
    assert float(lambertw_m1(-2 * math.exp(-2))) == pytest.approx(-2.0, rel=1e-14)
    assert float(lambertw_m1(-math.log(2) / 2)) == pytest.approx(-2 * math.log(2), rel=1e-14)
    assert float(lambertw_m1(-0.1)) == pytest.approx(-3.5771520639572972, rel=1e-14)
    assert float(lambertw_m1(-1 / math.e)) == pytest.approx(-1.0, abs=1e-7)
    assert float(lambertw_m1(0.0)) == -math.inf
    assert math.isnan(float(lambertw_m1(-0.5)))  # below -1/e
    assert math.isnan(float(lambertw_m1(0.1)))


@given(st.floats(-700.0, -1.0))
def test_lambertw_inverts_w_exp_w_in_log_space(t):
    w = float(lambertw_m1_log(t))
    assert w <= -1.0
    # w e^w = -e^t  <=>  w + log(-w) = t
    assert w + math.log(-w) == pytest.approx(t, abs=1e-12 * max(1.0, abs(t)))


# -- validation ---------------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: expected_tokens(1.5, 3), "alpha"),
        (lambda: expected_tokens(-0.1, 3), "alpha"),
        (lambda: expected_tokens(float("nan"), 3), "alpha"),
        (lambda: expected_tokens([0.2, 2.0], 3), "alpha"),
        (lambda: expected_tokens(0.5, -1), "gamma"),
        (lambda: expected_tokens(0.5, float("inf")), "gamma"),
        (lambda: speedup(0.5, 2, -0.1), "c"),
        (lambda: speedup(0.5, 2, float("nan")), "c"),
        (lambda: pays_off(0.5, 1.5, 0.1), "gamma"),
        (lambda: optimal_depth(0.5, 0.1, max_depth=-1), "max_depth"),
        (lambda: optimal_depth(0.5, 0.1, max_depth=2.5), "max_depth"),
        (lambda: turning_point(0.5, -1.0), "c"),
        (lambda: threshold_cost(1.01), "alpha"),
        (lambda: expected_tokens("high", 2), "alpha"),
    ],
)
def test_invalid_parameters_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


def test_error_message_quotes_the_value():
    with pytest.raises(ValueError, match="2.0"):
        expected_tokens([0.2, 2.0], 3)
