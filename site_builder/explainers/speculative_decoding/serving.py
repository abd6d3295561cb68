"""Speculative decoding under load: a roofline model of one decoding step, vectorised over numpy arrays.

The page's closed-form model (``model.py``) prices a verification pass at one
target pass whatever gamma or the load. That holds while decoding is
memory-bound: the weights are read once per pass however many tokens the pass
scores. Here the cost of a pass is a roofline instead. A forward pass of a
model with ``P`` parameters stored at ``b`` bytes each, over a batch of ``B``
sequences that each score ``T`` new tokens and read ``kv`` bytes of their own
KV cache, on hardware with memory bandwidth ``BW`` (bytes/s) and dense peak
compute ``F`` (FLOP/s), takes

    t(P, B, T, kv) = max((P b + B kv) / BW,  2 P B T / F)

A speculative round at batch ``B`` costs ``gamma`` sequential draft passes
``t(P_d, B, 1, kv_d)`` plus one verification ``t(P_t, B, gamma + 1, kv_t)`` and
yields ``E(alpha, gamma)`` tokens per sequence (``model.expected_tokens``);
plain decoding yields one token per ``t(P_t, B, 1, kv_t)``. So

    S(B) = E t(P_t, B, 1, kv_t) / (gamma t(P_d, B, 1, kv_d) + t(P_t, B, gamma + 1, kv_t)).

What ``kv_bytes`` means, precisely: the bytes of KV cache that ONE sequence
reads in ONE forward pass, i.e. its context length (tokens already cached) x
the model's KV bytes per token (layers x KV heads x head dim x 2 for K and V x
bytes per value; see ``serving_presets.kv_bytes_per_token``). It does not scale
with ``T``: the gamma + 1 tokens of a verification read the same cache once.
The K/V the new tokens write is left out (at most (gamma + 1) / context of the
read), and so are the attention FLOPs, which grow with the context (the
compute term counts the 2 P FLOPs per token of the weight matmuls only).

Everything is per system: ``params``, ``bandwidth`` and ``flops`` must describe
the same devices. Tensor parallelism over N devices with ideal scaling divides
``P`` (and the KV) per device by N and leaves every ratio unchanged, so S is
the same on 1 or N devices when bandwidth and compute scale together.

Conventions follow ``model.py``: arguments broadcast like a numpy ufunc, the
result is a float ndarray (0-d for scalar input), invalid input raises
ValueError naming the parameter, and speedups within ``TIE_RTOL`` of each other
(or of 1) count as tied.
"""

from __future__ import annotations

import numpy as np

from .model import TIE_RTOL, check_cost, check_depth, expected_tokens

#: the batch sizes ``break_even_batch`` searches (the panel's slider range)
MAX_BATCH = 4096


def _nonneg(value, name: str) -> np.ndarray:
    """Finite and >= 0 (``model.check_cost`` carries exactly that rule and message)."""
    return check_cost(value, name)


def _positive(value, name: str) -> np.ndarray:
    """Finite and > 0: a zero bandwidth, compute or weight size would divide by zero."""
    arr = _nonneg(value, name)
    if np.any(arr == 0.0):
        raise ValueError(f"{name} must be finite and > 0, got 0.0")
    return arr


def _scalar(value, name: str):
    """The search functions take scalars: an array would silently broadcast against the search axis."""
    if np.ndim(value) != 0:
        raise ValueError(f"{name} must be a scalar, got an array of shape {np.shape(value)}")
    return value


def step_time(params, batch, tokens, kv_bytes, *, bytes_per_param, bandwidth, flops):
    """Seconds for one forward pass: max((P b + B kv) / BW, 2 P B T / F).

    ``params`` P, ``batch`` B (sequences), ``tokens`` T (new tokens scored per
    sequence), ``kv_bytes`` (KV-cache bytes one sequence reads in this pass:
    context length x KV bytes per token) are finite and >= 0; real values are
    allowed so that curves can be smooth. ``bytes_per_param``, ``bandwidth``
    (bytes/s) and ``flops`` (dense FLOP/s) are > 0. Broadcasts over all arguments.
    """
    p, b, t, kv = (_nonneg(v, n) for v, n in ((params, "params"), (batch, "batch"),
                                               (tokens, "tokens"), (kv_bytes, "kv_bytes")))
    w = _positive(bytes_per_param, "bytes_per_param")
    bw = _positive(bandwidth, "bandwidth")
    f = _positive(flops, "flops")
    # the weights are read once per pass, whatever B and T; each sequence reads its own cache
    memory = (p * w + b * kv) / bw
    # a multiply-add per weight per token scored: 2 FLOPs per parameter per token
    compute = 2.0 * p * b * t / f
    return np.maximum(memory, compute)


def speedup_at_batch(alpha, gamma, batch, *, target_params, draft_params, bytes_per_param, bandwidth, flops,
                     target_kv_bytes=0, draft_kv_bytes=0):
    """Speedup over plain decoding at batch size B under the roofline (see the module docstring).

    S = E t(P_t, B, 1, kv_t) / (gamma t(P_d, B, 1, kv_d) + t(P_t, B, gamma + 1, kv_t)).
    ``gamma`` must be whole (it counts draft passes); gamma = 0 is plain decoding
    and gives exactly 1. ``target_params`` > 0; ``draft_params`` >= 0 (0: a free
    draft). Every argument broadcasts. At batch 1 with no KV term and every pass
    memory-bound this is the page's E / (1 + gamma c) with c = P_d / P_t.
    """
    g = check_depth(gamma, whole=True)
    e = expected_tokens(alpha, g)
    pt = _positive(target_params, "target_params")
    # checked here so that an error names this function's argument, not step_time's
    pd = _nonneg(draft_params, "draft_params")
    kvt, kvd = _nonneg(target_kv_bytes, "target_kv_bytes"), _nonneg(draft_kv_bytes, "draft_kv_bytes")
    hw = {"bytes_per_param": bytes_per_param, "bandwidth": bandwidth, "flops": flops}
    plain = step_time(pt, batch, 1.0, kvt, **hw)
    draft = step_time(pd, batch, 1.0, kvd, **hw)
    verify = step_time(pt, batch, g + 1.0, kvt, **hw)
    # verify >= P_t b / BW > 0, so the denominator never vanishes
    s = e * plain / (g * draft + verify)
    # gamma = 0 is plain decoding by definition: exact 1, not a ratio of two equal roundings
    return np.where(g == 0.0, 1.0, s)


