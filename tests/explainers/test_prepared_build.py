"""A fresh build of the explainer: what its prepare step starts, and the
preview image made only when the site makes previews.

The prepare step starts every chart's conversions before the markup stage
(``page_charts.start``); the build step takes them, and the release forgets
them, so a later build in the same process (``serve``) starts afresh, and a
failed build leaves nothing started behind. The explainer's own preview PNG is
drawn only when the site makes previews (``ExplainerContext.previews``), and
the explainer's cache key says which, so turning previews on rebuilds it.
"""

from __future__ import annotations

import hashlib
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers import REPO
from site_builder.build import BuildOptions, build_site
from site_builder.errors import BuildFailed
from site_builder.explainers import base, vega
from site_builder.explainers import speculative_decoding as sd
from site_builder.explainers.speculative_decoding import page, page_charts

PAGE = "speculative-decoding"


def _ctx(previews: bool) -> base.ExplainerContext:
    def add(name: str, blob: bytes) -> str:
        stem, ext = name.rsplit(".", 1)
        return f"assets/{stem}.{hashlib.sha256(blob).hexdigest()[:10]}.{ext}"

    return base.ExplainerContext(slug=PAGE, root="../", add_asset=add, previews=previews)


def test_the_build_step_takes_what_prepare_started_and_the_release_forgets_it(monkeypatch):
    release = sd.prepare(1)  # one core: no workers, the conversions run here and now
    try:
        assert page_charts._STARTED is not None, "prepare started nothing"
        started = page_charts._STARTED

        def again():
            raise AssertionError("the build step started the charts a second time")

        monkeypatch.setattr(page_charts, "begin", again)
        first = page.build(_ctx(False))
        second = page.build(_ctx(False))  # a second term naming the explainer: the same charts
        assert page_charts._STARTED is started
        assert first.files == second.files and first.html == second.html
    finally:
        release()
    assert page_charts._STARTED is None and vega._WORKERS is None
    monkeypatch.undo()
    fresh = page.build(_ctx(False))  # nothing started: the build step starts its own
    assert fresh.files == first.files and fresh.html == first.html


def test_no_preview_image_unless_the_site_makes_previews():
    without, with_preview = page.build(_ctx(False)), page.build(_ctx(True))
    assert without.preview_png is None
    assert with_preview.preview_png[:8] == b"\x89PNG\r\n\x1a\n"
    assert without.files == with_preview.files and without.html == with_preview.html


class _Meta(HTMLParser):
    def __init__(self):
        super().__init__()
        self.meta: dict[str, str] = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and ("property" in a or "name" in a):
            self.meta[a.get("property") or a["name"]] = a.get("content", "")


def _meta(output: Path) -> dict[str, str]:
    parser = _Meta()
    parser.feed((output / PAGE / "index.html").read_text(encoding="utf-8"))
    return parser.meta


def test_the_explainer_preview_follows_base_url_through_the_cache(tmp_path):
    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    output = tmp_path / "output"
    base_url = "https://example.org/glossary/"

    def build(url: str | None) -> list[str]:
        lines: list[str] = []
        build_site(BuildOptions(content=content, output=output, base_url=url), log=lines.append)
        return [line.split()[0] for line in lines]

    assert "prepare" in build(None)
    assert not (output / PAGE / "preview.png").exists()
    assert "og:image" not in _meta(output) and _meta(output)["twitter:card"] == "summary"

    # Previews on: the cached build, drawn without one, is not reused.
    assert "prepare" in build(base_url)
    png = (output / PAGE / "preview.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert _meta(output)["og:image"] == f"{base_url}{PAGE}/preview.png"

    # Off again: the first build's entry serves, and the image goes.
    assert "prepare" not in build(None)
    assert not (output / PAGE / "preview.png").exists()
    assert "prepare" not in build(base_url)
    assert (output / PAGE / "preview.png").read_bytes() == png


def test_a_failed_build_leaves_nothing_started(tmp_path):
    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    broken = content / "terms" / "model.md"
    broken.write_text(broken.read_text(encoding="utf-8") + "\nSee [[No such term]].\n", encoding="utf-8")
    lines: list[str] = []
    with pytest.raises(BuildFailed):
        build_site(BuildOptions(content=content, output=tmp_path / "output", jobs=2), log=lines.append)
    assert any(line.split()[0] == "prepare" for line in lines), "the build failed before its prepare stage"
    assert page_charts._STARTED is None and vega._WORKERS is None


def test_a_fresh_explainer_build_indexes_search_while_its_charts_convert(tmp_path):
    """With the explainer to build afresh, the search stage comes before the
    explainers stage (it needs nothing from it, and the explainers stage mostly waits
    for the converter); otherwise inside the render stage (made while the page
    workers render: its line comes before the render stage's). Either way the
    same search files."""
    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)

    def build(output: Path, *cache: bool) -> list[str]:
        lines: list[str] = []
        build_site(BuildOptions(content=content, output=output, cache=bool(cache)), log=lines.append)
        return [line.split()[0] for line in lines]

    cold = build(tmp_path / "a", True)
    assert cold.index("prepare") < cold.index("search") < cold.index("explainers") < cold.index("render"), cold
    # a new term: a full build, with the explainer's build cached (no wait to fill)
    (content / "terms" / "zz-extra.md").write_text("---\ntitle: Zz extra\nsummary: One more term.\n---\nA body.\n", encoding="utf-8")
    warm = build(tmp_path / "a", True)
    assert "prepare" not in warm and warm.index("explainers") < warm.index("search") < warm.index("render"), warm
    again = build(tmp_path / "b")  # no cache: the explainer fresh again, the same terms
    assert again.index("search") < again.index("explainers")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a" / "search").rglob("*") if p.is_file())
    assert files and all((tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files)
