"""Regression (found in review): two builds of the same output at once (serve's in-place fast path
while a CLI build is staging)."""

from __future__ import annotations

import threading
from pathlib import Path

from site_builder import build as build_module
from site_builder.build import BuildOptions, build_site
from site_builder.publish import Staging

from helpers import manifest, term, write_tree


def _content(root: Path) -> Path:
    return write_tree(root, {
        "site.toml": 'title = "Review"\n',
        "terms/alpha.md": term("Alpha", "First.", "Alpha links to [[Beta]].\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
    })


def test_in_place_write_during_a_staged_build_is_undone(tmp_path, monkeypatch):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build_site(BuildOptions(content=content, output=output, jobs=1))
    build_site(BuildOptions(content=content, output=output, jobs=1))  # spare + record
    page = content / "terms" / "beta.md"
    page.write_text(page.read_text().replace("Beta prose.", "Beta prose, edited."))

    served: list[object] = []

    def serve_build():
        try:
            served.append(build_site(BuildOptions(content=content, output=output, jobs=1, in_place=True)))
        except BaseException as exc:  # surfaced by the assertion below
            served.append(exc)

    class Racing(Staging):
        """The CLI build has just claimed the spare (and its record) when serve's
        worker, which saw the same save, starts its in-place fast path: it must
        wait for the lock until the staged build is done."""

        def __init__(self, out):
            super().__init__(out)
            monkeypatch.setattr(build_module, "Staging", Staging)
            racer = threading.Thread(target=serve_build)
            racer.start()
            racer.join(0.5)  # it has reached the lock (or run to the end, which would be the bug)
            threads.append(racer)

    threads: list[threading.Thread] = []
    monkeypatch.setattr(build_module, "Staging", Racing)
    build_site(BuildOptions(content=content, output=output, jobs=1))  # the CLI build
    threads[0].join(60)
    assert served and not isinstance(served[0], BaseException), served
    build_site(BuildOptions(content=content, output=output, jobs=1))  # and the next CLI build

    clean = tmp_path / "clean" / "out"
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert "Beta prose, edited." in (output / "beta" / "index.html").read_text()
    assert manifest(output) == manifest(clean)
