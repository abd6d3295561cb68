"""The package's shape is part of its contract with the engineers who carry it on.

The README's *Project layout* table names every module; no module grows past
the size one reads in a sitting; the stages import neither the cache that
wraps them nor a later stage. Each check reads the sources as they are.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

import pytest

from helpers import REPO

PACKAGE = REPO / "site_builder"
MAX_LINES = 400
STAGES = ("load", "validate", "markup", "explainers", "render", "outputs", "publish")
"""The pipeline's stage packages, in order; ``cache`` wraps them, ``build`` runs them."""


def layout_rows() -> dict[str, str]:
    """first cell of each row of the README's Project layout table -> the row."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Project layout", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `site_builder"):
            rows[line.split("|")[1].strip()] = line
    return rows


def modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))


def test_every_package_and_module_is_in_the_readme_layout_and_every_name_there_exists():
    rows = layout_rows()
    packages = sorted(p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert packages, "no packages found"
    for package in packages:
        key = f"`site_builder/{package.name}/`"
        assert key in rows, f"{key} has no row in README.md's Project layout"
        named = re.findall(r"`([\w*./-]+\.(?:py|html))`", rows[key])
        files = {p.relative_to(package).as_posix() for p in package.rglob("*") if p.suffix in (".py", ".html")}
        for name in named:
            if name.startswith("site_builder/"):
                assert (REPO / name).is_file(), f"README names {name}: no such file"
                continue
            assert any(fnmatch.fnmatch(f, name) or fnmatch.fnmatch(f, f"*/{name}") for f in files), \
                f"README's {key} row names {name}: no such file in {package.name}/"
        for module in modules(package):
            assert any(fnmatch.fnmatch(module.name, name) for name in named), \
                f"site_builder/{package.name}/{module.name} is not in README.md's Project layout"
    top = " ".join(rows.values())
    for module in modules(PACKAGE):
        assert module.name in top, f"site_builder/{module.name} is not in README.md's Project layout"


def test_no_module_is_longer_than_one_sitting():
    long = {str(p.relative_to(REPO)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"over {MAX_LINES} lines: {long}"


def imported(path: Path) -> set[str]:
    """Absolute names of the site_builder modules ``path`` imports (relative imports resolved)."""
    package = ".".join(path.relative_to(REPO).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith("site_builder")}


def stage_modules(stage: str) -> list[Path]:
    return sorted((PACKAGE / stage).rglob("*.py"))


@pytest.mark.parametrize("stage", STAGES)
def test_no_stage_imports_the_cache(stage):
    for path in stage_modules(stage):
        wrong = {name for name in imported(path) if name == "site_builder.cache" or name.startswith("site_builder.cache.")}
        assert not wrong, f"{path.relative_to(REPO)} imports {sorted(wrong)}: the cache wraps the stages"


NOT_IMPORTED = {
    "load": ("validate", "markup", "explainers", "render", "outputs", "publish"),
    "markup": ("explainers", "render", "outputs", "publish"),
    # validate checks the markdown stage's links and the explainers' names, so it reads both
    "validate": ("render", "outputs", "publish"),
}
"""stage -> the later stages it must not import (it runs before they exist)."""


@pytest.mark.parametrize("stage", sorted(NOT_IMPORTED))
def test_an_early_stage_imports_no_later_one(stage):
    later = NOT_IMPORTED[stage]
    for path in stage_modules(stage):
        wrong = {name for name in imported(path) for other in later
                 if name == f"site_builder.{other}" or name.startswith(f"site_builder.{other}.")}
        assert not wrong, f"{path.relative_to(REPO)} imports {sorted(wrong)}, a later stage"


def test_the_import_resolution_sees_relative_imports():
    # The checks above are only as good as this: a relative import must resolve.
    names = imported(PACKAGE / "cache" / "bodies.py")
    assert "site_builder.markup.stage" in names and "site_builder.cache.store" in names


NOT_PACKAGES = {"site", "docs", "browser", "js", "fixtures", "sphinx_project"}
"""tests/ folders that are not named for a package: whole builds, the docs,
the browser and node suites, and the data tests use."""


def test_the_tests_mirror_the_package():
    flat = sorted(p.name for p in (REPO / "tests").glob("test_*.py"))
    assert not flat, f"tests/ itself holds tests (put them where their package is): {flat}"
    for folder in sorted(p for p in (REPO / "tests").rglob("*") if p.is_dir()):
        relative = folder.relative_to(REPO / "tests")
        if relative.parts[0] in NOT_PACKAGES or "__pycache__" in relative.parts or not any(folder.glob("test_*.py")):
            continue
        assert (PACKAGE / relative / "__init__.py").is_file(), \
            f"tests/{relative.as_posix()}/ is named for no package in site_builder/"
