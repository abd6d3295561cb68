"""Stages take data and return data; the cache only wraps them (issue 33).

The build cache (``site_builder/cache/``) picks which items a stage runs on and
memoises around it. No stage function may take the cache's state (a table of
what is known, a memo, a store, keys, the page manifest, a callback of the
cache layer), and no result type of a stage may carry a field that means
"taken from the cache". Read from the sources' syntax trees, so a rename in a
comment does not pass and a new parameter cannot slip in.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers import REPO

PACKAGE = REPO / "site_builder"
STAGES = ("load", "validate", "markup", "render", "outputs")
CACHE_NAMES = {"known", "memo", "cache", "store", "keyed", "manifest", "site_pages"}
"""Parameter and field names that are the cache layer's state."""


def stage_files() -> list[Path]:
    return sorted(path for stage in STAGES for path in (PACKAGE / stage).rglob("*.py"))


def cache_parameters(source: str) -> list[tuple[int, str, str]]:
    """(line, function, parameter) of every parameter named for the cache's state."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = node.args
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                     *(a for a in (arguments.vararg, arguments.kwarg) if a is not None)]
            for argument in every:
                if argument.arg.lstrip("_") in CACHE_NAMES:
                    found.append((node.lineno, getattr(node, "name", "lambda"), argument.arg))
    return found


def cache_fields(source: str) -> list[tuple[int, str, str]]:
    """(line, class, field) of every annotated class field named for the cache,
    or whose docstring says it depends on the cache ("from the cache", "cached")."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        for index, item in enumerate(node.body):
            if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
                continue
            following = node.body[index + 1] if index + 1 < len(node.body) else None
            doc = following.value.value if (isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant)
                                            and isinstance(following.value.value, str)) else ""
            if item.target.id.lstrip("_") in CACHE_NAMES or "cache" in doc.lower():
                found.append((item.lineno, node.name, item.target.id))
    return found


@pytest.mark.parametrize("path", stage_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_stage_function_takes_the_cache_state(path: Path):
    assert cache_parameters(path.read_text(encoding="utf-8")) == [], path


@pytest.mark.parametrize("path", stage_files(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_stage_result_has_a_field_meaning_from_the_cache(path: Path):
    assert cache_fields(path.read_text(encoding="utf-8")) == [], path


def test_the_checks_see_what_they_look_for():
    # The shapes this issue removed, as they were: each must be caught.
    assert sorted(name for _, _, name in cache_parameters(
        "def load_terms(content_dir, known=None, memo=None, changed=None, part=None): pass\n"
        "class LinkingOutputs:\n    def previews(self, cache=None, jobs=1): pass\n"
        "def write_pages(staging, *, site_pages=lambda: ()): pass\n"
        "f = lambda store, _keyed, **manifest: None\n")) == sorted(["known", "memo", "cache", "site_pages", "store",
                                                                    "_keyed", "manifest"])
    assert cache_fields(
        "@dataclass\nclass RenderedBody:\n    html: str | None\n"
        '    """None when taken from the cache without it."""\n    anchors: list[str]\n') == [(3, "RenderedBody", "html")]
    assert cache_fields("class Page:\n    manifest: dict\n    html: str\n    \"\"\"The page.\"\"\"\n") == \
        [(2, "Page", "manifest")]
    assert cache_parameters("def stage(terms, config, stems=None): pass\n") == []


def test_the_write_stage_reads_nothing_under_proc():
    # The lock is a POSIX lock (publish/lock.py): no hunt for its holders.
    for path in sorted((PACKAGE / "publish").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert "/proc/" not in node.value and node.value != "/proc", (path, node.lineno)
            elif isinstance(node, ast.JoinedStr):
                text = "".join(part.value for part in node.values if isinstance(part, ast.Constant))
                assert "/proc/" not in text and not text.startswith("/proc"), (path, node.lineno)


def test_the_fast_path_has_no_check_of_its_own():
    # cache/incremental.rebuild asks the validate stage (check_body, links_from):
    # it reads no link's anchor and writes no problem itself.
    source = (PACKAGE / "cache" / "incremental.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    called = {getattr(node.func, "id", getattr(node.func, "attr", "")) for node in ast.walk(tree)
              if isinstance(node, ast.Call)}
    assert "anchor" not in attributes and "Problem" not in called
    assert {"check_body", "links_from"} <= called
