"""The response headers a host should send with the site, and ``_headers``.

``_headers`` is the file Netlify and Cloudflare Pages read from the root of
the published folder; every build writes it (other hosts serve it as an
inert file, and docs/hosting.md gives the same rules for nginx). ``serve`` sends
the same security headers, so a page that breaks the policy breaks there
first.
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

IMMUTABLE = "public, max-age=31536000, immutable"
"""For ``assets/``: every name there carries a hash of the file's bytes."""

SHARED_FILES = ("glossary.json", "embed/*")
"""Fetched by other sites' hover cards: sent with ``Access-Control-Allow-Origin: *``."""


def headers_file() -> bytes:
    """``_headers``, its paths relative to the published folder: both hosts
    read the file only at the root of the folder they publish, so when that
    folder is ``output/`` the site is at ``/`` whatever ``base_url`` says.

    No rule sets a header that another matching rule also sets: Netlify lets
    the later rule win, Cloudflare Pages joins the two values with a comma,
    and only rules that never overlap mean the same on both. HTML keeps the
    host's own revalidating default.
    """
    rules = [("/*", SECURITY_HEADERS), ("/assets/*", {"Cache-Control": IMMUTABLE})]
    rules += [("/" + name, {"Access-Control-Allow-Origin": "*"}) for name in SHARED_FILES]
    text = "# Response headers for Netlify and Cloudflare Pages (written by site_builder).\n"
    for path, headers in rules:
        text += f"\n{path}\n" + "".join(f"  {name}: {value}\n" for name, value in headers.items())
    return text.encode("utf-8")
