"""The render stage: what a page holds (sections, links, the index's order, unique
ids, heading levels) and how its templates are compiled (once, before the page
workers fork). Moved here from tests/site/test_build.py, which keeps the whole
pipeline's guarantees."""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import term, write_tree
from site_builder.render import pages


def test_term_page_sections(small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    alpha = (out / "alpha/index.html").read_text()
    assert "<h1>Alpha</h1>" in alpha and '<p class="lead">The first term.</p>' in alpha
    related = alpha.split('id="related-terms"')[1].split("</section>")[0]
    assert 'href="../beta/index.html"' in related and "The second term." in related
    referenced = alpha.split('id="referenced-by"')[1].split("</section>")[0]
    assert "Beta" in referenced and "Gamma" not in referenced  # gamma only lists alpha as related
    assert 'href="../gamma/index.html#details"' in alpha
    gamma = (out / "gamma/index.html").read_text()
    assert 'id="referenced-by"' in gamma  # alpha links to it in its body
    assert "<math" in alpha and "$" not in alpha.split('<div class="prose">')[1]



def test_every_internal_url_is_relative(small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    for page in out.rglob("*.html"):
        for url in re.findall(r'(?:href|src)="([^"]*)"', page.read_text()):
            assert not url.startswith(("/", "http:", "https:", "//")), (page, url)
            if url.startswith("#"):
                continue
            target = (page.parent / url.split("#")[0]).resolve()
            assert target.exists(), (page, url)



def test_index_lists_terms_alphabetically_with_summaries(small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    index = (out / "index.html").read_text()
    positions = [index.index(f">{name}</a></dt>") for name in ("Alpha", "Beta", "Gamma")]
    assert positions == sorted(positions)
    assert "The third term." in index and 'id="filter-input"' in index



@settings(max_examples=300, deadline=None, derandomize=True)
@given(title=st.text(alphabet=st.characters(codec="ascii"), max_size=12) | st.text(max_size=12))
@example(title="Ébauche")
@example(title="ﬁnal")  # a ligature NFKD splits: only the general path sees it
@example(title="Straße")
def test_index_sort_key_short_cut_matches_the_general_rule(title):
    """ASCII titles skip normalisation; the key (and the letter) must be what the full rule gives."""
    folded = unicodedata.normalize("NFKD", title.casefold())
    expected = ("".join(c for c in folded if not unicodedata.combining(c)), title)
    assert pages.sort_key(title) == expected
    first = expected[0][:1].upper()
    assert pages.initial(title) == (first if first.isalpha() and first.isascii() else "#")



def test_templates_compile_once_before_page_workers_fork(tmp_path: Path, monkeypatch):
    """base.html is compiled in the parent, so forked page workers do not each compile a copy."""
    import os

    import jinja2

    from site_builder.build import BuildOptions, build_site

    log = tmp_path / "compiles.log"
    original = jinja2.Environment._compile

    def recording(self, source, filename):
        with open(log, "a") as handle:  # appended from any process, forked workers included
            handle.write(f"{os.getpid()} {os.path.basename(filename)}\n")
        return original(self, source, filename)

    monkeypatch.setattr(jinja2.Environment, "_compile", recording)
    pages.make_environment.cache_clear()  # a fresh environment: nothing compiled yet
    files = {f"terms/t{i:04d}.md": term(f"Term {i}", f"Summary {i}.", "Body.\n") for i in range(250)}
    content = write_tree(tmp_path / "content", files)
    try:
        build_site(BuildOptions(content=content, output=tmp_path / "out", cache=False, jobs=2))
    finally:
        pages.make_environment.cache_clear()
    compiled = [line.split() for line in log.read_text().splitlines()]
    assert {name for _, name in compiled} >= {"term.html", "base.html", "index.html"}
    assert {pid for pid, _ in compiled} == {str(os.getpid())}
    assert len(compiled) == len({name for _, name in compiled})



def test_term_pages_are_rendered_written_and_indexed_in_phases(tmp_path: Path, monkeypatch):
    """A run of pages is rendered, then written, then indexed for search: not
    the three page by page, which cost ~1.3-1.6x the CPU (each step's code and
    data pushed out of the caches by the others' on every page)."""
    from site_builder.build import BuildOptions, build_site
    from site_builder.cache import search as search_cache
    from site_builder.publish.staging import Staging

    events: list[tuple[str, str]] = []

    def recorded(kind, original, name_of):
        def wrapper(self, *args, **kwargs):
            result = original(self, *args, **kwargs)
            name = name_of(*args)
            if name is not None:
                events.append((kind, name))
            return result
        return wrapper

    monkeypatch.setattr(pages.PageRenderer, "term_page", recorded("render", pages.PageRenderer.term_page,
                                                                 lambda term, *rest: term.slug))
    monkeypatch.setattr(Staging, "add", recorded("write", Staging.add, lambda relative, data: (
        relative[:-len("/index.html")] if relative.endswith("/index.html") and relative.count("/") == 1 else None)))
    monkeypatch.setattr(search_cache.Indexer, "entries", recorded("index", search_cache.Indexer.entries,
                                                                  lambda term, body: term.slug))
    assert pages.PAGES_PER_PHASE >= 32  # a phase of a few pages saves little (0.85x the CPU at 16)
    count = pages.PAGES_PER_PHASE * 2 + 5
    files = {f"terms/t{i:04d}.md": term(f"Term {i}", f"Summary {i}.", "Body.\n") for i in range(count)}
    content = write_tree(tmp_path / "content", files)
    build_site(BuildOptions(content=content, output=tmp_path / "out", cache=False, jobs=1))
    rendered = [slug for kind, slug in events if kind == "render"]
    assert sorted(rendered) == sorted(f"t{i:04d}" for i in range(count))
    expected = []
    for first in range(0, count, pages.PAGES_PER_PHASE):
        phase = rendered[first:first + pages.PAGES_PER_PHASE]
        expected += [(kind, slug) for kind in ("render", "write", "index") for slug in phase]
    assert [event for event in events if event[1] in set(rendered)] == expected
    assert (tmp_path / "out" / "t0000" / "index.html").read_text().count("<h1>Term 0</h1>") == 1



def test_no_two_elements_of_a_real_page_share_an_id(real_site):
    pages = sorted(real_site.glob("*/index.html")) + [real_site / "index.html"]
    with_ids = set()
    for page in pages:
        ids = re.findall(r'\sid="([^"]*)"', page.read_text(encoding="utf-8"))
        assert len(ids) == len(set(ids)), page
        if ids:
            with_ids.add(page.parent.name)
    assert {"speculative-decoding", "inference", "output"} <= with_ids  # the explainer page, term pages, the index



def test_a_heading_named_like_a_page_section_keeps_the_page_ids_unique(tmp_path, cli):
    content = write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "First.", """
            ## Related terms

            ## Referenced by

            See [[Beta]].
            """, related=["beta"]),
        "terms/beta.md": term("Beta", "Second.", "Back to [[Alpha]].\n"),
    })
    status, _, err = cli("build", "--content", content, "--output", tmp_path / "out", "--quiet")
    assert status == 0, err
    html = (tmp_path / "out" / "alpha" / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'\sid="([^"]*)"', html)
    assert {"related-terms", "referenced-by", "related-terms_1", "referenced-by_1"} <= set(ids)
    assert len(ids) == len(set(ids))