def break_even_batch(alpha, gamma, **same):
    """The smallest whole batch size in 1..MAX_BATCH at which speculating is a slowdown, or None.

    ``same`` are ``speedup_at_batch``'s keyword arguments; every argument is a
    scalar. Slowdown means S < 1 - TIE_RTOL, the mirror of ``model.pays_off``, so
    an exact tie with plain decoding (gamma = 0, or alpha = 1 with a free draft
    past the ridge) is not a slowdown. S need not be monotone in B when there is
    a KV term, so this is the first slowdown, not a threshold beyond which all are.
    """
    for name, value in (("alpha", alpha), ("gamma", gamma), *same.items()):
        _scalar(value, name)
    batches = np.arange(1, MAX_BATCH + 1, dtype=float)
    slow = np.flatnonzero(speedup_at_batch(alpha, gamma, batches, **same) < 1.0 - TIE_RTOL)
    return int(batches[slow[0]]) if slow.size else None


def best_gamma_at_batch(alpha, batch, *, max_gamma=64, **same):
    """``(gamma, speedup)``: the whole depth 0..max_gamma that maximises S at this batch size.

    gamma = 0 means do not speculate (speedup exactly 1). Ties go to the smaller
    depth, with speedups within a relative TIE_RTOL of the best counted as tied,
    the rule of ``model.optimal_depth``; so a depth is chosen only if it beats
    plain decoding by more than rounding. Every argument is a scalar.
    """
    for name, value in (("alpha", alpha), ("batch", batch), *same.items()):
        _scalar(value, name)
    if isinstance(max_gamma, bool) or not isinstance(max_gamma, (int, np.integer)) or max_gamma < 0:
        raise ValueError(f"max_gamma must be a whole number >= 0, got {max_gamma!r}")
    depths = np.arange(max_gamma + 1, dtype=float)
    s = speedup_at_batch(alpha, depths, batch, **same)
    # argmax returns the first True: the smallest depth tied with the best
    best = int(np.argmax(s >= s.max() * (1.0 - TIE_RTOL)))
    return best, float(s[best])


def ridge_batch(params, tokens, kv_bytes, *, bytes_per_param, bandwidth, flops):
    """The batch size at which a pass turns compute-bound: where the two roofline terms meet.

    (P b + B kv) / BW = 2 P B T / F gives B* = (P b / BW) / (2 P T / F - kv / BW).
    +inf where the KV read grows at least as fast as the compute (kv / BW >=
    2 P T / F): then the pass is memory-bound at every batch size, the long-context
    regime. With kv = 0 it is b F / (2 T BW) whatever P. Broadcasts; real B*.
    """
    p, t, kv = _nonneg(params, "params"), _nonneg(tokens, "tokens"), _nonneg(kv_bytes, "kv_bytes")
    w = _positive(bytes_per_param, "bytes_per_param")
    bw = _positive(bandwidth, "bandwidth")
    f = _positive(flops, "flops")
    slope = 2.0 * p * t / f - kv / bw  # how much faster compute grows than the KV read, per sequence
    with np.errstate(divide="ignore", invalid="ignore"):
        ridge = (p * w / bw) / slope
    return np.where(slope > 0.0, ridge, np.inf)


def memory_bound_cost(target_params, draft_params, batch=1, *, bytes_per_param, target_kv_bytes=0,
                      draft_kv_bytes=0):
    """The page's c for a pairing: a draft pass over a target pass when both are memory-bound.

    c = (P_d b + B kv_d) / (P_t b + B kv_t); with no KV term it is P_d / P_t,
    the ratio a pairing preset sets on the main figure. Broadcasts.
    """
    pt = _positive(target_params, "target_params")
    pd = _nonneg(draft_params, "draft_params")
    b = _nonneg(batch, "batch")
    w = _positive(bytes_per_param, "bytes_per_param")
    return (pd * w + b * _nonneg(draft_kv_bytes, "draft_kv_bytes")) / (
        pt * w + b * _nonneg(target_kv_bytes, "target_kv_bytes"))


def memory_footprint(batch, *, target_params, draft_params, bytes_per_param, target_kv_bytes=0, draft_kv_bytes=0):
    """Bytes resident while serving: both models' weights plus every sequence's two KV caches.

    (P_t + P_d) b + B (kv_t + kv_d), with kv the whole cache of one sequence at
    its context length (the same quantity the passes read). Compare with memory
    per device x device count to grey out batch sizes that do not fit. Broadcasts.
    """
    b = _nonneg(batch, "batch")
    weights = (_nonneg(target_params, "target_params") + _nonneg(draft_params, "draft_params")) * _positive(
        bytes_per_param, "bytes_per_param")
    return weights + b * (_nonneg(target_kv_bytes, "target_kv_bytes") + _nonneg(draft_kv_bytes, "draft_kv_bytes"))
