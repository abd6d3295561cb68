"""Interactive explainers that a term page can embed (front matter `explainer:`).

Explainers are found through the entry-point group ``site_builder.explainers``;
each entry point names an ``Explainer`` declaration (name, element ids,
version, build step). ``base.py`` is the contract (docs/explainers.md
describes it), ``macros.html`` the shared Jinja macros for controls, readouts
and chart panels (``markup.py`` renders with them), ``vega.py`` the Vega
runtime and chart rendering every explainer with charts shares. A build step
is imported only when a term names its explainer, so heavy libraries
(altair, vl-convert) are paid for only by sites that use them.
"""

from .base import Explainer, ExplainerBuild, ExplainerContext

__all__ = ["Explainer", "ExplainerBuild", "ExplainerContext"]
