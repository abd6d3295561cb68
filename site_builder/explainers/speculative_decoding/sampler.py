"""Random rounds: the abstract simulation (one acceptance rate) and the real algorithm.

``simulate_rounds`` is what the page animates. Its randomness comes from
mulberry32, a 32-bit generator simple enough for the browser to replay the
very same rounds bit for bit (see ``mulberry32_uniforms``). ``speculative_sample``
runs the actual accept/correct procedure on toy distributions to show the
output follows the target exactly; it never has to match JavaScript, so it
uses numpy's default_rng.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import check_alpha, check_depth

_MASK32 = np.uint64(0xFFFFFFFF)
_GOLDEN = 0x6D2B79F5  # mulberry32's state increment


def _check_count(value, name: str) -> int:
    """A whole number >= 0 given as an int, or ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    return int(value)


def _single(checked: np.ndarray, name: str, value) -> float:
    """One validated number out of a 0-d array; ValueError for arrays."""
    if checked.ndim != 0:
        raise ValueError(f"{name} must be a single number here, got {value!r}")
    return float(checked)


def _check_seed(seed) -> int:
    """A mulberry32 seed: an int in [0, 2^32)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32), got {seed!r}")
    return int(seed)


def _mul32(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(x * y) mod 2^32 for uint64 arrays holding 32-bit values: JS Math.imul's low bits."""
    # split y so no partial product exceeds 2^64 (x < 2^32, y_lo/y_hi < 2^16)
    y_lo = y & np.uint64(0xFFFF)
    y_hi = y >> np.uint64(16)
    return ((x * y_lo) + (((x * y_hi) & _MASK32) << np.uint64(16))) & _MASK32


def mulberry32_uniforms(seed: int, n: int, start: int = 0) -> np.ndarray:
    """Draws start .. start+n-1 of the mulberry32 stream for ``seed``, as floats in [0, 1).

    The algorithm, all in unsigned 32-bit arithmetic (mod 2^32), for draw i
    (0-based):

        a = seed + (i + 1) * 0x6D2B79F5
        t = (a ^ (a >>> 15)) * (a | 1)
        t = (t + ((t ^ (t >>> 7)) * (t | 61))) ^ t
        u = (t ^ (t >>> 14)) / 2^32

    This is the reference JavaScript mulberry32 (``a = a + 0x6D2B79F5 | 0`` then
    the mix) unrolled: the state only ever adds a constant, so draw i depends
    on i alone and the whole stream is computed at once without a loop.
    Math.imul keeps the low 32 bits of a product, exactly as ``mod 2^32`` here;
    signed versus unsigned does not change those bits. The float is the
    uint32 divided by 2^32, exact in a double.
    """
    seed = _check_seed(seed)
    n = _check_count(n, "n")
    start = _check_count(start, "start")
    i = np.arange(start + 1, start + n + 1, dtype=np.uint64)
    a = (np.uint64(seed) + _mul32(i & _MASK32, np.full_like(i, _GOLDEN))) & _MASK32
    t = _mul32(a ^ (a >> np.uint64(15)), a | np.uint64(1))
    t = ((t + _mul32(t ^ (t >> np.uint64(7)), t | np.uint64(61))) & _MASK32) ^ t
    t = t ^ (t >> np.uint64(14))
    return t.astype(np.float64) / 4294967296.0


@dataclass(frozen=True)
class Rounds:
    """Per-round outcome of ``simulate_rounds``; every field has shape (n_rounds,)."""

    accepted: np.ndarray
    """Accepted draft tokens, 0..gamma (int64)."""
    first_rejection: np.ndarray
    """Position 0..gamma-1 of the first rejected draft token, -1 if none (int64)."""
    tokens: np.ndarray
    """Tokens the round yields: accepted + 1, the target's own token included (int64)."""


def _first_true(mask: np.ndarray) -> np.ndarray:
    """Per row, the index of the first True, or the row length if there is none."""
    # a sentinel True column makes argmax well defined for empty and all-False rows
    sentinel = np.ones((mask.shape[0], 1), dtype=bool)
    return np.argmax(np.concatenate([mask, sentinel], axis=1), axis=1).astype(np.int64)


