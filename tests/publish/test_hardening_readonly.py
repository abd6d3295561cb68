"""Read-only folders in the trees a build owns (issue 31): a folder of the spare,
the spare itself, or a leftover staging tree made read-only or unreadable is
given its owner's rights back and reused or removed; the build succeeds, and
nothing is left behind. Builds run as root without CAP_DAC_OVERRIDE (CI runs as
root, where the modes would not stop anything): the modes apply as to any user."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, term, write_tree


def _build(content: Path, output: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["setpriv", "--bounding-set=-dac_override,-dac_read_search", sys.executable, "-m", "site_builder", "build",
         "--content", str(content), "--output", str(output), "--quiet", *flags],
        capture_output=True, text=True, timeout=120, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})


def _spare_folder(site: Path) -> None:
    os.chmod(site / ".out.spare" / "alpha", 0o555)


def _unreadable_spare_folder(site: Path) -> None:
    os.chmod(site / ".out.spare" / "beta", 0)


def _read_only_spare(site: Path) -> None:
    os.chmod(site / ".out.spare" / "alpha", 0o555)
    os.chmod(site / ".out.spare", 0o555)


def _leftover_staging(site: Path) -> None:
    leftover = site / ".out.staging-999999999"
    write_tree(leftover, {"alpha/index.html": "old", "beta/x": "old"})
    os.chmod(leftover / "alpha", 0o555)
    os.chmod(leftover / "beta", 0)
    os.chmod(leftover, 0o555)


@pytest.mark.parametrize("plant", [_spare_folder, _unreadable_spare_folder, _read_only_spare, _leftover_staging],
                         ids=lambda plant: plant.__name__.strip("_"))
@pytest.mark.parametrize("flags", [(), ("--no-cache",)], ids=["cache", "no-cache"])
def test_a_read_only_folder_beside_the_output_does_not_fail_a_build(tmp_path, plant, flags):
    content = write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "First.", "Alpha links to [[Beta]].\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
    })
    output = tmp_path / "site" / "out"
    for edit in ("one", "two"):  # a spare with its record
        (content / "terms" / "alpha.md").write_text(term("Alpha", "First.", f"Alpha {edit} [[Beta]].\n"))
        result = _build(content, output, *flags)
        assert result.returncode == 0, result.stderr
    plant(output.parent)
    for edit in ("three", "four"):
        (content / "terms" / "alpha.md").write_text(term("Alpha", "First.", f"Alpha {edit} [[Beta]].\n"))
        result = _build(content, output, *flags)
        assert result.returncode == 0 and result.stderr == "", result.stderr
        assert f"Alpha {edit}" in (output / "alpha" / "index.html").read_text()
    assert sorted(p.name for p in output.parent.iterdir() if ".staging-" in p.name or ".old" in p.name) == []
