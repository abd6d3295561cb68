"""A real Sphinx build links into the glossary through its objects.inv.

tests/sphinx_project references glossary terms, pages, an old slug and a
heading via intersphinx and is built with -W (warnings are errors), so any
reference the inventory cannot resolve fails the build.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from glossary_site import build_glossary
from helpers import TESTS

PROJECT = TESTS / "sphinx_project"
PUBLISHED = "https://example.org/glossary/"


@pytest.fixture(scope="module")
def inventory(tmp_path_factory) -> Path:
    # the glossary's own base URL differs on purpose: links follow the intersphinx mapping
    return build_glossary(tmp_path_factory.mktemp("glossary"), base_url="https://elsewhere.example/") / "objects.inv"


def sphinx_build(project: Path, out: Path, inventory: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "GLOSSARY_INVENTORY": str(inventory)}
    return subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "-E", "-n", str(project), str(out)],
                          capture_output=True, text=True, env=env, timeout=120)


def links(html: str) -> list[tuple[str, str]]:
    """(href, text) of every external reference Sphinx produced."""
    found = re.findall(r'<a class="reference external" href="([^"]+)"[^>]*>(.*?)</a>', html, re.S)
    return [(href, re.sub(r"<[^>]+>", "", text).strip()) for href, text in found]


def test_sphinx_resolves_terms_pages_and_headings(inventory: Path, tmp_path: Path):
    result = sphinx_build(PROJECT, tmp_path / "html", inventory)
    assert result.returncode == 0, result.stderr
    assert links((tmp_path / "html" / "index.html").read_text()) == [
        (PUBLISHED + "speculative-decoding/", "Speculative decoding"),
        (PUBLISHED + "speculative-decoding/", "speculative DECODING"),
        (PUBLISHED + "model/", "LLM"),
        (PUBLISHED + "model/", "the big model"),
        (PUBLISHED + "inference/", "Inference"),
        (PUBLISHED + "inference/", "Inference"),
        (PUBLISHED + "model/", "Model"),
        (PUBLISHED + "inference/#two-phases-prefill-and-decode", "Two phases: prefill and decode"),
        (PUBLISHED + "speculative-decoding/", "Speculative decoding"),
    ]


def test_an_unknown_term_fails_the_sphinx_build(inventory: Path, tmp_path: Path):
    project = shutil.copytree(PROJECT, tmp_path / "project")
    with (project / "index.rst").open("a") as f:
        f.write("\nMissing: :term:`glossary:No such term`.\n")
    result = sphinx_build(project, tmp_path / "html", inventory)
    assert result.returncode != 0
    assert "no such term" in result.stderr.lower()


# --- issue 30: a title cannot forge an inventory entry -------------------------------

FORGING_TITLE = "Model std:label -1 //evil.example/pwn Evil"
FORGED_REFERENCES = """Forged
======

A label the title would forge: :ref:`glossary:model`.

A title with spaces and a number, read back as written: :term:`glossary:Top 10 tricks`.
"""


def _sphinx_html(tmp_path: Path, inventory: bytes, name: str) -> str:
    project = shutil.copytree(PROJECT, tmp_path / f"project-{name}")
    (project / "index.rst").write_text(FORGED_REFERENCES)
    (tmp_path / f"{name}.inv").write_bytes(inventory)
    env = {**os.environ, "GLOSSARY_INVENTORY": str(tmp_path / f"{name}.inv")}
    result = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-E", str(project), str(tmp_path / name)],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr  # without -W: the forged label's absence is only a warning
    return (tmp_path / name / "index.html").read_text()


def test_sphinx_follows_no_entry_a_title_forges(tmp_path: Path):
    """The attack is real (a line written as before makes Sphinx link :ref: to another
    host), and the inventory the build writes gives Sphinx nothing of it."""
    from site_builder.outputs.glossary_json import Entry
    from site_builder.outputs.inventory import objects_inv

    entries = [Entry("evil-model", FORGING_TITLE, "S."), Entry("top-ten", "Top 10 tricks", "S.")]
    written = objects_inv("Glossary", "", entries)
    header, _, _ = written.partition(b"# The remainder")
    naive = header + b"# The remainder of this file is compressed using zlib.\n" + zlib.compress(
        f"{FORGING_TITLE.lower()} std:term -1 evil-model/ -\n".encode())
    assert "evil.example/pwn" in _sphinx_html(tmp_path, naive, "naive")
    html = _sphinx_html(tmp_path, written, "written")
    assert "evil.example" not in html
    assert (PUBLISHED + "top-ten/", "Top 10 tricks") in links(html)


def test_a_title_that_would_forge_an_entry_is_refused_at_its_line(tmp_path: Path, capsys):
    from site_builder.cli import main

    terms = tmp_path / "content" / "terms"
    terms.mkdir(parents=True)
    (terms / "evil-model.md").write_text(f"---\ntitle: {FORGING_TITLE}\nsummary: S.\n---\nBody.\n")
    (terms / "steps.md").write_text("---\ntitle: Steps\nsummary: S.\naliases: [Step 1 2 3]\n---\nBody.\n")
    (terms / "tricks.md").write_text("---\ntitle: Top 10 tricks\nsummary: S.\n---\nBody.\n")
    status = main(["build", "--content", str(tmp_path / "content"), "--output", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err
    assert status == 1 and not (tmp_path / "out").exists()
    assert re.search(r"evil-model\.md:2: title '.*' cannot be listed in objects\.inv: Sphinx would read it .* as "
                     r"'model' with role 'std:label'", err), err
    # a name Sphinx would merely skip is left out of objects.inv without a word
    assert "steps.md" not in err and "tricks.md" not in err
