"""Site configuration: the optional ``content/site.toml`` (or ``--config FILE``).

A typed schema (``SITE_FIELDS``, checked by ``schema.check`` like front matter):
every key has its default and meaning beside it, and an unknown key is a
warning (an error under ``--strict``), so a misspelling never passes silently.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import field as dataclass_field, make_dataclass, replace
from pathlib import Path

from . import schema
from .schema import AUTO_BOOL, BOOL, LANGUAGE, NAME_LIMIT, STRING, TEXT_LIMIT, URL, Field, Schema, normalise_base_url
from .theme_settings import CSS_FILES, IMAGE_FILE, JS_FILES, LINKS
from ..errors import Problem, display_path
from ..files import RefusedPath, read_regular
from .content import symlink_problem
from .media import READ_LIMIT

class Megabytes(schema.Kind):
    """A positive number of megabytes, at most ``media.READ_LIMIT``."""

    name = "number of MB"

    def clean(self, field, value, cleaned):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= READ_LIMIT / 2**20:
            return schema.INVALID, [(f"{field.name!r} must be a number of MB above 0 and at most "
                                     f"{READ_LIMIT // 2**20}, not {value!r}", "error")]
        return value, []


MEGABYTES = Megabytes()

__all__ = ["SITE_FIELDS", "SITE_SCHEMA", "SiteConfig", "load_config", "normalise_base_url"]


class _Paths(schema.TextList):
    """A list of file paths, kept as a tuple (as the default)."""

    def clean(self, field, value, cleaned):
        kept, problems = super().clean(field, value, cleaned)
        return (kept if kept is schema.INVALID else tuple(kept)), problems


class _Choice(schema.String):
    """One of a few words."""

    def __init__(self, *choices: str):
        super().__init__(" or ".join(f'"{c}"' for c in choices))
        self.choices = choices

    def clean(self, field, value, cleaned):
        if value not in self.choices:
            return schema.INVALID, [(f"{field.name!r} must be {self.name}, not {value!r}", "error")]
        return value, []


SITE_FIELDS = (
    Field("title", STRING, "Glossary", max_length=NAME_LIMIT,
          help="Site title, shown in the header and in every page's <title>."),
    Field("description", STRING, "A glossary of terms.", max_length=TEXT_LIMIT,
          help="Meta description of the index page."),
    Field("base_url", URL, "",
          help='Absolute URL the site is published at, e.g. "https://example.org/docs/glossary/" '
               "(normalised to end in one slash). Empty: the site is fully relative; canonical links, "
               "sitemap.xml and absolute URLs in glossary.json are then left out."),
    Field("language", LANGUAGE, "en", help="The pages' ``lang`` attribute."),
    Field("pretty_urls", BOOL, False,
          help="False: internal links end in ``index.html`` so the site also works opened from disk "
               "(file://). True: links end in ``/`` (needs a host that serves ``index.html`` for directories)."),
    Field("allow_raw_html", BOOL, False,
          help="False: raw HTML in markdown is escaped and shows as text. True: passed through."),
    Field("footer", STRING, "", max_length=TEXT_LIMIT, help="Plain text shown at the foot of every page."),
    Field("previews", AUTO_BOOL, "auto",
          help='A 1200x630 social preview PNG per page (og:image), ~2 ms each. "auto": only when '
               "base_url is an absolute URL (social sites ignore a relative og:image). True: always. "
               "False: never, an explainer's own preview neither."),
    Field("search", BOOL, True,
          help="True: a search box in every page's header and its index under ``search/`` (docs/search.md). "
               "False: neither."),
    Field("search_code", BOOL, False,
          help="True: search also indexes code (``<pre>``, inline ``code``). False: code is left out."),
    Field("extra_css", CSS_FILES, (),
          help="Style sheets in the content folder's ``assets/`` folder, linked from every page after the "
               "site's own (so they override it), copied to ``output/assets/`` with content hashes (docs/theming.md)."),
    Field("extra_js", JS_FILES, (),
          help="Scripts in ``assets/``, loaded deferred on every page after the site's own; copied with "
               "content hashes, run under the pages' Content-Security-Policy (no inline script)."),
    Field("logo", IMAGE_FILE, "",
          help="An image in ``assets/`` (.svg, .png, .webp, .jpg) shown before the title in every page's header."),
    Field("header_links", LINKS, (),
          help="Links in every page's header, e.g. back to the main docs: a list of tables, each "
               '``{ text = "Docs", url = "https://example.org/docs/" }``. A relative URL is relative to the glossary\'s root.'),
    Field("footer_links", LINKS, (),
          help="Links in every page's footer, as ``header_links``."),
    Field("media_max_mb", MEGABYTES, 5,
          help="The largest image or linked file (PDF, CSV, ...) a term may publish, in MB "
               "(docs/content.md, Images and files); a larger one is an error at the line using it."),
    Field("autolink", _Choice("off", "first"), "off",
          help='"first": the first mention of each term\'s title or alias in a body links to it (docs/linking.md#autolinks). '
               '"off": only the links written.'),
    Field("autolink_unit", _Choice("page", "section"), "page",
          help='What "first" counts in with autolink = "first": the whole body ("page") or each ``##`` section ("section").'),
    Field("report_orphans", BOOL, False,
          help="True: warn (an error under --strict) about each term no other term links to or lists as related."),
    Field("usage_files", _Paths("list of paths", as_names=False), (),
          help="Usage files written by ``check --links-in DOCS --usage-file FILE`` (paths relative to the content "
               "folder): each term's page lists the pages of those sites that link to it, under \"Used in\"."),
)
"""Every key of ``site.toml``; all are optional. These texts go into every page, card and preview image."""

SITE_SCHEMA = schema.Schema(SITE_FIELDS, noun="key", default_line=1, suggest=False, one_problem_per_key=True)


def settings_class(name: str, settings: Schema, module: str):
    """A frozen dataclass with one attribute per field of ``settings``, at its default
    (a base for a typed settings class such as ``SiteConfig``)."""
    made = make_dataclass(name, [(f.name, type(f.default), dataclass_field(default=f.default)) for f in settings.fields],
                          frozen=True)
    made.__module__ = module
    return made


class SiteConfig(settings_class("SiteConfig", SITE_SCHEMA, __name__)):
    """Settings for the whole site: one attribute per ``SITE_FIELDS`` entry, at its default."""

    @property
    def makes_previews(self) -> bool:
        """Whether preview images are made (composed cards and explainers' own):
        ``previews = true``, or "auto" (the default) with an absolute ``base_url``."""
        if self.previews == "auto":
            return bool(re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", self.base_url))
        return bool(self.previews)

    @property
    def autolink_unit_or_none(self) -> str | None:
        """The unit autolinks count in ("page", "section"), or None when autolink is off."""
        return self.autolink_unit if self.autolink == "first" else None

    def with_base_url(self, base_url: str | None) -> "SiteConfig":
        """This config with ``base_url`` replaced when one is given (``--base-url``)."""
        if base_url is None:
            return self
        return replace(self, base_url=normalise_base_url(base_url))


def load_config(content_dir: Path, path: Path | None = None) -> tuple[SiteConfig, list[Problem]]:
    """Read ``content_dir/site.toml`` when present, or ``path`` (``--config``), which
    must exist; return the config and any problems."""
    given = path is not None
    if path is None:
        path = content_dir / "site.toml"
        if not os.path.lexists(path):  # (a dangling symlink is read, and said)
            return SiteConfig(), []
    shown = display_path(path)
    if not path.exists() and given:  # asked for by name: a typo must not build with the defaults
        return SiteConfig(), [Problem(shown, None, "no such file (given as --config)")]
    try:
        # The rule of every content file (load/content.py): a symlink only to inside the
        # content folder, and a regular file only (a FIFO must not hang the build).
        refused = None if given or not path.is_symlink() else symlink_problem(path, content_dir.resolve())
        if refused:
            return SiteConfig(), [Problem(shown, None, refused)]
        text = read_regular(path, follow=True, owned=False).decode("utf-8")
        data = tomllib.loads(text)
    except RefusedPath as exc:
        return SiteConfig(), [Problem(shown, None, exc.reason)]
    except OSError as exc:  # e.g. site.toml is a folder
        return SiteConfig(), [Problem(shown, None, f"cannot read: {exc.strerror or exc}")]
    except UnicodeDecodeError as exc:
        return SiteConfig(), [Problem(shown, 1, f"not valid UTF-8 ({exc.reason})")]
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _line_from_message(str(exc))
        return SiteConfig(), [Problem(shown, line, f"invalid TOML: {exc}")]
    except ValueError:  # an integer past Python's limit on digits
        line = next((n for n, row in enumerate(text.splitlines(), 1) if re.search(r"[0-9_]{4000,}", row)), 1)
        return SiteConfig(), [Problem(shown, line, "invalid TOML: a number with too many digits")]
    text_lines = text.splitlines()
    key_lines = {key: _key_line(text_lines, key) for key in data}
    values, problems = schema.check(data, SITE_SCHEMA, shown, key_lines)
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
