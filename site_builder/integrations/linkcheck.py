"""Check another site's links into the glossary, without building it.

``python -m site_builder check --links-in DOCS --glossary URL_OR_PATH`` reads
every markdown (``.md``, ...) and reStructuredText (``.rst``) file under DOCS
and reports, as ``path:line: message``:

- ``[[Term]]`` / ``[[Term#anchor|text]]`` links (the Markdown extension's and
  MkDocs plugin's syntax, in markdown) to an unknown term or a missing anchor;
- Sphinx roles into the glossary's intersphinx inventory (``:term:`glossary:Model``` in
  .rst, ``{term}`glossary:Model``` in MyST .md; ``roles.py``) that it does not list;
- ordinary links (``[text](URL)``, ``[ref]: URL``; any URL in .rst) under the
  glossary's base URL that reach no page, a missing anchor, or an anchor
  through a redirect (a meta refresh drops it).

Code spans, fenced code, literal blocks and comments are skipped. Finding no
file to check is an error, not a pass.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import unquote, urlsplit

from ..errors import Problem, display_path
from ..markup.source import CODE_SPAN_RE, LINK_TARGET_RE, WIKILINK_RE, outside_fences
from ..outputs import cards
from ..outputs.search_index import FOLDER as SEARCH_FOLDER
from . import roles
from .published import GlossaryLoadError, PublishedGlossary, load_glossary, resolve_link

MARKDOWN = (".md", ".markdown", ".mdown", ".mkd")
RST = (".rst", ".rest")
SUFFIXES = MARKDOWN + RST
PAGE_FILES = ("", "index.html")
INVENTORY_NAME = "glossary"
"""The name docs/linking.md gives the glossary in ``intersphinx_mapping``."""
_RST_URL_RE = re.compile(r"https?://[^\s<>`'\"]+")


def docs_files(docs: Path) -> list[Path]:
    """Every markdown and reStructuredText file under ``docs`` (or ``docs`` itself), sorted."""
    if docs.is_file():
        return [docs]
    return sorted(p for p in docs.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file())


def wikilinks(text: str) -> Iterator[tuple[int, re.Match]]:
    """(line number, match) of each ``[[...]]`` outside code in a markdown text
    (also how the MkDocs plugin finds the line of a link it could not resolve)."""
    for offset, line in outside_fences(text.splitlines()):
        if "[[" in line:
            prose = CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)
            for match in WIKILINK_RE.finditer(prose):
                yield offset + 1, match


class Checker:
    """Checks texts against one glossary, counting the links it looked at."""

    def __init__(self, glossary: PublishedGlossary, inventory: str = INVENTORY_NAME):
        self.glossary = glossary
        self.inventory = inventory
        self.names = roles.inventory_names(glossary)
        self.links = 0

    def markdown(self, text: str, shown: str) -> list[Problem]:
        """Problems with the glossary links and MyST roles in one markdown text."""
        found: list[tuple[int, str | None]] = []
        for number, wikilink in wikilinks(text):
            found.append((number, resolve_link(self.glossary, wikilink.group(1), wikilink.group(0))[2]))
        for offset, line in outside_fences(text.splitlines()):
            if "](" in line or "]:" in line:
                prose = CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)
                for target in LINK_TARGET_RE.finditer(prose):
                    found += self._url(offset + 1, target.group(1) or target.group(2))
        found += [(role.line, roles.check_role(role, self.names)) for role in roles.myst_roles(text, self.inventory)]
        return self._problems(found, shown)

    def rst(self, text: str, shown: str) -> list[Problem]:
        """Problems with the glossary roles and URLs in one reStructuredText text."""
        found = [(role.line, roles.check_role(role, self.names)) for role in roles.rst_roles(text, self.inventory)]
        if self.glossary.base_url and self.glossary.base_url in text:
            for offset, line in roles.rst_prose(text):
                for url in _RST_URL_RE.findall(line):
                    found += self._url(offset + 1, url.rstrip(".,;:!?)"))
        return self._problems(found, shown)

    def _url(self, number: int, url: str) -> list[tuple[int, str | None]]:
        # Only links under the glossary count as checked: the rest are not ours.
        if not self.glossary.base_url or not url.startswith(self.glossary.base_url):
            return []
        return [(number, _check_url(url, self.glossary))]

    def _problems(self, found: list[tuple[int, str | None]], shown: str) -> list[Problem]:
        self.links += len(found)
        # Stable sort: on one line, [[...]] links, then URLs, then roles.
        return [Problem(shown, number, message) for number, message in sorted(found, key=lambda f: f[0]) if message]


def check_text(text: str, shown: str, glossary: PublishedGlossary) -> list[Problem]:
    """Problems with the glossary links in one markdown text."""
    return Checker(glossary).markdown(text, shown)


SITE_FILES = frozenset({"index.html", "404.html", "sitemap.xml", "robots.txt", "glossary.json", "objects.inv",
                        "preview.png", "_headers", f"embed/{cards.SCRIPT}", f"embed/{cards.STYLESHEET}"})
"""Files every glossary site may publish that ``glossary.json`` does not list
(sitemap.xml and robots.txt only with a base URL, previews only when on); the
search index under ``search/`` is let through as ``assets/`` is."""


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
    if slug in ("assets", SEARCH_FOLDER) and slug not in glossary.terms:
        return None  # content-hashed names and index shards: only the site's own pages know them
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


def check_docs(docs: Path, glossary: PublishedGlossary, inventory: str = INVENTORY_NAME,
               checker: Checker | None = None) -> list[Problem]:
    """Problems in every markdown and reStructuredText file under ``docs``."""
    checker = checker or Checker(glossary, inventory)
    problems: list[Problem] = []
    for path in docs_files(docs):
        shown = display_path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(shown, 1, f"cannot read: {exc}"))
            continue
        check = checker.rst if path.suffix.lower() in RST else checker.markdown
        problems.extend(check(text, shown))
    return problems


def run(docs: Path, location: str, log: Callable[[str], None], inventory: str = INVENTORY_NAME) -> int:
    """The ``check --links-in`` command: print problems; 0 when there are none."""
    kinds = f"markdown ({', '.join(MARKDOWN)}) or reStructuredText ({', '.join(RST)})"
    if not docs.exists():
        print(f"error: {docs} does not exist", file=sys.stderr)
        return 1
    if docs.is_file() and docs.suffix.lower() not in SUFFIXES:
        print(f"error: {docs}: check --links-in reads {kinds} files only", file=sys.stderr)
        return 1
    files = docs_files(docs)
    if not files:
        # Checking nothing must not pass: a wrong folder or another format would look clean.
        print(f"error: {docs}: no {kinds} files to check", file=sys.stderr)
        return 1
    try:
        glossary = load_glossary(location)
    except GlossaryLoadError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if glossary.published_at is None and glossary.base_url.startswith("file:"):
        # Its address on the web is unknown: no plain URL can be recognised as a glossary link.
        print(f"warning: {glossary.source} was built without base_url, so links to its pages by URL "
              "are not checked, only [[...]] links and Sphinx roles (build it with --base-url, or check against its URL)",
              file=sys.stderr)
    checker = Checker(glossary, inventory)
    problems = check_docs(docs, glossary, checker=checker)
    for problem in problems:
        print(problem, file=sys.stderr)
    if sum(p.message.startswith("cannot read: ") for p in problems) == len(files):
        print(f"error: {docs}: none of its {len(files)} file(s) could be read", file=sys.stderr)
        return 1
    if problems:
        print(f"error: {len(problems)} broken glossary link(s) in {len(files)} file(s)", file=sys.stderr)
        return 1
    if not checker.links:
        # Not an error (docs may not link to the glossary yet), but say what was looked for.
        print(f"warning: no glossary links in {len(files)} file(s): looked for [[Term]], :term:`{inventory}:Term` "
              f"(and :ref:, :doc:, MyST {{term}}`{inventory}:Term`) and URLs under {glossary.base_url}", file=sys.stderr)
    log(f"Checked {checker.links} glossary link(s) in {len(files)} file(s) against {glossary.source}: no problems")
    return 0
