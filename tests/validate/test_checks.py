"""The validate stage's cross-term checks (``validate.checks``): as data, and
through the command line, where a failing check keeps the previous output.
The command-line cases moved here from tests/site/test_build.py's BAD_INPUTS."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import manifest, term, write_tree
from site_builder.load.content import Term
from site_builder.markup.render import Link, RenderedBody
from site_builder.validate import checks

CROSS_TERM = {
    "duplicate alias": ({"terms/a.md": term("A", "S", aliases=["same"]), "terms/b.md": term("B", "S", aliases=["Same"])}, "terms/b.md:4: duplicate alias 'Same'"),
    "duplicate title": ({"terms/a.md": term("Thing", "S"), "terms/b.md": term("thing", "S")}, "terms/b.md:2: duplicate title 'thing'"),
    "duplicate slug": ({"terms/a.md": term("A", "S"), "terms/sub/a.md": term("A2", "S")}, "duplicate slug 'a'"),
    "unknown related": ({"terms/a.md": term("A", "S", related=["nope"])}, "terms/a.md:4: related entry 'nope' is not a known term slug"),
    "missing anchor": ({"terms/a.md": term("A", "S", "[x](b.md#nowhere)\n"), "terms/b.md": term("B", "S")}, "terms/a.md:5: link to missing anchor '#nowhere' in 'b'"),
    "missing own anchor": ({"terms/a.md": term("A", "S", "x\n\n[x](#nowhere)\n")}, "terms/a.md:7: link to missing anchor '#nowhere' in this page"),
    "unknown explainer": ({"terms/a.md": term("A", "S", explainer="nope")}, "terms/a.md:4: unknown explainer 'nope'"),
}


@pytest.mark.parametrize("case", sorted(CROSS_TERM))
def test_a_failing_check_names_its_line_and_keeps_the_output(case, small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    before = manifest(out)
    files, expected = CROSS_TERM[case]
    bad = write_tree(tmp_path / "bad", files)
    status, _, err = cli("build", "--content", bad, "--output", out)
    assert status == 1
    assert expected in err, err
    assert "Traceback" not in err and err.rstrip().endswith("nothing was written")
    assert manifest(out) == before
    assert not list(tmp_path.glob(".out.staging-*"))


def _term(slug: str, title: str | None = None, *, aliases=(), related=(), explainer=None) -> Term:
    return Term(slug=slug, title=title or slug.title(), summary="S.", body="", path=f"terms/{slug}.md", body_line=6,
                aliases=list(aliases), related=list(related), explainer=explainer,
                field_lines={"title": 2, "aliases": 4, "related": 5, "explainer": 3})


def _found(problems) -> list[tuple]:
    return sorted((p.path, p.line, p.severity, p.message) for p in problems)


def test_check_terms_as_data():
    terms = [_term("alpha", aliases=["First"]), _term("beta", "first"), _term("gamma", related=["gamma", "nope", "alpha"]),
             _term("delta", explainer="no-such-explainer")]
    found = _found(checks.check_terms(terms))
    assert [(path, line) for path, line, *_ in found] == [
        ("terms/beta.md", 2), ("terms/delta.md", 3), ("terms/gamma.md", 5), ("terms/gamma.md", 5)]
    messages = " | ".join(message for *_, message in found)
    assert "duplicate title 'first': 'alpha'" in messages
    assert "unknown explainer 'no-such-explainer' (known: " in messages and "speculative-decoding" in messages
    assert "related lists the term itself ('gamma')" in messages and "related entry 'nope'" in messages
    assert checks.check_terms([_term("alpha"), _term("beta", related=["alpha"])]) == []


def test_check_links_and_backlinks_as_data():
    terms = [_term("alpha"), _term("beta"), _term("gamma")]
    bodies = {
        "alpha": RenderedBody(html="", anchors=["top"], links=[Link("beta", "details", 7), Link(None, "top", 8),
                                                               Link("gamma", "", 9), Link(None, "gone", 10)]),
        "beta": RenderedBody(html="", anchors=["details"], links=[Link("alpha", "", 6), Link("beta", "", 7)],
                             problems=[(8, "a body's own problem"), (9, "a warning", "warning")]),
        "gamma": RenderedBody(html="", marker_line=12),
    }
    assert _found(checks.check_links(terms, bodies)) == [
        ("terms/alpha.md", 10, "error", "link to missing anchor '#gone' in this page"),
        ("terms/beta.md", 8, "error", "a body's own problem"),
        ("terms/beta.md", 9, "warning", "a warning"),
        ("terms/gamma.md", 12, "error", checks.check_placement(terms[2], bodies["gamma"])[0].message),
    ]
    assert "names no explainer" in checks.check_placement(terms[2], bodies["gamma"])[0].message
    assert checks.check_placement(_term("gamma", explainer="speculative-decoding"), bodies["gamma"]) == []
    # a page's link to itself is no backlink; a link to an unknown slug is not counted either
    assert checks.backlinks(terms, bodies) == {"alpha": ["beta"], "beta": ["alpha"], "gamma": ["alpha"]}


def test_a_slugs_name_key_is_found_without_normalise(monkeypatch):
    """``check_terms`` keys each slug by ``slug_key`` (hyphens made spaces), not
    by ``normalise``'s regular expression; the key is ``normalise``'s all the same,
    so a title that normalises to another term's slug is still a duplicate."""
    from site_builder.names import normalise

    for name in ("a", "term-00042", "x-1-y", "Not-A-Slug", "a--b", "-a", "a_b", "Ünïcode", "a b"):
        assert checks.slug_key(name) == normalise(name)
    asked = []
    monkeypatch.setattr(checks, "normalise", lambda name: asked.append(name) or normalise(name))
    terms = [Term("output-tokens", "Tokens", "S", "", "a.md", 5),
             Term("other", "Output tokens", "S", "", "b.md", 5, aliases=["More"])]
    problems = checks.check_terms(terms)
    assert sorted(asked) == ["More", "Output tokens", "Tokens"]  # titles and aliases only
    assert [p.message for p in problems] == ["duplicate title 'Output tokens': 'output-tokens' (a.md) already answers to that name"]
