"""What rendering one site needs, set up in one place for the full build and
the prose-edit fast path (``cache.incremental``), so the two cannot drift.

It wires the render stage's page renderer to this stage's linking outputs, so
it lives here, above both: the render stage imports nothing of outputs."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Mapping

from ..explainers.base import ExplainerBuild
from ..load.config import SiteConfig
from ..load.content import Term
from ..markup.render import RenderedBody
from . import LinkingOutputs
from ..render.assets import SITE_ASSETS, AssetStore
from ..load.theme import CSS_URL, Theme
from ..render.pages import PageRenderer
from ..render.templates import theme_asset


def site_assets(theme: Theme | None = None) -> AssetStore:
    """A new asset store holding the site's own packaged files (CSS, JS, icon)
    and the theme's (``extra_css``, ``extra_js``, ``logo``); explainers add
    theirs to it in the explainers stage."""
    assets = AssetStore()
    for name in SITE_ASSETS:
        assets.add_packaged(name)
    theme = theme or Theme()
    for name, data in sorted(theme.assets.items()):
        if name not in theme.references:
            assets.add(theme_asset(name), data)
    for name, references in sorted(theme.references.items()):  # after the files they name
        hashed = {written: PurePosixPath(assets.urls[theme_asset(target)]).name + _fragment(written)
                  for written, target in references.items()}
        assets.add(theme_asset(name), rewrite_urls(theme.assets[name], hashed))
    return assets


def rewrite_urls(stylesheet: bytes, hashed: dict[str, str]) -> bytes:
    """``stylesheet`` with each relative ``url()`` in ``hashed`` naming the
    hashed file instead (it sits beside the style sheet in ``assets/``)."""
    def swap(match):
        new = hashed.get(match.group(2))
        return match.group(0) if new is None else f'url("{new}")'
    return CSS_URL.sub(swap, stylesheet.decode("utf-8")).encode("utf-8")


def _fragment(written: str) -> str:
    """The ``#id`` of a url (an SVG sprite's symbol): kept; a ``?query`` is dropped (the hash versions it)."""
    return "#" + written.split("#", 1)[1] if "#" in written else ""


def site_renderer(config: SiteConfig, terms: list[Term], bodies: Mapping[str, RenderedBody],
                  backlinks: Mapping[str, list[str]], explainers: Mapping[str, ExplainerBuild],
                  assets: AssetStore, theme: Theme | None = None,
                  used_in: Mapping[str, tuple] | None = None) -> tuple[PageRenderer, LinkingOutputs]:
    """The page renderer and the linking outputs of one build, wired together:
    every page carries the linking's extras (social tags, JSON-LD, hover cards),
    and each term page the pages of other sites that link to it (``used_in``:
    slug -> ``integrations.usage.UsedIn``, from the usage files)."""
    linking = LinkingOutputs(config, terms, bodies, backlinks, explainers, assets)
    used_in = dict(used_in or {})

    def extras(term: Term | None) -> dict:
        found = linking.page_extras(term)  # a new dict each call: ours to add to
        if term is not None:
            found["used_in"] = used_in.get(term.slug, ())
        return found
    renderer = PageRenderer(config, terms, assets, page_extras=extras, theme=theme)
    renderer.used_in = used_in
    return renderer, linking
