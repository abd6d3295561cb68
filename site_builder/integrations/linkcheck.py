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

With ``--unlinked`` it also lints, as warnings (errors with ``--strict``): each
term whose first mention in a markdown page (or ``##`` section, ``--unit
section``) comes before any link to it there (mentions as ``markup.autolink``
finds them), and each glossary term no file links to. ``--usage-file`` writes
which pages link to which term (``usage.py``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import unquote, urlsplit

from ..errors import Problem, display_path
from ..markup import autolink, mentions
from ..markup.source import CODE_SPAN_RE, LINK_TARGET_RE, WIKILINK_RE, outside_fences
from ..outputs import cards
from ..outputs.search_index import FOLDER as SEARCH_FOLDER
from . import roles, usage
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

    def __init__(self, glossary: PublishedGlossary, inventory: str = INVENTORY_NAME, unlinked: str | None = None):
        """``unlinked``: "page" or "section" lints unlinked first mentions per that unit; None: no lint."""
        self.glossary = glossary
        self.inventory = inventory
        self.names = roles.inventory_names(glossary)
        self.links = 0
        self.unit = unlinked
        self.matcher = autolink.TermMatcher((name, term.slug) for term in glossary.terms.values()
                                            for name in (term.title, *term.aliases)) if unlinked else None
        self.linked: dict[str, set[str]] = {}
        """slug -> the files (as shown) that link to it."""

    def markdown(self, text: str, shown: str) -> list[Problem]:
        """Problems with the glossary links and MyST roles in one markdown text."""
        found: list[tuple[int, str | None]] = []
        targets: list[tuple[int, str]] = []  # (line, slug) of each link that reaches a term
        for number, wikilink in wikilinks(text):
            term, _anchor, problem = resolve_link(self.glossary, wikilink.group(1), wikilink.group(0))
            found.append((number, problem))
            if term is not None:
                targets.append((number, term.slug))
        for offset, line in outside_fences(text.splitlines()):
            if "](" in line or "]:" in line:
                prose = CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)
                for target in LINK_TARGET_RE.finditer(prose):
                    found += self._url(offset + 1, target.group(1) or target.group(2), targets)
        for role in roles.myst_roles(text, self.inventory):
            found.append((role.line, roles.check_role(role, self.names)))
            targets += self._role_target(role)
        self._remember(shown, targets)
        return self._problems(found, shown) + self._unlinked(text, shown, targets)

    def rst(self, text: str, shown: str) -> list[Problem]:
        """Problems with the glossary roles and URLs in one reStructuredText text."""
        found: list[tuple[int, str | None]] = []
        targets: list[tuple[int, str]] = []
        for role in roles.rst_roles(text, self.inventory):
            found.append((role.line, roles.check_role(role, self.names)))
            targets += self._role_target(role)
        if self.glossary.base_url and self.glossary.base_url in text:
            for offset, line in roles.rst_prose(text):
                for url in _RST_URL_RE.findall(line):
                    found += self._url(offset + 1, url.rstrip(".,;:!?)"), targets)
        self._remember(shown, targets)
        return self._problems(found, shown)

    def _url(self, number: int, url: str, targets: list[tuple[int, str]]) -> list[tuple[int, str | None]]:
        # Only links under the glossary count as checked: the rest are not ours.
        if not self.glossary.base_url or not url.startswith(self.glossary.base_url):
            return []
        slug = urlsplit(url[len(self.glossary.base_url):]).path.partition("/")[0]
        slug = self.glossary.redirects.get(slug, slug)
        if slug in self.glossary.terms:
            targets.append((number, slug))
        return [(number, _check_url(url, self.glossary))]

    def _role_target(self, role: roles.Role) -> list[tuple[int, str]]:
        """(line, slug) when ``role`` reaches a term."""
        if role.role == "term":
            term = self.glossary.resolve(role.target)
            return [(role.line, term.slug)] if term is not None else []
        slug = role.target.partition("#")[0].strip()
        slug = self.glossary.redirects.get(slug, slug)
        return [(role.line, slug)] if slug in self.glossary.terms else []

    def _remember(self, shown: str, targets: list[tuple[int, str]]) -> None:
        for _line, slug in targets:
            self.linked.setdefault(slug, set()).add(shown)

    def _unlinked(self, text: str, shown: str, targets: list[tuple[int, str]]) -> list[Problem]:
        """A warning for each term whose first mention in a unit comes before any link to it there."""
        if self.matcher is None:
            return []
        starts = mentions.section_starts(text) if self.unit == "section" else []
        unit_of = lambda line: sum(1 for start in starts if start <= line)  # noqa: E731
        first_link: dict[tuple[int, str], int] = {}
        for line, slug in targets:
            first_link.setdefault((unit_of(line), slug), line)
        seen: set[tuple[int, str]] = set()
        problems = []
        for line, slug, written in mentions.source_mentions(text, self.matcher):
            key = (unit_of(line), slug)
            if key in seen:
                continue
            seen.add(key)
            if key not in first_link or first_link[key] > line:
                where = "section" if self.unit == "section" else "page"
                problems.append(Problem(shown, line, f"first mention of glossary term '{self.glossary.terms[slug].title}' "
                                                     f"in this {where} is not linked: {written}", "warning"))
        return problems

    def unused(self) -> list[Problem]:
        """With the lint on: a warning for each glossary term no checked file links to,
        at its line in a local glossary.json."""
        if self.matcher is None:
            return []
        lines = _slug_lines(self.glossary.source)
        return [Problem(self.glossary.source, lines.get(slug), f"glossary term '{term.title}' is not linked from any "
                        "checked file", "warning")
                for slug, term in sorted(self.glossary.terms.items()) if slug not in self.linked]

    def _problems(self, found: list[tuple[int, str | None]], shown: str) -> list[Problem]:
        self.links += len(found)
        # Stable sort: on one line, [[...]] links, then URLs, then roles.
        return [Problem(shown, number, message) for number, message in sorted(found, key=lambda f: f[0]) if message]


