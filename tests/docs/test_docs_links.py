"""Every relative link in README.md and docs/ leads to a file that exists and,
for ``page.md#anchor``, to a heading of that page (GitHub's heading slugs)."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import REPO

PENDING: set[str] = set()
"""Pages linked before they are written (none now); a pending page is checked like
any other once it exists."""

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(`+).*?\1")
_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _prose_lines(text: str):
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in _prose_lines(text):
        match = _HEADING.match(line)
        if not match:
            continue
        base = slug(match[2])
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(text: str):
    """(line number, target) of every inline link outside code."""
    for number, line in _prose_lines(text):
        for target in _LINK.findall(_CODE_SPAN.sub("", line)):
            yield number, target


def problems(path: Path, root: Path = REPO, pending: set[str] = frozenset()) -> list[str]:
    found = []
    for number, target in links(path.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root).as_posix()}:{number}: {target}"
        if not dest.exists():
            try:
                rel = dest.relative_to(root.resolve()).as_posix()
            except ValueError:
                rel = None
            if rel not in pending:
                found.append(f"{where}: no such file")
            continue
        if anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text(encoding="utf-8")):
            found.append(f"{where}: no heading '#{anchor}'")
    return found


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("**/*.md"))]


def test_every_relative_link_in_the_readme_and_docs_leads_somewhere():
    found = [p for page in _pages() for p in problems(page, pending=PENDING)]
    assert not found, "\n".join(found)


def test_every_docs_page_is_listed_in_the_readme_and_the_docs_index():
    listed = {
        (page.parent / target.partition("#")[0]).resolve()
        for page in (REPO / "README.md", REPO / "docs" / "README.md")
        for _, target in links(page.read_text(encoding="utf-8"))
    }
    for page in sorted((REPO / "docs").glob("*.md")):
        if page.name != "README.md":
            assert page.resolve() in listed, page.name


def test_the_slug_is_githubs():
    assert slug("`site.toml`") == "sitetoml"
    assert slug("glossary.json (version 1)") == "glossaryjson-version-1"
    assert slug("MkDocs / Python-Markdown") == "mkdocs--python-markdown"
    assert slug("Netlify and Cloudflare Pages: `_headers`") == "netlify-and-cloudflare-pages-_headers"
    assert slug("How it measures, and why") == "how-it-measures-and-why"
    # Negative: case, spaces and punctuation are not kept as written.
    assert slug("Recommended response headers") != "Recommended response headers"
    assert slug("`site.toml`") != "site.toml"
    assert slug("How it measures, and why") != "how-it-measures,-and-why"
    assert anchors("## Errors\n## Errors\n```\n## not a heading\n```\n") == {"errors", "errors-1"}


def test_a_broken_link_or_anchor_is_reported(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## A heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n"
        "[fine](other.md#a-heading) [fine](#page) [web](https://example.org/x.md#nope)\n"
        "`[in code](nope.md)`\n"
        "```\n[in a fence](nope.md)\n```\n"
        "[gone](missing.md) [bad anchor](other.md#A-Heading) [bad local](#nowhere)\n"
        "[pending](later.md)\n",
        encoding="utf-8",
    )
    assert problems(page, root=tmp_path, pending={"later.md"}) == [
        "page.md:8: missing.md: no such file",
        "page.md:8: other.md#A-Heading: no heading '#A-Heading'",
        "page.md:8: #nowhere: no heading '#nowhere'",
    ]
    assert problems(page, root=tmp_path) == [
        "page.md:8: missing.md: no such file",
        "page.md:8: other.md#A-Heading: no heading '#A-Heading'",
        "page.md:8: #nowhere: no heading '#nowhere'",
        "page.md:9: later.md: no such file",
    ]
