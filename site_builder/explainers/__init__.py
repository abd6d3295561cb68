"""Interactive explainers that a term page can embed (front matter `explainer:`).

Each explainer is a subpackage whose module named in ``base.REGISTRY`` exposes
``build(ctx) -> ExplainerBuild``; it is imported only when a term names it, so
heavy libraries (altair, vl-convert) are paid for only by sites that use them.
"""