def _slug_lines(source: str) -> dict[str, int]:
    """slug -> its line in the glossary.json at ``source`` when it is a local file (which a
    build writes one key a line); empty for a URL (nothing is fetched again)."""
    path = Path(source[len("file://"):]) if source.startswith("file://") else Path(source)
    if "://" in source and not source.startswith("file://") or not path.is_file():
        return {}
    found: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if match := re.match(r'\s*"slug":\s*"([^"\\]+)"', line):
            found.setdefault(match.group(1), number)
    return found


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


def run(docs: Path, location: str, log: Callable[[str], None], inventory: str = INVENTORY_NAME,
        unlinked: str | None = None, strict: bool = False, usage_file: Path | None = None,
        site_url: str | None = None) -> int:
    """The ``check --links-in`` command: print problems; 0 when there are none.

    ``unlinked`` ("page", "section"): lint unlinked first mentions and unused terms
    (warnings; errors when ``strict``). ``usage_file``: write which pages link to
    which term (``usage.py``), when there is no error."""
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
    layout = usage.site_layout(docs, site_url) if usage_file is not None else None
    if isinstance(layout, str):
        print(f"error: {layout}", file=sys.stderr)
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
    checker = Checker(glossary, inventory, unlinked)
    problems = check_docs(docs, glossary, checker=checker) + checker.unused()
    for problem in problems:
        print(problem, file=sys.stderr)
    if sum(p.message.startswith("cannot read: ") for p in problems) == len(files):
        print(f"error: {docs}: none of its {len(files)} file(s) could be read", file=sys.stderr)
        return 1
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        print(f"error: {len(errors)} broken glossary link(s) in {len(files)} file(s)", file=sys.stderr)
        return 1
    if strict and problems:
        print(f"error: {len(problems)} warning(s), errors under --strict", file=sys.stderr)
        return 1
    if layout is not None:
        _write_usage(usage_file, layout, docs, files, checker)
        log(f"Wrote {usage_file}: {len(checker.linked)} term(s) linked from {len(files)} file(s)")
    if not checker.links:
        # Not an error (docs may not link to the glossary yet), but say what was looked for.
        print(f"warning: no glossary links in {len(files)} file(s): looked for [[Term]], :term:`{inventory}:Term` "
              f"(and :ref:, :doc:, MyST {{term}}`{inventory}:Term`) and URLs under {glossary.base_url}", file=sys.stderr)
    outcome = f"{len(problems)} warning(s)" if problems else "no problems"
    log(f"Checked {checker.links} glossary link(s) in {len(files)} file(s) against {glossary.source}: {outcome}")
    return 0


def _write_usage(target: Path, layout: "usage.SiteLayout", docs: Path, files: list[Path], checker: Checker) -> None:
    pages = {}
    for path in files:
        relative = path.name if docs.is_file() else path.relative_to(docs).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        pages[display_path(path)] = (usage.page_title(text, path.stem), usage.page_url(layout, relative))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(usage.usage_json(layout, checker.linked, pages))
