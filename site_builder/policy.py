"""The site's Content-Security-Policy and security headers: one source for the
``_headers`` file and ``serve`` (outputs/hosting.py, serve/http.py) and for
the ``<meta>`` policy every page carries (render/pages.py, outputs/redirects.py).

On the ground floor because the render stage writes it into every page while
the outputs stage writes ``_headers``: both read it, neither owns it.
"""

from __future__ import annotations

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self' data:; object-src 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
}
"""Sent with every file: no inline script or style anywhere on the site."""

HEADER_ONLY_DIRECTIVES = frozenset({"frame-ancestors", "sandbox", "report-uri", "report-to"})
"""Directives a ``<meta http-equiv="Content-Security-Policy">`` cannot carry
(browsers ignore them there, with a console warning): they stay in ``_headers``."""


def meta_policy(policy: str | None = None) -> str:
    """The Content-Security-Policy every HTML page carries in a ``<meta>``
    element: the header's (``SECURITY_HEADERS``), less ``HEADER_ONLY_DIRECTIVES``.
    It holds where no header does (GitHub Pages, ``file://``); the page's own
    scripts are the first wall (issue 30), this the second."""
    policy = SECURITY_HEADERS["Content-Security-Policy"] if policy is None else policy
    kept = [d.strip() for d in policy.split(";")
            if d.strip() and d.split()[0].lower() not in HEADER_ONLY_DIRECTIVES]
    meta = "; ".join(kept)
    if any(c in meta for c in '"<>&'):  # written into an attribute as it is, quotes unescaped
        raise ValueError(f"a policy for a <meta> element cannot hold {meta!r}")
    return meta
