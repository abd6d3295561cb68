"""Regression (found in review): serve watches the package's templates, but a warm build process
keeps what it derived from them (the code version in every cache key, the compiled templates)
from its first build. Serve must restart it, so an edited template reaches every page."""

from __future__ import annotations

import shutil
import subprocess
import sys

from helpers import REPO, manifest, term, write_tree
from serve_client import Serve, no_traceback, page_token


def test_template_edit_while_serving_reaches_the_pages(tmp_path):
    package = tmp_path / "pkg"  # a private copy: the template is edited below
    shutil.copytree(REPO / "site_builder", package / "site_builder", ignore=shutil.ignore_patterns("__pycache__"))
    write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "First.", "Alpha prose.\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
    })
    server = Serve(tmp_path, package_root=package)
    try:
        _, _, page = server.get("/alpha/")
        stream = server.events(page_token(page))
        template = package / "site_builder" / "templates" / "term.html"
        template.write_text(template.read_text().replace("← All terms", "← Every term"))
        server.wait_for_line("restarting the build process")
        stream.wait_for("reload")
        stream.close()
        no_traceback(server)
    finally:
        server.close()

    clean = tmp_path / "clean" / "out"
    subprocess.run([sys.executable, "-m", "site_builder", "build", "--no-cache", "--content", str(tmp_path / "content"),
                    "--output", str(clean), "--quiet"], env={"PYTHONPATH": str(package), "PATH": "/usr/bin:/bin"},
                   cwd=tmp_path, check=True)
    assert "Every term" in (clean / "alpha" / "index.html").read_text()
    assert manifest(server.output) == manifest(clean)
