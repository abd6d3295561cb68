"""``check --links-in DOCS --glossary PATH_OR_URL``: another site's links into the glossary."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder.integrations import published
from glossary_site import BASE, build_glossary, write_tree

DOCS = {
    "index.md": """# Docs

Good: [[Speculative decoding]], [[LLMs|models]], [[Inference#two-phases-prefill-and-decode]].
Bad: [[Nonexistent]] and [[Inference#nowhere]].

Links: [ok](https://example.org/glossary/inference/#two-phases-prefill-and-decode),
[old slug](https://example.org/glossary/llm/) [gone](https://example.org/glossary/gone/)
""",
    "guide/deep.markdown": """Intro.

```
[[Not checked in code]]
```

`[[nor in a code span]]` but [[Model#missing]] is.

[ref]: https://example.org/glossary/llm/#parameters
[ok2]: https://example.org/glossary/model/index.html
[elsewhere]: https://other.example/gone/
""",
    "notes.txt": "[[Not markdown]]",
}


@pytest.fixture(scope="module")
def glossary(tmp_path_factory) -> Path:
    return build_glossary(tmp_path_factory.mktemp("checked"))


@pytest.fixture(autouse=True)
def fresh_cache():
    published.clear_cache()
    yield
    published.clear_cache()


def test_reports_every_broken_link_with_path_and_line(glossary: Path, tmp_path: Path, cli, monkeypatch):
    docs = write_tree(tmp_path / "docs", DOCS)
    monkeypatch.chdir(tmp_path)
    status, _, err = cli("check", "--links-in", "docs", "--glossary", glossary / "glossary.json")
    assert status == 1
    lines = err.strip().splitlines()
    assert lines[:-1] == [
        "docs/guide/deep.markdown:7: glossary entry 'Model' has no anchor '#missing': [[Model#missing]]",
        f"docs/guide/deep.markdown:9: link to an old glossary address whose redirect drops '#parameters': {BASE}llm/#parameters (use {BASE}model/#parameters)",
        "docs/index.md:4: unknown glossary term [[Nonexistent]]",
        "docs/index.md:4: glossary entry 'Inference' has no anchor '#nowhere': [[Inference#nowhere]]",
        f"docs/index.md:7: link to a missing glossary page: {BASE}gone/",
    ]
    assert lines[-1] == "error: 5 broken glossary link(s) in 2 file(s)"
    assert docs.exists()


def test_clean_docs_pass(glossary: Path, tmp_path: Path, cli):
    docs = write_tree(tmp_path / "docs", {"a.md": "See [[Model]] and [[LLM inference]].\n"})
    status, out, err = cli("check", "--links-in", docs, "--glossary", glossary)
    assert status == 0, err
    assert "Checked 2 glossary link(s) in 1 file(s)" in out


def test_needs_a_glossary(tmp_path: Path, cli):
    with pytest.raises(SystemExit) as exit_info:
        cli("check", "--links-in", tmp_path)
    assert exit_info.value.code == 2


@pytest.mark.parametrize("extra", [["--strict"], ["--base-url", "https://x.example/"], ["--content", "elsewhere"],
                                   ["--content", "content"], ["--content", "./content/"]])
def test_options_that_do_not_apply_to_links_in_are_refused(tmp_path: Path, cli, capsys, extra):
    with pytest.raises(SystemExit) as exit_info:
        cli("check", "--links-in", tmp_path, "--glossary", tmp_path / "g.json", *extra)
    assert exit_info.value.code == 2 and "do not apply" in capsys.readouterr().err


def test_a_glossary_without_links_in_is_refused(tmp_path: Path, cli, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli("check", "--glossary", tmp_path / "g.json")
    assert exit_info.value.code == 2 and "--links-in" in capsys.readouterr().err


def test_unreadable_glossary_is_one_clear_error(tmp_path: Path, cli):
    docs = write_tree(tmp_path / "docs", {"a.md": "See [[Model]].\n"})
    status, _, err = cli("check", "--links-in", docs, "--glossary", tmp_path / "missing.json")
    assert status == 1 and err.startswith("error: cannot read")


def test_links_to_any_file_the_glossary_publishes_pass(glossary: Path, tmp_path: Path, cli):
    # sitemap.xml, 404.html, assets/, embed/, <slug>/preview.png...: glossary.json
    # lists none of them, and none of them is a broken link.
    published_files = sorted(p.relative_to(glossary).as_posix() for p in glossary.rglob("*")
                             if p.is_file() and not p.name.startswith("."))
    assert {"sitemap.xml", "404.html", "embed/glossary-cards.js"} <= set(published_files)
    assert any(name.startswith("assets/") for name in published_files)
    links = "".join(f"[f{i}]: {BASE}{name}\n" for i, name in enumerate(published_files))
    # ...while links to files that do not exist are still reported.
    broken = ["gone/preview.png", "model.html", "glossary.jsn", "model/typo/index.html", "model/nope.html",
              "llm/preview.png", "embed/cards.js"]
    docs = write_tree(tmp_path / "docs", {"a.md": links + "".join(f"\n[x{i}]: {BASE}{b}" for i, b in enumerate(broken))})
    status, _, err = cli("check", "--links-in", docs, "--glossary", glossary / "glossary.json")
    assert status == 1
    first = len(published_files) + 2
    kinds = ["page" if b in ("gone/preview.png", "model.html", "glossary.jsn") else "file" for b in broken]
    assert err.strip().splitlines()[:-1] == [
        f"{docs / 'a.md'}:{first + i}: link to a missing glossary {kind}: {BASE}{b}"
        for i, (b, kind) in enumerate(zip(broken, kinds))]


def test_a_local_glossary_without_base_url_says_what_it_cannot_check(tmp_path: Path, cli):
    relative = build_glossary(tmp_path / "relative", base_url=None)
    docs = write_tree(tmp_path / "docs", {"a.md": "See [[Model]] and [gone](https://example.org/glossary/gone/).\n"})
    status, _, err = cli("check", "--links-in", docs, "--glossary", relative)
    assert status == 0
    assert "built without base_url" in err and "only [[...]] links" in err
    with_base = build_glossary(tmp_path / "absolute")
    status, _, err = cli("check", "--links-in", docs, "--glossary", with_base)
    assert status == 1 and "base_url" not in err and "link to a missing glossary page" in err
