"""The contract between the site generator and an explainer package.

The build calls ``build(ctx)`` of the explainer a term names, once per build,
after every term is loaded and validated and before anything is written.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

#: explainer name (as written in front matter) -> module that implements it
REGISTRY: dict[str, str] = {
    "speculative-decoding": "site_builder.explainers.speculative_decoding.page",
}


PREVIEW_SIZE = (1200, 630)
"""Width and height of every social preview image (``og:image``), an
explainer's own (``ExplainerBuild.preview_png``) or the composed card."""

#: explainer name -> every id its markup gives an element; a term body's
#: headings never take one of these (see ``markup/render.py``), and a test
#: checks the built page against this list.
ELEMENT_IDS: dict[str, frozenset[str]] = {
    "speculative-decoding": frozenset({
        "sd-explainer", "sd-title", "sd-preset", "sd-speed",
        "sd-alpha", "sd-alpha-hint", "sd-gamma", "sd-gamma-hint", "sd-c", "sd-c-hint",
        "sd-plane-title", "sd-hist-title", "sd-lossless-title",
    }),
}


@dataclass(frozen=True)
class ExplainerContext:
    """What an explainer may know about and ask of the build."""

    slug: str
    """The slug of the term page that embeds the explainer."""
    root: str
    """Relative prefix from the term page to the site root, e.g. ``"../"``."""
    add_asset: Callable[[str, bytes], str]
    """``add_asset(name, data)`` stores a file under ``assets/`` with a content
    hash in its name and returns its URL relative to the site root."""


@dataclass
class ExplainerBuild:
    """What an explainer hands back to the build."""

    html: str
    """Markup inserted above the prose. No inline scripts or styles (CSP)."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Extra files written beside the page, keyed by name relative to the page's folder."""
    scripts: list[str] = field(default_factory=list)
    """Root-relative URLs of classic scripts the page loads with ``defer``."""
    stylesheets: list[str] = field(default_factory=list)
    """Root-relative URLs of stylesheets the page links."""
    preview_png: bytes | None = None
    """Optional social preview image for the page, ``PREVIEW_SIZE`` pixels."""


def build(name: str, ctx: ExplainerContext) -> ExplainerBuild:
    """Import the explainer ``name`` (lazily: heavy imports live there) and build it."""
    module = importlib.import_module(REGISTRY[name])
    return module.build(ctx)
