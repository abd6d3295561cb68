"""The page's precomputed data: compact, deterministic, JSON-ready.

``page_data()`` returns the dict below; ``page_data_json()`` serialises it with
sorted keys, compact separators and a trailing newline, so two builds are
byte-identical. Floats are rounded (``DIGITS`` decimals unless stated);
NaN and infinity never appear (see ``turning_kind``). Index order of every
nested list is given as [outer][inner].

schema: 1

grid: the slider grid, coarse enough to ship (the page recomputes exact
    values in JS; these are for charts and for testing the JS against Python)
    alpha: [21] 0, 0.05, ..., 1
    c: [21] 0, 0.05, ..., 1 (draft cost, in target forward passes)
    gamma: [17] whole depths 0..16
    expected_tokens: [alpha][gamma] E = sum_{k=0..gamma} alpha^k (independent of c)
    speedup: [alpha][c][gamma] S = E / (1 + gamma c)
    optimal_depth: [alpha][c] int, best whole depth in 0..max_depth (0: do not speculate)
    turning_point: [alpha][c] real gamma where the smooth S peaks, or null (see turning_kind)
    turning_kind: [alpha][c] int: 0 no turning point (S falls or is flat from gamma = 0),
        1 finite peak at turning_point, 2 S rises forever (c = 0, or alpha = 1 with c < 1)
    peak_speedup: [alpha][c] S at turning_point, null unless turning_kind == 1
    max_depth: int (64), the cap of optimal_depth

plane: the optimal whole depth over the (alpha, c) plane
    alpha: [51] 0, 0.02, ..., 1, the cells' edges
    c: [51] 0, 0.02, ..., 1, the cells' edges
    optimal_depth: [50][50] int in 0..max_depth, at each cell's centre
        (alpha[i] + 0.01, c[j] + 0.01): the colour of cell [i][j]. The centre,
        not a corner, so the bottom row is not coloured by c = 0, where a free
        draft has no best depth at all
    max_depth: int (64)
    threshold: {alpha: [101] 0..1 step 0.01, c: [101]} the curve c*(alpha) =
        -alpha ln(alpha) / (1 - alpha); above it the smooth curve has no peak
    break_even: {alpha: [0, 1], c: [0, 1]} the line c = alpha; some whole
        depth speeds decoding up exactly when c < alpha

histograms: list of {alpha, gamma, n_rounds, seed,
        tokens: [gamma+1] 1..gamma+1,
        counts: [gamma+1] int, rounds yielding that many tokens (simulate_rounds, mulberry32),
        empirical: [gamma+1] counts / n_rounds,
        exact: [gamma+1] P(k) = alpha^(k-1) (1 - alpha) for k <= gamma, alpha^gamma for k = gamma+1,
        mean: mean tokens per round, expected: E}

lossless: {vocabulary: [6] token labels, p: [6] target distribution, gamma, n_rounds,
    drafts: list of {id, label, q: [6], empirical: [6] share of each token in the output,
        n_tokens: int, acceptance_measured: accepted / checked drafts,
        acceptance_exact: sum_x min(p(x), q(x)), seed}}
    speculative_sample output follows p whatever q is; the empirical column shows it.

presets: list of presets.Preset dicts (id, label, alpha, c, gamma, measured_speedup,
    citation {text, url}, sources {field: "printed: ..." | "derived: ..."}, notes, tags)
    plus model_speedup = S(alpha, gamma, c) and optimal_depth at (alpha, c).

prng_fixture: see replay_fixture(); floats there are exact (not rounded).

serving: the serving-under-load panel (serving_panel.py)
    presets: {hardware: [...], pairings: [...]}, as the page's script receives them
        (serving_presets values, each preset's one-line summary and citations)
    table: list of {hw, pair, ctx, devices, speedup_at_1, break_even, fit, ridge}, one per
        hardware x pairing x context in serving_panel.TABLE_CONTEXTS (0, 4096, 32768), at
        the default alpha, gamma and devices and the pairing's own c: S at batch 1, the
        first slowdown (null: none up to 4096), the largest batch that fits (0: not even
        the weights), the verification pass's ridge (null: memory-bound at every batch)
"""

from __future__ import annotations

import json

import numpy as np

