"""Aliases are public addresses: which get a redirect page, and what stops the
others (``validate.aliases``). Moved here from tests/outputs/test_linking_outputs.py,
which keeps the redirect pages themselves."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import term, write_tree
from site_builder.load.content import Term
from site_builder.validate.aliases import RESERVED, check_aliases, plan_redirects


def test_alias_slug_of_a_real_term_is_an_error_with_its_line(tmp_path: Path, cli):
    content = write_tree(tmp_path / "content", {
        "terms/inference.md": term("Inference", "Running a model."),
        "terms/model.md": term("Model", "Parameters.", aliases=["Inference!"]),
    })
    status, _, err = cli("check", "--content", content)
    assert status == 1
    assert re.search(r"terms/model\.md:4: alias 'Inference!' would redirect /inference/, which is the page of term 'inference'", err), err



def test_alias_slug_shared_by_two_terms_gets_no_redirect(tmp_path: Path, cli):
    content = write_tree(tmp_path / "content", {
        "terms/cpp.md": term("Cpp", "A language.", aliases=["C++"]),
        "terms/csharp.md": term("Csharp", "Another language.", aliases=["C#"]),
    })
    out = tmp_path / "out"
    status, _, err = cli("build", "--content", content, "--output", out, "--quiet")
    assert status == 0
    assert "terms/cpp.md:4: warning: alias 'C++' shares the redirect /c/" in err
    assert "terms/csharp.md:4: warning: alias 'C#' shares the redirect /c/" in err
    assert not (out / "c").exists()
    assert cli("build", "--content", content, "--output", out, "--strict", "--quiet")[0] == 1



def test_alias_slug():
    from site_builder.validate.aliases import alias_slug

    assert alias_slug("LLM inference") == "llm-inference"
    assert alias_slug("  Draft-and-verify   decoding ") == "draft-and-verify-decoding"
    assert alias_slug("Café au lait") == "cafe-au-lait"
    assert alias_slug("日本") == ""


def _term(slug: str, *aliases: str) -> Term:
    return Term(slug=slug, title=slug.title(), summary="S.", body="", path=f"terms/{slug}.md", body_line=5,
                aliases=list(aliases), field_lines={"aliases": 4})


def test_plan_redirects_as_data():
    """A term's aliases become redirects to it; one that is another term's slug is
    an error, one on a folder the build uses or shared by two terms a warning, and
    none of those gets a redirect; another term's very name is left to check_terms."""
    terms = [_term("model", "LLM", "Language model", "Inference!", "Inference"), _term("inference"),
             _term("cpp", "C++"), _term("csharp", "C#"), _term("odd", *sorted(RESERVED))]
    redirects, problems = plan_redirects(terms)
    assert [(r.source, r.target, r.alias) for r in redirects] == [
        ("language-model", "model", "Language model"), ("llm", "model", "LLM")]
    found = sorted((p.path, p.line, p.severity, p.message.split(" would ")[0].split(" shares ")[0]) for p in problems)
    assert found == sorted([
        ("terms/model.md", 4, "error", "alias 'Inference!'"),
        ("terms/cpp.md", 4, "warning", "alias 'C++'"),
        ("terms/csharp.md", 4, "warning", "alias 'C#'"),
        *[("terms/odd.md", 4, "warning", f"alias {name!r}") for name in sorted(RESERVED)],
    ])
    assert check_aliases(terms) == problems


def test_a_plan_is_made_once_for_the_same_terms_and_again_when_a_field_it_reads_changes(monkeypatch):
    """A build asks for the plan twice (the validate stage's problems, the outputs'
    redirects): the second time, for terms with the same slugs, titles, paths,
    aliases and alias lines, it is the first plan; any of those changed, a new one."""
    from dataclasses import replace

    from site_builder.validate import aliases

    made = []
    real = aliases._plan
    monkeypatch.setattr(aliases, "_plan", lambda terms: made.append(len(terms)) or real(terms))
    terms = [_term("model", "LLM"), _term("inference"), _term("cpp", "C++"), _term("csharp", "C#")]
    first = plan_redirects(terms)
    again = plan_redirects([replace(t, body="Edited prose.", summary="Other.") for t in terms])
    assert again == first and len(made) == 1
    again[0].clear()
    again[1].append("not the plan's")
    assert plan_redirects(terms) == first and len(made) == 1  # callers get lists of their own
    changes = [
        lambda t: replace(t, aliases=["Big model"]) if t.slug == "model" else t,
        lambda t: replace(t, aliases=["C#"]) if t.slug == "cpp" else t,  # now shared: a warning, no redirect
        lambda t: replace(t, slug="llm") if t.slug == "inference" else t,  # now the alias's own page
        lambda t: replace(t, title="LLM") if t.slug == "inference" else t,
        lambda t: replace(t, path="terms/elsewhere.md") if t.slug == "cpp" else t,
        lambda t: replace(t, field_lines={"aliases": 7}) if t.slug == "cpp" else t,
    ]
    for change in changes:
        changed = [change(t) for t in terms]
        before = len(made)
        assert plan_redirects(changed) == aliases._plan(changed)
        assert len(made) == before + 2, "a field plan_redirects reads changed: the plan is made again"
    assert plan_redirects(list(reversed(terms))) == aliases._plan(list(reversed(terms)))
