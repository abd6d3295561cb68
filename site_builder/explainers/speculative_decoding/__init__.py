"""Speculative decoding explainer: the numpy model behind the page.

Only numpy-based modules are imported here, so importing the package stays
cheap; the page builder (``page``) with its chart libraries is imported by the
build registry on its own.
"""

from .model import (
    TIE_RTOL,
    expected_tokens,
    optimal_depth,
    pays_off,
    speedup,
    threshold_cost,
    turning_point,
)
from .sampler import (
    Rounds,
    Sample,
    acceptance_rate,
    mulberry32_uniforms,
    simulate_rounds,
    speculative_sample,
)

__all__ = [
    "TIE_RTOL",
    "Rounds",
    "Sample",
    "acceptance_rate",
    "expected_tokens",
    "mulberry32_uniforms",
    "optimal_depth",
    "pays_off",
    "simulate_rounds",
    "speculative_sample",
    "speedup",
    "threshold_cost",
    "turning_point",
]
