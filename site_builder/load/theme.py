"""A site's own look: template overrides from ``content/templates/`` and the
files ``site.toml`` names in ``content/assets/`` (``extra_css``, ``extra_js``,
``logo``), read once in the load stage like every other content file.

The theme is data handed to the render stage; its ``digest`` goes into every
page key and the edit fast path's state (``cache.pages``, ``cache.incremental``),
so an edited override or style sheet is never served from the cache.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Problem, display_path
from ..files import RefusedPath, read_regular
from .config import SiteConfig, _key_line
from .content import symlink_problem

TEMPLATES_FOLDER = "templates"
ASSETS_FOLDER = "assets"
TEMPLATE_LIMIT = 1_000_000
"""Bytes in one template override."""
ASSET_LIMIT = 5_000_000
"""Bytes in one file of ``assets/`` (a style sheet, script or logo)."""
_TEMPLATE_NAME = re.compile(r"[\w-]+(?:/[\w-]+)*\.html")
CSS_URL = re.compile(r"""url\(\s*(["']?)([^"')\s]+)\1\s*\)""")
"""A ``url()`` in a style sheet (a font, an image): relative ones are copied with
their own content hash and the style sheet is rewritten to name them."""


@dataclass(frozen=True)
class Theme:
    """What a content folder changes of the package's look."""

    templates: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Template name (``base.html``, ``partials/x.html``) -> (source, path shown in errors)."""
    assets: dict[str, bytes] = field(default_factory=dict)
    """Path under ``assets/`` -> bytes, for every file ``site.toml`` names and
    every file their style sheets' ``url()``s name."""
    references: dict[str, dict[str, str]] = field(default_factory=dict)
    """Style sheet -> {a relative ``url()`` as written -> the path under ``assets/`` it names}."""

    @property
    def digest(self) -> str:
        """Hash of every override and asset (part of every page's cache key)."""
        digest = hashlib.sha256()
        for name, (source, _shown) in sorted(self.templates.items()):
            digest.update(f"template {name} {len(source)}\n".encode())
            digest.update(source.encode("utf-8"))
        for name, data in sorted(self.assets.items()):
            digest.update(f"asset {name} {len(data)}\n".encode())
            digest.update(data)
        digest.update(repr(sorted((k, sorted(v.items())) for k, v in self.references.items())).encode())
        return digest.hexdigest()


def load_theme(content_dir: Path, config: SiteConfig, config_path: Path | None = None) -> tuple[Theme, list[Problem]]:
    """Read ``content_dir/templates/**/*.html`` and the assets ``config`` names;
    return the theme and any problems (a missing asset is an error at its key's
    line of ``site.toml``: ``config_path``, or ``content_dir/site.toml``)."""
    problems: list[Problem] = []
    root = content_dir.resolve() if content_dir.exists() else content_dir
    templates: dict[str, tuple[str, str]] = {}
    folder = content_dir / TEMPLATES_FOLDER
    if folder.is_dir():
        for path in sorted(folder.rglob("*")):
            if path.is_dir() and not path.is_symlink():
                continue
            shown = display_path(path)
            name = path.relative_to(folder).as_posix()
            if name.startswith(".") or "/." in name:
                continue  # editors' and VCS's hidden files
            if not _TEMPLATE_NAME.fullmatch(name):
                problems.append(Problem(shown, None, "a template override must be a .html file named with letters, "
                                        "digits, '_' and '-'; it is ignored", "warning"))
                continue
            data = _read(path, root, TEMPLATE_LIMIT, shown, problems)
            if data is None:
                continue
            try:
                templates[name] = (data.decode("utf-8"), shown)
            except UnicodeDecodeError as exc:
                problems.append(Problem(shown, 1, f"not valid UTF-8 ({exc.reason})"))
    assets: dict[str, bytes] = {}
    wanted = [("extra_css", name) for name in config.extra_css] + [("extra_js", name) for name in config.extra_js]
    if config.logo:
        wanted.append(("logo", config.logo))
    for key, name in wanted:
        path = content_dir / ASSETS_FOLDER / name
        if not os.path.lexists(path):
            problems.append(Problem(*_at(content_dir, config_path, key),
                                    f"{key!r} names {name!r}, but there is no {display_path(path)}"))
            continue
        data = _read(path, root, ASSET_LIMIT, display_path(path), problems)
        if data is not None:
            assets[name] = data
    references: dict[str, dict[str, str]] = {}
    for name in config.extra_css:
        if name in assets:
            references[name] = _referenced(content_dir, root, name, assets, problems)
    return Theme(templates, assets, references), problems


def _referenced(content_dir: Path, root: Path, name: str, assets: dict[str, bytes],
                problems: list[Problem]) -> dict[str, str]:
    """The files the style sheet ``assets/<name>`` names with a relative ``url()``,
    read into ``assets``; {url as written -> path under assets/}."""
    shown = display_path(content_dir / ASSETS_FOLDER / name)
    try:
        text = assets[name].decode("utf-8")
    except UnicodeDecodeError as exc:
        problems.append(Problem(shown, 1, f"not valid UTF-8 ({exc.reason})"))
        return {}
    found: dict[str, str] = {}
    for match in CSS_URL.finditer(re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group()), text, flags=re.S)):
        written = match.group(2)
        if written.startswith(("/", "#")) or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", written) or written in found:
            continue  # absolute, a fragment, data: or another origin: left as written (the CSP decides)
        line = text.count("\n", 0, match.start()) + 1
        target = posixpath.normpath(posixpath.join(posixpath.dirname(name), re.split(r"[?#]", written)[0]))
        if target.startswith("../") or target == ".." or "\\" in written:
            problems.append(Problem(shown, line, f"url({written}) leads outside assets/"))
            continue
        path = content_dir / ASSETS_FOLDER / target
        if not os.path.lexists(path) or path.is_dir():
            problems.append(Problem(shown, line, f"url({written}) names {display_path(path)}, which is not there"))
            continue
        if target not in assets:
            data = _read(path, root, ASSET_LIMIT, display_path(path), problems)
            if data is None:
                continue
            assets[target] = data
        found[written] = target
    return found


def _read(path: Path, root: Path, limit: int, shown: str, problems: list[Problem]) -> bytes | None:
    """A content file's bytes under the content folder's rules (load/content.py):
    a symlink only to inside the folder, a regular file only; None with a problem."""
    refused = symlink_problem(path, root) if path.is_symlink() else None
    if refused:
        problems.append(Problem(shown, None, refused))
        return None
    try:
        return read_regular(path, follow=True, owned=False, limit=limit)
    except RefusedPath as exc:
        problems.append(Problem(shown, None, exc.reason))
    except ValueError as exc:  # over the limit
        problems.append(Problem(shown, None, str(exc)))
    except OSError as exc:
        problems.append(Problem(shown, None, f"cannot read: {exc.strerror or exc}"))
    return None


def _at(content_dir: Path, config_path: Path | None, key: str) -> tuple[str, int | None]:
    path = config_path if config_path is not None else content_dir / "site.toml"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return display_path(path), None
    return display_path(path), _key_line(lines, key)
