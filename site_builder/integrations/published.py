"""Reading a published ``glossary.json`` (for the Markdown extension and the link checker).

A location is a URL (http, https or file) or a local path; a folder (or a URL
ending in ``/``) means its ``glossary.json``. Each location is read once per
process and cached.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from ..load.config import normalise_base_url
from ..names import NameIndex
from ..urls import refusal
from .fetch import fetch_url, read_local

SUPPORTED_VERSION = 1
RETRY_AFTER = 30.0
"""Seconds a failed load is remembered before the next use tries again."""


class GlossaryLoadError(ValueError):
    """The glossary.json cannot be read or is not one we understand."""


@dataclass(frozen=True)
class PublishedTerm:
    """One entry of a published glossary."""

    slug: str
    title: str
    summary: str
    aliases: tuple[str, ...]
    url: str
    anchors: frozenset[str]
    redirects: tuple[str, ...]


class PublishedGlossary:
    """The terms of one glossary.json and where their pages are."""

    def __init__(self, data: object, source: str, default_base: str):
        if not isinstance(data, dict) or not isinstance(data.get("terms"), list):
            raise GlossaryLoadError(f"{source}: not a glossary.json (no 'terms' list)")
        if data.get("version") != SUPPORTED_VERSION:
            raise GlossaryLoadError(f"{source}: glossary.json version {data.get('version')!r} is not supported (expected {SUPPORTED_VERSION})")
        self.source = source
        self.title = str(data.get("title", ""))
        self.published_at: str | None = data.get("base_url") or None
        """The glossary's own base URL; None when it was built without one."""
        self.base_url = self.published_at or default_base
        self.terms: dict[str, PublishedTerm] = {}
        for item in data["terms"]:
            try:
                term = PublishedTerm(str(item["slug"]), str(item["title"]), str(item.get("summary", "")),
                                     tuple(map(str, item.get("aliases", []))), str(item["url"]),
                                     frozenset(map(str, item.get("anchors", []))), tuple(map(str, item.get("redirects", []))))
            except (KeyError, TypeError) as exc:
                raise GlossaryLoadError(f"{source}: malformed term entry {item!r:.80}: {exc}") from None
            self.terms[term.slug] = term
        self.names = NameIndex(self.terms.values())
        self.redirects = {source_slug: term.slug for term in self.terms.values() for source_slug in term.redirects}

    def resolve(self, name: str) -> PublishedTerm | None:
        """The term ``name`` (title, alias or slug; any case; simple plurals) refers to."""
        slug = self.names.resolve(name)
        return self.terms.get(slug) if slug else None

    def url_problem(self, term: PublishedTerm) -> str | None:
        """Why ``term`` may not be linked (None: it may). Another site's glossary is input
        like any other: its entry's URL and its own ``base_url`` must pass the scheme
        rule (``urls``). Where it was loaded from (a ``file:`` URL for a local path) and
        the ``base_url`` a site configures are the site owner's own choice."""
        for url in (term.url, self.published_at or ""):
            if (why := refusal(url)) is not None:
                return f"glossary entry '{term.title}' is not linked: its URL {url!r}: {why}"
        return None

    def href(self, term: PublishedTerm, anchor: str = "", base_url: str | None = None) -> str:
        """The URL of ``term``'s page (and ``#anchor``) under ``base_url`` or the glossary's own base."""
        # Without the trailing slash urljoin would drop the last segment ("/glossary").
        url = urljoin(normalise_base_url(base_url) if base_url else self.base_url, term.url)
        return url + (f"#{anchor}" if anchor else "")


def split_target(target: str) -> tuple[str, str]:
    """``"Inference#two-phases"`` -> ("Inference", "two-phases"), as in term bodies."""
    name, _, anchor = target.partition("#")
    return name.strip(), anchor.strip()


def resolve_link(glossary: PublishedGlossary, target: str, written: str) -> tuple[PublishedTerm | None, str, str | None]:
    """(term, anchor, problem) for the ``[[target]]`` written as ``written``: the
    term is None when unknown; the problem says what is wrong (None: nothing).
    Shared by the Markdown extension, the MkDocs plugin and ``check --links-in``."""
    name, anchor = split_target(target)
    term = glossary.resolve(name)
    if term is None:
        return None, anchor, f"unknown glossary term {written}"
    if (problem := glossary.url_problem(term)) is not None:
        return term, anchor, problem
    if anchor and anchor not in term.anchors:
        return term, anchor, f"glossary entry '{term.title}' has no anchor '#{anchor}': {written}"
    return term, anchor, None


@dataclass(frozen=True)
class _Failure:
    """A load that failed, and when: remembered for ``RETRY_AFTER`` seconds."""

    message: str
    at: float


_cache: dict[str, "PublishedGlossary | _Failure"] = {}
_lock = threading.Lock()


def load_glossary(location: str | Path) -> PublishedGlossary:
    """Read (once per process) the glossary.json at ``location``.

    A failure is remembered for ``RETRY_AFTER`` seconds: a docs build whose
    glossary is unreachable fails on its first link instead of waiting
    ``fetch.DEADLINE`` again per page, while a long-running ``mkdocs serve`` started
    before the glossary was published picks it up on a later rebuild."""
    key = str(location)
    with _lock:
        found = _cache.get(key)
        if found is None or (isinstance(found, _Failure) and time.monotonic() - found.at > RETRY_AFTER):
            try:
                found = _cache[key] = _load(key)
            except GlossaryLoadError as error:
                found = _cache[key] = _Failure(str(error), time.monotonic())
    if isinstance(found, _Failure):
        raise GlossaryLoadError(found.message)
    return found


def read_glossary(location: str | Path) -> PublishedGlossary:
    """Read the glossary.json at ``location`` now, bypassing the per-process cache
    (the MkDocs plugin reads it once per build, so ``mkdocs serve`` sees a new
    publish on its next rebuild)."""
    return _load(str(location))


def clear_cache() -> None:
    """Forget every loaded glossary (tests; long-running servers after a publish)."""
    with _lock:
        _cache.clear()


def _load(location: str) -> PublishedGlossary:
    scheme = urlsplit(location).scheme
    if scheme in ("http", "https", "file"):
        url = location if not location.endswith("/") else location + "glossary.json"
        try:
            # A total deadline and a size limit (fetch.py), not a timeout per read.
            raw = read_local(url) if scheme == "file" else fetch_url(url)
        except (OSError, ValueError) as exc:
            raise GlossaryLoadError(f"cannot read {url}: {exc}") from None
        return PublishedGlossary(_parse(raw, url), url, urljoin(url, "."))
    path = Path(location)
    if path.is_dir():
        path = path / "glossary.json"
    try:
        raw = read_local(path)
    except OSError as exc:
        raise GlossaryLoadError(f"cannot read {path}: {exc.strerror or exc}") from None
    return PublishedGlossary(_parse(raw, str(path)), str(path), path.resolve().parent.as_uri() + "/")


def _parse(raw: bytes, source: str) -> object:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GlossaryLoadError(f"{source}: not valid JSON: {exc}") from None