def test_heading_levels_never_skip_on_a_real_page(real_site):
    # Screen-reader users move by headings: an h3 straight under the h1 hides where it belongs.
    checked = 0
    for page in sorted(real_site.glob("*/index.html")) + [real_site / "index.html"]:
        levels = [int(level) for level in re.findall(r"<h([1-6])\b", page.read_text(encoding="utf-8"))]
        if not levels:
            continue  # a redirect page
        checked += 1
        assert levels[0] == 1 and levels.count(1) == 1, page
        for before, after in zip(levels, levels[1:]):
            assert after <= before + 1, (page, levels)
    assert checked >= 6


def _tree_bytes(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.mark.parametrize("pretty_urls", [True, False])
def test_blocks_rendered_once_are_what_each_page_renders(tmp_path: Path, monkeypatch, pretty_urls: bool):
    """The header, footer and back link are rendered once per site (FIXED_BLOCKS),
    from the site's values alone: every term page's bytes are what rendering them
    on each page gives (a logo, header and footer links, search on)."""
    from helpers import FIXTURES, logged_build
    from site_builder.render import templates

    content = tmp_path / "content"
    shutil.copytree(FIXTURES / "themed", content, ignore=shutil.ignore_patterns("templates"))
    with open(content / "site.toml", "a", encoding="utf-8") as handle:
        handle.write(f"\npretty_urls = {'true' if pretty_urls else 'false'}\n")
    made = []
    monkeypatch.setattr(templates, "fixed_blocks", lambda *a, _f=templates.fixed_blocks: made.append(_f(*a)) or made[-1])
    logged_build(content, tmp_path / "fixed", cache=False)
    assert made and set(made[0][0]) == set(pages.FIXED_BLOCKS)  # every one of them rendered once
    blocks, reads = made[0]
    assert 'class="site-logo"' in blocks["header"](None)[0] and "footer-links" in blocks["footer"](None)[0]
    assert {"root", "site", "header_links", "footer_links"} <= reads
    assert not reads & {"canonical", "scripts", "meta_tags", "term", "card_data"}
    monkeypatch.setattr(pages, "FIXED_BLOCKS", ())
    logged_build(content, tmp_path / "each", cache=False)
    assert _tree_bytes(tmp_path / "fixed") == _tree_bytes(tmp_path / "each")


def test_no_block_is_rendered_once_when_the_site_replaces_the_term_pages_templates(tmp_path: Path, monkeypatch):
    """An override may make any block read a page's own values (here the navigation,
    inside the header): nothing is rendered once, each page has its own."""
    from helpers import FIXTURES, logged_build
    from site_builder.render import templates

    content = tmp_path / "content"
    shutil.copytree(FIXTURES / "themed", content)
    (content / "templates" / "term.html").write_text(
        '{% extends "term.html" %}\n{% block navigation %}<p class="acme-here">{{ term.title }}</p>{% endblock %}\n',
        encoding="utf-8")
    monkeypatch.setattr(templates, "fixed_blocks", lambda *a: pytest.fail("rendered once under an override"))
    logged_build(content, tmp_path / "out", cache=False)
    assert '<p class="acme-here">Alpha</p>' in (tmp_path / "out" / "alpha" / "index.html").read_text(encoding="utf-8")
    assert '<p class="acme-here">Beta</p>' in (tmp_path / "out" / "beta" / "index.html").read_text(encoding="utf-8")


def test_a_fixed_block_that_reads_a_pages_own_value_is_not_rendered_once():
    """fixed_blocks renders from the shared values alone: a block reading anything
    else (found or not, ``is defined`` too) is left to each page, never a value
    frozen into every page; the names the blocks it keeps read are given."""
    from site_builder.render import templates

    environment = templates.package_environment()
    base = environment.from_string(
        "<h>{% block header %}{{ site }}{% block inner %}{{ root }}{% endblock %}{% endblock %}</h>"
        "{% block footer %}{{ site }}{{ term.title }}{% endblock %}"
        "{% block back_link %}{% if canonical is defined %}{{ canonical }}{% endif %}{% endblock %}")
    blocks, reads = templates.fixed_blocks([base], ("header", "footer", "back_link"), {"site": "S", "root": "../"})
    assert set(blocks) == {"header"} and blocks["header"](None) == ("S../",)
    assert reads == {"site", "root"}
    blocks, reads = templates.fixed_blocks([base], ("footer",), {"site": "S", "term": {"title": "T"}})
    assert blocks["footer"](None) == ("ST",) and reads == {"site", "term"}


def _package_templates_changed(monkeypatch, name: str, old: str, new: str) -> None:
    """The package's templates as the build sees them, ``name``'s text ``old`` made ``new``."""
    import jinja2

    from site_builder.render import templates

    package = templates.package_environment()
    sources = {each: package.loader.get_source(package, each)[0] for each in package.list_templates()}
    assert old in sources[name]
    sources[name] = sources[name].replace(old, new)
    environment = jinja2.Environment(loader=jinja2.DictLoader(sources), **templates._OPTIONS)
    environment.template_class = templates._Template
    environment.code_generator_class = templates._CodeGenerator
    monkeypatch.setattr(templates, "package_environment", lambda: environment)


@pytest.mark.parametrize("reads", ["canonical", "term.title if term is defined else ''", "meta_tags | length"])
def test_a_package_block_rendered_once_that_reads_a_pages_value_shows_each_page_its_own(
        tmp_path: Path, monkeypatch, reads: str):
    """Were a package template's header or footer to read a page's own value
    (its URL, its term, its meta tags), each page shows its own, not one page's
    (or a default's) on every page: the block is rendered on each page. (The
    index and 404 pages extend base.html too: they have no term.)"""
    from helpers import FIXTURES, logged_build

    content = tmp_path / "content"
    shutil.copytree(FIXTURES / "themed", content, ignore=shutil.ignore_patterns("templates"))
    with open(content / "site.toml", "a", encoding="utf-8") as handle:
        handle.write('\nbase_url = "https://glossary.example.org/"\n')
    _package_templates_changed(monkeypatch, "base.html", '<p><a href="{{ root }}{{ index_page }}">All terms</a></p>',
                               f'<p class="own">[{{{{ {reads} }}}}]</p>')
    _package_templates_changed(monkeypatch, "term.html", '<p class="back">',
                               f'<p class="back" data-own="[{{{{ {reads} }}}}]">')
    logged_build(content, tmp_path / "out", cache=False)
    shown = {}
    for slug in ("alpha", "beta"):
        html = (tmp_path / "out" / slug / "index.html").read_text(encoding="utf-8")
        footer, back = re.search(r'<p class="own">\[(.*?)\]</p>', html), re.search(r'data-own="\[(.*?)\]"', html)
        assert footer and back and footer.group(1) == back.group(1), slug
        shown[slug] = footer.group(1)
    if reads == "canonical":
        assert shown == {slug: f"https://glossary.example.org/{slug}/" for slug in shown}
    elif reads.startswith("term"):
        assert shown == {"alpha": "Alpha", "beta": "Beta"}
    else:
        assert shown["alpha"] == shown["beta"] != "0"  # the page's meta tags, not the default's none


def test_a_page_whose_own_values_name_what_a_fixed_block_reads_renders_it_itself(tmp_path: Path, monkeypatch):
    """A page's own values (``page_extras``) that give a name the blocks rendered
    once read (here ``footer_links``): that page renders the blocks itself, the
    others take the blocks rendered once."""
    from helpers import FIXTURES, logged_build
    from site_builder.render import templates

    content = tmp_path / "content"
    shutil.copytree(FIXTURES / "themed", content, ignore=shutil.ignore_patterns("templates"))
    made = []
    monkeypatch.setattr(templates, "fixed_blocks", lambda *a, _f=templates.fixed_blocks: made.append(_f(*a)) or made[-1])
    real = pages.PageRenderer.__init__

    def own_footer_links(self, *args, **kwargs):
        real(self, *args, **kwargs)
        extras = self.page_extras
        self.page_extras = lambda term: {**extras(term), **(
            {"footer_links": [("Beta's own", "https://example.org/beta")]} if term and term.slug == "beta" else {})}

    monkeypatch.setattr(pages.PageRenderer, "__init__", own_footer_links)
    logged_build(content, tmp_path / "out", cache=False)
    alpha = (tmp_path / "out" / "alpha" / "index.html").read_text(encoding="utf-8")
    beta = (tmp_path / "out" / "beta" / "index.html").read_text(encoding="utf-8")
    assert "Privacy" in alpha and "Beta&#39;s own" not in alpha
    assert "Beta&#39;s own" in beta and "Privacy" not in beta
    assert made and "footer" in made[0][0]  # rendered once, for the pages that give no footer links of their own
