"""The Python-Markdown extension against a glossary.json from a real build,
read from a file, a folder and over HTTP from 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import json
import logging
import threading
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest

from site_builder.integrations import published
from site_builder.integrations.mdext import GlossaryLinkError, GlossaryLinkExtension
from glossary_site import BASE, EVIL_SUMMARY, build_glossary
from helpers import REPO


@pytest.fixture(scope="module")
def glossary_dir(tmp_path_factory) -> Path:
    return build_glossary(tmp_path_factory.mktemp("mdext"))


@pytest.fixture(autouse=True)
def fresh_cache():
    published.clear_cache()
    yield
    published.clear_cache()


class Anchors(HTMLParser):
    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[dict, str]] = []
        self._open: dict | None = None
        self._text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._open, self._text = dict(attrs), []

    def handle_data(self, data):
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "a" and self._open is not None:
            self.found.append((self._open, "".join(self._text)))
            self._open = None


def render(text: str, **config) -> str:
    return markdown.Markdown(extensions=[GlossaryLinkExtension(**config)]).convert(text)


def test_links_with_summary_as_title(glossary_dir: Path):
    html = render("Read about [[speculative decoding]].", glossary=str(glossary_dir / "glossary.json"))
    [(attrs, text)] = Anchors(html).found
    assert attrs == {"href": BASE + "speculative-decoding/", "title": "A draft model guesses tokens; the target model checks them.",
                     "class": "glossary-term", "data-term": "speculative-decoding"}
    assert text == "speculative decoding"


@pytest.mark.parametrize("written, slug, text", [
    ("[[Speculative decoding|the text]]", "speculative-decoding", "the text"),
    ("[[SPECULATIVE DECODING]]", "speculative-decoding", "SPECULATIVE DECODING"),
    ("[[LLMs]]", "model", "LLMs"),                      # alias, plural
    ("[[language models|models]]", "model", "models"),   # alias, plural, own text
    ("[[speculative sampling]]", "speculative-decoding", "speculative sampling"),
    ("[[inference]]", "inference", "inference"),
])
def test_names_resolve_like_the_glossary(glossary_dir: Path, written, slug, text):
    [(attrs, shown)] = Anchors(render(written, glossary=str(glossary_dir))).found
    assert attrs["href"] == f"{BASE}{slug}/" and shown == text


def test_anchor_links(glossary_dir: Path):
    [(attrs, text)] = Anchors(render("[[Inference#two-phases-prefill-and-decode]]", glossary=str(glossary_dir))).found
    assert attrs["href"] == BASE + "inference/#two-phases-prefill-and-decode" and text == "Inference"


def test_unknown_term_or_anchor_warns_and_stays_as_written(glossary_dir: Path, caplog):
    with caplog.at_level(logging.WARNING, logger="site_builder.integrations.mdext"):
        html = render("A [[Nonexistent thing]] and [[Inference#nowhere]].", glossary=str(glossary_dir))
    assert "<a" not in html and "[[Nonexistent thing]]" in html and "[[Inference#nowhere]]" in html
    messages = [r.getMessage() for r in caplog.records]
    assert any("[[Nonexistent thing]]" in m for m in messages)
    assert any("no anchor '#nowhere'" in m for m in messages)


def test_strict_mode_raises(glossary_dir: Path):
    with pytest.raises(GlossaryLinkError, match=r"\[\[Nonexistent\]\]"):
        render("[[Nonexistent]]", glossary=str(glossary_dir), strict=True)
    with pytest.raises(GlossaryLinkError, match="nowhere"):
        render("[[Inference#nowhere]]", glossary=str(glossary_dir), strict=True)


def test_code_is_left_alone(glossary_dir: Path):
    html = render("`[[Inference]]`\n\n```\n[[Model]]\n```\n", glossary=str(glossary_dir), strict=True)
    assert "<a" not in html and "[[Inference]]" in html and "[[Model]]" in html


@pytest.mark.parametrize("base_url", ["https://mirror.example/g/", "https://mirror.example/g", " https://mirror.example/g// "])
def test_base_url_option_overrides_where_links_point(glossary_dir: Path, base_url: str):
    # Without its trailing slash, urljoin would drop "g" and point outside the glossary.
    [(attrs, _)] = Anchors(render("[[Model]]", glossary=str(glossary_dir), base_url=base_url)).found
    assert attrs["href"] == "https://mirror.example/g/model/"


def test_title_option_off_leaves_no_title(glossary_dir: Path):
    # For pages with hover cards: the browser's tooltip would open on top of the card.
    [(attrs, _)] = Anchors(render("[[Model]]", glossary=str(glossary_dir), title=False)).found
    assert "title" not in attrs and attrs["href"] == BASE + "model/" and attrs["data-term"] == "model"


def test_hostile_summary_is_an_escaped_attribute(glossary_dir: Path):
    html = render("[[evil]]", glossary=str(glossary_dir))
    assert "<img" not in html and "</script>" not in html
    [(attrs, text)] = Anchors(html).found
    assert attrs["title"] == EVIL_SUMMARY and text == "evil"


def test_by_module_name_and_short_alias(glossary_dir: Path):
    for name in ("site_builder.integrations.mdext", "site_builder.markdown_ext"):
        md = markdown.Markdown(extensions=[name], extension_configs={name: {"glossary": str(glossary_dir)}})
        assert f'href="{BASE}model/"' in md.convert("[[model]]")


def test_unsupported_version_is_refused(tmp_path: Path):
    path = tmp_path / "glossary.json"
    path.write_text(json.dumps({"version": 2, "terms": []}))
    with pytest.raises(published.GlossaryLoadError, match="version 2"):
        render("[[x]]", glossary=str(path))


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self):
        type(self).requests.append(self.path)
        super().do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def served(tmp_path_factory):
    """A relative (no base_url) glossary served on 127.0.0.1; yields (url, request log)."""
    root = build_glossary(tmp_path_factory.mktemp("served"), base_url=None)
    handler = type("Handler", (_CountingHandler,), {"requests": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", handler.requests
    server.shutdown()
    server.server_close()


def test_loads_over_http_once_per_process(served):
    root, requests = served
    first = render("[[Model]]", glossary=root + "glossary.json")
    second = render("[[Inference]]", glossary=root + "glossary.json")
    assert f'href="{root}model/"' in first and f'href="{root}inference/"' in second  # where it was loaded from
    assert requests == ["/glossary.json"]


def test_unreachable_glossary_is_a_clear_error():
    with pytest.raises(published.GlossaryLoadError, match="cannot read http://127.0.0.1:9/glossary.json"):
        render("[[x]]", glossary="http://127.0.0.1:9/")


def test_a_glossary_that_failed_to_load_is_not_fetched_again_per_page(served, monkeypatch):
    root, requests = served
    for _ in range(3):  # three pages of one docs build
        with pytest.raises(published.GlossaryLoadError, match="cannot read .*/missing.json"):
            render("[[Model]]", glossary=root + "missing.json")
    assert requests == ["/missing.json"]
    # A long-running `mkdocs serve` tries again once RETRY_AFTER has passed...
    now = published.time.monotonic()
    monkeypatch.setattr(published.time, "monotonic", lambda: now + published.RETRY_AFTER + 1)
    with pytest.raises(published.GlossaryLoadError):
        render("[[Model]]", glossary=root + "missing.json")
    assert requests == ["/missing.json"] * 2
    published.clear_cache()  # ...or at once after clear_cache()
    with pytest.raises(published.GlossaryLoadError):
        render("[[Model]]", glossary=root + "missing.json")
    assert requests == ["/missing.json"] * 3


def _mkdocs_site(root: Path, glossary: Path, page: str) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text(page, encoding="utf-8")
    (root / "mkdocs.yml").write_text(
        "site_name: Consumer\n"
        "markdown_extensions:\n"
        "  - site_builder.integrations.mdext:\n"
        f"      glossary: {json.dumps(str(glossary / 'glossary.json'))}\n"
        "      strict: true\n", encoding="utf-8")
    return root


def test_mkdocs_site_with_the_extension(glossary_dir: Path, tmp_path: Path):
    import os

    try:
        import mkdocs  # noqa: F401  (in the test extra)
    except ImportError:
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail("mkdocs (test extra) is missing under CI")
        pytest.skip("mkdocs is not installed: pip install -e '.[test]'")
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    good = _mkdocs_site(tmp_path / "good", glossary_dir, "Uses [[Speculative decoding]] and [[LLMs|models]].\n")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "--strict"], cwd=good,
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    found = Anchors((good / "site" / "index.html").read_text()).found
    hrefs = {attrs["href"]: text for attrs, text in found if attrs.get("class") == "glossary-term"}
    assert hrefs == {BASE + "speculative-decoding/": "Speculative decoding", BASE + "model/": "models"}
    bad = _mkdocs_site(tmp_path / "bad", glossary_dir, "Uses [[Nonexistent]].\n")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q"], cwd=bad,
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode != 0 and "[[Nonexistent]]" in result.stderr
