"""Static assets with a content hash in their names, so hosts can cache them forever."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import PurePosixPath

#: files under site_builder/static/ that every site ships (the search box's three
#: scripts before site.js: site.js names them, see ``NAMED_ASSETS``)
SITE_ASSETS = ("scheme.js", "site.css", "search-words.js", "search-engine.js", "search.js", "site.js", "favicon.svg")

NAMED_ASSETS = {"site.js": ("search-words.js", "search-engine.js", "search.js")}
"""Scripts that load other assets, and which: the script holds each asset's
logical name as a string literal (``"search.js"``), which the build replaces
with its hashed file name. A script then loads only what it was built to
load, resolved against its own URL, never a URL read from the page (where
content could have written one: issue 30)."""


class AssetStore:
    """Collects assets for one build: logical name -> hashed path under ``assets/``."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.urls: dict[str, str] = {}

    def add(self, name: str, data: bytes) -> str:
        """Store ``data`` as ``assets/<stem>.<hash>.<ext>``; return that root-relative path."""
        pure = PurePosixPath(name)
        digest = hashlib.sha256(data).hexdigest()[:10]
        path = f"assets/{pure.stem}.{digest}{pure.suffix}"
        existing = self.urls.get(name)
        if existing is not None and existing != path:
            raise ValueError(f"asset {name!r} added twice with different content")
        self.files[path] = data
        self.urls[name] = path
        return path

    def add_packaged(self, name: str) -> str:
        """Add a file shipped in ``site_builder/static/``, with the hashed names
        of the assets it loads written in (``NAMED_ASSETS``; added before it)."""
        data = resources.files("site_builder").joinpath("static", name).read_bytes()
        for other in NAMED_ASSETS.get(name, ()):
            literal = f'"{other}"'.encode()
            if data.count(literal) != 1:
                raise ValueError(f"{name} must name {other} once, as {literal.decode()}")
            hashed = PurePosixPath(self.urls[other]).name
            data = data.replace(literal, f'"{hashed}"'.encode())
        return self.add(name, data)