def simulate_rounds(alpha, gamma, n_rounds: int, seed: int) -> Rounds:
    """Simulate ``n_rounds`` rounds at acceptance rate ``alpha`` and depth ``gamma``.

    Rule (the JavaScript replay must follow it): round r reads draws
    r*gamma .. r*gamma + gamma - 1 of ``mulberry32_uniforms(seed, ...)``;
    position j of the round is accepted iff its draw u < alpha. The round keeps
    the prefix before the first rejection (later positions are discarded even
    when their draw was below alpha) and adds one target token. gamma = 0 reads
    no draws and always yields one token.
    """
    a = _single(check_alpha(alpha), "alpha", alpha)
    g = int(_single(check_depth(gamma, whole=True), "gamma", gamma))
    n = _check_count(n_rounds, "n_rounds")
    u = mulberry32_uniforms(seed, n * g).reshape(n, g)
    accepted = _first_true(u >= a)
    first = np.where(accepted < g, accepted, -1)
    return Rounds(accepted=accepted, first_rejection=first, tokens=accepted + 1)


def check_distribution(p, name: str) -> np.ndarray:
    """A 1-D probability vector: finite, >= 0, summing to 1 within 1e-9."""
    try:
        arr = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 1-D array of probabilities, got {p!r}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of probabilities, got shape {arr.shape}")
    if not np.all(np.isfinite(arr) & (arr >= 0.0)):
        raise ValueError(f"{name} must have finite entries >= 0, got {arr.tolist()!r}")
    if abs(arr.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1, got sum {arr.sum()!r}")
    return arr / arr.sum()


def acceptance_rate(p, q) -> float:
    """Chance a token drafted from q is accepted by target p: sum_x min(p(x), q(x))."""
    p = check_distribution(p, "p")
    q = check_distribution(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    return float(np.minimum(p, q).sum())


@dataclass(frozen=True)
class Sample:
    """Output of ``speculative_sample``."""

    tokens: np.ndarray
    """Emitted token ids, every round's tokens concatenated in order (int64)."""
    round_lengths: np.ndarray
    """Tokens emitted by each round, 1..gamma+1, shape (n,) (int64)."""
    accepted: np.ndarray
    """Accepted draft tokens per round, 0..gamma, shape (n,) (int64)."""
    acceptance_rate: float
    """Measured: accepted drafts / drafts checked (a draft after the first
    rejection is never checked). Estimates sum_x min(p(x), q(x)); NaN if
    nothing was checked (gamma = 0)."""


def _draw(rng: np.random.Generator, dist: np.ndarray, shape) -> np.ndarray:
    """Token ids drawn from ``dist`` by inverting its CDF."""
    cdf = np.cumsum(dist)
    cdf[-1] = np.inf  # rounding must never push a draw past the last token
    return np.searchsorted(cdf, rng.random(shape), side="right").astype(np.int64)


def speculative_sample(p, q, gamma: int, n: int, seed: int) -> Sample:
    """Run ``n`` rounds of speculative sampling with target p and draft q.

    Each round drafts gamma tokens from q, accepts drafted token x with
    probability min(1, p(x)/q(x)), and at the first rejection emits a
    correction drawn from norm(max(0, p - q)) and stops; if all gamma are
    accepted it emits a bonus token drawn from p. p and q do not depend on the
    context in this toy, so the emitted stream is i.i.d. p: exactly the
    target's distribution, whatever q is. ``n`` counts rounds; the number of
    tokens is sum(round_lengths) >= n. Seeded with numpy's default_rng(seed).
    """
    p = check_distribution(p, "p")
    q = check_distribution(q, "q")
    if p.shape != q.shape:
        raise ValueError(f"p and q must have the same length, got {p.size} and {q.size}")
    g = int(_single(check_depth(gamma, whole=True), "gamma", gamma))
    n = _check_count(n, "n")
    rng = np.random.default_rng(seed)

    drafts = _draw(rng, q, (n, g))
    with np.errstate(divide="ignore", invalid="ignore"):
        keep = np.minimum(1.0, np.where(q > 0, p / q, 1.0))  # a token q never drafts is never tested
    rejected = rng.random((n, g)) >= keep[drafts]
    accepted = _first_true(rejected)
    any_rejected = accepted < g

    residual = np.maximum(p - q, 0.0)
    # residual is all zero only when p == q, and then nothing is ever rejected
    residual = residual / residual.sum() if residual.sum() > 0 else p
    corrections = _draw(rng, residual, n)
    bonus = _draw(rng, p, n)
    last = np.where(any_rejected, corrections, bonus)

    # lay each round out as drafts[:k] + [last] in a (n, g+1) grid, then read it row-major
    grid = np.concatenate([drafts, np.zeros((n, 1), dtype=np.int64)], axis=1)
    grid[np.arange(n), accepted] = last
    emitted = np.arange(g + 1)[None, :] <= accepted[:, None]
    checked = accepted.sum() + any_rejected.sum()
    rate = float(accepted.sum() / checked) if checked else float("nan")
    return Sample(tokens=grid[emitted], round_lengths=accepted + 1, accepted=accepted, acceptance_rate=rate)
