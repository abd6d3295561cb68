"""A docs site using the MkDocs plugin, built with the real ``mkdocs build`` in a
subprocess. Shared by tests/integrations/test_mkdocs_plugin.py and
tests/browser/test_mkdocs_cards.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from glossary_site import write_tree

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
"""mkdocs-material prints an end-of-life banner without it (noise in every stderr)."""


def mkdocs_site(root: Path, glossary: str | Path, pages: dict[str, str], theme: str = "mkdocs",
                palette: str | None = None, **options) -> Path:
    """``root/mkdocs.yml`` with the plugin (``glossary`` plus ``options``) and ``root/docs/``;
    ``palette``: mkdocs-material's colour scheme (``slate`` is its dark one)."""
    theme_lines = f"theme:\n  name: {theme}" + (f"\n  palette:\n    scheme: {palette}" if palette else "")
    lines = ["site_name: Consumer docs", theme_lines, "plugins:", "  - glossary:",
             f"      glossary: {json.dumps(str(glossary))}"]
    lines += [f"      {key}: {json.dumps(value)}" for key, value in options.items()]
    write_tree(root / "docs", pages)
    (root / "mkdocs.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def mkdocs_build(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python3 -m mkdocs build ARGS`` for the site at ``root`` (from ``cwd``, default ``root``)."""
    command = [sys.executable, "-m", "mkdocs", "build", *args]
    if cwd is not None:
        command += ["-f", str(root / "mkdocs.yml")]
    return subprocess.run(command, cwd=cwd or root, capture_output=True, text=True, env=ENV, timeout=180)
