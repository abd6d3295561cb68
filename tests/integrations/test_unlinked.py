"""The linking lints: ``check --links-in --unlinked`` (first mentions not linked,
per page or section; glossary terms no file links to) and the glossary build's
orphan terms (``report_orphans``). Each reports exactly the seeded cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.errors import BuildFailed
from site_builder.integrations import published
from autolink_corpus import GLOSSARY
from glossary_site import term, write_tree

BASE = "https://example.org/glossary/"
DOCS = {
    "a.md": """\
# Page A

The model is here.

Then [[Model]] later.

A policy, linked on its line: [[Policy]].

`box` in code; ![box](https://example.com/b.png); [a box](https://example.com/).

<!--no-autolink-->Box is opted out.

~~~
decoding in a fence
~~~

## Part two

Model again, and decoding.
""",
    "b.md": f"""\
See the [speculative page]({BASE}speculative-decoding/).

Speculative decoding it is.
""",
}


@pytest.fixture(scope="module")
def glossary(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lints")
    content = write_tree(root / "content", GLOSSARY)
    build_site(BuildOptions(content=content, output=root / "out", base_url=BASE, jobs=1, cache=False))
    return root / "out"


@pytest.fixture(autouse=True)
def fresh_cache():
    published.clear_cache()
    yield
    published.clear_cache()


def slug_line(glossary: Path, slug: str) -> int:
    lines = (glossary / "glossary.json").read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.strip() == f'"slug": "{slug}",')


def unused(glossary: Path, *slugs: str) -> list[str]:
    titles = {"box": "Box", "decoding": "Decoding"}
    return [f"{glossary / 'glossary.json'}:{slug_line(glossary, slug)}: warning: glossary term '{titles[slug]}' "
            "is not linked from any checked file" for slug in slugs]


@pytest.mark.parametrize("unit, mentions", [
    ("page", [("a.md", 3, "Model", "model"), ("a.md", 19, "Decoding", "decoding")]),
    ("section", [("a.md", 3, "Model", "model"), ("a.md", 19, "Model", "Model"), ("a.md", 19, "Decoding", "decoding")]),
])
def test_unlinked_first_mentions_and_unused_terms_exactly(glossary, tmp_path, cli, monkeypatch, unit, mentions):
    write_tree(tmp_path / "docs", DOCS)
    monkeypatch.chdir(tmp_path)
    status, out, err = cli("check", "--links-in", "docs", "--glossary", glossary, "--unlinked", unit)
    assert status == 0, err
    assert err.splitlines() == [
        f"docs/{path}:{line}: warning: first mention of glossary term '{title}' in this {unit} is not linked: {written}"
        for path, line, title, written in mentions] + unused(glossary, "box", "decoding")
    status, _, err = cli("check", "--links-in", "docs", "--glossary", glossary, "--unlinked", unit, "--strict")
    assert status == 1 and err.splitlines()[-1] == f"error: {len(mentions) + 2} warning(s), errors under --strict"


def test_without_unlinked_nothing_is_linted(glossary, tmp_path, cli):
    docs = write_tree(tmp_path / "docs", DOCS)
    status, out, err = cli("check", "--links-in", docs, "--glossary", glossary, "--strict")
    assert status == 0 and err == "" and "no problems" in out


ORPHANS = {
    **GLOSSARY,
    "terms/lonely.md": term("Lonely", "Nobody links here.", "Links to [[model]]."),
    "terms/selfish.md": term("Selfish", "Links only to itself.", "See [[Selfish]] and [[box]]."),
    "terms/linked.md": term("Linked", "Linked from a body only.", "Nothing."),
    "terms/box.md": term("Box", "A container.", "Holds a policy; see [[linked]].", related=["policy", "speculative-decoding"]),
}


def test_the_glossary_build_reports_exactly_the_orphans(tmp_path):
    content = write_tree(tmp_path / "content", {**ORPHANS, "site.toml": "report_orphans = true\n"})
    report = build_site(BuildOptions(content=content, output=tmp_path / "out", jobs=1, cache=False))
    assert [str(p) for p in report.warnings] == [
        f"{content / 'terms/lonely.md'}:2: warning: orphan term 'Lonely': no other term links to it or lists it as related",
        f"{content / 'terms/selfish.md'}:2: warning: orphan term 'Selfish': no other term links to it or lists it as related",
    ]
    with pytest.raises(BuildFailed):
        build_site(BuildOptions(content=content, output=tmp_path / "strict", jobs=1, cache=False, strict=True))
    assert not (tmp_path / "strict").exists()
    off = write_tree(tmp_path / "off", ORPHANS)
    assert build_site(BuildOptions(content=off, output=tmp_path / "out2", jobs=1, cache=False)).warnings == []


def test_the_fast_path_reports_a_new_orphan(tmp_path):
    content = write_tree(tmp_path / "content", {**ORPHANS, "site.toml": "report_orphans = true\n"})
    output = tmp_path / "out"
    for _ in range(2):
        build_site(BuildOptions(content=content, output=output, jobs=1))
    box = content / "terms/box.md"
    box.write_text(box.read_text().replace("see [[linked]]", "see nothing"))
    log: list[str] = []
    report = build_site(BuildOptions(content=content, output=output, jobs=1), log.append)
    assert any("fast path" in line for line in log)
    assert sum("orphan term 'Linked'" in str(p) for p in report.warnings) == 1
