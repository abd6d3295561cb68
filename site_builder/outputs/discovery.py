"""Discoverability: sitemap.xml, robots.txt, schema.org JSON-LD, Open Graph tags.

sitemap.xml and robots.txt need absolute URLs, so they exist only when the
base URL is known. JSON-LD goes in ``<script type="application/ld+json">``,
which is data, not code (a strict CSP does not block it); it is written with
``dumps_inert`` so no title can close the element.
"""

from __future__ import annotations

from html import escape
from typing import Iterable

from ..load.config import SiteConfig
from ..explainers.base import PREVIEW_SIZE
from .glossary_json import Entry, dumps_inert


def sitemap_xml(base_url: str, entries: Iterable[Entry]) -> bytes:
    """Every real page (not the redirects) under ``base_url``."""
    urls = [base_url] + [base_url + entry.url for entry in sorted(entries, key=lambda e: e.slug)]
    rows = "".join(f"<url><loc>{escape(url, quote=False)}</loc></url>\n" for url in urls)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            f"{rows}</urlset>\n").encode("utf-8")


def robots_txt(base_url: str) -> bytes:
    """Allow everything and name the sitemap (crawlers read robots.txt only at a host's root)."""
    return f"User-agent: *\nAllow: /\n\nSitemap: {base_url}sitemap.xml\n".encode("utf-8")


def _term_set(config: SiteConfig) -> dict:
    item = {"@type": "DefinedTermSet", "name": config.title}
    if config.base_url:
        item["@id"] = config.base_url
        item["url"] = config.base_url
    return item


def _term(config: SiteConfig, entry: Entry) -> dict:
    item: dict = {"@type": "DefinedTerm", "name": entry.title, "description": entry.summary, "termCode": entry.slug}
    if entry.aliases:
        item["alternateName"] = list(entry.aliases)
    if config.base_url:
        item["@id"] = item["url"] = config.base_url + entry.url
    return item


def index_json_ld(config: SiteConfig, entries: Iterable[Entry]) -> str:
    """The index page's DefinedTermSet with every term."""
    document = {"@context": "https://schema.org", **_term_set(config), "description": config.description,
                "hasDefinedTerm": [_term(config, e) for e in sorted(entries, key=lambda e: e.slug)]}
    return dumps_inert(document)


def term_json_ld(config: SiteConfig, entry: Entry) -> str:
    """A term page's DefinedTerm, placed in the glossary's DefinedTermSet."""
    return dumps_inert({"@context": "https://schema.org", **_term(config, entry), "inDefinedTermSet": _term_set(config)})


def meta_tags(config: SiteConfig, *, title: str, description: str, kind: str, page_url: str,
              image: str | None) -> list[tuple[str, str, str]]:
    """Open Graph and Twitter card tags as (attribute, key, content); the template escapes them.

    ``page_url``: absolute URL or "" (og:url is left out); ``image``: URL of the
    1200x630 preview (absolute when the base URL is known) or None.
    """
    tags = [
        ("property", "og:type", kind),
        ("property", "og:site_name", config.title),
        ("property", "og:title", title),
        ("property", "og:description", description),
    ]
    if page_url:
        tags.append(("property", "og:url", page_url))
    if image:
        width, height = PREVIEW_SIZE
        tags += [("property", "og:image", image), ("property", "og:image:width", str(width)),
                 ("property", "og:image:height", str(height)), ("property", "og:image:alt", title)]
    tags.append(("name", "twitter:card", "summary_large_image" if image else "summary"))
    return tags