from .model import expected_tokens, optimal_depth, speedup, threshold_cost, turning_point
from .presets import presets
from .sampler import mulberry32_uniforms, simulate_rounds, speculative_sample
from .serving_panel import presets_data as serving_presets_data
from .serving_panel import table as serving_table

DIGITS = 4
MAX_DEPTH = 64

HISTOGRAM_SETTINGS = [  # (alpha, gamma, seed): a good, a mediocre and a poor draft
    (0.8, 5, 1),
    (0.6, 4, 2),
    (0.3, 3, 3),
]
HISTOGRAM_ROUNDS = 2000

VOCABULARY = ["the", "cat", "sat", "on", "mat", "."]
TARGET = [0.30, 0.20, 0.18, 0.14, 0.10, 0.08]
DRAFTS = [  # (id, label, q): near the target, mediocre, poor (mass on the wrong tokens)
    ("close", "close draft", [0.28, 0.22, 0.17, 0.15, 0.10, 0.08]),
    ("mediocre", "mediocre draft", [0.45, 0.05, 0.25, 0.05, 0.15, 0.05]),
    ("poor", "poor draft", [0.05, 0.05, 0.05, 0.10, 0.35, 0.40]),
]
LOSSLESS_GAMMA = 4
LOSSLESS_ROUNDS = 4000


def _r(x, digits: int = DIGITS):
    """Round to ``digits`` decimals as plain Python floats; -0.0 becomes 0.0."""
    return (np.round(np.asarray(x, dtype=float), digits) + 0.0).tolist()


def _nullable(x: np.ndarray, keep: np.ndarray, digits: int = DIGITS):
    """Nested lists of rounded floats, None where ``keep`` is False."""
    rounded = np.round(np.where(keep, x, 0.0), digits) + 0.0
    return np.where(keep, rounded.astype(object), None).tolist()


def _steps(step: float, count: int) -> np.ndarray:
    """0, step, ..., exactly (count - 1) * step, free of accumulated rounding."""
    return np.round(np.arange(count) * step, 10)


def _grid() -> dict:
    """The ``grid`` section: curves over the slider grid."""
    alpha = _steps(0.05, 21)
    c = _steps(0.05, 21)
    gamma = np.arange(17)
    a2, c2 = np.meshgrid(alpha, c, indexing="ij")
    tp = turning_point(a2, c2)
    finite = np.isfinite(tp)
    kind = np.where(finite, 1, np.where(np.isposinf(tp), 2, 0))
    peak = speedup(a2, np.where(finite, tp, 0.0), c2)
    return {
        "alpha": _r(alpha),
        "c": _r(c),
        "gamma": gamma.tolist(),
        "expected_tokens": _r(expected_tokens(alpha[:, None], gamma[None, :])),
        "speedup": _r(speedup(a2[..., None], gamma, c2[..., None])),
        "optimal_depth": optimal_depth(a2, c2, MAX_DEPTH).tolist(),
        "turning_point": _nullable(tp, finite),
        "turning_kind": kind.tolist(),
        "peak_speedup": _nullable(peak, finite),
        "max_depth": MAX_DEPTH,
    }


def _plane() -> dict:
    """The ``plane`` section: best depth over (alpha, c), threshold and break-even lines."""
    alpha = _steps(0.02, 51)
    c = _steps(0.02, 51)
    curve = _steps(0.01, 101)
    centre_a, centre_c = (alpha[:-1] + alpha[1:]) / 2, (c[:-1] + c[1:]) / 2
    return {
        "alpha": _r(alpha),
        "c": _r(c),
        "optimal_depth": optimal_depth(centre_a[:, None], centre_c[None, :], MAX_DEPTH).tolist(),
        "max_depth": MAX_DEPTH,
        "threshold": {"alpha": _r(curve), "c": _r(threshold_cost(curve))},
        "break_even": {"alpha": [0.0, 1.0], "c": [0.0, 1.0]},
    }


def exact_token_pmf(alpha: float, gamma: int) -> np.ndarray:
    """P(a round yields k tokens) for k = 1..gamma+1: a capped geometric law."""
    k = np.arange(1, gamma + 2)
    pmf = alpha ** (k - 1) * (1.0 - alpha)
    pmf[-1] = alpha**gamma  # all gamma drafts accepted, plus the bonus token
    return pmf


