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
import json.encoder
from dataclasses import dataclass, field
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


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
"""What ``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` builds on each call (it
is ``JSONEncoder(**options).encode(value)``), made once: ~1 us less per call, two or so a page."""


def _compact_chunks():
    """``_COMPACT``'s C encoder, made once: what ``JSONEncoder.encode`` makes
    again on each call (``iterencode(value, _one_shot=True)``), ~0.7 us a call,
    with the same options and so the same text. Without circular-reference
    markers: the values here are plain trees made for the page, never cyclic
    (one that was would fail with a RecursionError, not a ValueError).
    None when ``json`` runs without its C accelerator, or has none of that
    name (a private one) or signature: then ``JSONEncoder.encode``, the public way."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    try:
        return make(None, _COMPACT.default, json.encoder.encode_basestring, None, _COMPACT.key_separator,
                    _COMPACT.item_separator, _COMPACT.sort_keys, _COMPACT.skipkeys, _COMPACT.allow_nan)
    except TypeError:  # (another signature)
        return None


_COMPACT_CHUNKS = _compact_chunks()


def dumps_inert(value: object, indent: int | None = None) -> str:
    """JSON that stays inert inside HTML, ``<script>`` elements and JavaScript source."""
    if indent is None:
        if _COMPACT_CHUNKS is not None:
            return inert("".join(_COMPACT_CHUNKS(value, 0)))
        return inert(_COMPACT.encode(value))
    return inert(json.dumps(value, ensure_ascii=False, indent=indent, separators=(",", ": ") if indent else (",", ":")))


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
    """The bytes of ``glossary.json``: ``json.dumps`` with one space of indent, made inert.

    A hand-written writer of the same bytes used to stand here. It saved about
    0.1 s of CPU at 10,000 terms on either corpus mix (37 ms against 152 ms
    on the simple mix, 40 ms against 140 ms on the realistic one), and only in
    a cold build or an edit that changes a title, summary or alias: a
    one-body edit takes the memoised file (cache/outputs.py). 1-2 % of a cold
    build does not pay for a second JSON encoder to keep in step.
    """
    base = config.base_url or None
    document = _document(config, base, sorted(entries, key=lambda e: e.slug))
    return (dumps_inert(document, indent=1) + "\n").encode("utf-8")


def _document(config: SiteConfig, base: str | None, entries: list[Entry]) -> dict[str, object]:
    """The document as plain values, for ``json.dumps``."""
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
