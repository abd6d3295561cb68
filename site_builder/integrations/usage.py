"""Usage files: which pages of another site link to which glossary term.

``check --links-in DOCS --usage-file FILE`` writes one from DOCS' sources
(``write_usage``): every term that a page links to, with each such page's
title and the URL it will have once that site is built. The glossary reads
the files ``usage_files`` in ``site.toml`` names (``read_usage``) and lists
them on each term page under "Used in". Nothing is fetched: the file is the
whole record, and the same sources give the same bytes.

Where pages will be: a ``mkdocs.yml`` beside DOCS (whose ``docs_dir`` is
DOCS) gives the site's ``site_url``, ``site_name`` and ``use_directory_urls``
(MkDocs' rules: ``guide/setup.md`` -> ``guide/setup/``, ``index.md`` and
``README.md`` -> their folder); otherwise, and for reStructuredText, pages are
Sphinx's ``guide/setup.html``. ``--site-url`` gives or overrides the address.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from ..errors import Problem, display_path
from ..files import RefusedPath, read_regular
from ..urls import is_safe_url

VERSION = 1


@dataclass(frozen=True)
class UsedIn:
    """One page of another site that links to a term."""

    site: str
    title: str
    url: str


@dataclass(frozen=True)
class SiteLayout:
    """Where the pages of the docs being checked will be published."""

    url: str
    name: str
    directory_urls: bool
    mkdocs: bool


@functools.cache
def _any_tag_loader() -> type:
    """The safe loader, every tag read as a plain value: mkdocs.yml may hold
    ``!!python/name:`` and ``!ENV`` tags, never run. Made when first needed:
    every build imports this module, only ``check --links-in`` reads YAML here."""
    import yaml

    class AnyTagLoader(yaml.SafeLoader):
        pass

    AnyTagLoader.add_multi_constructor("", lambda loader, suffix, node: None)
    return AnyTagLoader


def site_layout(docs: Path, site_url: str | None) -> SiteLayout | str:
    """The layout of DOCS' site, or why it cannot be known (no URL)."""
    folder = docs if docs.is_dir() else docs.parent
    settings: dict = {}
    mkdocs = False
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        candidate = folder.parent / name
        if candidate.is_file():
            import yaml  # (PyYAML: see _any_tag_loader)

            try:
                loaded = yaml.load(candidate.read_text(encoding="utf-8"), Loader=_any_tag_loader()) or {}
            except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
                return f"{display_path(candidate)}: cannot read: {exc}"
            if isinstance(loaded, dict) and (folder.parent / str(loaded.get("docs_dir") or "docs")).resolve() == folder.resolve():
                settings, mkdocs = loaded, True
                break
    url = site_url or str(settings.get("site_url") or "")
    if not url:
        return ("a usage file needs the URL the docs are published at: give --site-url, "
                "or site_url in the mkdocs.yml beside DOCS")
    if not re.match(r"https?://[^/\s]+", url) or not is_safe_url(url):
        return f"--site-url must be an http(s):// URL, not {url!r}"
    url = url.rstrip("/") + "/"
    return SiteLayout(url, str(settings.get("site_name") or url), bool(settings.get("use_directory_urls", True)), mkdocs)


def page_url(layout: SiteLayout, relative: str) -> str:
    """The URL the page at ``relative`` (under DOCS, with ``/``) will have."""
    stem, _, suffix = relative.rpartition(".")
    if layout.mkdocs and suffix.lower() != "rst":
        folder, _, name = stem.rpartition("/")
        if name.lower() in ("index", "readme"):
            path = f"{folder}/" if folder else ""
            return layout.url + (path + "index.html" if not layout.directory_urls else path)
        return layout.url + (f"{stem}/" if layout.directory_urls else f"{stem}.html")
    return layout.url + f"{stem}.html"


def page_title(text: str, fallback: str) -> str:
    """A page's title: front matter ``title:``, its first ``#`` heading (or a
    reStructuredText title), else ``fallback``."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for line in lines[1:]:
            if line.strip() in ("---", "..."):
                break
            if match := re.match(r"title:\s*(.+)", line):
                return match.group(1).strip().strip("'\"")
    for number, line in enumerate(lines):
        if match := re.match(r" {0,3}#\s+(.+?)\s*#*\s*$", line):
            return match.group(1)
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"([=\-~#*^\"'])\1{2,}", following.strip()) and len(following.strip()) >= len(line.strip()):
            return line.strip()
    return fallback


def usage_json(layout: SiteLayout, linked: Mapping[str, Iterable[str]], pages: Mapping[str, tuple[str, str]]) -> bytes:
    """The usage file: ``linked`` is slug -> the files (as shown) linking to it;
    ``pages`` shown -> (title, URL). Sorted throughout: the same docs give the same bytes."""
    terms = {slug: [{"title": pages[shown][0], "url": pages[shown][1]}
                    for shown in sorted(files, key=lambda s: pages[s][1])]
             for slug, files in sorted(linked.items())}
    data = {"version": VERSION, "site": {"name": layout.name, "url": layout.url}, "terms": terms}
    return (json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def read_usage(content: Path, names: Iterable[str]) -> tuple[dict[str, tuple[UsedIn, ...]], list[Problem]]:
    """slug -> the pages of other sites that link to it, from the usage files
    ``names`` (relative to the content folder), each page once, sorted."""
    found: dict[str, set[UsedIn]] = {}
    problems: list[Problem] = []
    for name in names:
        path = content / name
        shown = display_path(path)
        try:
            data = json.loads(read_regular(path, follow=True, owned=False).decode("utf-8"))
        except (OSError, RefusedPath) as exc:
            problems.append(Problem(shown, None, f"cannot read usage file: {getattr(exc, 'strerror', None) or exc}"))
            continue
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            problems.append(Problem(shown, getattr(exc, "lineno", None), f"not a usage file (invalid JSON: {exc})"))
            continue
        if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("terms"), dict) \
                or not isinstance(data.get("site"), dict):
            problems.append(Problem(shown, None, f"not a usage file of version {VERSION} "
                                    "(write one with check --links-in DOCS --usage-file FILE)"))
            continue
        site = str(data["site"].get("name") or data["site"].get("url") or "")
        for slug, pages in data["terms"].items():
            for page in pages if isinstance(pages, list) else []:
                url = str(page.get("url", "")) if isinstance(page, dict) else ""
                if not re.match(r"https?://", url) or not is_safe_url(url):
                    problems.append(Problem(shown, None, f"usage of '{slug}': page URL {url!r} is not http(s); left out",
                                            "warning"))
                    continue
                found.setdefault(str(slug), set()).add(UsedIn(site, str(page.get("title") or url), url))
    return {slug: tuple(sorted(pages, key=lambda p: (p.site, p.title, p.url))) for slug, pages in found.items()}, problems
