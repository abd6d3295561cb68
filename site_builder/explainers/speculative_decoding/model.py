"""The closed-form model of speculative decoding, vectorised over numpy arrays.

Notation (the page's): alpha is the chance the target accepts one drafted
token, gamma the draft depth (tokens drafted per round), c the cost of one
draft call in units of one target forward pass.

A round drafts gamma tokens, verifies them in one target pass, keeps the
accepted prefix and always adds one target token, so with i.i.d. acceptance

    E(alpha, gamma) = sum_{k=0..gamma} alpha^k = (1 - alpha^(gamma+1)) / (1 - alpha)
    S(alpha, gamma, c) = E / (1 + gamma c)

Every function broadcasts its arguments like a numpy ufunc and returns a
float/bool/int ndarray (0-d for scalar input). Invalid input raises ValueError
naming the parameter and the offending value (the ``check_*`` helpers below).

Ties: speedups within a relative ``TIE_RTOL`` of each other count as equal.
The same rule decides ``pays_off`` (S must beat 1 by more than TIE_RTOL) and
``optimal_depth`` (the smallest depth within TIE_RTOL of the best), so the two
agree: optimal_depth > 0 exactly when pays_off holds at that depth. Without it
exact ties such as alpha = 0.5, c = 0.2 (S(1) = S(2) = 1.25) would be decided
by the last bit of rounding.
"""

from __future__ import annotations

import numpy as np

from .lambertw import solve_tail

#: relative tolerance within which two speedups count as tied (see the module docstring)
TIE_RTOL = 1e-12


