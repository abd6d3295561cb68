"""The one rule for every URL the build writes into a page: which schemes may appear.

A URL is read here as a browser reads an ``href`` or ``src`` attribute:
character references decoded (``&#106;avascript:`` is ``javascript:``), ASCII
tab and newline removed wherever they are (``java\\tscript:``), leading C0
controls and spaces stripped, the scheme compared without case. What counts
is the scheme, never whether the URL has a host: ``javascript://x/%0aalert(1)``
has one and still runs script.

Used by term bodies' links, images and attribute lists (``markup``), the
``base_url`` setting (``load.schema``), and the glossary links other sites
make from a published ``glossary.json`` (``integrations``).
"""

from __future__ import annotations

import functools
import re
from html import unescape as unescape_html

SAFE_SCHEMES = ("http", "https", "mailto", "tel", "ftp")
"""Schemes a URL written into a page may have; a URL without a scheme (a relative
one, ``#anchor``, ``//host/path``) is allowed too. Anything else is refused:
``javascript:``, ``vbscript:``, ``data:``, ``file:``, ``blob:``, ``filesystem:``, ..."""

SCHEMES_TEXT = "http, https, mailto, tel, ftp or a relative URL"
"""``SAFE_SCHEMES`` as messages say it."""

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_STRIPPED_ANYWHERE = str.maketrans("", "", "\t\n\r")
_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@functools.lru_cache(maxsize=4096)
def url_scheme(url: str) -> str | None:
    """The scheme a browser would see in ``url`` (lower case), None for a URL without one.

    ``"\\x01"`` is returned for a URL that still holds a control character after the
    browser's clean-up: no browser reads such a URL the same way, so it is refused.
    """
    read = unescape_html(url) if "&" in url else url
    read = read.translate(_STRIPPED_ANYWHERE).strip(_C0_OR_SPACE)
    if _CONTROL.search(read):
        return "\x01"
    match = _SCHEME.match(read)
    return match.group(1).lower() if match else None


def is_safe_url(url: str) -> bool:
    """Whether ``url`` may be written into a page: a relative URL, or one of ``SAFE_SCHEMES``."""
    scheme = url_scheme(url)
    return scheme is None or scheme in SAFE_SCHEMES


def refusal(url: str) -> str | None:
    """Why ``url`` may not be written into a page (None: it may), for a message."""
    scheme = url_scheme(url)
    if scheme is None or scheme in SAFE_SCHEMES:
        return None
    if scheme == "\x01":
        return f"control characters in a URL are not allowed (only {SCHEMES_TEXT})"
    return f"the scheme {scheme + ':'!r} is not allowed (only {SCHEMES_TEXT})"
