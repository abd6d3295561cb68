"""Permalinks that survive renames: a small redirect page for every alias.

Renaming a term means renaming its file and keeping the old name in
``aliases:``. Every alias then gets ``/<alias-slug>/index.html``, a page with
a meta refresh, a canonical link and a plain link (no script: it works under a
strict CSP and without JavaScript), so links to the old address keep working.
Which aliases get one is decided in the validate stage (``validate.aliases``).
"""

from __future__ import annotations

import functools
from html import escape

from ..policy import meta_policy
from ..validate.aliases import RESERVED, Redirect, alias_slug, check_aliases, plan_redirects

__all__ = ["RESERVED", "Redirect", "alias_slug", "check_aliases", "plan_redirects", "redirect_page"]


def redirect_page(title: str, alias: str, language: str, target_href: str, canonical: str) -> bytes:
    """The page at an alias's address, sending readers on to ``target_href``
    (relative to the alias's folder). Worded for both kinds of alias, another
    name (LLM) and an old slug after a rename: nothing claims the entry moved."""
    href, title_html, alias_html = escape(target_href), escape(title), escape(alias)
    return (
        _head(language) +
        f"<title>{alias_html}: see {title_html}</title>\n"
        '<meta name="robots" content="noindex">\n'
        f'<link rel="canonical" href="{escape(canonical)}">\n'
        f'<meta http-equiv="refresh" content="0; url={href}">\n'
        "</head>\n<body>\n<main>\n"
        f"<h1>{alias_html}</h1>\n"
        f'<p>In this glossary, \u201c{alias_html}\u201d is under <a href="{href}">{title_html}</a>.</p>\n'
        "</main>\n</body>\n</html>\n"
    ).encode("utf-8")


@functools.lru_cache(maxsize=4)
def _head(language: str) -> str:
    """The start of every redirect page of a site (its language and the policy): ~15,000 of them at 10,000 terms."""
    return ("<!DOCTYPE html>\n"
            f'<html lang="{escape(language)}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{meta_policy()}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n')
