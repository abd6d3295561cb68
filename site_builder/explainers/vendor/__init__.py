"""The Vega runtime the explainers' live charts run on, vendored from npm.

``vega.min.js`` (Vega 6, self-contained), ``vega-interpreter.js`` (expressions
without eval, for a strict CSP) and ``vega-tooltip.js``, each with its
licence; ``VENDORED.json`` pins their versions, npm integrity and sha256.
``tools/refresh_vendor.py`` writes them; ``explainers.vega.runtime()`` joins
them into one asset. Nothing here is imported: the files are data.
"""
