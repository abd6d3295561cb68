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
    data = {entry.slug: [entry.title, entry.summary] for entry in sorted(entries, key=lambda e: e.slug)}
    return dumps_inert(data)


def embed_files() -> Mapping[str, bytes]:
    """``embed/glossary-cards.js`` and ``.css`` at stable URLs, for other sites to include."""
    static = resources.files("site_builder").joinpath("static")
    return {f"embed/{name}": static.joinpath(name).read_bytes() for name in (SCRIPT, STYLESHEET)}
