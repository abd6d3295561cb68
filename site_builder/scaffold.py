"""``site-builder new DIR``: a new glossary repository that builds, checks and publishes.

The folder it makes::

    DIR/
      content/site.toml            every key, commented out at its default (made from SITE_FIELDS)
      content/terms/glossary.md    two example terms that link each other
      content/terms/term.md
      requirements.txt             the one place saying which site_builder to install
      .gitignore                   everything a build writes beside content/
      .github/workflows/tests.yml  site_builder check --strict
      .github/workflows/pages.yml  build on every push, publish main to GitHub Pages
      README.md

The content folder sits at ``DIR/content`` with ``site.toml`` inside it, the
layout every command defaults to, so ``cd DIR && site-builder build`` needs no
option. The files come from ``skeleton/`` (package data); ``site.toml`` alone is
written from the schema, so its keys, defaults and help can never drift from
what the build accepts.
"""

from __future__ import annotations

import json
import sys
import textwrap
from importlib import metadata
from pathlib import Path
from typing import Callable

from .load.config import SITE_FIELDS

SKELETON = Path(__file__).parent / "skeleton"

FILES = {
    # skeleton file -> its place in the new folder. Flat and without dots in
    # the package, so no packaging tool drops a dotfile or a folder of them.
    "glossary.md": "content/terms/glossary.md",
    "term.md": "content/terms/term.md",
    "requirements.txt": "requirements.txt",
    "gitignore": ".gitignore",
    "tests.yml": ".github/workflows/tests.yml",
    "pages.yml": ".github/workflows/pages.yml",
    "README.md": "README.md",
}

PLACEHOLDER = "site_builder @ git+https://github.com/OWNER/site_builder@v0.1.0"
"""What ``requirements.txt`` says when this install cannot say where it came from."""


class ScaffoldError(Exception):
    """Why ``new`` wrote nothing."""


def site_toml() -> str:
    """The text of a ``site.toml`` naming every key of ``SITE_FIELDS`` at its
    default, commented out, each under its help text."""
    lines = [
        "# The glossary's settings. Every key is optional and shown at its default,",
        "# commented out: remove the \"# \" in front of a key to set it. An unknown key is",
        "# a warning (an error with --strict), so a misspelling never passes silently.",
        "",
    ]
    for field in SITE_FIELDS:
        help_text = field.help.replace("``", "`")
        if field.max_length is not None:
            help_text += f" At most {field.max_length:,} characters."
        lines += ["# " + line for line in textwrap.wrap(help_text, 76)]
        lines += [f"# {field.name} = {_toml_value(field.default)}", ""]
    return "\n".join(lines)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        # A JSON string is a TOML basic string: the same escapes, and json never writes "\/".
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    # (None has no TOML form: a field defaulting to it fails tests/site/test_new.py, never a user's `new`.)
    raise TypeError(f"no TOML form for a default of type {type(value).__name__}; teach scaffold._toml_value")


def install_spec() -> str | None:
    """The pip requirement that installs the running site_builder again from
    anywhere (a CI runner), from how it was installed (``spec_from_direct_url``)."""
    try:
        return spec_from_direct_url(metadata.distribution("site_builder").read_text("direct_url.json") or "")
    except metadata.PackageNotFoundError:
        return None


def spec_from_direct_url(text: str) -> str | None:
    """The requirement PEP 610's ``direct_url.json`` (``text``) describes, when
    a CI runner can reach it: a git URL pinned to its commit, or an http(s)
    wheel or archive URL. None for a local wheel, a folder or an editable
    checkout, and for no record at all: then pip installed it from an index,
    and this package is on none, so the name there could be another project's."""
    try:
        origin = json.loads(text) if text else {}
    except ValueError:
        return None
    url = origin.get("url", "") if isinstance(origin, dict) else ""
    if not url.startswith(("https://", "http://")):
        return None
    vcs = origin.get("vcs_info")
    if isinstance(vcs, dict):
        revision = vcs.get("commit_id") or vcs.get("requested_revision")
        return f"site_builder @ {vcs.get('vcs', 'git')}+{url}" + (f"@{revision}" if revision else "")
    if "archive_info" in origin:
        return f"site_builder @ {url}"
    return None


def create(folder: Path, install: str | None = None) -> list[Path]:
    """Write a new glossary into ``folder`` (missing or empty); return the files
    written. ``install``: the pip requirement the workflows install (default:
    ``install_spec()``, else ``PLACEHOLDER``). Raises ``ScaffoldError``, having
    written nothing, when ``folder`` is a file or holds anything."""
    if folder.exists() or folder.is_symlink():
        if not folder.is_dir():
            raise ScaffoldError(f"{folder}: exists and is not a folder")
        entries = sorted(entry.name for entry in folder.iterdir())
        if entries:
            shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
            count = f"{len(entries)} {'entry' if len(entries) == 1 else 'entries'}"
            raise ScaffoldError(f"{folder}: not empty ({count}: {shown}); "
                                "new writes only into a missing or empty folder, so nothing of yours is overwritten")
    spec = install or install_spec() or PLACEHOLDER
    if "\n" in spec:
        raise ScaffoldError("--install: one requirement, on one line")
    texts = {target: (SKELETON / source).read_text(encoding="utf-8") for source, target in FILES.items()}
    texts["requirements.txt"] = texts["requirements.txt"].replace("@INSTALL@", spec)
    texts["README.md"] = texts["README.md"].replace("@TITLE@", folder.resolve().name or "Glossary")
    texts["content/site.toml"] = site_toml()
    written = []
    for target, text in sorted(texts.items()):
        path = folder / target
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as out:  # "x": never replace a file (another process racing us)
            out.write(text)
        written.append(path)
    return written


def run(folder: Path, install: str | None, log: Callable[[str], None]) -> int:
    """The ``new`` command: create the glossary, print what was made and what to
    do next; 0 on success, 1 (with a message on stderr) when nothing was written."""
    try:
        written = create(folder, install)
    except ScaffoldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {exc.filename or folder}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    log(f"Created a glossary in {folder}:")
    for path in written:
        log(f"  {path}")
    requirement = (folder / "requirements.txt").read_text(encoding="utf-8")
    if PLACEHOLDER in requirement:
        print(f"warning: {folder / 'requirements.txt'}: the workflows install {PLACEHOLDER!r}, a placeholder: "
              "put this site_builder's git URL or release wheel URL there (or run new again with --install SPEC)",
              file=sys.stderr)
    log(f"Next: cd {folder} && python -m site_builder build   (then open output/index.html)")
    return 0
