"""``glossary.json``: the machine-readable index other sites link against.

Schema (version 1; a new field may be added without a version bump, a
removed or changed one bumps ``version``)::

    {
      "version": 1,
      "generator": "site_builder 0.1.0",
      "title": "Inference Glossary",          # site title
      "description": "...",                   # site description
      "language": "en",
      "base_url": "https://example.org/glossary/" or null,
      "terms": [                              # sorted by slug
        {
          "slug": "inference",
          "title": "Inference",
          "summary": "Running a trained model ...",   # plain text
          "aliases": ["LLM inference", ...],
          "related": ["model", ...],                  # slugs
          "url": "inference/",                        # relative to glossary.json
          "absolute_url": "https://example.org/glossary/inference/",   # only with base_url
          "anchors": ["two-phases-prefill-and-decode", ...],           # ids on the page
          "redirects": ["llm-inference", ...]         # alias slugs that redirect here
        }
      ]
    }

The bytes are deterministic, and ``<``, ``>``, ``&``, U+2028 and U+2029 are
written as ``\\uXXXX`` escapes, so the text is inert even pasted into HTML.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Iterable

from .. import __version__
from ..load.config import SiteConfig
from ..load.content import Term
from ..markup.render import RenderedBody
from .redirects import Redirect

VERSION = 1
GENERATOR = f"site_builder {__version__}"

_INERT = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}
_INERT_PAIRS = tuple((chr(code), escape) for code, escape in _INERT.items())


def inert(text: str) -> str:
    """``text`` with the characters of ``_INERT`` replaced by their ``\\uXXXX`` escapes.

    The same as ``text.translate(_INERT)`` (no escape contains a character that
    is itself escaped, so replacing one character at a time cannot interact),
    but ``str.translate`` leaves its fast path at the first replacement longer
    than one character and then looks every character up in the dict; a
    ``str.replace`` per character present is a few C-speed scans instead.
    """
    for char, escape in _INERT_PAIRS:
        if char in text:
            text = text.replace(char, escape)
    return text


def dumps_inert(value: object, indent: int | None = None) -> str:
    """JSON that stays inert inside HTML, ``<script>`` elements and JavaScript source."""
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=(",", ": ") if indent else (",", ":"))
    return inert(text)


@dataclass(frozen=True)
class Entry:
    """One term as every linking output sees it."""

    slug: str
    title: str
    summary: str
    aliases: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    redirects: tuple[str, ...] = field(default=())

    @property
    def url(self) -> str:
        """The permalink, relative to the site root."""
        return f"{self.slug}/"


def redirect_sources(redirects: Iterable[Redirect]) -> dict[str, list[str]]:
    """target slug -> the redirect folders that lead to it."""
    sources: dict[str, list[str]] = {}
    for redirect in redirects:
        sources.setdefault(redirect.target, []).append(redirect.source)
    return sources


def make_entry(term: Term, body: RenderedBody | None, sources: Iterable[str]) -> Entry:
    """One term's entry (``sources``: the redirects that lead to it)."""
    anchors = tuple(dict.fromkeys(body.anchors)) if body else ()
    return Entry(term.slug, term.title, term.summary, tuple(term.aliases), tuple(term.related),
                 anchors, tuple(sorted(sources)))


def glossary_json(config: SiteConfig, entries: Iterable[Entry]) -> bytes:
    """The bytes of ``glossary.json``."""
    base = config.base_url or None
    ordered = sorted(entries, key=lambda e: e.slug)
    try:
        text = _document_text(config, base, ordered)
    except TypeError:
        # Some value is not a string (``encode_basestring`` refuses it): only a
        # hand-made Entry or config can do that. json.dumps writes whatever
        # it would have written (or raises what it would have raised).
        text = dumps_inert(_document(config, base, ordered), indent=1)
    return (text + "\n").encode("utf-8")


def _document(config: SiteConfig, base: str | None, entries: list[Entry]) -> dict[str, object]:
    """The document as plain values, for ``json.dumps``; ``_document_text`` must write exactly its JSON."""
    terms = []
    for entry in entries:
        item: dict[str, object] = {
            "slug": entry.slug,
            "title": entry.title,
            "summary": entry.summary,
            "aliases": list(entry.aliases),
            "related": list(entry.related),
            "url": entry.url,
        }
        if base:
            item["absolute_url"] = base + entry.url
        item["anchors"] = list(entry.anchors)
        item["redirects"] = list(entry.redirects)
        terms.append(item)
    return {
        "version": VERSION,
        "generator": GENERATOR,
        "title": config.title,
        "description": config.description,
        "language": config.language,
        "base_url": base,
        "terms": terms,
    }


# The text of ``dumps_inert(_document(...), indent=1)``, written directly.
#
# With an indent, json.dumps falls back to its pure-Python encoder: a stack of
# generators per value, ~0.35 s of CPU for 10,000 terms. The document's shape is fixed,
# so here each term is one f-string whose strings come from the C function
# json itself uses for them (``encode_basestring``, as ``ensure_ascii=False``
# does), then ``inert`` runs once over the whole text. Indentation: one space
# per level (top-level keys 1, terms 2, term keys 3, list items 4); separators
# ``","`` + newline and ``": "``; an empty list is ``[]``.
# ``encode_basestring`` raises TypeError for anything but a string, which sends
# ``glossary_json`` to the json.dumps path.


def _string_list(items: Iterable[str]) -> str:
    """A list of strings at term-key depth, as json.dumps(indent=1) writes it."""
    # An encoded string is never empty (at least ``""``), so an empty join
    # means an empty list.
    body = ",\n    ".join(map(encode_basestring, items))
    return f"[\n    {body}\n   ]" if body else "[]"


def _term_text(entry: Entry, base: str | None) -> str:
    """One term object, indented as an item of ``"terms"``."""
    string = encode_basestring
    url = entry.url
    absolute = f',\n   "absolute_url": {string(base + url)}' if base else ""
    return (
        f'  {{\n   "slug": {string(entry.slug)},\n   "title": {string(entry.title)},\n'
        f'   "summary": {string(entry.summary)},\n   "aliases": {_string_list(entry.aliases)},\n'
        f'   "related": {_string_list(entry.related)},\n   "url": {string(url)}{absolute},\n'
        f'   "anchors": {_string_list(entry.anchors)},\n   "redirects": {_string_list(entry.redirects)}\n  }}'
    )


def _document_text(config: SiteConfig, base: str | None, entries: list[Entry]) -> str:
    """``dumps_inert(_document(config, base, entries), indent=1)``, without the generic encoder."""
    string = encode_basestring
    terms = ",\n".join([_term_text(entry, base) for entry in entries])
    terms_list = f"[\n{terms}\n ]" if terms else "[]"  # a term's text is never empty
    base_json = "null" if base is None else string(base)
    text = (
        f'{{\n "version": {json.dumps(VERSION)},\n "generator": {string(GENERATOR)},\n'
        f' "title": {string(config.title)},\n "description": {string(config.description)},\n'
        f' "language": {string(config.language)},\n "base_url": {base_json},\n "terms": {terms_list}\n}}'
    )
    return inert(text)
