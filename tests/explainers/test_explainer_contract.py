"""The open explainer contract: a package outside site_builder adds an explainer.

The package is tests/fixtures/example_explainer/ (its own pyproject.toml
declares the entry point). It is installed into a folder of its own, as a
distribution with the metadata its pyproject.toml declares, and builds run in
a subprocess with that folder on PYTHONPATH: importlib.metadata discovers it
there, and nowhere else (the shared environment is left alone).
"""

from __future__ import annotations

import marshal
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from helpers import FIXTURES, REPO, term, write_tree
from site_builder.explainers import base

EXAMPLE = FIXTURES / "example_explainer"


def install(target: Path) -> Path:
    """The example package in ``target``, with a dist-info folder written from
    its pyproject.toml (what ``pip install --target`` makes, without needing
    the wheel package or the network)."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    shutil.copytree(EXAMPLE / "example_explainer", target / "example_explainer",
                    ignore=shutil.ignore_patterns("__pycache__"))
    info = target / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    groups = project["entry-points"]
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in entries.items()) + "\n"
        for group, entries in groups.items()))
    (info / "INSTALLER").write_text("tests\n")
    return target


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    return install(tmp_path / "site-packages")


def run(outside: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(outside), str(REPO)])}
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "site_builder", *map(str, args)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, cwd=REPO)


def content(root: Path, explainer: str = "doubling") -> Path:
    return write_tree(root, {
        "terms/twice.md": term("Twice", "Two times a number.", "Doubling, shown.", explainer=explainer),
        "terms/once.md": term("Once", "One time.", "See [[Twice]]."),
    })


def page_keys(output: Path) -> dict:
    raw = (output.parent / ".site_builder_cache" / "pages.table").read_bytes()
    assert raw[:1] == b"M"
    return marshal.loads(raw[1:])


def test_an_outside_package_adds_an_explainer(tmp_path, outside):
    out = tmp_path / "out"
    result = run(outside, "build", "--content", content(tmp_path / "content"), "--output", out, "--quiet")
    assert result.returncode == 0, result.stderr
    html = (out / "twice" / "index.html").read_text()
    ids = set(re.findall(r'\bid="(ex-[^"]+)"', html))
    assert ids == {"ex-explainer", "ex-title", "ex-n", "ex-n-hint"}, "the markup's ids are the declared ones"
    assert '<input type="range" id="ex-n" name="n" data-key="n" min="0" max="10" step="1" value="3"' in html
    assert '<dd data-out="double">6</dd>' in html and "Doubling 3 gives 6." in html
    script = re.search(r'<script defer src="\.\./(assets/doubling\.[0-9a-f]{10}\.js)">', html)
    assert script, "the explainer's script is on the page"
    from site_builder.explainers import kit
    shipped = kit.shipped((EXAMPLE / "example_explainer" / "doubling.js").read_text())
    assert (out / script.group(1)).read_text().endswith(shipped), "its page data, then its part, minified by the kit"
    kit_script = re.search(r'<script defer src="\.\./(assets/explainer-kit\.[0-9a-f]{10}\.js)">', html)
    assert kit_script and kit_script.start() < script.start(), "the kit's shared script first"
    assert (out / kit_script.group(1)).read_bytes() == kit.script()
    assert (out / "twice" / "doubling.json").read_bytes() == b'{"n": 3}\n'
    assert (out / "twice" / "double.svg").exists() and (out / "twice" / "double-dark.svg").exists()
    assert "ex-explainer" not in (out / "once" / "index.html").read_text()


def test_headings_keep_off_an_outside_explainers_ids_in_full_and_fast_builds(tmp_path, outside):
    # The markup stage does not know the explainers: the build hands it their
    # ids. "## Ex title" would otherwise be id="ex-title" twice on twice/.
    out = tmp_path / "out"
    folder = write_tree(tmp_path / "content", {
        "terms/twice.md": term("Twice", "Two times a number.", "## Ex title\n\nDoubling.", explainer="doubling"),
        "terms/once.md": term("Once", "One time.", "## Ex n\n\nSee [[Twice]]."),
    })
    first = run(outside, "build", "--content", folder, "--output", out, "--quiet")
    assert first.returncode == 0, first.stderr
    twice = (out / "twice" / "index.html").read_text()
    assert re.findall(r'\bid="ex-title[^"]*"', twice) == ['id="ex-title"', 'id="ex-title_1"'], twice
    assert 'id="ex-n_1"' in (out / "once" / "index.html").read_text(), "on a page without the explainer too"
    edited = folder / "terms" / "once.md"
    edited.write_text(edited.read_text().replace("See [[Twice]].", "See [[Twice]] again."))
    fast = run(outside, "build", "--content", folder, "--output", out)
    assert fast.returncode == 0 and re.search(r"^\s+update\s", fast.stdout, re.M), fast.stdout + fast.stderr
    once = (out / "once" / "index.html").read_text()
    assert "again." in once and 'id="ex-n_1"' in once and 'id="ex-n"' not in once


def test_the_declared_version_is_part_of_the_page_key(tmp_path, outside):
    out = tmp_path / "out"
    folder = content(tmp_path / "content")
    first = run(outside, "build", "--content", folder, "--output", out, "--quiet")
    assert first.returncode == 0, first.stderr
    before = page_keys(out)
    again = run(outside, "build", "--content", folder, "--output", out)
    assert again.returncode == 0 and page_keys(out) == before, "nothing changed: same keys"
    declaration = outside / "example_explainer" / "__init__.py"
    declaration.write_text(declaration.read_text().replace('version="2"', 'version="3"'))
    versions = run(outside, code="from site_builder.cache import store; print(store.explainer_versions())")
    assert "explainer doubling 3 " in versions.stdout, versions.stdout + versions.stderr
    rebuilt = run(outside, "build", "--content", folder, "--output", out)
    assert rebuilt.returncode == 0, rebuilt.stderr
    after = page_keys(out)
    assert after["twice/index.html"][0] != before["twice/index.html"][0], "a new version: a new key, rendered again"
    assert re.search(r"^\s+render\s", rebuilt.stdout, re.M), "a full build, not the prose-edit fast path"
    assert re.search(r"^\s+update\s", again.stdout, re.M), again.stdout


def test_an_unknown_explainer_is_a_path_line_error_naming_the_installed_ones(tmp_path, outside):
    folder = content(tmp_path / "content", explainer="tripling")
    result = run(outside, "check", "--content", folder)
    assert result.returncode == 1
    assert re.search(r"twice\.md:\d+: unknown explainer 'tripling' \(known: doubling, speculative-decoding\)", result.stderr), result.stderr


def _with_options(root: Path, options: str) -> Path:
    return write_tree(root, {
        "terms/twice.md": f"---\ntitle: Twice\nsummary: Two times a number.\nexplainer:\n  name: doubling\n{options}---\nDoubling.\n",
        "terms/once.md": term("Once", "One time.", "See [[Twice]]."),
    })


def test_an_explainer_option_sets_the_figure_and_is_part_of_its_cache_key(tmp_path, outside):
    out = tmp_path / "out"
    folder = _with_options(tmp_path / "content", "  start: 7\n")
    first = run(outside, "build", "--content", folder, "--output", out, "--quiet")
    assert first.returncode == 0, first.stderr
    assert 'id="ex-n" name="n" data-key="n" min="0" max="10" step="1" value="7"' in (out / "twice" / "index.html").read_text()
    page = folder / "terms" / "twice.md"
    page.write_text(page.read_text().replace("start: 7", "start: 2"))
    again = run(outside, "build", "--content", folder, "--output", out, "--quiet")
    assert again.returncode == 0, again.stderr
    assert 'value="2"' in (out / "twice" / "index.html").read_text(), "a new option: the explainer built again"
    assert (out / "twice" / "doubling.json").read_bytes() == b'{"n": 2}\n'


@pytest.mark.parametrize("options, message", [
    ("  stat: 3\n", r"twice\.md:6: unknown option of explainer 'doubling' 'stat' \(did you mean 'start'\?\)"),
    ("  start: three\n", r"twice\.md:6: 'start' must be an integer, not str"),
    ("  start: 11\n", r"twice\.md:6: 'start' is 11; it must be from 0 to 10"),
    ("  start: [1]\n", r"twice\.md:4: explainer option 'start' must be text, a number or true/false, not list"),
])
def test_a_wrong_explainer_option_is_a_path_line_error(tmp_path, outside, options, message):
    out = tmp_path / "out"
    result = run(outside, "build", "--content", _with_options(tmp_path / "content", options), "--output", out)
    assert result.returncode == 1 and re.search(message, result.stderr), result.stderr
    assert not out.exists(), "nothing written"


def test_the_build_step_is_imported_only_when_a_term_names_it(tmp_path, outside):
    # (vl-convert is imported anyway when previews are composed: linking/preview.py)
    folder = write_tree(tmp_path / "content", {"terms/once.md": term("Once", "One time.")})
    code = (
        "import sys\nfrom site_builder.cli import main\n"
        f"status = main(['build', '--content', {str(folder)!r}, '--output', {str(tmp_path / 'out')!r}, '--quiet'])\n"
        "from site_builder.explainers.base import ELEMENT_IDS\n"
        "print(status, 'example_explainer.build' in sys.modules, 'altair' in sys.modules, sorted(ELEMENT_IDS))\n"
    )
    result = run(outside, code=code)
    assert result.stdout.split("\n")[-2] == "0 False False ['doubling', 'speculative-decoding']", result.stdout + result.stderr


def test_the_built_in_explainer_is_registered_through_the_entry_point():
    assert "speculative-decoding" in base.REGISTRY
    found = base.REGISTRY.found()["speculative-decoding"]
    assert [f.value for f in found] == ["site_builder.explainers.speculative_decoding:EXPLAINER"]
    explainer = base.REGISTRY["speculative-decoding"]
    assert explainer.name == "speculative-decoding" and explainer.version
    assert base.ELEMENT_IDS["speculative-decoding"] == explainer.element_ids


def test_the_figure_follows_the_opening_section_or_the_marker_in_full_and_fast_builds(tmp_path, outside):
    """Reading order: a plain introduction before the figure. By default the
    figure follows the text before the body's first heading; a marker moves it;
    a prose edit's fast path gives the bytes of a clean build."""
    out = tmp_path / "out"
    folder = write_tree(tmp_path / "content", {
        "terms/twice.md": term("Twice", "Two times a number.", "Doubling, in words first.\n\n## How\n\nAdd it to itself.\n",
                               explainer="doubling"),
        "terms/once.md": term("Once", "One time.", "See [[Twice]]."),
    })

    def order():
        html = (out / "twice" / "index.html").read_text()
        return [html.find(s) for s in ("Doubling, in words first.", 'id="ex-explainer"', 'id="how"', "Add it to itself.")]

    first = run(outside, "build", "--content", folder, "--output", out, "--quiet")
    assert first.returncode == 0, first.stderr
    at = order()
    assert -1 not in at and at == sorted(at), at
    html = (out / "twice" / "index.html").read_text()
    assert '<div class="prose prose-opening">\n<p>Doubling, in words first.</p>\n</div>\n<figure' in html
    once = (out / "once" / "index.html").read_text()
    assert "prose-opening" not in once and '<div class="prose">\n<p>See ' in once, "without a figure the body stays whole"
    page = folder / "terms" / "twice.md"
    page.write_text(page.read_text().replace("Add it to itself.\n", "Add it to itself.\n\n<!-- explainer -->\n"))
    fast = run(outside, "build", "--content", folder, "--output", out)
    assert fast.returncode == 0 and re.search(r"^\s+update\s", fast.stdout, re.M), fast.stdout + fast.stderr
    words, figure, how, rest = order()
    assert words < how < rest < figure, "the marker, after the last paragraph, puts the figure last"
    assert "explainer -->" not in (out / "twice" / "index.html").read_text()
    clean = tmp_path / "clean"
    again = run(outside, "build", "--content", folder, "--output", clean, "--no-cache", "--quiet")
    assert again.returncode == 0, again.stderr
    assert (clean / "twice" / "index.html").read_bytes() == (out / "twice" / "index.html").read_bytes()


def test_a_misplaced_marker_is_a_path_line_error(tmp_path, outside):
    folder = write_tree(tmp_path / "content", {
        "terms/twice.md": term("Twice", "Two times a number.", "A.\n\n<!-- explainer -->\n\nB.\n\n<!-- explainer -->\n",
                               explainer="doubling"),
        "terms/once.md": term("Once", "One time.", "See [[Twice]].\n\n<!-- explainer -->\n"),
    })
    result = run(outside, "build", "--content", folder, "--output", tmp_path / "out")
    assert result.returncode != 0
    assert "twice.md:12: a second explainer marker <!-- explainer --> (the first is on line 8)" in result.stderr, result.stderr
    assert "once.md:7: an explainer marker, but this term names no explainer" in result.stderr, result.stderr