def _histograms() -> list[dict]:
    """The ``histograms`` section: simulated tokens per round beside the exact law."""
    out = []
    for alpha, gamma, seed in HISTOGRAM_SETTINGS:
        rounds = simulate_rounds(alpha, gamma, HISTOGRAM_ROUNDS, seed)
        counts = np.bincount(rounds.tokens, minlength=gamma + 2)[1:]
        out.append({
            "alpha": alpha,
            "gamma": gamma,
            "n_rounds": HISTOGRAM_ROUNDS,
            "seed": seed,
            "tokens": list(range(1, gamma + 2)),
            "counts": counts.tolist(),
            "empirical": _r(counts / HISTOGRAM_ROUNDS),
            "exact": _r(exact_token_pmf(alpha, gamma)),
            "mean": _r(rounds.tokens.mean()),
            "expected": _r(expected_tokens(alpha, gamma)),
        })
    return out


def _lossless() -> dict:
    """The ``lossless`` section: the real algorithm's output against p and q."""
    p = np.array(TARGET)
    drafts = []
    for seed, (draft_id, label, q) in enumerate(DRAFTS, start=1):
        sample = speculative_sample(p, q, LOSSLESS_GAMMA, LOSSLESS_ROUNDS, seed)
        n = sample.tokens.size
        drafts.append({
            "id": draft_id,
            "label": label,
            "q": q,
            "empirical": _r(np.bincount(sample.tokens, minlength=p.size) / n),
            "n_tokens": int(n),
            "acceptance_measured": _r(sample.acceptance_rate),
            "acceptance_exact": _r(np.minimum(p, q).sum()),
            "seed": seed,
        })
    return {
        "vocabulary": VOCABULARY,
        "p": TARGET,
        "gamma": LOSSLESS_GAMMA,
        "n_rounds": LOSSLESS_ROUNDS,
        "drafts": drafts,
    }


def _presets() -> list[dict]:
    """The ``presets`` section, with the model's speedup and best depth for each."""
    out = []
    for preset in presets():
        d = preset.to_dict()
        d["model_speedup"] = _r(speedup(preset.alpha, preset.gamma, preset.c), 3)
        d["optimal_depth"] = int(optimal_depth(preset.alpha, preset.c, MAX_DEPTH))
        out.append(d)
    return out


def replay_fixture(seed: int = 42, alpha: float = 0.7, gamma: int = 5, n_rounds: int = 20) -> dict:
    """What a JavaScript reimplementation of the rounds must reproduce exactly.

    ``uniforms`` are the first 10 mulberry32 draws for ``seed`` as exact
    floats (each is k / 2^32, so JSON round-trips it bit for bit) with
    ``uniforms_uint32`` the same draws as integers k. ``accepted`` and
    ``first_rejection`` are ``simulate_rounds(alpha, gamma, n_rounds, seed)``.
    """
    u = mulberry32_uniforms(seed, 10)
    rounds = simulate_rounds(alpha, gamma, n_rounds, seed)
    return {
        "algorithm": "mulberry32",
        "rule": "round r uses draws r*gamma .. r*gamma+gamma-1; position j accepted iff u < alpha; "
        "accepted = positions before the first rejection",
        "seed": seed,
        "alpha": alpha,
        "gamma": gamma,
        "n_rounds": n_rounds,
        "uniforms": u.tolist(),
        "uniforms_uint32": [int(x) for x in (u * 4294967296.0).astype(np.int64)],
        "accepted": rounds.accepted.tolist(),
        "first_rejection": rounds.first_rejection.tolist(),
    }


def page_data() -> dict:
    """Everything the page needs, as documented in this module's docstring."""
    return {
        "schema": 1,
        "grid": _grid(),
        "plane": _plane(),
        "histograms": _histograms(),
        "lossless": _lossless(),
        "presets": _presets(),
        "prng_fixture": replay_fixture(),
        "serving": {"presets": serving_presets_data(), "table": serving_table()},
    }


def page_data_json(page: dict | None = None) -> bytes:
    """``page_data()`` as compact JSON: sorted keys, no spaces, trailing newline.
    ``page``: that data when already computed (the build computes it once)."""
    text = json.dumps(page_data() if page is None else page, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return (text + "\n").encode("utf-8")
