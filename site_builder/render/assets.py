"""Static assets with a content hash in their names, so hosts can cache them forever."""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import PurePosixPath

#: files under site_builder/static/ that every site ships (the search box's three
#: scripts, in the order site.js loads them: templates/base.html's data-script)
SITE_ASSETS = ("site.css", "site.js", "search-words.js", "search-engine.js", "search.js", "favicon.svg")


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
        """Add a file shipped in ``site_builder/static/``."""
        data = resources.files("site_builder").joinpath("static", name).read_bytes()
        return self.add(name, data)
