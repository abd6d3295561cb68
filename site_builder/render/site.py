"""What rendering one site needs, set up in one place for the full build and
the prose-edit fast path (``cache.incremental``), so the two cannot drift."""

from __future__ import annotations

from typing import Mapping

from ..explainers.base import ExplainerBuild
from ..load.config import SiteConfig
from ..load.content import Term
from ..markup.render import RenderedBody
from ..outputs import Linker
from .assets import SITE_ASSETS, AssetStore
from .pages import PageRenderer


def site_assets() -> AssetStore:
    """A new asset store holding the site's own packaged files (CSS, JS, icon);
    explainers add theirs to it in the compute stage."""
    assets = AssetStore()
    for name in SITE_ASSETS:
        assets.add_packaged(name)
    return assets


def site_renderer(config: SiteConfig, terms: list[Term], bodies: Mapping[str, RenderedBody],
                  backlinks: Mapping[str, list[str]], explainers: Mapping[str, ExplainerBuild],
                  assets: AssetStore) -> tuple[PageRenderer, Linker]:
    """The page renderer and the linking outputs of one build, wired together:
    every page carries the linker's extras (social tags, JSON-LD, hover cards)."""
    linker = Linker(config, terms, bodies, backlinks, explainers, assets)
    return PageRenderer(config, terms, assets, page_extras=linker.page_extras), linker
