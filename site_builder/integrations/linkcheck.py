"""Check another site's links into the glossary, without building it.

``python -m site_builder check --links-in DOCS --glossary URL_OR_PATH`` reads
every markdown file under DOCS and reports, as ``path:line: message``:

- ``[[Term]]`` / ``[[Term#anchor|text]]`` links (the Markdown extension's
  syntax) to an unknown term or a missing anchor;
- ordinary links (``[text](URL)``, ``[ref]: URL``) under the glossary's base
  URL that reach no page, a missing anchor, or an anchor through a redirect
  (a meta refresh drops it).

Code spans and fenced code blocks are skipped.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable
from urllib.parse import unquote, urlsplit

from ..errors import Problem, display_path
from ..markup.source import CODE_SPAN_RE, LINK_TARGET_RE, WIKILINK_RE, outside_fences
from ..outputs import cards
from .published import GlossaryLoadError, PublishedGlossary, load_glossary, split_target

SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
PAGE_FILES = ("", "index.html")


def markdown_files(docs: Path) -> list[Path]:
    """Every markdown file under ``docs`` (or ``docs`` itself), sorted."""
    if docs.is_file():
        return [docs]
    return sorted(p for p in docs.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file())


def check_text(text: str, shown: str, glossary: PublishedGlossary) -> list[Problem]:
    """Problems with the glossary links in one markdown text."""
    problems: list[Problem] = []
    for offset, line in outside_fences(text.splitlines()):
        number = offset + 1
        prose = CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)
        for wikilink in WIKILINK_RE.finditer(prose):
            message = _check_wikilink(wikilink.group(1), wikilink.group(0), glossary)
            if message:
                problems.append(Problem(shown, number, message))
        for target in LINK_TARGET_RE.finditer(prose):
            message = _check_url(target.group(1) or target.group(2), glossary)
            if message:
                problems.append(Problem(shown, number, message))
    return problems


def _check_wikilink(target: str, written: str, glossary: PublishedGlossary) -> str | None:
    name, anchor = split_target(target)
    term = glossary.resolve(name)
    if term is None:
        return f"unknown glossary term {written}"
    if anchor and anchor not in term.anchors:
        return f"glossary entry '{term.title}' has no anchor '#{anchor}': {written}"
    return None


SITE_FILES = frozenset({"index.html", "404.html", "sitemap.xml", "robots.txt", "glossary.json", "objects.inv",
                        "preview.png", "_headers", f"embed/{cards.SCRIPT}", f"embed/{cards.STYLESHEET}"})
"""Files every glossary site may publish that ``glossary.json`` does not list
(sitemap.xml and robots.txt only with a base URL, previews only when on)."""


def _beside_a_page(name: str) -> bool:
    """A file a term's folder may hold besides its page: its preview, and an
    explainer's data and charts."""
    return name in ("preview.png", "data.json") or (name.endswith(".svg") and "/" not in name)


def _check_url(url: str, glossary: PublishedGlossary) -> str | None:
    base = glossary.base_url
    if not base or not url.startswith(base):
        return None
    parts = urlsplit(url[len(base):])
    path, anchor = unquote(parts.path), unquote(parts.fragment)
    if not path or path in SITE_FILES:
        return None
    slug, _, rest = path.partition("/")
    if slug == "assets" and slug not in glossary.terms:
        return None  # content-hashed names: only the pages that use them know them
    term = glossary.terms.get(slug)
    moved = glossary.redirects.get(slug)
    if term is None and moved is None:
        return f"link to a missing glossary {'file' if slug == 'embed' else 'page'}: {url}"
    if rest not in PAGE_FILES:
        if term is not None and _beside_a_page(rest):
            return None
        return f"link to a missing glossary file: {url}"
    if term is None:
        term = glossary.terms[moved]
        if anchor:
            return f"link to an old glossary address whose redirect drops '#{anchor}': {url} (use {glossary.href(term, anchor)})"
        return None
    if anchor and anchor not in term.anchors:
        return f"glossary entry '{term.title}' has no anchor '#{anchor}': {url}"
    return None


def check_docs(docs: Path, glossary: PublishedGlossary) -> list[Problem]:
    """Problems in every markdown file under ``docs``."""
    problems: list[Problem] = []
    for path in markdown_files(docs):
        shown = display_path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(shown, 1, f"cannot read: {exc}"))
            continue
        problems.extend(check_text(text, shown, glossary))
    return problems


def run(docs: Path, location: str, log: Callable[[str], None]) -> int:
    """The ``check --links-in`` command: print problems; 0 when there are none."""
    if not docs.exists():
        print(f"error: {docs} does not exist", file=sys.stderr)
        return 1
    try:
        glossary = load_glossary(location)
    except GlossaryLoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if glossary.published_at is None and glossary.base_url.startswith("file:"):
        # Its address on the web is unknown: no plain URL can be recognised as a glossary link.
        print(f"warning: {glossary.source} was built without base_url, so links to its pages by URL "
              "are not checked, only [[...]] links (build it with --base-url, or check against its URL)",
              file=sys.stderr)
    files = markdown_files(docs)
    problems = check_docs(docs, glossary)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"error: {len(problems)} broken glossary link(s) in {len(files)} file(s)", file=sys.stderr)
        return 1
    log(f"Checked glossary links in {len(files)} file(s) against {glossary.source}: no problems")
    return 0
