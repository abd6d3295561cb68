"""``hrefs.plain_target``: the link pass's short cut for "slug.md" hrefs says what the general path says.

For every href it accepts, ``urls.is_safe_url`` must hold and ``href_target``
(urlsplit, unquote, basename) must give the same tuple; the hrefs are generated
around the edges (schemes, hosts, '%', '&', '?', '#', '/', whitespace, control
characters, non-ASCII, a leading '.' or '-', ".md" alone), and the short cut
must take the common forms, so that it cannot silently turn itself off.
"""

from __future__ import annotations

import random

from markdown.util import AMP_SUBSTITUTE

from site_builder.markup.hrefs import href_target, plain_target
from site_builder.urls import is_safe_url

_PIECES = ["a", "Z", "0", "9", "_", "-", ".", ".md", "md", "#", "/", ":", "%", "%2F", "?", "&", "&amp;", " ",
           "\t", "\n", "\x01", "é", "java", "script:", "http://", "//", "term-01", "..", "#x", AMP_SUBSTITUTE]


def _hrefs(count: int = 40_000, seed: int = 40) -> list[str]:
    pick = random.Random(seed)
    found = []
    for _ in range(count):
        href = "".join(pick.choice(_PIECES) for _ in range(pick.randint(0, 6)))
        if pick.random() < 0.5:
            href += pick.choice([".md", ".md#", ".md#a-b", ".md#x.y_1", ".md#a b", ".md/"])
        found.append(href)
    return found


def test_plain_target_agrees_with_the_general_path():
    accepted = 0
    for href in _hrefs():
        target = plain_target(href)
        if target is None:
            continue
        accepted += 1
        assert is_safe_url(href), href
        assert "&" not in href and AMP_SUBSTITUTE not in href, href  # _rewrite's decoding step is skipped
        assert target == href_target(href), href
    assert accepted > 500  # the generator reaches the short cut often


def test_plain_target_takes_term_links_and_leaves_the_rest():
    assert plain_target("term-01326.md") == ("", "term-01326.md", "", "term-01326", "")
    assert plain_target("a.b.md#sec-2") == ("", "a.b.md", "sec-2", "a.b", "sec-2")
    assert plain_target("x.md#") == ("", "x.md", "", "x", "")
    for href in ("", ".md", "-x.md", "x.md#a b", "x.md?q", "../x.md", "x%41.md", "javascript:x.md", "x.mdx",
                 "é.md", "x.md#é", "x.md\n", " x.md"):
        assert plain_target(href) is None, href
