"""The whole output of a small fixture site, compared byte for byte.

When a change to the output is intended, refresh with
``python tests/refresh_golden.py`` and review the diff.
"""

import difflib
from pathlib import Path

from helpers import FIXTURES, manifest

GOLDEN = FIXTURES / "golden"


def test_output_matches_golden(tmp_path: Path, cli):
    out = tmp_path / "out"
    status, _, err = cli("build", "--content", GOLDEN / "content", "--output", out, "--quiet", "--no-cache")
    assert status == 0, err
    expected, actual = manifest(GOLDEN / "expected"), manifest(out)
    assert sorted(actual) == sorted(expected), "file list differs: run python tests/refresh_golden.py if intended"
    for name in expected:
        if expected[name] != actual[name]:
            old = (GOLDEN / "expected" / name).read_text(errors="replace").splitlines()
            new = (out / name).read_text(errors="replace").splitlines()
            diff = "\n".join(list(difflib.unified_diff(old, new, "expected", "actual", lineterm=""))[:60])
            raise AssertionError(f"{name} differs from the golden file (python tests/refresh_golden.py refreshes):\n{diff}")
