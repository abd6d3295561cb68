"""``site-builder new DIR``: a new glossary repository that builds, checks and publishes.

The folder it makes::

    DIR/
      content/site.toml            every key, commented out at its default (made from SITE_FIELDS)
      content/terms/glossary.md    two example terms that link each other
      content/terms/term.md
      requirements.txt             the one place saying which site_builder to install
                                   (``install_spec``: never a placeholder; ``--install``
                                   refuses what no CI runner can reach)
      .gitignore                   everything a build writes beside content/
      .github/workflows/tests.yml  the strict build, with fonts and preview cards, on pull
                                   requests, and called by pages.yml on every push
      .github/workflows/pages.yml  publishes what tests.yml built on main to GitHub Pages
      README.md

The content folder sits at ``DIR/content`` with ``site.toml`` inside it, the
layout every command defaults to, so ``cd DIR && site-builder build`` needs no
option. The files come from ``skeleton/`` (package data); ``site.toml`` alone is
written from the schema, so its keys, defaults and help can never drift from
what the build accepts.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit
from urllib.request import url2pathname

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

class ScaffoldError(Exception):
    """Why ``new`` wrote nothing."""


ASK_FOR_SPEC = ("pass --install SPEC: a requirement a CI runner can install, e.g. "
                "'site_builder @ git+https://github.com/OWNER/REPO@v0.1.0' (a tag or commit of a repository it can "
                "reach) or 'site_builder @ https://github.com/OWNER/REPO/releases/download/v0.1.0/"
                "site_builder-0.1.0-py3-none-any.whl'")
"""What ``new`` asks for when it cannot say itself where a runner gets this site_builder."""


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
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    # (None has no TOML form: a field defaulting to it fails tests/site/test_new.py, never a user's `new`.)
    raise TypeError(f"no TOML form for a default of type {type(value).__name__}; teach scaffold._toml_value")


def install_spec() -> str:
    """The pip requirement that installs the running site_builder again on a CI
    runner, from how it got here: a git clone it runs from (editable, or on
    ``PYTHONPATH``: ``spec_from_checkout``), else the install record PEP 610
    leaves (``direct_url.json``: ``spec_from_direct_url``). Raises
    ``ScaffoldError`` saying why and what to pass when there is none."""
    import site_builder

    root = Path(site_builder.__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / ".git").exists():
        return spec_from_checkout(root)
    try:
        record = metadata.distribution("site_builder").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        record = None
    if record is None and (root / "pyproject.toml").is_file():
        raise ScaffoldError(f"this site_builder runs from {root}, a source folder that is no git clone, so new "
                            f"cannot say where a CI runner gets it; {ASK_FOR_SPEC}")
    return spec_from_direct_url(record or "")


def spec_from_direct_url(text: str) -> str:
    """The requirement PEP 610's ``direct_url.json`` (``text``) describes, in a
    form a CI runner can install: a git URL pinned to its commit (an ssh URL
    made https; a local clone read for its ``origin``), or an https wheel or
    archive URL with its hash. Raises ``ScaffoldError`` for a local file, for
    no record (pip installed it from an index, and this package is on none, so
    the name there could be another project's) and for anything unreadable."""
    try:
        origin = json.loads(text) if text else None
    except ValueError:
        origin = None
    if not isinstance(origin, dict) or not isinstance(origin.get("url"), str):
        raise ScaffoldError("this site_builder has no record of where it was installed from (PEP 610's "
                            f"direct_url.json: installed from a package index, or by hand); {ASK_FOR_SPEC}")
    url = origin["url"]
    local = _local_path(url)
    vcs = origin.get("vcs_info")
    if isinstance(vcs, dict):
        commit = vcs.get("commit_id") or vcs.get("requested_revision")
        if local is not None:  # pip install git+file:///clone: the clone's origin, at the commit installed
            return spec_from_checkout(local, commit)
        reachable = runner_url(url)
        if reachable is None or not commit:
            raise ScaffoldError(f"this site_builder was installed from {url!r}, which a CI runner cannot reach "
                                f"over https; {ASK_FOR_SPEC}")
        return f"site_builder @ {vcs.get('vcs', 'git')}+{reachable}@{commit}"
    if isinstance(origin.get("dir_info"), dict) and local is not None:  # pip install [-e] ./clone
        return spec_from_checkout(local)
    if isinstance(origin.get("archive_info"), dict) and url.startswith("https://"):
        hashes = origin["archive_info"].get("hashes") or {}
        return f"site_builder @ {url}" + (f"#sha256={hashes['sha256']}" if "sha256" in hashes else "")
    where = "a local file or folder" if local is not None else "no https URL"
    raise ScaffoldError(f"this site_builder was installed from {local or url}, {where}, which no CI runner "
                        f"can reach; {ASK_FOR_SPEC}")


def spec_from_checkout(folder: Path, commit: str | None = None) -> str:
    """``site_builder @ git+URL@COMMIT`` for the git clone ``folder``: its
    ``origin`` remote as an https URL a runner can fetch (``runner_url``) and
    ``commit`` (default: its HEAD), which must be on a branch of that remote
    (as last fetched): a commit only this machine has fails on the runner.
    Raises ``ScaffoldError`` saying what to do otherwise."""
    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    remote = git("remote", "get-url", "origin")
    if not remote:
        raise ScaffoldError(f"this site_builder comes from the git clone {folder}, which has no 'origin' remote "
                            f"to install it from; {ASK_FOR_SPEC}")
    url = runner_url(remote)
    if url is None:
        raise ScaffoldError(f"this site_builder comes from the git clone {folder}, whose origin "
                            f"{_without_credentials(remote)!r} is no https or ssh URL a CI runner can reach; "
                            f"{ASK_FOR_SPEC}")
    commit = git("rev-parse", "--verify", "--quiet", f"{commit or 'HEAD'}^{{commit}}")
    if not commit:
        raise ScaffoldError(f"{folder}: no commit to pin (an empty clone?); {ASK_FOR_SPEC}")
    if not git("for-each-ref", "--contains", commit, "--count=1", "--format=%(refname)", "refs/remotes/origin"):
        raise ScaffoldError(f"this site_builder comes from commit {commit[:12]} of {folder}, which is on no branch "
                            f"of origin ({url}): push it (then run new again), or {ASK_FOR_SPEC}")
    return f"site_builder @ git+{url}@{commit}"


_SCP_LIKE = re.compile(r"^(?:[\w.-]+@)?([\w.-]+\.[\w-]+):(?!/)(.+)$")
"""``git@github.com:owner/repo.git``: ssh in scp form (a host with a dot, so no Windows drive letter)."""


def runner_url(remote: str) -> str | None:
    """``remote`` (a git remote URL) as an https URL a CI runner can clone:
    https kept, ssh (``ssh://git@host/path``, ``git@host:path``) turned into
    https on the same host, as GitHub, GitLab and their like serve both; any
    user name or token dropped, so none is ever written down. None for a local
    path, ``file:``, ``git:`` and plain http."""
    remote = remote.strip()
    match = _SCP_LIKE.match(remote)
    if match and "://" not in remote:
        host, path = match.groups()
    else:
        parts = urlsplit(remote)
        if parts.scheme not in ("https", "ssh", "git+ssh") or not parts.hostname:
            return None
        host, path = parts.hostname, parts.path.lstrip("/")
    path = path.strip("/")
    if not path or any(c in path for c in " \\\n"):
        return None
    return f"https://{host}/{path}"


def _without_credentials(url: str) -> str:
    return re.sub(r"(?<=://)[^/@]*@", "", url)


def _local_path(url: str) -> Path | None:
    """The path a ``file:`` URL names, else None."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    return Path(url2pathname(parts.path))


_LOCAL = re.compile(r"^[.~]|[/\\]|\.(?:whl|zip|tar\.gz|tgz)$", re.IGNORECASE)
"""A path, not a requirement: no name or version specifier has a slash, starts with a dot or ends so."""


def check_install(spec: str) -> str:
    """``spec`` (``--install``) if a CI runner could install it: one requirement
    on one line, with no local path or ``file:`` URL in it (no runner has the
    file). Raises ``ScaffoldError`` otherwise."""
    spec = spec.strip()
    if not spec or "\n" in spec or "\r" in spec:
        raise ScaffoldError("--install: one requirement, on one line")
    if spec.startswith("-"):
        raise ScaffoldError(f"--install {spec!r}: a requirement, not pip options (an editable install "
                            "is of a local folder, which no CI runner has)")
    target = spec.split(" @ ", 1)[1].strip() if " @ " in spec else spec
    if _local_path(target) is not None or target.lower().startswith(("file:", "git+file:")):
        raise ScaffoldError(f"--install {spec!r}: a file: URL names a file on this machine, which no CI runner "
                            f"can reach; {ASK_FOR_SPEC}")
    if "://" not in target and _LOCAL.search(target):
        raise ScaffoldError(f"--install {spec!r}: a local path, which no CI runner can reach; {ASK_FOR_SPEC}")
    return spec


def create(folder: Path, install: str | None = None) -> list[Path]:
    """Write a new glossary into ``folder`` (missing or empty); return the files
    written. ``install``: the pip requirement the workflows install
    (``check_install``; default: ``install_spec()``). Raises ``ScaffoldError``,
    having written nothing, when ``folder`` is a file or holds anything, or
    when there is no requirement a CI runner can install."""
    if folder.exists() or folder.is_symlink():
        if not folder.is_dir():
            raise ScaffoldError(f"{folder}: exists and is not a folder")
        entries = sorted(entry.name for entry in folder.iterdir())
        if entries:
            shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
            count = f"{len(entries)} {'entry' if len(entries) == 1 else 'entries'}"
            raise ScaffoldError(f"{folder}: not empty ({count}: {shown}); "
                                "new writes only into a missing or empty folder, so nothing of yours is overwritten")
    spec = check_install(install) if install is not None else install_spec()
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
    """The ``new`` command: create the glossary, print what was made, what the
    workflows install and what to do next; 0 on success, 1 (with a message on
    stderr) when nothing was written."""
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
    requirement = (folder / "requirements.txt").read_text(encoding="utf-8").strip().splitlines()[-1]
    log(f"The workflows install {requirement} (requirements.txt).")
    log(f"Next: cd {folder} && python -m site_builder build   (then open output/index.html)")
    return 0
