"""The whole pipeline through the CLI: output, guarantees and every bad input
(what a page holds is in tests/render/, the cross-term checks in tests/validate/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers import manifest, term, write_tree


def test_builds_every_page(small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    status, log, err = cli("build", "--content", small_site, "--output", out)
    assert status == 0, err
    for stage in ("load", "validate", "markup", "explainers", "render", "publish"):
        assert re.search(rf"^\s+{stage}\s+[\d.]+ ms$", log, re.M), stage
    assert re.search(r"Built 3 terms: \d+ files", log)
    files = manifest(out)
    for page in ("index.html", "404.html", "alpha/index.html", "beta/index.html", "gamma/index.html"):
        assert page in files
    assert any(re.fullmatch(r"assets/site\.[0-9a-f]{10}\.css", f) for f in files)


def test_same_content_gives_byte_identical_trees(small_site: Path, tmp_path: Path, cli):
    assert cli("build", "--content", small_site, "--output", tmp_path / "a")[0] == 0
    assert cli("build", "--content", small_site, "--output", tmp_path / "b", "--jobs", "2")[0] == 0
    assert manifest(tmp_path / "a") == manifest(tmp_path / "b") != {}


def test_parallel_markdown_matches_serial(tmp_path: Path, cli):
    files = {f"terms/t{i:04d}.md": term(f"Term {i}", f"Summary {i}.", f"Links to [[Term {(i + 1) % 250}]] and $x_{i}$.\n") for i in range(250)}
    content = write_tree(tmp_path / "content", files)
    assert cli("build", "--content", content, "--output", tmp_path / "one", "--jobs", "1")[0] == 0
    assert cli("build", "--content", content, "--output", tmp_path / "two", "--jobs", "2")[0] == 0
    assert manifest(tmp_path / "one") == manifest(tmp_path / "two")


def test_unchanged_files_are_not_rewritten(small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    beta = small_site / "terms/beta.md"
    beta.write_text(beta.read_text() + "\nOne more line.\n")
    status, log, _ = cli("build", "--content", small_site, "--output", out)
    changed = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and before.get(p) != p.stat().st_mtime_ns}
    # The page, and the search shards of the new words ("one", "more", "line") with the manifest listing them.
    searched = {name for name in changed if name.startswith("search/")}
    assert changed - searched == {"beta/index.html"}
    assert searched and searched <= {"search/index.json", "search/t/on.json", "search/t/mo.json", "search/t/li.json"}
    assert status == 0 and f"({1 + len(searched)} written," in log


def test_deleted_term_disappears(small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    (small_site / "terms/gamma.md").unlink()
    text = (small_site / "terms/alpha.md").read_text().replace(" and [the gamma section](gamma.md#details)", "")
    (small_site / "terms/alpha.md").write_text(text)
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    assert not (out / "gamma").exists() and (out / "alpha/index.html").exists()


def test_content_with_only_terms_builds_with_defaults(small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    assert "<title>Glossary</title>" in (out / "index.html").read_text()


def test_site_toml_and_base_url(small_site: Path, tmp_path: Path, cli):
    (small_site / "site.toml").write_text('title = "My Terms"\nlanguage = "fr"\nbase_url = "https://example.org/docs/glossary"\n')
    out = tmp_path / "out"
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    page = (out / "alpha/index.html").read_text()
    assert '<html lang="fr">' in page and "My Terms" in page
    assert '<link rel="canonical" href="https://example.org/docs/glossary/alpha/">' in page
    assert cli("build", "--content", small_site, "--output", out, "--base-url", "https://other.example/g/")[0] == 0
    assert 'href="https://other.example/g/alpha/"' in (out / "alpha/index.html").read_text()


def test_refuses_to_replace_a_foreign_folder(small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    status, _, err = cli("build", "--content", small_site, "--output", out)
    assert status == 1 and "refusing to replace" in err
    assert (out / "thesis.tex").read_text() == "years of work"


def test_check_writes_nothing(small_site: Path, tmp_path: Path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)  # where build would put output/, its cache and its spare
    status, log, _ = cli("check", "--content", small_site)
    assert status == 0 and "no problems" in log
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content"]
    assert cli("build", "--content", small_site)[0] == 0  # the same listing does see what build writes
    assert "output" in {p.name for p in tmp_path.iterdir()}


BAD_INPUTS = {
    # the cross-term checks' cases are in tests/validate/test_checks.py
    "malformed YAML": ({"terms/a.md": "---\ntitle: A\nsummary: [x\n---\n"}, "terms/a.md:3: malformed YAML"),
    "missing title": ({"terms/a.md": "---\nsummary: S\n---\n"}, "terms/a.md:2: missing required field 'title'"),
    "missing summary": ({"terms/a.md": "---\ntitle: A\n---\n"}, "terms/a.md:2: missing required field 'summary'"),
    "unknown wikilink": ({"terms/a.md": term("A", "S", "x\n[[Nope]]\n")}, "terms/a.md:6: link to unknown term [[Nope]]"),
    "unknown file link": ({"terms/a.md": term("A", "S", "[x](nope.md)\n")}, "terms/a.md:5: link to unknown term 'nope'"),
    "bad LaTeX": ({"terms/a.md": term("A", "S", "ok\n\n$\\frac{1}{$\n")}, "terms/a.md:7: unbalanced braces"),
    "not UTF-8": ({"terms/a.md": b"---\ntitle: A\nsummary: S\n---\n\xff\n"}, "terms/a.md:5: not valid UTF-8"),
    "bad site.toml": ({"site.toml": "title = \n", "terms/a.md": term("A", "S")}, "site.toml:1: invalid TOML"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_fails_clearly_and_keeps_output(case, small_site: Path, tmp_path: Path, cli):
    out = tmp_path / "out"
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    before = manifest(out)
    files, expected = BAD_INPUTS[case]
    bad = write_tree(tmp_path / "bad", files)
    status, _, err = cli("build", "--content", bad, "--output", out)
    assert status == 1
    assert expected in err, err
    assert "Traceback" not in err and err.rstrip().endswith("nothing was written")
    assert manifest(out) == before
    assert not list(tmp_path.glob(".out.staging-*"))


def test_all_problems_reported_together(tmp_path: Path, cli):
    bad = write_tree(tmp_path / "bad", {
        "terms/a.md": "---\ntitle: A\n---\n",
        "terms/b.md": term("B", "S", related=["zzz"]),
        "terms/c.md": b"\xff",
    })
    status, _, err = cli("check", "--content", bad)
    lines = [line for line in err.splitlines() if re.match(r"^\S+:\d+: ", line)]
    assert status == 1 and len(lines) == 3


def test_warnings_fail_under_strict(small_site: Path, tmp_path: Path, cli):
    path = small_site / "terms/beta.md"
    path.write_text(path.read_text().replace("title: Beta", "title: Beta\ncolour: blue"))
    status, _, err = cli("build", "--content", small_site, "--output", tmp_path / "o")
    assert status == 0 and "terms/beta.md:3: warning: unknown front matter key 'colour'" in err
    status, _, err = cli("build", "--content", small_site, "--output", tmp_path / "o2", "--strict")
    assert status == 1 and not (tmp_path / "o2").exists()


def test_help_everywhere(cli, capsys):
    for args in ([], ["build"], ["serve"], ["check"]):
        with pytest.raises(SystemExit) as exit:
            cli(*args, "--help")
        assert exit.value.code == 0
    assert "--base-url" in capsys.readouterr().out


@pytest.mark.parametrize("jobs", ["0", "-2", "two"])
def test_jobs_must_be_a_whole_number_of_at_least_one(cli, capsys, jobs):
    with pytest.raises(SystemExit) as exit:
        cli("build", "--jobs", jobs)
    assert exit.value.code == 2 and "--jobs" in capsys.readouterr().err


def test_heavy_imports_only_when_an_explainer_needs_them(tmp_path):
    """altair and vl-convert (and numpy) load only for a term that names an explainer."""
    import subprocess
    import sys

    from helpers import term, write_tree

    plain = write_tree(tmp_path / "plain", {
        "site.toml": 'title = "T"\npreviews = false\n',
        "terms/a.md": term("A", "The first.", "Body with $x^2$ maths.\n"),
    })
    with_explainer = write_tree(tmp_path / "explained", {
        "site.toml": 'title = "T"\npreviews = false\n',
        "terms/speculative-decoding.md": term("Speculative decoding", "Drafts, then verifies.", "Body.\n",
                                              explainer="speculative-decoding"),
    })
    probe = ("import sys; from pathlib import Path; from site_builder.build import BuildOptions, build_site; "
             "build_site(BuildOptions(content=Path(sys.argv[1]), output=Path(sys.argv[2]), jobs=1)); "
             "print(sorted(m for m in ('altair', 'vl_convert', 'numpy') if m in sys.modules))")
    # The two fresh processes share nothing: they run side by side.
    probes = {name: subprocess.Popen([sys.executable, "-c", probe, str(folder), str(tmp_path / name / "out")],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
              for name, folder in (("plain", plain), ("explained", with_explainer))}
    loaded = {}
    for name, process in probes.items():
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        loaded[name] = out.strip().splitlines()[-1]
    assert loaded["plain"] == "[]"
    assert "altair" in loaded["explained"] and "vl_convert" in loaded["explained"]


def test_a_library_build_leaves_the_garbage_collector_as_it_found_it(small_site, tmp_path):
    import gc

    from site_builder.build import BuildOptions, build_site

    gc.unfreeze()
    for number in range(2):
        build_site(BuildOptions(content=small_site, output=tmp_path / f"out{number}", jobs=1))
        assert gc.get_freeze_count() == 0  # frozen objects are never collected: they would pile up


def test_a_level_one_heading_in_a_body_warns_and_fails_only_under_strict(tmp_path, cli):
    content = write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "First.", "Intro.\n\n# Alpha again\n\nText.\n"),
        "terms/beta.md": term("Beta", "Second.", "Prose.\n"),
    })
    warning = "terms/alpha.md:7: warning: level-1 heading 'Alpha again' makes a second <h1>"
    out = tmp_path / "out"
    for _ in range(2):  # the second build lays down the spare tree the fast path needs
        status, _, err = cli("build", "--content", content, "--output", out, "--quiet")
        assert status == 0 and warning in err, err
    # A prose edit elsewhere (the fast path's case) still reports it, and --strict still fails.
    beta = content / "terms" / "beta.md"
    beta.write_text(beta.read_text() + "More prose.\n")
    status, _, err = cli("build", "--content", content, "--output", out, "--quiet")
    assert status == 0 and warning in err, err
    status, _, err = cli("build", "--content", content, "--output", out, "--strict", "--quiet")
    assert status == 1 and warning in err, err
    status, _, err = cli("build", "--content", content, "--output", tmp_path / "strict", "--strict", "--quiet")
    assert status == 1 and not (tmp_path / "strict").exists()
