"""``check --links-in DOCS --glossary PATH_OR_URL``: another site's links into the glossary."""

from __future__ import annotations

import os
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


@pytest.mark.parametrize("extra", [["--base-url", "https://x.example/"], ["--content", "elsewhere"],
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


RST = """Guide
=====

Good: :term:`glossary:Speculative decoding`, :term:`the big model <glossary:Model>`,
:external+glossary:term:`LLM`, :term:`glossary:llm inference`, :ref:`glossary:inference`,
:ref:`glossary:inference#two-phases-prefill-and-decode`, :doc:`glossary:llm`,
:external+glossary:doc:`model`, :std:term:`glossary:language model`.
Ours, not the glossary's: :term:`Nonexistent`, :ref:`local-label`, :term:`other:Nope`.

Bad: :term:`glossary:Nonexistent` and :external+glossary:term:`LLMs`
and :ref:`glossary:inference#nowhere` and :doc:`glossary:gone`.

Code is skipped: ``:term:`glossary:Inline literal``` and::

    :term:`glossary:In a literal block` https://example.org/glossary/in-code/

.. code-block:: rst

   :term:`glossary:In a code block`

.. This comment mentions :term:`glossary:Commented out`

.. note::

   A note is prose: :term:`glossary:Missing in a note`.

A link by URL: `the page <https://example.org/glossary/gone/>`_.
"""

MYST = """# MyST page

Good: {term}`glossary:Model`, {term}`the big one <glossary:Model>`, {external+glossary:doc}`non-determinism`
and [[Inference]]. Bad: {term}`glossary:Nope` and `{term}`glossary:in code`` is code.

```{note}
A directive's body is markdown: {ref}`glossary:model#missing`.
```

```python
{term}`glossary:In a code fence`
```

````{admonition} Nested
```{code-block}
{term}`glossary:In nested code`
```
{doc}`glossary:gone`
````
"""


def test_rst_roles_are_checked_against_the_inventory(glossary: Path, tmp_path: Path, cli):
    docs = write_tree(tmp_path / "docs", {"guide.rst": RST})
    status, _, err = cli("check", "--links-in", docs, "--glossary", glossary)
    assert status == 1
    shown = docs / "guide.rst"
    assert err.strip().splitlines() == [
        f"{shown}:10: unknown glossary term :term:`glossary:Nonexistent`",
        f"{shown}:10: unknown glossary term :external+glossary:term:`LLMs`",  # Sphinx knows no plurals
        f"{shown}:11: glossary page 'inference' has no heading '#nowhere': :ref:`glossary:inference#nowhere`",
        f"{shown}:11: unknown glossary page :doc:`glossary:gone`",
        f"{shown}:25: unknown glossary term :term:`glossary:Missing in a note`",
        f"{shown}:27: link to a missing glossary page: {BASE}gone/",
        "error: 6 broken glossary link(s) in 1 file(s)",
    ]


def test_myst_roles_in_markdown(glossary: Path, tmp_path: Path, cli):
    extra = {"terms/non-determinism.md": "---\ntitle: Non-determinism\nsummary: Same input, other output.\n---\nBody.\n"}
    checked = build_glossary(tmp_path / "g", extra=extra)
    docs = write_tree(tmp_path / "docs", {"page.md": MYST})
    status, _, err = cli("check", "--links-in", docs, "--glossary", checked)
    shown = docs / "page.md"
    assert status == 1
    assert err.strip().splitlines() == [
        f"{shown}:4: unknown glossary term {{term}}`glossary:Nope`",
        f"{shown}:7: glossary page 'model' has no heading '#missing': {{ref}}`glossary:model#missing`",
        f"{shown}:18: unknown glossary page {{doc}}`glossary:gone`",
        "error: 3 broken glossary link(s) in 1 file(s)",
    ]


def test_another_inventory_name(glossary: Path, tmp_path: Path, cli):
    docs = write_tree(tmp_path / "docs", {"a.rst": ":term:`gloss:Nope` and :term:`glossary:Nope`\n"})
    status, _, err = cli("check", "--links-in", docs, "--glossary", glossary, "--inventory-name", "gloss")
    assert status == 1 and err.strip().splitlines() == [
        f"{docs / 'a.rst'}:1: unknown glossary term :term:`gloss:Nope`", "error: 1 broken glossary link(s) in 1 file(s)"]


def test_the_names_checked_are_the_ones_objects_inv_lists(glossary: Path):
    from site_builder.integrations import roles
    from site_builder.outputs.inventory import read_inventory

    names = roles.inventory_names(published.load_glossary(glossary))
    listed = read_inventory((glossary / "objects.inv").read_bytes())
    assert names["term"] == {name for name, role, *_ in listed if role == "std:term"}
    assert names["doc"] == {name for name, role, *_ in listed if role == "std:doc"}
    assert names["ref"] == {name for name, role, *_ in listed if role == "std:label"}


@pytest.mark.parametrize("files", [{}, {"a.txt": "[[Model]]", "b.html": "<p>x</p>"}])
def test_finding_nothing_to_check_is_an_error(glossary: Path, tmp_path: Path, cli, files):
    docs = write_tree(tmp_path / "docs", files)
    docs.mkdir(exist_ok=True)
    status, out, err = cli("check", "--links-in", docs, "--glossary", glossary)
    assert status == 1 and out == ""
    assert err.strip() == (f"error: {docs}: no markdown (.md, .markdown, .mdown, .mkd) or "
                           "reStructuredText (.rst, .rest) files to check")


def test_a_file_of_another_kind_is_refused(glossary: Path, tmp_path: Path, cli):
    docs = write_tree(tmp_path / "docs", {"notes.txt": "[[Nonexistent]]"})
    status, _, err = cli("check", "--links-in", docs / "notes.txt", "--glossary", glossary)
    assert status == 1 and "check --links-in reads markdown" in err and "notes.txt" in err


def test_files_that_cannot_be_read_fail(glossary: Path, tmp_path: Path, cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "latin1.rst").write_bytes(b"caf\xe9 :term:`glossary:Model`\n")
    status, _, err = cli("check", "--links-in", docs, "--glossary", glossary)
    lines = err.strip().splitlines()
    assert status == 1 and lines[0].startswith(f"{docs / 'latin1.rst'}:1: cannot read: ")
    assert lines[-1] == f"error: {docs}: none of its 1 file(s) could be read"


def test_files_without_glossary_links_pass_with_a_warning(glossary: Path, tmp_path: Path, cli):
    docs = write_tree(tmp_path / "docs", {"a.rst": "Plain prose, :term:`our own term`.\n", "b.md": "Nothing.\n"})
    status, out, err = cli("check", "--links-in", docs, "--glossary", glossary)
    assert status == 0
    assert "Checked 0 glossary link(s) in 2 file(s)" in out
    assert err.startswith("warning: no glossary links in 2 file(s)") and ":term:`glossary:Term`" in err


def test_clean_rst_and_markdown_pass(glossary: Path, tmp_path: Path, cli):
    docs = write_tree(tmp_path / "docs", {"a.rst": ":term:`glossary:Model` and :ref:`glossary:inference`\n",
                                          "b.md": "{term}`glossary:LLM` and [[Model]]\n"})
    status, out, err = cli("check", "--links-in", docs, "--glossary", glossary)
    assert status == 0, err
    assert "Checked 4 glossary link(s) in 2 file(s)" in out


SPHINX_CASES = [
    ":term:`glossary:Speculative decoding`", ":term:`the big model <glossary:Model>`", ":external+glossary:term:`LLM`",
    ":term:`glossary:llm inference`", ":term:`glossary:SPECULATIVE   decoding`", ":std:term:`glossary:language model`",
    ":ref:`glossary:inference`", ":ref:`glossary:inference#two-phases-prefill-and-decode`", ":ref:`glossary:Inference`",
    ":doc:`glossary:llm`", ":external+glossary:doc:`model`", ":doc:`glossary:Model`",
    ":term:`glossary:Nonexistent`", ":external+glossary:term:`LLMs`", ":ref:`glossary:inference#nowhere`",
    ":doc:`glossary:gone`", ":ref:`glossary:model#two-phases-prefill-and-decode`", ":term:`glossary:Old evil name`",
]


def test_roles_pass_and_fail_exactly_where_a_real_sphinx_build_does(glossary: Path, tmp_path: Path, cli):
    import os
    import shutil
    import subprocess
    import sys

    from helpers import TESTS

    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(TESTS / "sphinx_project" / "conf.py", project / "conf.py")
    text = "Cases\n=====\n\n" + "".join(f"Case {i}: {case}\n\n" for i, case in enumerate(SPHINX_CASES))
    (project / "index.rst").write_text(text, encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-E", "-n", str(project), str(tmp_path / "html")],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "GLOSSARY_INVENTORY": str(glossary / "objects.inv")})
    assert result.returncode == 0, result.stderr
    sphinx_lines = {int(line.split(":")[1]) for line in result.stderr.splitlines() if "index.rst:" in line and "WARNING" in line}
    status, _, err = cli("check", "--links-in", project / "index.rst", "--glossary", glossary)
    our_lines = {int(line.split(":")[1]) for line in err.splitlines() if line.startswith(str(project))}
    assert status == 1 and len(sphinx_lines) >= 5  # the bad cases, at least
    assert our_lines == sphinx_lines, result.stderr


# --- a slow or huge glossary: a total deadline and a size limit (issue 31) ---------------

import http.server  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

from site_builder.integrations import fetch  # noqa: E402


def _serve(behaviour: str, body: bytes):
    """A real local HTTP server thread: ``drip`` sends the body one byte every
    0.2 s, ``drip-headers`` its headers so, ``huge`` promises and sends more than the limit."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def handle_one_request(self):
            try:
                self.raw_requestline = self.rfile.readline(65537)
                if not self.raw_requestline or not self.parse_request():
                    return
                if behaviour == "drip-headers":
                    for byte in b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nX-Slow: " + b"a" * 1000:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(0.2)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if behaviour == "huge-announced":
                    self.send_header("Content-Length", str(fetch.MAX_BYTES + 1))
                self.end_headers()
                if behaviour == "drip":
                    for byte in body:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(0.2)
                elif behaviour.startswith("huge"):
                    for _ in range(fetch.MAX_BYTES // 1024 + 2):
                        self.wfile.write(b" " * 1024)
                else:
                    self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


@pytest.mark.parametrize("behaviour,message", [
    ("drip", "took longer than 1 s"), ("drip-headers", "took longer than 1 s"),
    ("huge-announced", "the limit is"), ("huge", "larger than the limit"),
])
def test_a_slow_or_huge_glossary_url_fails_in_time(glossary: Path, tmp_path: Path, cli, monkeypatch,
                                                   behaviour, message):
    monkeypatch.setattr(fetch, "DEADLINE", 1.0)
    monkeypatch.setattr(fetch, "MAX_BYTES", 256 * 1024)
    server = _serve(behaviour, (glossary / "glossary.json").read_bytes())
    docs = write_tree(tmp_path / "docs", {"index.md": "[[Inference]]\n"})
    url = f"http://127.0.0.1:{server.server_address[1]}/glossary.json"
    try:
        started = time.monotonic()
        status, _, err = cli("check", "--links-in", docs, "--glossary", url)
        elapsed = time.monotonic() - started
    finally:
        server.shutdown()
        server.server_close()
    assert status != 0 and f"cannot read {url}" in err and message in err, err
    assert "Traceback" not in err
    assert elapsed < 10, f"the check took {elapsed:.1f} s"  # a deadline of 1 s, not one byte per read forever


def test_a_glossary_url_within_the_limits_is_read(glossary: Path, tmp_path: Path, cli):
    server = _serve("whole", (glossary / "glossary.json").read_bytes())
    docs = write_tree(tmp_path / "docs", {"index.md": "[[Inference]] and [[Nonexistent]]\n"})
    url = f"http://127.0.0.1:{server.server_address[1]}/glossary.json"
    try:
        status, _, err = cli("check", "--links-in", docs, "--glossary", url)
    finally:
        server.shutdown()
        server.server_close()
    assert status == 1 and "unknown glossary term [[Nonexistent]]" in err and "[[Inference]]" not in err, err


def test_a_fifo_as_the_glossary_file_is_refused(tmp_path: Path, cli):
    fifo = tmp_path / "glossary.json"
    os.mkfifo(fifo)
    docs = write_tree(tmp_path / "docs", {"index.md": "[[Inference]]\n"})
    for location in (fifo, fifo.as_uri()):
        status, _, err = cli("check", "--links-in", docs, "--glossary", location)
        assert status != 0 and "is a FIFO" in err, err
