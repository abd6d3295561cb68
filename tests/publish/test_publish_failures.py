"""The write stage when the disk says no: the lock is released, the previous
site stays whole, and the command line reports one line, not a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from site_builder.files import RefusedPath
from site_builder.publish import Staging
from site_builder.publish import lock as output_lock

from helpers import manifest, output_lock_held, term, write_tree


def _content(root: Path) -> Path:
    return write_tree(root, {
        "terms/alpha.md": term("Alpha", "First.", "Alpha links to [[Beta]].\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
    })


def _block_staging(output: Path) -> None:
    # A file where this process's staging folder goes: removing it as a folder fails.
    (output.parent / f".{output.name}.staging-{os.getpid()}").write_text("in the way")


def test_a_staging_that_cannot_start_releases_the_lock(tmp_path):
    output = tmp_path / "site" / "out"
    output.parent.mkdir()
    _block_staging(output)
    with pytest.raises(RefusedPath):  # a file where the staging folder goes
        Staging(output)
    # serve's worker builds again in the same process: the lock must be free.
    assert not output_lock_held(output.parent / ".out.lock")  # another process may take it
    output_lock.unlock(output_lock.lock(output))  # and so may this one (its in-process lock is free too)


def test_a_disk_error_is_one_line_and_the_old_site_stays(tmp_path, cli):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    status, _, err = cli("build", "--content", content, "--output", output, "--quiet", "--no-cache")
    assert status == 0, err
    before = manifest(output)
    (content / "terms" / "beta.md").write_text(term("Beta", "Second, changed.", "New prose.\n"))
    _block_staging(output)
    status, _, err = cli("build", "--content", content, "--output", output, "--quiet", "--no-cache")
    assert status == 1
    assert err.startswith("error: ") and "staging" in err and "Traceback" not in err
    assert manifest(output) == before
