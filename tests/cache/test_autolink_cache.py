"""With autolinks every body depends on the names it mentions: the body cache keys
follow that (``cache.bodies.mentions_material``). Renaming a term renders again
exactly the bodies that mention its old or new name, and the site is byte-identical
to a clean build; the edit fast path agrees."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.cache import bodies as body_cache
from helpers import manifest, term, write_tree

BODIES = {
    "model": ("Model", "A model is trained; see [[decoding]].", ["decoding"]),
    "decoding": ("Decoding", "Speculative decoding is one way; a box of tokens.", ["model"]),
    "speculative-decoding": ("Speculative decoding", "Drafts with a small model.", ["decoding"]),
    "box": ("Box", "Holds tokens; see [[decoding]].", ["decoding"]),
    "token": ("Token", "A piece of text; decoding makes them.", ["box"]),
    "plain": ("Plain", "Nothing to link here at all.", ["token"]),
}


def content(root: Path, bodies: dict = BODIES) -> Path:
    files = {f"terms/{slug}.md": term(title, f"Summary of {title}.", body + "\n", related=related)
             for slug, (title, body, related) in bodies.items()}
    files["site.toml"] = 'title = "Autolink cache"\nautolink = "first"\n'
    return write_tree(root, files)


@pytest.fixture
def rendered(monkeypatch) -> list[str]:
    """The slugs of the bodies the markup stage renders (not taken from the cache)."""
    seen: list[str] = []
    real = body_cache.render_bodies

    def spy(terms, *args, **kwargs):
        seen.extend(t.slug for t in terms)
        return real(terms, *args, **kwargs)
    monkeypatch.setattr(body_cache, "render_bodies", spy)
    return seen


def build(root: Path, output: Path) -> list[str]:
    log: list[str] = []
    build_site(BuildOptions(content=root, output=output, jobs=1), log.append)
    return log


def assert_same_as_clean(root: Path, output: Path, tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    shutil.rmtree(clean, ignore_errors=True)
    build_site(BuildOptions(content=root, output=clean, cache=False, jobs=1))
    assert manifest(output) == manifest(clean)


def test_renaming_a_term_renders_again_exactly_the_bodies_that_mention_it(tmp_path, rendered):
    root, output = content(tmp_path / "content"), tmp_path / "out"
    build(root, output)
    assert sorted(rendered) == sorted(BODIES)
    rendered.clear()
    # Box becomes Crate (slug and all; the old slug stays an alias, as docs/content.md says).
    (root / "terms/box.md").unlink()
    write_tree(root, {"terms/crate.md": term("Crate", "Summary of Box.", "Holds tokens; see [[decoding]].\n",
                                             aliases=["box"], related=["decoding"])})
    (root / "terms/token.md").write_text(term("Token", "Summary of Token.", "A piece of text; decoding makes them.\n",
                                              related=["crate"]))
    build(root, output)
    # Its own body, and Decoding's, which mentions "box"; no other.
    assert sorted(rendered) == ["crate", "decoding"]
    assert 'data-term="crate" href="../crate/index.html">box</a>' in (output / "decoding/index.html").read_text()
    assert_same_as_clean(root, output, tmp_path)


def test_a_new_title_relinks_the_bodies_that_now_mention_it(tmp_path, rendered):
    root, output = content(tmp_path / "content"), tmp_path / "out"
    build(root, output)
    rendered.clear()
    path = root / "terms/plain.md"
    path.write_text(path.read_text().replace("title: Plain", "title: Text"))
    build(root, output)
    assert rendered == ["token"]  # Token's body says "text"; Plain's own mentions neither name
    assert 'data-term="plain"' in (output / "token/index.html").read_text()
    assert_same_as_clean(root, output, tmp_path)


def test_fast_path_body_edit_with_a_new_mention(tmp_path):
    root, output = content(tmp_path / "content"), tmp_path / "out"
    build(root, output)
    build(root, output)
    path = root / "terms/plain.md"
    path.write_text(path.read_text().replace("Nothing to link here at all.", "Nothing but a token here."))
    log = build(root, output)
    assert any("fast path" in line for line in log)
    assert 'data-term="token"' in (output / "plain/index.html").read_text()
    assert 'href="../plain/index.html"' in (output / "token/index.html").read_text()  # its backlinks
    assert_same_as_clean(root, output, tmp_path)


def test_a_changed_usage_file_updates_used_in_even_when_only_a_body_changed(tmp_path):
    root, output = content(tmp_path / "content"), tmp_path / "out"
    (root / "site.toml").write_text('autolink = "first"\nusage_files = ["usage.json"]\n')
    def usage(title: str) -> None:
        page = {"title": title, "url": "https://docs.example.com/guide/"}
        (root / "usage.json").write_text(json.dumps({"version": 1, "site": {"name": "Docs", "url": "https://docs.example.com/"},
                                                     "terms": {"box": [page]}}))
    usage("Guide")
    build(root, output)
    build(root, output)
    usage("Renamed guide")
    path = root / "terms/plain.md"
    path.write_text(path.read_text().replace("at all", "at all, really"))
    build(root, output)
    assert ">Renamed guide</a>" in (output / "box/index.html").read_text()
    assert_same_as_clean(root, output, tmp_path)
