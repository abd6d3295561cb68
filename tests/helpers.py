"""Helpers shared by the tests: where things are, term files, content trees, output manifests.

The tests live in folders named for the package concern they test (tests/load/,
tests/markup/, ...). tests/conftest.py puts this folder on ``sys.path``, so every
test module imports ``helpers`` (and the other shared modules here: glossary_site,
markdown_pairs, math_payloads, serve_client) by name. Test modules never import
each other: what two of them share lives in one of those modules.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import textwrap
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
"""The tests folder."""
REPO = TESTS.parent
"""The repository root (holds site_builder/, content/, docs/, benchmarks/)."""
FIXTURES = TESTS / "fixtures"
"""Fixture sites and packages (golden/, example_explainer/)."""


def term(title: str, summary: str, body: str = "", **extra) -> str:
    """The text of a term file with YAML front matter."""
    lines = ["---", f"title: {title}", f"summary: {summary}"]
    for key, value in extra.items():
        if isinstance(value, list):
            value = "[" + ", ".join(value) + "]"
        lines.append(f"{key}: {value}")
    lines.append("---")
    return "\n".join(lines) + "\n" + textwrap.dedent(body).lstrip("\n")


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``root``."""
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


def manifest(folder: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under ``folder``."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*")) if p.is_file()
    }


def clean_build_manifest(content: Path, where: Path) -> dict[str, str]:
    """The ``manifest`` of ``content`` built from nothing (no cache, one job) into
    ``where``/clean/out: what an incremental or edited build must equal."""
    import shutil

    from site_builder.build import BuildOptions, build_site

    clean = where / "clean" / "out"
    shutil.rmtree(clean.parent, ignore_errors=True)
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    return manifest(clean)


def under_ci() -> bool:
    """True in CI (``CI=true``), where a test whose guard is off fails instead of skipping."""
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def requires_fast(module, what: str = "fast markdown processor"):
    """Mark tests of a fast markdown processor: skipped locally where its guard
    is off (another Python-Markdown release), failed under CI, which installs
    the checked release (the ``fast`` extra), so the speed-up cannot die silently."""
    if module.ENABLED or not under_ci():
        return pytest.mark.skipif(not module.ENABLED, reason=f"{what} disabled on this Markdown")
    return pytest.mark.usefixtures("fast_markdown_missing")


VERSIONED_TERMS = 2000


def versioned_corpus(version: int, terms: int = VERSIONED_TERMS) -> dict[str, str]:
    """``terms`` terms; version 2 changes every page (site title) and some bodies."""
    files = {"site.toml": f'title = "Glossary v{version}"\npreviews = false\n'}
    for i in range(terms):
        related = f"related: [t{(i + 1) % terms:05d}]\n"
        body = f"Term {i} of version {version if i % 7 == 0 else 1}. See [[t{(i + 3) % terms:05d}]].\n\n" + "Some words here. " * 40
        files[f"terms/t{i:05d}.md"] = f"---\ntitle: Term {i:05d}\nsummary: The term numbered {i}.\n{related}---\n{body}\n"
    return files


