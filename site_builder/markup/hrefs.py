"""What a link's href in a body points at: another term, an anchor, a file, or outside.

``render._LinkPass`` asks ``href_target`` for every ``<a href>`` of a body that
``urls.is_safe_url`` lets through. Most are term links as the source pass
writes a ``[[wikilink]]`` (``slug.md``, ``slug.md#anchor``) or as authors
write them: ``plain_target`` reads those without ``urlsplit`` and the safety
check (docs/performance.md, "Markdown stage (issue 40, eighth round)").
"""

from __future__ import annotations

import functools
import posixpath
import re
from urllib.parse import unquote, urlsplit

# "slug.md" or "slug.md#fragment" of ASCII word characters, '.' and '-' only (the
# slug not starting with '.' or '-'): no '&' (character references, Markdown's
# '&' placeholder), no ':' (a scheme), no '/' (a host or a folder), no '?', '%',
# whitespace or control character. For such an href ``urls.url_scheme`` finds no
# scheme (so ``is_safe_url`` holds), and ``urlsplit`` gives no scheme and no
# host, the path before '#' and the fragment after it, both unquoted as they are.
_PLAIN = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_.\-]*)\.md(?:#([A-Za-z0-9_.\-]*))?")


def plain_target(href: str) -> tuple[str, str, str, str, str] | None:
    """``href_target(href)`` for a plain term link (which ``is_safe_url`` always
    passes); None for any other href (ask ``is_safe_url`` and ``href_target``)."""
    match = _PLAIN.fullmatch(href)
    if match is None:
        return None
    slug, fragment = match.group(1, 2)
    if fragment is None:
        return "", href, "", slug, ""
    return "", href[:len(slug) + 3], fragment, slug, fragment


@functools.lru_cache(maxsize=4096)
def href_target(href: str) -> tuple[str, str, str, str | None, str] | None:
    """(scheme, path, anchor, slug or None, fragment) of an href whose scheme is allowed
    (``urls.is_safe_url``); None for an external one (a scheme, or a host).

    A pure function of the href, remembered: the same links recur on many pages.
    """
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return None
    if not parts.path:
        return parts.scheme, parts.path, unquote(parts.fragment), None, parts.fragment
    name = posixpath.basename(unquote(parts.path).rstrip("/"))
    slug = name[:-3] if name.endswith(".md") else None
    return parts.scheme, parts.path, unquote(parts.fragment), slug, parts.fragment
