"""Helpers shared by the tests: term files, content trees, output manifests."""

from __future__ import annotations

import hashlib
import os
import textwrap
from pathlib import Path

import pytest


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


def under_ci() -> bool:
    """True in CI (``CI=true``), where a test whose guard is off fails instead of skipping."""
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def requires_fast(module, what: str = "fast markdown processor"):
    """Mark tests of a fast markdown processor: skipped locally where its guard
    is off (another Python-Markdown release), failed under CI, which installs
    the checked release (the ``fast`` extra), so the speed-up cannot die silently."""
    if module.ENABLED or not under_ci():
        return pytest.mark.skipif(not module.ENABLED, reason=f"{what} disabled on this Markdown")
    return pytest.mark.usefixtures("fast_markdown_missing")
