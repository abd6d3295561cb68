"""Faster drop-ins for Python-Markdown block parsing (work in progress)."""

from __future__ import annotations

import markdown


def install(md: markdown.Markdown) -> bool:
    """Install the fast processors into ``md``; False when nothing was installed."""
    return False
