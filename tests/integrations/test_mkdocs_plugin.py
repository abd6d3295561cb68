"""The MkDocs plugin (``plugins: [glossary]``) in real ``mkdocs build`` runs, with
the plain ``mkdocs`` theme and mkdocs-material, against a glossary.json from a
real build: warnings MkDocs counts (``--strict``), ``strict: true``, the hover
cards' files and data, one read of the glossary per build, ``mkdocs serve``."""

from __future__ import annotations

import functools
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest

from glossary_site import BASE, EVIL_SUMMARY, EVIL_TITLE, build_glossary, term
from mkdocs_site import ENV, mkdocs_build, mkdocs_site

THEMES = ["mkdocs", "material"]
GOOD = "# Home\n\nUses [[Speculative decoding]] and [[LLMs|models]].\n"
BAD = "---\ntitle: Home\n---\n# Home\n\nUses [[Speculative decoding]].\n\nBut [[Nonexistent]] is not one.\n"
"""Front matter first: MkDocs cuts it off before the plugin sees the page, and the
line reported must still be the file's (8)."""


def _need_mkdocs_and_material() -> None:
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
    except ImportError as exc:  # the test extra installs both
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"{exc.name} (test extra) is missing under CI")
        pytest.skip(f"{exc.name} is not installed: pip install -e '.[test]'")


_need_mkdocs_and_material()


@pytest.fixture(scope="module")
def glossary_dir(tmp_path_factory) -> Path:
    return build_glossary(tmp_path_factory.mktemp("plugin"))


