"""The command line imports the build's modules with the collector paused and
freezes them (``cli._import_build``); a library caller of ``cli.main`` gets its
collector back as it was."""

import gc
import os
import subprocess
import sys

from site_builder import cli

from helpers import REPO, term, write_tree

_CODE = r"""
import gc
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
from site_builder import cli
collections.clear()
frozen = gc.get_freeze_count()
cli._import_build()
assert collections == [], collections  # none while the build's modules were imported
assert gc.isenabled() and gc.get_freeze_count() > frozen + 10000
"""


def test_the_build_modules_are_imported_with_the_collector_paused():
    result = subprocess.run([sys.executable, "-c", _CODE], capture_output=True, text=True, cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert result.returncode == 0, result.stderr


def test_a_library_caller_gets_its_collector_back(tmp_path, monkeypatch):
    content = write_tree(tmp_path / "content", {
        "site.toml": 'title = "T"\npreviews = false\n',
        "terms/alpha.md": term("Alpha", "First.", "Alpha prose.\n"),
    })
    gc.unfreeze()  # (a test before, in this process, may have called a stage that freezes: cache.incremental)
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    try:
        for _ in range(2):  # a first build, then one with a cache
            assert cli.main(["build", "--content", str(content), "--output", str(tmp_path / "out"), "--quiet"]) == 0
            assert gc.get_freeze_count() == 0 and gc.isenabled()
        gc.freeze()  # a caller's own frozen objects: the imports' not frozen with them, none unfrozen
        frozen, asked = gc.get_freeze_count(), []
        monkeypatch.setattr(cli, "_import_build", lambda freeze=True: asked.append(freeze))
        assert cli.main(["build", "--content", str(content), "--output", str(tmp_path / "out"), "--quiet"]) == 0
        assert asked == [False] and gc.get_freeze_count() >= frozen
        monkeypatch.undo()
        gc.unfreeze()
        gc.disable()  # a caller's own pause is kept
        assert cli.main(["build", "--content", str(content), "--output", str(tmp_path / "out"), "--quiet"]) == 0
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    finally:
        gc.enable()
        gc.unfreeze()


def test_the_command_line_never_counts_what_it_froze(tmp_path, monkeypatch):
    """``gc.get_freeze_count`` walks every frozen object: asked once the command
    line froze its imports (in a test process, the whole heap), it cost more
    than the small build itself. The command line tells ``build_site`` instead."""
    content = write_tree(tmp_path / "content", {
        "site.toml": 'title = "T"\npreviews = false\n',
        "terms/alpha.md": term("Alpha", "First.", "Alpha prose.\n"),
    })
    counted, count = [], gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: counted.append(count()) or counted[-1])
    gc.unfreeze()  # (as in the test above)
    for _ in range(2):  # a first build, then one with a cache
        assert cli.main(["build", "--content", str(content), "--output", str(tmp_path / "out"), "--quiet"]) == 0
    assert counted and set(counted) == {0}, counted  # asked only while nothing was frozen
