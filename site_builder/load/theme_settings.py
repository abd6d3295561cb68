"""The kinds of value ``site.toml``'s look-and-feel keys hold (``extra_css``,
``extra_js``, ``logo``, ``header_links``, ``footer_links``), beside the
general kinds in ``schema``; ``load.theme`` reads the files they name."""

from __future__ import annotations

import re

from ..urls import is_safe_url
from .schema import INVALID, NAME_LIMIT, Kind, _kind


class AssetPaths(Kind):
    """A list of files in the content folder's ``assets/`` folder (one path is a
    list of one), each relative, with ``/``, ending in one of ``suffixes``; kept
    as a tuple. That the files exist is checked where they are read (load.theme)."""

    def __init__(self, name: str, suffixes: tuple[str, ...], single: bool = False):
        self.name, self.suffixes, self.single = name, suffixes, single

    def clean(self, field, value, cleaned):
        key = field.name
        if self.single:
            if not isinstance(value, str):
                return INVALID, [(f"{key!r} must be a path in assets/, not {_kind(value)}", "error")]
            if not value:
                return "", []
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
            return INVALID, [(f"{key!r} must be a list of paths in assets/", "error")]
        for path in values:
            problem = asset_path_problem(path, self.suffixes)
            if problem is not None:
                return INVALID, [(f"{key!r}: {path!r} {problem}", "error")]
        if len(set(values)) != len(values):
            return INVALID, [(f"{key!r} lists a file twice", "error")]
        return (values[0] if self.single else tuple(values)), []


def asset_path_problem(path: str, suffixes: tuple[str, ...]) -> str | None:
    """Why ``path`` cannot name a file of the content's ``assets/`` folder, or None."""
    if "\\" in path or path.startswith("/") or re.match(r"[A-Za-z]:", path):
        return "must be a relative path inside assets/, written with '/'"
    parts = path.split("/")
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return "must be a plain relative path inside assets/ (no '..', '.' or hidden parts)"
    if not re.fullmatch(r"[\w./-]+", path):
        return "may hold only letters, digits, '_', '-', '.' and '/'"
    if not path.lower().endswith(suffixes):
        return f"must end in {' or '.join(suffixes)}"
    return None


class Links(Kind):
    """A list of links, each a table ``{ text = "...", url = "..." }``: an http(s)
    or mailto URL or a relative one (``urls.is_safe_url``: never ``javascript:``);
    kept as a tuple of (text, url) pairs."""

    name = "list of links"

    def clean(self, field, value, cleaned):
        key = field.name
        if not isinstance(value, list):
            return INVALID, [(f"{key!r} must be a list of {{ text = ..., url = ... }} tables", "error")]
        links = []
        for number, entry in enumerate(value, 1):
            where = f"{key!r} entry {number}"
            if not isinstance(entry, dict) or set(entry) != {"text", "url"}:
                return INVALID, [(f"{where} must be a table with exactly the keys text and url", "error")]
            text, url = entry["text"], entry["url"]
            if not isinstance(text, str) or not text.strip() or not isinstance(url, str) or not url.strip():
                return INVALID, [(f"{where}: text and url must be non-empty strings", "error")]
            text, url = " ".join(text.split()), url.strip()
            if len(text) > NAME_LIMIT:
                return INVALID, [(f"{where}: the text is {len(text):,} characters long; the limit is {NAME_LIMIT:,}", "error")]
            if re.search(r"\s", url) or not is_safe_url(url) or "\\" in url:
                return INVALID, [(f"{where}: {url!r} is not a URL a page may link to "
                                  "(http, https, mailto or a relative URL, without spaces)", "error")]
            links.append((text, url))
        return tuple(links), []


CSS_FILES = AssetPaths("list of .css files in assets/", (".css",))
JS_FILES = AssetPaths("list of .js files in assets/", (".js",))
IMAGE_FILE = AssetPaths("an image in assets/", (".svg", ".png", ".webp", ".jpg", ".jpeg"), single=True)
LINKS = Links()
