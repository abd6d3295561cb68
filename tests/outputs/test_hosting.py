"""``_headers``: the host rules every build writes (Netlify, Cloudflare Pages)."""

from __future__ import annotations

import fnmatch
import re

import pytest

from helpers import REPO, TESTS
from site_builder.outputs import hosting
from site_builder import policy, serve


def _rules(text: str) -> list[tuple[str, dict[str, str]]]:
    rules: list[tuple[str, dict[str, str]]] = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if not line.startswith(" "):
            rules.append((line, {}))
        else:
            name, _, value = line.strip().partition(": ")
            rules[-1][1][name] = value
    return rules


@pytest.mark.parametrize("base_url", ["https://example.org/docs/glossary/", None])
def test_every_rule_reaches_published_files_and_no_two_rules_set_one_header(small_site, tmp_path, cli, base_url):
    # The hosts read _headers at the root of the published folder: paths start at "/" under any base URL.
    prefix = "/"
    out = tmp_path / "out"
    args = ["build", "--content", small_site, "--output", out, "--quiet"]
    status, _, err = cli(*args, *(["--base-url", base_url] if base_url else []))
    assert status == 0, err
    rules = _rules((out / "_headers").read_text(encoding="utf-8"))
    published = [p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()]
    for path, headers in rules:
        assert path.startswith(prefix) and headers
        assert fnmatch.filter(published, path[len(prefix):]), path
    # Overlapping rules that set one header mean different things on the two hosts.
    for i, (path, headers) in enumerate(rules):
        for other, other_headers in rules[i + 1:]:
            if fnmatch.fnmatch(other[len(prefix):], path[len(prefix):]):
                assert not set(headers) & set(other_headers), (path, other)
    site_wide = dict(rules)[prefix + "*"]
    assert site_wide == {k: v for k, v in serve.SECURITY_HEADERS.items() if k != "Cache-Control"}
    assert dict(rules)[prefix + "assets/*"] == {"Cache-Control": hosting.IMMUTABLE}


def test_the_policy_written_is_the_one_the_hosting_page_recommends_and_the_browser_tests_enforce():
    # docs/hosting.md holds the recommended headers table and the nginx snippet (moved from the README).
    hosting_doc = (REPO / "docs" / "hosting.md").read_text(encoding="utf-8")
    table = re.search(r"^\| `Content-Security-Policy` \| `([^`]+)` \|$", hosting_doc, re.M)[1]
    nginx = re.search(r'add_header Content-Security-Policy "([^"]+)" always;', hosting_doc)[1]
    browser = (TESTS / "browser" / "conftest_explainer.py").read_text(encoding="utf-8")
    enforced = "".join(re.findall(r'"([^"]*)"', re.search(r"CSP = \(([^)]*)\)", browser)[1]))
    policy = hosting.SECURITY_HEADERS["Content-Security-Policy"]
    assert table == nginx == policy
    assert enforced == policy


def test_the_file_survives_rebuilds(small_site, tmp_path, cli):
    out = tmp_path / "out"
    for _ in range(2):
        status, _, err = cli("build", "--content", small_site, "--output", out, "--quiet")
        assert status == 0, err
        assert (out / "_headers").read_bytes() == hosting.headers_file()


def test_every_html_page_carries_the_policy_in_a_meta_element_first_in_its_head(small_site, tmp_path, cli):
    """Issue 30: hosts that send no header (GitHub Pages) and file:// get the
    policy from the page itself: the header's, less what a <meta> cannot hold,
    before any script, style or link. Alias pages included."""
    out = tmp_path / "out"
    status, _, err = cli("build", "--content", small_site, "--output", out, "--quiet")
    assert status == 0, err
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy.meta_policy()}">'
    pages = sorted(out.rglob("*.html"))
    assert len(pages) >= 5 and any("first-letter" in str(p) for p in pages)  # the alias page too
    for path in pages:
        html = path.read_text(encoding="utf-8")
        assert html.count(meta) == 1, path
        head = html[:html.index("</head>")]
        first = min(head.index(tag) for tag in ("<script", "<link", "<style", "<title") if tag in head)
        assert head.index(meta) < first, path
        assert head.index('<meta charset="utf-8">') < head.index(meta), "the charset stays first"


def test_the_meta_policy_is_the_header_less_what_a_meta_element_cannot_hold():
    header = hosting.SECURITY_HEADERS["Content-Security-Policy"]
    assert policy.meta_policy() == "; ".join(d.strip() for d in header.split(";"))
    assert "'self'" in policy.meta_policy() and "base-uri 'none'" in policy.meta_policy()
    full = ("default-src 'self'; frame-ancestors 'none'; sandbox allow-scripts; "
            "report-uri /r; report-to csp; script-src 'self'")
    assert policy.meta_policy(full) == "default-src 'self'; script-src 'self'"
    with pytest.raises(ValueError):
        policy.meta_policy('default-src "x"')