def _as_float_array(value, name: str) -> np.ndarray:
    """``value`` as a float ndarray, or ValueError naming ``name``."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number or an array of numbers, got {value!r}") from None
    return arr


def _reject(arr: np.ndarray, bad: np.ndarray, name: str, rule: str) -> None:
    """Raise ValueError quoting the first offending element, if any."""
    if np.any(bad):
        first = arr[bad].flat[0] if arr.ndim else arr.item()
        raise ValueError(f"{name} must be {rule}, got {first!r}")


def check_alpha(alpha, name: str = "alpha") -> np.ndarray:
    """Validate an acceptance rate: every element in [0, 1], no NaN."""
    arr = _as_float_array(alpha, name)
    _reject(arr, ~((arr >= 0.0) & (arr <= 1.0)), name, "in [0, 1]")
    return arr


def check_cost(c, name: str = "c") -> np.ndarray:
    """Validate a draft cost: every element finite and >= 0."""
    arr = _as_float_array(c, name)
    _reject(arr, ~(np.isfinite(arr) & (arr >= 0.0)), name, "finite and >= 0")
    return arr


def check_depth(gamma, whole: bool, name: str = "gamma") -> np.ndarray:
    """Validate a draft depth: finite and >= 0, and a whole number if ``whole``."""
    arr = _as_float_array(gamma, name)
    _reject(arr, ~(np.isfinite(arr) & (arr >= 0.0)), name, "finite and >= 0")
    if whole:
        _reject(arr, arr != np.floor(arr), name, "a whole number")
    return arr


def expected_tokens(alpha, gamma):
    """Expected tokens per round, E = sum_{k=0..gamma} alpha^k.

    Exact limits: E = gamma + 1 at alpha = 1 and E = 1 at alpha = 0. gamma may
    be any real >= 0: the value is then the smooth continuation
    (1 - alpha^(gamma+1)) / (1 - alpha) of the closed form (used for the
    smooth curve and ``turning_point``), which equals the sum at whole gamma.
    """
    a = check_alpha(alpha)
    g = check_depth(gamma, whole=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_a = np.log(a)
        # expm1/log keep full precision as alpha -> 1, where 1 - alpha^(g+1)
        # and 1 - alpha both cancel
        e = np.expm1((g + 1.0) * log_a) / (a - 1.0)
    # the limits, and gamma = 0 (plain decoding, S = 1), are exact rather than rounded
    return np.where(a == 1.0, g + 1.0, np.where((a == 0.0) | (g == 0.0), 1.0, e))


def speedup(alpha, gamma, c):
    """Speedup over plain decoding, S = E / (1 + gamma c).

    The denominator is a round's cost in target passes: one verification plus
    gamma draft calls at cost c each. Real gamma >= 0 allowed, as in
    ``expected_tokens``.
    """
    cost = check_cost(c)
    g = check_depth(gamma, whole=False)
    return expected_tokens(alpha, g) / (1.0 + g * cost)


def pays_off(alpha, gamma, c):
    """True where drafting gamma tokens beats plain decoding: E > 1 + gamma c.

    gamma must be whole (a real draft depth). Equality (for instance
    alpha = c at gamma = 1) is not a win; values within TIE_RTOL count as equal.
    """
    g = check_depth(gamma, whole=True)
    return speedup(alpha, g, c) > 1.0 + TIE_RTOL


def optimal_depth(alpha, c, max_depth: int = 64):
    """The whole depth 0..max_depth with the largest speedup (0: do not speculate).

    Ties go to the smaller depth, with speedups within a relative TIE_RTOL of
    the best counted as tied. Consequences: alpha = 0 gives 0 (every depth has
    S <= 1 = S(0)); alpha = 1, c = 0 gives max_depth (S = gamma + 1 keeps
    growing); alpha = 1, c = 1 gives 0 (S = 1 everywhere). Vectorised over the
    broadcast shape of alpha and c; returns int64.
    """
    a = check_alpha(alpha)
    cost = check_cost(c)
    if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 0:
        raise ValueError(f"max_depth must be a whole number >= 0, got {max_depth!r}")
    depths = np.arange(max_depth + 1, dtype=float)
    # E depends on alpha only: compute it before broadcasting against c, not once per c
    s = expected_tokens(a[..., None], depths) / (1.0 + depths * cost[..., None])
    best = s.max(axis=-1, keepdims=True)
    # argmax returns the first True: the smallest depth tied with the best
    return np.argmax(s >= best * (1.0 - TIE_RTOL), axis=-1).astype(np.int64)


def threshold_cost(alpha):
    """The draft cost c* above which the smooth curve S(gamma) has no turning point.

    dS/dgamma at gamma = 0 has the sign of alpha (L + c) - c with L = -ln alpha,
    so the curve rises from the start exactly when

        c < c*(alpha) = -alpha ln(alpha) / (1 - alpha),

    with the limits c*(0) = 0 and c*(1) = 1. This is a statement about the
    smooth curve. The whole-number truth is different and simpler: some whole
    depth has S > 1 exactly when c < alpha, and depth 1 is then a witness,
    since S(1) = (1 + alpha) / (1 + c) while for c >= alpha every depth has
    E = 1 + alpha + ... + alpha^g <= 1 + g alpha <= 1 + g c. Because c* > alpha
    for 0 < alpha < 1, there is a band alpha <= c < c* where the smooth curve
    peaks above 1 below gamma = 1 yet every whole depth is a slowdown
    (e.g. alpha = 0.5, c = 0.6: a peak of about 1.01 near gamma = 0.2).
    """
    a = check_alpha(alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        c_star = -a * np.log(a) / (1.0 - a)
    return np.where(a == 0.0, 0.0, np.where(a == 1.0, 1.0, c_star))


def turning_point(alpha, c):
    """The real gamma > 0 where the smooth S(gamma) peaks; NaN where it never rises.

    Derivation (a = alpha, L = -ln a > 0): dS/dg has the sign of
    f(g) = a^(g+1) (L (1 + g c) + c) - c, and f'(g) = -L^2 a^(g+1) (1 + g c) < 0,
    so there is at most one root, and a root at g > 0 exactly when f(0) > 0,
    i.e. c < c*(a) (see ``threshold_cost``). With u = -(L (1 + g c) + c) / c the
    root satisfies u e^u = z = -exp(L - 1 - L/c), and u <= -1 for g >= 0, so
    u = W_{-1}(z) and

        g* = -(W_{-1}(z) + 1) / L - 1/c.

    With s = -1 - W_{-1}(z) = L (1 + g* c) / c the root condition reads
    a^(g*+1) = 1 / (1 + s), so equivalently g* = log1p(s) / L - 1, which is how
    it is evaluated: s - log1p(s) = L (1 - c) / c is solved directly
    (``lambertw.solve_tail``), so nothing underflows for small c, and the
    form avoids the cancellation of s / L - 1/c (both huge when c is small).

    Edge cases, chosen to match the limits of the formula:
      * 0 < alpha < 1, c = 0: S = E rises forever, so +inf.
      * c >= c*(alpha): S falls (or is flat) from gamma = 0, so NaN. This
        includes every c at alpha = 0 (S = 1 / (1 + gamma c)).
      * alpha = 1: S = (gamma + 1) / (1 + gamma c) is monotone, so +inf for
        c < 1 (it rises forever) and NaN for c >= 1 (flat or falling).
    """
    a = check_alpha(alpha)
    cost = check_cost(c)
    a, cost = np.broadcast_arrays(a, cost)
    rises = cost < threshold_cost(a)
    interior = rises & (a > 0.0) & (a < 1.0) & (cost > 0.0)
    safe_a = np.where(interior, a, 0.5)
    safe_c = np.where(interior, cost, 0.5)
    big_l = -np.log(safe_a)
    with np.errstate(over="ignore"):
        r = big_l * (1.0 - safe_c) / safe_c
    # r overflows only for c below ~1e-308; then s ~ r and log1p(s) ~ log r to double precision
    log_r = np.log(big_l) + np.log1p(-safe_c) - np.log(safe_c)
    log1p_s = np.where(np.isfinite(r), np.log1p(solve_tail(np.where(np.isfinite(r), r, 1.0))), log_r)
    g_star = np.maximum(log1p_s / big_l - 1.0, 0.0)
    out = np.where(rises, np.inf, np.nan)
    return np.where(interior, g_star, out)
