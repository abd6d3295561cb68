"""Compiled templates kept in the cache folder (``cache/templates.py``): an edit's
process loads them instead of compiling, and takes only what matches."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import jinja2
import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.cache import templates as template_cache
from site_builder.render import templates

from helpers import manifest, term, write_tree


def _content(root: Path) -> Path:
    files = {f"terms/t{i}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i}, see [[Term {(i + 1) % 3}]].\n")
             for i in range(3)}
    files["site.toml"] = 'title = "Templates"\npreviews = false\n'
    return write_tree(root, files)


def _new_process() -> None:
    """As a new process starts: no environment, no compiled template."""
    templates.package_environment.cache_clear()


@pytest.fixture
def compiled(monkeypatch) -> list[str]:
    """The names of the templates Jinja compiles from source."""
    names: list[str] = []
    real = jinja2.Environment.compile

    def compile(self, source, name=None, filename=None, raw=False, defer_init=False):
        names.append(name)
        return real(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", compile)
    _new_process()
    yield names
    _new_process()


def _edit(content: Path, output: Path, number: int) -> None:
    path = content / "terms" / "t1.md"
    path.write_text(path.read_text() + f"\nEdit {number}.\n")
    log: list[str] = []
    build_site(BuildOptions(content=content, output=output, jobs=1), log.append)
    assert any("fast path" in line for line in log), log


def test_an_edit_loads_the_compiled_templates_and_equals_a_clean_build(tmp_path, compiled):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    for _ in range(2):
        build_site(BuildOptions(content=content, output=output, jobs=1))
    _new_process()
    _edit(content, output, 1)  # compiles, and keeps them
    assert list((output.parent / ".site_builder_cache").glob(f"{template_cache.PREFIX}*"))
    _new_process()
    compiled.clear()
    _edit(content, output, 2)
    assert "term.html" not in compiled and "base.html" not in compiled, compiled
    clean = tmp_path / "clean" / "out"
    shutil.rmtree(clean.parent, ignore_errors=True)
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert manifest(output) == manifest(clean)


def _environment(source: str) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.DictLoader({"page.html": source}))


def test_only_the_same_source_and_code_version_are_taken(tmp_path, compiled):
    folder = tmp_path / "cache"
    folder.mkdir()
    first = _environment("<p>{{ x }}</p>")
    template_cache.cache_templates(folder, first)
    assert first.get_template("page.html").render(x=1) == "<p>1</p>"
    again = _environment("<p>{{ x }}</p>")
    template_cache.cache_templates(folder, again)
    compiled.clear()
    assert again.get_template("page.html").render(x=2) == "<p>2</p>" and compiled == []
    changed = _environment("<div>{{ x }}</div>")  # another source under the same name: compiled again
    template_cache.cache_templates(folder, changed)
    assert changed.get_template("page.html").render(x=3) == "<div>3</div>" and compiled == ["page.html"]
    other_code = _environment("<p>{{ x }}</p>")
    other_code.bytecode_cache = template_cache.TemplateCache(folder, "another-version")
    compiled.clear()
    other_code.get_template("page.html")
    assert compiled == ["page.html"]
    assert not [p for p in folder.iterdir() if "another-version" not in p.name], "an older version's files kept"


def test_a_link_in_place_of_a_compiled_template_is_not_followed(tmp_path, compiled):
    folder = tmp_path / "cache"
    folder.mkdir()
    template_cache.cache_templates(folder, _environment("<p>{{ x }}</p>"))
    environment = _environment("<p>{{ x }}</p>")
    template_cache.cache_templates(folder, environment)
    environment.get_template("page.html")
    [kept] = folder.iterdir()
    outside = tmp_path / "outside"
    os.replace(kept, outside)
    os.symlink(outside, kept)
    again = _environment("<p>{{ x }}</p>")
    template_cache.cache_templates(folder, again)
    compiled.clear()
    assert again.get_template("page.html").render(x=1) == "<p>1</p>" and compiled == ["page.html"]
    assert kept.is_symlink(), "the link is the user's: left as found"


@pytest.mark.parametrize("keep", [0, 15, 17, 40])
def test_a_damaged_compiled_template_is_compiled_again_and_rewritten(tmp_path, compiled, keep):
    """A file cut short (inside or past Jinja's header, whose checksum Jinja
    unpickles unguarded) or garbled costs a compile, never the build; and the
    next process takes the file written in its place."""
    folder = tmp_path / "cache"
    folder.mkdir()
    first = _environment("<p>{{ x }}</p>")
    template_cache.cache_templates(folder, first)
    first.get_template("page.html")
    [kept] = folder.iterdir()
    whole = kept.read_bytes()
    kept.write_bytes(whole[:keep] if keep != 40 else whole[:17] + b"\x80garbled" + whole[25:])
    damaged = _environment("<p>{{ x }}</p>")
    template_cache.cache_templates(folder, damaged)
    compiled.clear()
    assert damaged.get_template("page.html").render(x=1) == "<p>1</p>" and compiled == ["page.html"]
    assert kept.read_bytes() == whole  # rewritten whole
    again = _environment("<p>{{ x }}</p>")
    template_cache.cache_templates(folder, again)
    compiled.clear()
    assert again.get_template("page.html").render(x=2) == "<p>2</p>" and compiled == []
    assert [p.name for p in folder.iterdir()] == [kept.name]  # no temporary file left


def test_each_process_writes_through_a_temporary_file_of_its_own(tmp_path, compiled, monkeypatch):
    """Two processes compiling the same template at once never share a temporary
    file (one could rename the other's half-written bytes into place)."""
    seen: list[str] = []
    real = template_cache.write_owned
    monkeypatch.setattr(template_cache, "write_owned", lambda path, data, temporary=None: (
        seen.append(str(temporary)), real(path, data, temporary))[1])
    folder = tmp_path / "cache"
    folder.mkdir()
    environment = _environment("<p>{{ x }}</p>")
    template_cache.cache_templates(folder, environment)
    environment.get_template("page.html")
    assert len(seen) == 1 and str(os.getpid()) in seen[0] and seen[0].startswith(str(folder))
