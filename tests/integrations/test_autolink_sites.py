"""Autolinks and usage across sites, in real ``mkdocs build`` runs: the MkDocs plugin
links first mentions of the tricky corpus (``autolink_corpus``) with hover-card
data; a usage file written by ``check --links-in`` from the MkDocs site's sources
shows on the glossary's term pages as "Used in"."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from site_builder.build import BuildOptions, build_site
from autolink_corpus import FIRST_IN_PAGE, FIRST_IN_SECTION, GLOSSARY, PAGE
from glossary_site import write_tree
from mkdocs_site import mkdocs_build, mkdocs_site

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "markup"))
from test_autolink import TermLinks  # noqa: E402

BASE = "https://example.org/glossary/"
GLOSSARY_TITLES = {"model": "Model", "speculative-decoding": "Speculative decoding", "decoding": "Decoding",
                   "policy": "Policy", "box": "Box"}
SUMMARIES = {"model": "The trained artifact.", "speculative-decoding": "Draft, then verify.",
             "decoding": "Picking tokens.", "policy": "How tokens are picked.", "box": "A container."}


@pytest.fixture(scope="module")
def glossary(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("autolink-sites")
    content = write_tree(root / "content", GLOSSARY)
    build_site(BuildOptions(content=content, output=root / "out", base_url=BASE, jobs=1, cache=False))
    return root / "out"


@pytest.mark.parametrize("unit, expected", [("page", FIRST_IN_PAGE), ("section", FIRST_IN_SECTION)])
def test_mkdocs_plugin_links_first_mentions_with_cards(glossary, tmp_path, unit, expected):
    site = mkdocs_site(tmp_path, glossary / "glossary.json", {"index.md": "# Home\n\nNothing.\n", "tricky.md": PAGE},
                       autolink="first", autolink_unit=unit)
    result = mkdocs_build(site, "--strict")
    assert result.returncode == 0, result.stderr
    html = (site / "site/tricky/index.html").read_text(encoding="utf-8")
    assert TermLinks(html).found == expected
    data = json.loads(re.search(r'<script type="application/json" id="glossary-cards-data">(.*?)</script>',
                                html, re.S).group(1))
    assert data == {slug: [GLOSSARY_TITLES[slug], SUMMARIES[slug]] for slug, _text in expected}
    assert "no-autolink" not in html
    # Off by default: the same page, no option.
    plain = mkdocs_site(tmp_path / "plain", glossary / "glossary.json", {"index.md": PAGE})
    assert mkdocs_build(plain, "--strict").returncode == 0
    assert TermLinks((plain / "site/index.html").read_text(encoding="utf-8")).found == []