class Tags(HTMLParser):
    """Every start tag's attributes, and each glossary link's text."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.links: list[tuple[dict, str]] = []
        self.data_blocks: list[str] = []
        self._link: dict | None = None
        self._text: list[str] = []
        self._in_data = False
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "a" and "data-term" in attrs:
            self._link, self._text = attrs, []
        self._in_data = tag == "script" and attrs.get("id") == "glossary-cards-data"

    def handle_data(self, data):
        if self._link is not None:
            self._text.append(data)
        if self._in_data:
            self.data_blocks.append(data)

    def handle_endtag(self, tag):
        if tag == "a" and self._link is not None:
            self.links.append((self._link, "".join(self._text)))
            self._link = None
        self._in_data = False


def _static(name: str) -> bytes:
    return resources.files("site_builder").joinpath("static", name).read_bytes()


@pytest.mark.parametrize("theme", THEMES)
def test_strict_build_fails_on_an_unknown_term_naming_page_and_line_and_passes_when_fixed(glossary_dir, tmp_path, theme):
    site = mkdocs_site(tmp_path, glossary_dir / "glossary.json", {"index.md": BAD, "guide/deep.md": GOOD}, theme=theme)
    result = mkdocs_build(site, "--strict")
    assert result.returncode != 0
    warnings = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    assert warnings == [f"WARNING -  glossary: index.md:8: unknown glossary term [[Nonexistent]] (not in {glossary_dir / 'glossary.json'})"]
    assert "Aborted with 1 warnings in strict mode!" in result.stdout  # click prints it there
    assert "Traceback" not in result.stderr + result.stdout
    (site / "docs" / "index.md").write_text(BAD.replace("[[Nonexistent]]", "[[Inference]]"), encoding="utf-8")
    result = mkdocs_build(site, "--strict")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr


@pytest.mark.parametrize("theme", THEMES)
def test_links_cards_script_stylesheet_and_data_in_the_built_html(glossary_dir, tmp_path, theme):
    site = mkdocs_site(tmp_path, glossary_dir, {"index.md": GOOD + "\nAnd [[evil]].\n", "plain.md": "# No links\n"}, theme=theme)
    result = mkdocs_build(site, "--strict")
    assert result.returncode == 0, result.stderr
    page = Tags((site / "site" / "index.html").read_text(encoding="utf-8"))
    assert [(a["href"], text) for a, text in page.links] == [
        (BASE + "speculative-decoding/", "Speculative decoding"), (BASE + "model/", "models"), (BASE + "evil/", "evil")]
    for attrs, _ in page.links:
        # No title: the browser's tooltip would open on top of the card.
        assert "title" not in attrs and attrs["class"].split() == ["glossary-term", "term-link"]
    scripts = [a["src"] for tag, a in page.tags if tag == "script" and "src" in a]
    sheets = [a["href"] for tag, a in page.tags if tag == "link" and a.get("rel") == "stylesheet"]
    assert scripts.count("assets/glossary/glossary-cards.js") == 1
    assert sheets.count("assets/glossary/glossary-cards.css") == 1
    assert (site / "site/assets/glossary/glossary-cards.js").read_bytes() == _static("glossary-cards.js")
    assert (site / "site/assets/glossary/glossary-cards.css").read_bytes() == _static("glossary-cards.css")
    [block] = page.data_blocks
    assert "</script" not in block.lower() and "<img" not in block  # the hostile summary stays inert
    assert json.loads(block) == {"evil": [EVIL_TITLE, EVIL_SUMMARY],
                                 "model": ["Model", "The trained artifact, a set of learned parameters."],
                                 "speculative-decoding": ["Speculative decoding", "A draft model guesses tokens; the target model checks them."]}
    plain = Tags((site / "site" / "plain" / "index.html").read_text(encoding="utf-8"))
    assert plain.data_blocks == []  # no links, no data
    assert "../assets/glossary/glossary-cards.js" in [a.get("src") for tag, a in plain.tags if tag == "script"]


def test_without_strict_problems_are_warnings_and_stay_as_written(glossary_dir, tmp_path):
    pages = {"index.md": GOOD, "guide/deep.md": "---\ntags: [x]\n---\n\n[[Inference#nowhere]] and `[[in code]]`\n\n```\n[[Fenced]]\n```\n\n[[Nonexistent]] twice: [[Nonexistent]]\n"}
    site = mkdocs_site(tmp_path, glossary_dir, pages)
    result = mkdocs_build(site)
    assert result.returncode == 0, result.stderr
    warnings = [line.split("glossary: ", 1)[1] for line in result.stderr.splitlines() if line.startswith("WARNING")]
    source = glossary_dir / "glossary.json"
    assert warnings == ["guide/deep.md:5: glossary entry 'Inference' has no anchor '#nowhere': [[Inference#nowhere]]",
                        f"guide/deep.md:11: unknown glossary term [[Nonexistent]] (not in {source})",
                        f"guide/deep.md:11: unknown glossary term [[Nonexistent]] (not in {source})"]
    html = (site / "site" / "guide" / "deep" / "index.html").read_text(encoding="utf-8")
    assert "[[Inference#nowhere]]" in html and "[[Nonexistent]]" in html and "data-term" not in html


@pytest.mark.parametrize("theme", THEMES)
def test_strict_option_stops_the_build_after_every_problem_is_reported(glossary_dir, tmp_path, theme):
    pages = {"a.md": "[[Nonexistent]]\n", "b.md": "Fine [[Model]].\n\n[[Model#nowhere]]\n"}
    site = mkdocs_site(tmp_path, glossary_dir, pages, theme=theme, strict=True)
    result = mkdocs_build(site)  # no --strict: the plugin's own option stops it
    assert result.returncode != 0
    assert "WARNING -  glossary: a.md:1: unknown glossary term [[Nonexistent]]" in result.stderr
    assert "WARNING -  glossary: b.md:3: glossary entry 'Model' has no anchor '#nowhere': [[Model#nowhere]]" in result.stderr
    assert "ERROR   -  glossary: 2 broken glossary link(s) (strict: true)" in result.stderr
    assert "Aborted with a BuildError!" in result.stdout and "Traceback" not in result.stderr + result.stdout
    assert not (site / "site" / "a" / "index.html").exists()


def test_cards_off_keeps_the_title_and_adds_nothing(glossary_dir, tmp_path):
    site = mkdocs_site(tmp_path, glossary_dir, {"index.md": GOOD}, cards=False, css_class="gl")
    assert mkdocs_build(site, "--strict").returncode == 0
    page = Tags((site / "site" / "index.html").read_text(encoding="utf-8"))
    assert [(a["class"], a["title"]) for a, _ in page.links][0] == ("gl", "A draft model guesses tokens; the target model checks them.")
    assert page.data_blocks == [] and not (site / "site" / "assets" / "glossary").exists()
    assert not any("glossary-cards" in (a.get("src", "") + a.get("href", "")) for _, a in page.tags)


def test_base_url_option_and_a_relative_glossary_read_from_beside_mkdocs_yml(glossary_dir, tmp_path):
    import shutil

    shutil.copytree(glossary_dir, tmp_path / "site" / "glossary-copy")
    site = mkdocs_site(tmp_path / "site", "glossary-copy/glossary.json", {"index.md": "[[Model]]\n"},
                       base_url="https://mirror.example/g")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = mkdocs_build(site, "--strict", cwd=elsewhere)  # mkdocs -f .../mkdocs.yml from another folder
    assert result.returncode == 0, result.stderr
    [(attrs, _)] = Tags((site / "site" / "index.html").read_text(encoding="utf-8")).links
    assert attrs["href"] == "https://mirror.example/g/model/"


@pytest.mark.parametrize("location", ["missing/glossary.json", "http://127.0.0.1:9/glossary.json", ""])
def test_a_glossary_that_cannot_be_read_is_one_error_without_traceback(tmp_path, location):
    site = mkdocs_site(tmp_path, location, {"index.md": GOOD})
    result = mkdocs_build(site)
    assert result.returncode != 0 and "Traceback" not in result.stderr + result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("ERROR")]
    expected = "needs the 'glossary' option" if not location else "cannot read"
    assert len(errors) == 1 and errors[0].startswith("ERROR   -  glossary: ") and expected in errors[0], result.stderr


class _Counting(http.server.SimpleHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self):
        type(self).requests.append(self.path)
        super().do_GET()

    def log_message(self, *args):
        pass


def test_the_glossary_is_read_once_per_build(glossary_dir, tmp_path):
    handler = type("Handler", (_Counting,), {"requests": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(glossary_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/glossary.json"
        pages = {f"p{i}.md": f"[[Model]] and [[Inference]] on page {i}.\n" for i in range(5)}
        site = mkdocs_site(tmp_path, url, pages)
        for builds in (1, 2):
            assert mkdocs_build(site, "--strict").returncode == 0
            assert handler.requests == ["/glossary.json"] * builds  # five pages, one read
    finally:
        server.shutdown()
        server.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode("utf-8")


def _wait_for(predicate, what: str, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except OSError:
            pass
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def test_mkdocs_serve_rereads_the_glossary_on_each_rebuild(tmp_path):
    # A term published while `mkdocs serve` runs resolves on the next rebuild:
    # the plugin reads the glossary per build, not once per process.
    glossary = build_glossary(tmp_path / "g1")
    newer = build_glossary(tmp_path / "g2", extra={"terms/latency.md": term("Latency", "Time to the first token.")})
    site = mkdocs_site(tmp_path / "site", glossary / "glossary.json", {"index.md": "See [[Latency]].\n"})
    port = _free_port()
    serve = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}"],
                             cwd=site, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV)
    try:
        url = f"http://127.0.0.1:{port}/"
        _wait_for(lambda: "[[Latency]]" in _get(url), "the first build")
        (glossary / "glossary.json").write_bytes((newer / "glossary.json").read_bytes())
        time.sleep(1.1)  # a new mtime for the watcher
        (site / "docs" / "index.md").write_text("See [[Latency]] (edited).\n", encoding="utf-8")
        _wait_for(lambda: 'data-term="latency"' in _get(url), "a rebuild that links the new term")
    finally:
        serve.terminate()
        output, _ = serve.communicate(timeout=30)
    assert output.count("unknown glossary term [[Latency]]") == 1, output  # the first build only
    assert "Traceback" not in output


@pytest.mark.timeout(600)
def test_from_a_wheel_in_a_fresh_venv_outside_the_repository(glossary_dir, package_wheel, tmp_path):
    # What a docs team does: install the wheel into the docs' environment and list
    # the plugin; mkdocs finds it through the entry point, not through this checkout.
    # (--system-site-packages and --no-deps: mkdocs, material and the package's
    # dependencies are this machine's, the plugin's own files only the wheel's.
    # The wheel is the session's, tests/conftest.py's package_wheel: built once
    # with the README's command, also for tests/site/test_packaging.py.)
    from helpers import make_venv

    env = {k: v for k, v in ENV.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}

    def run(*command, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)

    python = make_venv(tmp_path / "venv")
    done = run(python, "-m", "pip", "install", "--no-deps", "--force-reinstall", "--quiet", package_wheel["wheel"],
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    where = run(python, "-c", "import site_builder.integrations.mkdocs_plugin as m; print(m.__file__)", cwd=tmp_path).stdout
    assert where.startswith(str(tmp_path / "venv")), where

    site = mkdocs_site(tmp_path / "team-docs", glossary_dir / "glossary.json", {"index.md": BAD}, theme="material")
    failed = run(python, "-m", "mkdocs", "build", "--strict", cwd=site)
    assert failed.returncode != 0 and "Traceback" not in failed.stderr + failed.stdout
    assert "WARNING -  glossary: index.md:8: unknown glossary term [[Nonexistent]]" in failed.stderr
    (site / "docs" / "index.md").write_text(GOOD, encoding="utf-8")
    passed = run(python, "-m", "mkdocs", "build", "--strict", cwd=site)
    assert passed.returncode == 0, passed.stderr
    assert (site / "site/assets/glossary/glossary-cards.js").read_bytes() == _static("glossary-cards.js")
    assert 'id="glossary-cards-data"' in (site / "site" / "index.html").read_text(encoding="utf-8")


def test_a_hostile_glossary_url_is_never_linked_and_fails_a_strict_build(tmp_path):
    """Another site's glossary.json is input (issue 30): an entry whose url or whose
    glossary's base_url has a script scheme is reported, never written into an href."""
    glossary = tmp_path / "glossary.json"
    glossary.write_text(json.dumps({"version": 1, "base_url": "https://g.example/", "terms": [
        {"slug": "js", "title": "Js", "summary": "S.", "url": "javascript://x/%0aalert(1)"},
        {"slug": "data", "title": "Data", "summary": "S.", "url": "DATA:text/html,<script>alert(1)</script>"},
        {"slug": "good", "title": "Good", "summary": "S.", "url": "good/"}]}))
    site = mkdocs_site(tmp_path / "site", glossary, {"index.md": "# Home\n\n[[Js]], [[Data]] and [[Good]].\n"})
    result = mkdocs_build(site, "--strict")
    assert result.returncode != 0
    assert "glossary entry 'Js' is not linked" in result.stderr and "glossary entry 'Data' is not linked" in result.stderr
    result = mkdocs_build(site)  # without --strict: built, with the two as written text
    assert result.returncode == 0, result.stderr
    html = (site / "site" / "index.html").read_text()
    assert 'href="https://g.example/good/"' in html
    assert "javascript:" not in html.lower() and "data:text" not in html.lower()
