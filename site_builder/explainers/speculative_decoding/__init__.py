"""Speculative decoding explainer: the declaration, and the numpy model behind the page.

This module holds only the declaration (``EXPLAINER``, named by the entry
point in ``pyproject.toml``), so discovering it imports nothing heavy. The
model's functions are re-exported lazily (``from ...speculative_decoding
import speedup`` imports numpy then); the page builder (``page``) with its
chart libraries is imported only when a term names the explainer.
"""

from __future__ import annotations

import importlib

from ..base import Explainer

EXPLAINER = Explainer(
    name="speculative-decoding",
    element_ids=frozenset({
        "sd-explainer", "sd-title", "sd-preset", "sd-speed",
        "sd-alpha", "sd-alpha-hint", "sd-gamma", "sd-gamma-hint", "sd-c", "sd-c-hint",
        "sd-plane-title", "sd-hist-title", "sd-lossless-title",
        # the serving-under-load panel
        "sd-serving-title", "sd-hw", "sd-devices", "sd-pair", "sd-batch", "sd-batch-hint", "sd-ctx", "sd-ctx-hint",
    }),
    version="1",  # its files are site_builder's own: cache.code_version hashes them
    build="site_builder.explainers.speculative_decoding.page:build",
    prepare="site_builder.explainers.speculative_decoding:prepare",
)


def prepare(jobs: int):
    """Before a fresh build of the page: fork vl-convert's workers (they start
    their runtimes at once, ~0.5 s of CPU each), import numpy and Altair here
    meanwhile (~0.5 s), then compute the page data and hand every chart to the
    workers (``page_charts.start``): they convert while this process imports
    the rest of the page builder and renders the markdown. The release forgets
    the charts and stops the workers (kills them, when the build failed)."""
    from .. import vega

    vega.start_workers(jobs)
    try:
        charts = importlib.import_module(f"{__name__}.page_charts")
        charts.start()
        importlib.import_module(f"{__name__}.page")  # the rest of the build step's imports, while they convert
    except BaseException:
        vega.stop_workers(kill=True)  # no release will run: the build never got one
        raise

    def release(failed: bool = False) -> None:
        charts.forget()
        vega.stop_workers(kill=failed)

    return release

_LAZY = {
    "TIE_RTOL": "model", "expected_tokens": "model", "optimal_depth": "model", "pays_off": "model",
    "speedup": "model", "threshold_cost": "model", "turning_point": "model",
    "Rounds": "sampler", "Sample": "sampler", "acceptance_rate": "sampler", "mulberry32_uniforms": "sampler",
    "simulate_rounds": "sampler", "speculative_sample": "sampler",
}

__all__ = ["EXPLAINER", *sorted(_LAZY)]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
