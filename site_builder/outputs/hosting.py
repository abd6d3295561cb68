"""The response headers a host should send with the site, and ``_headers``.

``_headers`` is the file Netlify and Cloudflare Pages read from the root of
the published folder; every build writes it (other hosts serve it as an
inert file, and docs/hosting.md gives the same rules for nginx). ``serve`` sends
the same security headers, so a page that breaks the policy breaks there
first.
"""

from __future__ import annotations

from ..policy import SECURITY_HEADERS

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