def fill_disk(disk: Path) -> Path:
    """Fill the disk ``disk`` is on with one file, to the last block; that file."""
    filler = disk / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(descriptor, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(descriptor)
    return filler


def js_data_value(script: str, key: str):
    """The JSON a generated script puts in ``SpeculativeDecoding.<key>`` (``vega.js_data``)."""
    from site_builder.explainers import vega
    head = f"{vega.js_namespace('SpeculativeDecoding')}.{key} = "
    return json.loads(script.split(head, 1)[1].split(";\n", 1)[0])


def explainer_lazy_assets(html: str, assets: dict[str, bytes]) -> dict:
    """What the widget's script of an explainer page (``html``, at ``../``) loads
    later, as root-relative URLs: {"runtime", "serving", "specs": {chart: URL}}.
    The build writes them into the script (``page.lazy_assets``), not the markup."""
    pattern = r"assets/speculative-decoding\.[0-9a-f]+\.js"
    found = re.search(rf'<script defer src="\.\./({pattern})"', html)
    # the figure alone (an explainer's build) has no script tag: its one widget script among the assets
    widget = found.group(1) if found else next(url for url in assets if re.fullmatch(pattern, url))
    names = js_data_value(assets[widget].decode(), "data")["assets"]
    folder = widget.rpartition("/")[0] + "/"
    return {"runtime": folder + names["runtime"], "serving": folder + names["serving"],
            "specs": {chart: folder + name for chart, name in names["specs"].items()}}


def chart_spec_scripts(html: str, assets: dict[str, bytes]) -> dict[str, str]:
    """Chart name -> the text of its spec script, in an explainer page's
    ``html`` built with ``assets`` (URL -> bytes) at ``../``."""
    return {name: assets[url].decode() for name, url in explainer_lazy_assets(html, assets)["specs"].items()}


def chart_specs(html: str, assets: dict[str, bytes]) -> dict[str, dict]:
    """Chart name -> the live view's Vega spec its own script sets
    (``SpeculativeDecoding.specs[name] = {...}``, see ``vega.js_data``)."""
    return {name: json.loads(text.split(f')["{name}"] = ', 1)[1].split(";\n", 1)[0])
            for name, text in chart_spec_scripts(html, assets).items()}


def plant_socket(path: Path) -> None:
    """A Unix socket file at ``path`` (its listener closed at once).

    Bound by its name from its folder: a socket's address holds at most 107
    bytes, which a deep temporary folder (a pytest-xdist worker's, under the
    session's) can pass; the file made is the same."""
    import socket

    here = os.getcwd()
    os.chdir(path.parent)
    try:
        listener = socket.socket(socket.AF_UNIX)
        try:
            listener.bind(path.name)
        finally:
            listener.close()
    finally:
        os.chdir(here)


_LOCK_PROBE = """
import fcntl, os, sys
try:
    fd = os.open(sys.argv[1], os.O_RDWR)
except FileNotFoundError:
    sys.exit(0)  # no lock file: nobody holds it
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    sys.exit(3)
"""


def output_lock_held(lock_file: Path) -> bool:
    """Whether some process holds the output lock ``lock_file`` (a POSIX lock).

    Asked from a fresh process: within one process a POSIX lock never
    conflicts with its own, and closing the probe's descriptor there would
    release the lock the probe was looking at."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _LOCK_PROBE, str(lock_file)], capture_output=True, timeout=30)
    assert run.returncode in (0, 3), run.stderr.decode()
    return run.returncode == 3


# --- packaging: the wheel and virtual environments ------------------------------

def run_clean(*command, cwd: Path, timeout: float = 300) -> str:
    """Run ``command`` without this checkout on the path (no PYTHONPATH, no
    VIRTUAL_ENV); its stdout, or fail with its output."""
    import subprocess

    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{command} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def copy_sources(source: Path) -> Path:
    """What a checkout holds for packaging (pyproject.toml, the README, the
    package without caches) copied into ``source``: setuptools writes its
    egg-info and build/ into the tree it builds from, never into this checkout."""
    import shutil

    source.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    shutil.copytree(REPO / "site_builder", source / "site_builder",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    return source


def make_venv(where: Path) -> Path:
    """A fresh virtual environment that sees this machine's packages; its python.

    ``--without-pip``: the machine's pip, seen through the system site-packages,
    installs into the environment (pip installs into the running interpreter's
    prefix, checked here), which spares ensurepip's seconds per environment.
    """
    import sys

    run_clean(sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", where, cwd=where.parent)
    python = where / "bin" / "python"
    prefix = run_clean(python, "-c", "import sys; print(sys.prefix)", cwd=where.parent).strip()
    assert Path(prefix).resolve() == where.resolve(), prefix
    return python


def logged_build(content: Path, output: Path, **options) -> list[str]:
    """Build ``content`` into ``output`` in this process with one job (plus
    ``options`` for ``BuildOptions``); the lines the build logged."""
    from site_builder.build import BuildOptions, build_site

    log: list[str] = []
    build_site(BuildOptions(content=content, output=output, jobs=1, **options), log.append)
    return log
