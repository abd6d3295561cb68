"""Regression (found in review): serve watches the package's templates as inputs, but its warm worker
keeps the code version (part of every cache key) from its first build."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import manifest, term, write_tree

REPO = Path(__file__).resolve().parents[1]


def _copy_package(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    shutil.copytree(REPO / "site_builder", root / "site_builder",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_template_edit_while_serving_reaches_the_pages(tmp_path):
    package = _copy_package(tmp_path)  # a private copy: the template is edited below
    content = write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "First.", "Alpha prose.\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
    })
    output = tmp_path / "site" / "out"
    env = {"PYTHONPATH": str(package), "PATH": "/usr/bin:/bin"}
    worker = subprocess.Popen([sys.executable, "-c", "from site_builder.serve import worker_main; worker_main()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=tmp_path)
    request = {"content": str(content), "output": str(output), "base_url": None, "strict": False}

    def build(changed):
        worker.stdin.write((json.dumps({**request, "changed": changed}) + "\n").encode())
        worker.stdin.flush()
        result = json.loads(worker.stdout.readline())
        assert result["ok"], result

    try:
        build(None)
        template = package / "site_builder" / "templates" / "term.html"
        template.write_text(template.read_text().replace("← All terms", "← Every term"))
        build([str(template)])  # what serve's watcher reports for this save
    finally:
        worker.stdin.close()
        worker.wait(timeout=30)

    clean = tmp_path / "clean" / "out"
    subprocess.run([sys.executable, "-m", "site_builder", "build", "--no-cache", "--content", str(content),
                    "--output", str(clean), "--quiet"], env=env, cwd=tmp_path, check=True)
    assert "Every term" in (clean / "alpha" / "index.html").read_text()
    assert "Every term" in (output / "alpha" / "index.html").read_text()
    assert manifest(output) == manifest(clean)
