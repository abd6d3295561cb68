"""The package's shape is part of its contract with the engineers who carry it on.

The README's *Project layout* table names every module; no module grows past
the size one reads in a sitting (Python and JavaScript); imports run one way
down the floors of ``FLOORS``. Each check reads the sources as they are.
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


VENDORED = PACKAGE / "explainers" / "vendor"
"""Third-party scripts kept as their authors ship them (VENDORED.json lists them
with their hashes): the only sources the size rule does not apply to."""


def test_no_module_is_longer_than_one_sitting():
    sources = [p for p in PACKAGE.rglob("*") if p.suffix == ".py" or (p.suffix == ".js" and VENDORED not in p.parents)]
    assert any(p.suffix == ".js" for p in sources) and any(p.suffix == ".py" for p in sources)
    long = {str(p.relative_to(REPO)): n for p in sources
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"over {MAX_LINES} lines: {long}"


def test_only_the_vendored_scripts_are_spared_the_size_rule():
    spared = sorted(p.name for p in VENDORED.glob("*.js"))
    listed = (VENDORED / "VENDORED.json").read_text(encoding="utf-8")
    assert spared and all(f'"{name}"' in listed for name in spared), f"not listed in VENDORED.json: {spared}"
    assert not [p for p in VENDORED.rglob("*.js") if p.parent != VENDORED], "scripts in a folder under vendor/"


def imported(path: Path) -> set[str]:
    """Absolute names of the site_builder modules ``path`` imports (relative imports
    resolved), at any depth: a function's own import counts as much as the module's,
    and so does ``importlib.import_module("site_builder...")`` with a literal name."""
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
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            names.add(node.args[0].value)
    return {name for name in names if name == "site_builder" or name.startswith("site_builder.")}


FLOORS = (
    # the ground: import nothing of site_builder (files.py: safe file opening; urls.py: the scheme allow-list; policy.py: the CSP)
    ("__init__", "errors", "names", "files", "urls", "policy"),
    ("slice_files",),  # a worker's large result handed back in a file (parallel.share's)
    ("parallel",),  # every fork, which every stage makes
    ("load",),
    ("markup",),
    ("explainers",),
    # validate reads the markup stage's links (markup.render.RenderedBody) and the
    # explainers' registry, so it stands above both, although its first checks run
    # before them in the build
    ("validate",),
    ("render",),
    ("outputs",),
    ("publish",),
    ("cache", "integrations"),  # the cache wraps the stages; integrations run on other sites
    ("build", "scaffold", "markdown_ext"),  # the commands' work
    ("serve",),
    ("cli",),
    ("__main__",),
)
"""site_builder's packages and top-level modules, lowest floor first. A unit may
import only units on floors below its own (and itself): imports run one way down,
so any floor can be read, tested and changed knowing only the floors beneath it.
Units on one floor do not import each other."""

FLOOR = {unit: level for level, units in enumerate(FLOORS) for unit in units}


def units() -> list[str]:
    """Every package and top-level module of site_builder."""
    found = [p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()]
    found += [p.stem for p in PACKAGE.glob("*.py")]
    return sorted(found)


def unit_of(name: str) -> str:
    """The package or top-level module an absolute ``site_builder...`` name lies in
    (a name of the package's own ``__init__``, such as ``CACHE_FOLDER``, is ``__init__``)."""
    parts = name.split(".")
    if len(parts) == 1 or not ((PACKAGE / parts[1]).is_dir() or (PACKAGE / f"{parts[1]}.py").is_file()):
        return "__init__"
    return parts[1]


def unit_files(unit: str) -> list[Path]:
    folder = PACKAGE / unit
    return sorted(folder.rglob("*.py")) if folder.is_dir() else [PACKAGE / f"{unit}.py"]


def back_arrows(unit: str) -> list[str]:
    """``path imports name (floor n)`` for each import of ``unit`` that does not run down."""
    wrong = []
    for path in unit_files(unit):
        for name in sorted(imported(path)):
            target = unit_of(name)
            if target != unit and FLOOR.get(target, len(FLOORS)) >= FLOOR[unit]:
                wrong.append(f"{path.relative_to(REPO)} imports {name} ({target}, floor {FLOOR.get(target)}; "
                             f"{unit} is on floor {FLOOR[unit]})")
    return wrong


def test_every_package_and_module_has_a_floor():
    missing = [unit for unit in units() if unit not in FLOOR]
    assert not missing, f"no floor for {missing}: place them in FLOORS in {Path(__file__).name}"


@pytest.mark.parametrize("unit", units())
def test_imports_run_one_way_down(unit):
    if unit not in FLOOR:
        pytest.fail(f"{unit} has no floor in FLOORS")
    wrong = back_arrows(unit)
    assert not wrong, "imports that run back up the floors:\n" + "\n".join(wrong)


def test_the_import_resolution_sees_relative_and_nested_imports():
    # The check above is only as good as this: relative imports resolve, an import
    # inside a function counts, and a name from the package's own __init__ is placed.
    names = imported(PACKAGE / "cache" / "bodies.py")
    assert "site_builder.markup.stage" in names and "site_builder.cache.store" in names
    cli = imported(PACKAGE / "cli.py")
    assert "site_builder.parallel" in cli  # imported inside a function only
    assert unit_of("site_builder.CACHE_FOLDER") == "__init__"
    assert unit_of("site_builder.cache.store") == "cache" and unit_of("site_builder.errors") == "errors"
    inner = imported(PACKAGE / "outputs" / "__init__.py")
    assert "site_builder.outputs.cards" in inner and "site_builder.render.assets" in inner


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
