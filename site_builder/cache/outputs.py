"""The site-wide outputs, memoised: glossary.json, objects.inv, redirects,
sitemap and the preview images are made again only when what they show changed.

The preview cards' warnings (characters no installed font has) are kept with
them (``PREVIEW_WARNINGS_TABLE``), with the fonts they were found with, so a
build that keeps the cards without looking at them (``cache.incremental``)
reports them again, and ``--strict`` fails warm as it fails cold."""

from __future__ import annotations

from ..errors import Problem
from ..load.config import SiteConfig
from ..load.content import Term
from ..markup.render import RenderedBody
from ..outputs import LinkingOutputs
from . import store as cache

LINKING_TABLE = "linking"
"""Cache table: key of everything the linking files list -> those files."""

PREVIEWS_TABLE = "previews"
"""Cache table: key of a preview image's inputs -> the PNG (``LinkingOutputs.previews``)."""

PREVIEW_WARNINGS_TABLE = "preview-warnings"
"""Cache table: the last drawing's ``{"fonts": preview_fonts(...), "problems": [Problem fields]}``."""


def site_files(linking: LinkingOutputs, store: cache.BuildCache, config: SiteConfig, terms: list[Term],
               bodies: dict[str, RenderedBody], jobs: int = 1) -> dict[str, bytes]:
    """relative path -> bytes of every output beside the pages, from the cache where it can
    (previews drawn by ``jobs`` workers when many)."""
    stored = store.table(PREVIEWS_TABLE)
    own, cards, texts = linking.preview_cards()
    drawn = linking.draw_previews({key: card for key, card in texts.items() if key not in stored}, jobs)
    images = {key: drawn[key] if key in drawn else stored[key] for key in texts}
    files = {**linking_files(linking, store, config, terms, bodies), **own,
             **{path: images[key] for path, key in cards.items()}}
    if images.keys() != stored.keys():  # new images, or unused ones
        store.save_table(PREVIEWS_TABLE, images)
    if config.makes_previews:
        record = {"fonts": preview_fonts(config),
                  "problems": [(p.path, p.line, p.message, p.severity) for p in linking.preview_problems]}
        if store.table(PREVIEW_WARNINGS_TABLE) != record:
            store.save_table(PREVIEW_WARNINGS_TABLE, record)
    return files


def preview_fonts(config: SiteConfig) -> list[str]:
    """The identity of every face the cards of ``config`` are drawn in (path,
    size, mtime): another list means other cards, and other warnings."""
    from ..outputs.fonts import font_set

    fonts = font_set(config.language)
    return [face.identity for face in (*fonts.regular, *fonts.bold)]


def recorded_preview_warnings(store: cache.BuildCache, config: SiteConfig, record: dict | None) -> list[Problem] | None:
    """The preview warnings ``record`` (a ``PREVIEW_WARNINGS_TABLE`` value kept by
    the last finished build) holds for ``config``: [] when it makes no cards;
    None when they cannot be known without looking at every card again (no
    record, or the installed fonts changed since)."""
    if not config.makes_previews:
        return []
    if not isinstance(record, dict) or record.get("fonts") != preview_fonts(config):
        return None
    return [Problem(*fields) for fields in record.get("problems", ())]


def linking_files(linking: LinkingOutputs, store: cache.BuildCache, config: SiteConfig,
                  terms: list[Term], bodies: dict[str, RenderedBody]) -> dict[str, bytes]:
    """glossary.json, objects.inv, redirects, sitemap: rebuilt only when what they
    list changed (names, summaries, related terms, headings and anchors), or the
    config or the code; an edit to a body's prose leaves them alone."""
    if not store.enabled:
        return linking.files()
    inputs = cache.key(cache.code_version(), repr(config), repr([
        (t.slug, t.title, t.summary, t.aliases, t.related, bodies[t.slug].anchors, bodies[t.slug].headings)
        for t in terms
    ]))
    table = store.table(LINKING_TABLE)
    if inputs in table:
        return table[inputs]
    files = linking.files()
    store.save_table(LINKING_TABLE, {inputs: files})
    return files
