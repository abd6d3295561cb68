"""Hover cards: the data the glossary's own pages give ``glossary-cards.js``.

Other sites let the script fetch ``glossary.json``; the glossary's own pages
must also work from file://, where fetch is blocked, so each term page carries
a JSON data block (``<script type="application/json">``: never executed, so a
strict CSP allows it) with just the terms that page links to. No extra file
per page, no extra request.
"""

from __future__ import annotations

from importlib import resources
from typing import Iterable, Mapping

from .glossary_json import Entry, dumps_inert

SCRIPT = "glossary-cards.js"
STYLESHEET = "glossary-cards.css"


def data_json(entries: Iterable[Entry]) -> str:
    """``{slug: [title, summary], ...}`` for ``entries``, safe inside a script element
    (``<``, ``>`` and ``&`` are escaped, so no ``</script>`` can appear)."""
    items = {entry.slug: card_item(entry) for entry in sorted(entries, key=lambda e: e.slug)}
    return join_items(items.values())


def card_item(entry: Entry) -> str:
    """One term's member of ``data_json``: ``"slug":["title","summary"]``.

    What ``dumps_inert`` writes of a one-term object, less its braces: the
    compact JSON of an object is its members' joined by commas, and the inert
    escapes replace single characters, so pieces made once per term and joined
    (``join_items``) are the bytes of the whole dumped at once. A term is
    linked from many pages: its piece is made once, not on each of them."""
    return dumps_inert({entry.slug: [entry.title, entry.summary]})[1:-1]


def join_items(items: Iterable[str]) -> str:
    """The ``data_json`` of the ``card_item`` pieces ``items`` (in slug order, no slug twice)."""
    return "{" + ",".join(items) + "}"


def embed_files() -> Mapping[str, bytes]:
    """``embed/glossary-cards.js`` and ``.css`` at stable URLs, for other sites to include."""
    static = resources.files("site_builder").joinpath("static")
    return {f"embed/{name}": static.joinpath(name).read_bytes() for name in (SCRIPT, STYLESHEET)}
