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
from autolink_corpus import BOX_SVG, FIRST_IN_PAGE, FIRST_IN_SECTION, GLOSSARY, PAGE
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
    site = mkdocs_site(tmp_path, glossary / "glossary.json", {"index.md": "# Home\n\nNothing.\n", "tricky.md": PAGE, "box.svg": BOX_SVG},
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
    plain = mkdocs_site(tmp_path / "plain", glossary / "glossary.json", {"index.md": PAGE, "box.svg": BOX_SVG})
    assert mkdocs_build(plain, "--strict").returncode == 0
    assert TermLinks((plain / "site/index.html").read_text(encoding="utf-8")).found == []


def test_a_usage_file_from_a_mkdocs_sites_sources_shows_as_used_in(glossary, tmp_path, cli):
    pages = {"index.md": "# Home\n\nSee [[Model]].\n", "guide/setup.md": "---\ntitle: Setup guide\n---\n\nUse [[LLM|a model]] "
             f"and [the box]({BASE}box/).\n", "guide/index.md": "# Guide\n\nA [[policy]].\n"}
    site = mkdocs_site(tmp_path / "docs-site", glossary / "glossary.json", pages)
    with open(site / "mkdocs.yml", "a", encoding="utf-8") as handle:
        handle.write("site_url: https://docs.example.com/consumer/\n")
    usage = tmp_path / "glossary-content" / "usage" / "consumer.json"
    status, out, err = cli("check", "--links-in", site / "docs", "--glossary", glossary, "--usage-file", usage)
    assert status == 0, err
    first = usage.read_bytes()
    assert cli("check", "--links-in", site / "docs", "--glossary", glossary, "--usage-file", usage)[0] == 0
    assert usage.read_bytes() == first  # the same sources, the same bytes
    # The URLs it names are the pages the MkDocs build makes.
    assert mkdocs_build(site, "--strict").returncode == 0
    data = json.loads(first)
    urls = {page["url"] for pages in data["terms"].values() for page in pages}
    assert urls == {"https://docs.example.com/consumer/", "https://docs.example.com/consumer/guide/setup/",
                    "https://docs.example.com/consumer/guide/"}
    for url in urls:
        assert (site / "site" / url.removeprefix("https://docs.example.com/consumer/") / "index.html").is_file()
    # The glossary that names the file lists them under "Used in".
    content = write_tree(tmp_path / "glossary-content", {**GLOSSARY, "site.toml": 'usage_files = ["usage/consumer.json"]\n'})
    out_dir = tmp_path / "glossary-out"
    build_site(BuildOptions(content=content, output=out_dir, base_url=BASE, jobs=1, cache=False))
    model = (out_dir / "model/index.html").read_text(encoding="utf-8")
    used = re.search(r'<h2 id="used-in">Used in</h2>\n<ul>\n(.*?)</ul>', model, re.S).group(1)
    assert used == ('<li><a href="https://docs.example.com/consumer/">Home</a> <span class="used-in-site">(Consumer docs)</span></li>\n'
                    '<li><a href="https://docs.example.com/consumer/guide/setup/">Setup guide</a> '
                    '<span class="used-in-site">(Consumer docs)</span></li>\n')
    assert 'href="https://docs.example.com/consumer/guide/setup/">Setup guide' in (out_dir / "box/index.html").read_text()
    assert 'href="https://docs.example.com/consumer/guide/">Guide' in (out_dir / "policy/index.html").read_text()
    assert 'id="used-in"' not in (out_dir / "decoding/index.html").read_text()
