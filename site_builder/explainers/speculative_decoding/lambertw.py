"""The lower branch W_{-1} of the Lambert W function, in plain numpy.

W_{-1}(z) is the solution w <= -1 of w e^w = z for z in [-1/e, 0). The
turning point of the speedup curve needs it (see ``model.turning_point``), and
scipy is not a dependency, so it is solved here with Halley's method.

Why the work happens in the variable s = -1 - w >= 0: writing w = -1 - s turns
w e^w = z into

    s - log1p(s) = r,   where r = -log(-z) - 1 >= 0,

which needs z only through log(-z). That keeps two hard regions accurate:
z near 0 (where e^w underflows; the caller may pass log(-z) directly, see
``lambertw_m1_log``) and z near the branch point -1/e (where w is close to -1
and s, the distance from it, is what the caller actually needs).
"""

from __future__ import annotations

import numpy as np

_HALLEY_STEPS = 8  # from the starting guesses below, 3-4 steps already reach machine precision


def _s_minus_log1p(s: np.ndarray) -> np.ndarray:
    """s - log1p(s), with a series for small s where the subtraction cancels."""
    small = s < 1e-3
    s_small = np.where(small, s, 0.0)
    # s^2/2 - s^3/3 + s^4/4 - s^5/5: the next term is below 1e-15 relative at s < 1e-3
    series = s_small**2 * (0.5 - s_small * (1 / 3 - s_small * (0.25 - s_small / 5)))
    return np.where(small, series, s - np.log1p(np.where(small, 0.0, s)))


def solve_tail(r: np.ndarray | float) -> np.ndarray:
    """Return s >= 0 with s - log1p(s) = r, for r >= 0 (vectorised).

    This is W_{-1} in disguise: ``W_{-1}(z) = -1 - solve_tail(-log(-z) - 1)``.
    NaN in, NaN out; r = inf gives s = inf.
    """
    r = np.asarray(r, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        # Starting guesses: the branch-point series for small r (s ~ sqrt(2r)),
        # the fixed point s = r + log1p(s) iterated twice for large r.
        p = np.sqrt(2.0 * -np.expm1(-np.maximum(r, 0.0)))
        near = p + p * p / 3.0 + 11.0 / 72.0 * p**3
        far = r + np.log1p(r + np.log1p(r))
        s = np.where(r < 2.0, near, far)
        for _ in range(_HALLEY_STEPS):
            f = _s_minus_log1p(s) - r
            d1 = s / (1.0 + s)
            d2 = 1.0 / (1.0 + s) ** 2
            denom = 2.0 * d1 * d1 - f * d2
            step = np.where(denom != 0.0, 2.0 * f * d1 / np.where(denom != 0.0, denom, 1.0), 0.0)
            s = np.maximum(s - step, 0.0)
        s = np.where(r == 0.0, 0.0, s)
        s = np.where(np.isposinf(r), np.inf, s)
    return s


def lambertw_m1_log(log_neg_z: np.ndarray | float) -> np.ndarray:
    """W_{-1}(z) given t = log(-z) <= -1, so that tiny |z| cannot underflow.

    t = -1 is the branch point (W = -1); t = -inf gives -inf. t > -1 (z below
    -1/e, no real solution) gives NaN.
    """
    t = np.asarray(log_neg_z, dtype=float)
    r = -t - 1.0
    with np.errstate(invalid="ignore"):
        w = -1.0 - solve_tail(np.where(r >= 0.0, r, np.nan))
    return w


def lambertw_m1(z: np.ndarray | float) -> np.ndarray:
    """The lower branch W_{-1}(z): the w <= -1 with w e^w = z, for -1/e <= z < 0.

    Vectorised; NaN outside the domain; z = 0 (the limit from below) gives -inf.
    Values within 1e-15 below -1/e are treated as the branch point, since -1/e
    itself is not exactly representable.
    """
    z = np.asarray(z, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.log(-z)
    # -1/e rounds to a double whose log is a hair above -1: snap it back
    t = np.where((t > -1.0) & (t < -1.0 + 1e-15), -1.0, t)
    return lambertw_m1_log(t)
