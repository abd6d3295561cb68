"""Helpers shared by the tests: term files, content trees, output manifests."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path


def term(title: str, summary: str, body: str = "", **extra) -> str:
    """The text of a term file with YAML front matter."""
    lines = ["---", f"title: {title}", f"summary: {summary}"]
    for key, value in extra.items():
        if isinstance(value, list):
            value = "[" + ", ".join(value) + "]"
        lines.append(f"{key}: {value}")
    lines.append("---")
    return "\n".join(lines) + "\n" + textwrap.dedent(body).lstrip("\n")


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``root``."""
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


def manifest(folder: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under ``folder``."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*")) if p.is_file()
    }
