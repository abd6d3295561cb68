"""Run the client-side unit tests (node's built-in test runner) as part of pytest,
so the README's one test command covers them."""

import os
import shutil
import subprocess
from helpers import TESTS

JS_TESTS = TESTS / "js"


def test_node_unit_tests_pass():
    node = shutil.which("node")
    assert node, "node is needed for the JavaScript unit tests"
    files = sorted(str(p) for p in JS_TESTS.glob("*.test.js"))
    assert files, "no JavaScript tests found"
    # node runs one test file at a time on 2 cores (its default is the cores
    # less one); the files are independent processes, and several wait on Python.
    concurrency = max(2, os.cpu_count() or 1)
    result = subprocess.run([node, "--test", f"--test-concurrency={concurrency}", *files],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
