"""Hover cards: the data the glossary's own pages give ``glossary-cards.js``.

Other sites let the script fetch ``glossary.json``; the glossary's own pages
must also work from file://, where fetch is blocked, so each term page loads a
small classic script (a hashed asset, never inline: strict CSP) that defines
``window.glossaryCardsData`` for just the terms that page links to.
"""

from __future__ import annotations

from importlib import resources
from typing import Iterable, Mapping

from .glossary_json import Entry, dumps_inert

SCRIPT = "glossary-cards.js"
STYLESHEET = "glossary-cards.css"


def data_script(entries: Iterable[Entry]) -> bytes:
    """``window.glossaryCardsData = {slug: [title, summary], ...};`` for ``entries``."""
    data = {entry.slug: [entry.title, entry.summary] for entry in sorted(entries, key=lambda e: e.slug)}
    return f"window.glossaryCardsData = {dumps_inert(data)};\n".encode("utf-8")


def embed_files() -> Mapping[str, bytes]:
    """``embed/glossary-cards.js`` and ``.css`` at stable URLs, for other sites to include."""
    static = resources.files("site_builder").joinpath("static")
    return {f"embed/{name}": static.joinpath(name).read_bytes() for name in (SCRIPT, STYLESHEET)}
