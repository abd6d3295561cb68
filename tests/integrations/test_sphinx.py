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
