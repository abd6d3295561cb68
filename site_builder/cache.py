"""A content-addressed build cache, so a rebuild redoes only what changed.

Every entry is keyed by a hash of *all* its inputs (the file's bytes, the
config, the name index, the templates and the code version), so an entry can
be missing but never stale. The cache lives in ``.site_builder_cache/`` beside
the output folder; deleting it is always safe.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from . import __version__


@lru_cache(maxsize=1)
def code_version() -> str:
    """Hash of the package's own code, templates and static files."""
    digest = hashlib.sha256(__version__.encode())
    root = resources.files("site_builder")
    for path in sorted(Path(str(root)).rglob("*")):
        if path.suffix in (".py", ".html", ".css", ".js") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(str(root))).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def key(*parts: str | bytes) -> str:
    """A cache key: sha256 over the parts, each length-prefixed so no two lists collide."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


class BuildCache:
    """Named tables (dicts), each persisted as one pickle: one sequential write
    is far cheaper than thousands of small files on a slow disk."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.tables: dict[str, dict] = {}

    @property
    def enabled(self) -> bool:
        """False when caching is switched off (``--no-cache``)."""
        return self.folder is not None

    def table(self, name: str) -> dict:
        """The table ``name`` as last saved (empty when missing or unreadable)."""
        if name not in self.tables:
            data: dict = {}
            if self.folder is not None:
                try:
                    with open(self.folder / f"{name}.pickle", "rb") as handle:
                        loaded = pickle.load(handle)
                    if isinstance(loaded, dict) and loaded.get("__code__") == code_version():
                        data = loaded
                except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError):
                    data = {}  # a damaged cache is just a cold cache
            data.pop("__code__", None)
            self.tables[name] = data
        return self.tables[name]

    def save_table(self, name: str, data: dict[str, Any]) -> None:
        """Replace table ``name`` on disk (atomically: write then rename)."""
        self.tables[name] = data
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self.folder / f".{name}.{os.getpid()}.tmp"
        with open(temporary, "wb") as handle:
            pickle.dump({**data, "__code__": code_version()}, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, self.folder / f"{name}.pickle")
