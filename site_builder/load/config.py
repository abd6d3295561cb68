"""Site configuration: the optional ``content/site.toml``.

A typed schema: every key has a default documented beside it, and an unknown
key is a warning (an error under ``--strict``), so a misspelling never passes
silently.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

from .front_matter import control_character
from ..errors import Problem, display_path


@dataclass(frozen=True)
class SiteConfig:
    """Settings for the whole site. Every field is optional in ``site.toml``."""

    title: str = "Glossary"
    """Site title, shown in the header and in every page's <title>."""
    description: str = "A glossary of terms."
    """Meta description of the index page."""
    base_url: str = ""
    """Absolute URL the site is published at, e.g. "https://example.org/docs/glossary/".
    Empty: the site is fully relative; canonical links, sitemap.xml and absolute
    URLs in glossary.json are then left out."""
    language: str = "en"
    """The pages' ``lang`` attribute."""
    pretty_urls: bool = False
    """False: internal links end in ``index.html`` so the site also works opened
    from disk (file://). True: links end in ``/`` (needs a host that serves
    ``index.html`` for directories)."""
    allow_raw_html: bool = False
    """False: raw HTML in markdown is escaped and shows as text. True: passed through."""
    footer: str = ""
    """Plain text shown at the foot of every page."""
    previews: bool = True
    """True: a 1200x630 social preview PNG per page (og:image), about 50 ms each.
    False: none (faster builds of large sites); an explainer's own preview is kept."""

    def with_base_url(self, base_url: str | None) -> "SiteConfig":
        """This config with ``base_url`` replaced when one is given (``--base-url``)."""
        if base_url is None:
            return self
        return replace(self, base_url=normalise_base_url(base_url))


def normalise_base_url(url: str) -> str:
    """Make a non-empty base URL end with exactly one slash."""
    url = url.strip()
    return url.rstrip("/") + "/" if url else ""


_TYPES = {f.name: f.type for f in fields(SiteConfig)}
MAX_LENGTH = {"title": 200, "description": 1000, "footer": 1000}
"""Characters; these texts go into every page, card and preview image."""
ONE_WORD = {"base_url": "one URL", "language": "one language tag"}
"""Values that are a single token: a line break in base_url would add lines to robots.txt."""


def load_config(content_dir: Path) -> tuple[SiteConfig, list[Problem]]:
    """Read ``content_dir/site.toml`` when present; return the config and any problems."""
    path = content_dir / "site.toml"
    if not path.exists():
        return SiteConfig(), []
    shown = display_path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as exc:  # e.g. site.toml is a folder
        return SiteConfig(), [Problem(shown, 1, f"cannot read: {exc.strerror or exc}")]
    except UnicodeDecodeError as exc:
        return SiteConfig(), [Problem(shown, 1, f"not valid UTF-8 ({exc.reason})")]
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _line_from_message(str(exc))
        return SiteConfig(), [Problem(shown, line, f"invalid TOML: {exc}")]
    problems: list[Problem] = []
    values = {}
    text_lines = text.splitlines()
    for key, value in data.items():
        line = _key_line(text_lines, key)
        # TOML writes any character from an escape ("\u0000"); none may reach a page.
        found = control_character(key, f"key {key!r}") or control_character(value, repr(key))
        if found is not None:
            problems.append(Problem(shown, line, found))
            continue
        if key not in _TYPES:
            known = ", ".join(sorted(_TYPES))
            problems.append(Problem(shown, line, f"unknown key {key!r} (known keys: {known})", "warning"))
            continue
        expected = bool if _TYPES[key] in ("bool", bool) else str
        if not isinstance(value, expected):
            problems.append(Problem(shown, line, f"{key!r} must be a {expected.__name__}, not {type(value).__name__}"))
            continue
        if key in MAX_LENGTH and len(value) > MAX_LENGTH[key]:
            problems.append(Problem(shown, line, f"{key!r} is {len(value):,} characters long; the limit is {MAX_LENGTH[key]:,}"))
            continue
        if key in ONE_WORD and (space := re.search(r"\s", value.strip())):
            problems.append(Problem(shown, line, f"{key!r} contains whitespace (U+{ord(space.group()):04X}); it is {ONE_WORD[key]}, without spaces or line breaks"))
            continue
        values[key] = value
    if "base_url" in values:
        values["base_url"] = normalise_base_url(values["base_url"])
    return SiteConfig(**values), problems


def _key_line(lines: list[str], key: str) -> int:
    """The line of the top-level ``key``: ``key = ...``, ``"key" = ...``, ``key.sub = ...`` or ``[key]``."""
    written = "|".join(re.escape(form) for form in (key, f'"{key}"', f"'{key}'"))
    pattern = re.compile(rf"\s*(?:\[+\s*)?(?:{written})\s*[.=\]]")
    for number, text in enumerate(lines, 1):
        if pattern.match(text):
            return number
    return 1


def _line_from_message(message: str) -> int:
    match = re.search(r"line (\d+)", message)
    return int(match.group(1)) if match else 1
