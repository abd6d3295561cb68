"""``python -m site_builder`` ends without the interpreter's teardown, having done
what of it counts (``site_builder.__main__._exit``)."""

import os
import subprocess
import sys
from pathlib import Path

from helpers import REPO

_CODE = r"""
import atexit, os, runpy, sys

real_exit = os._exit
def hard_exit(status):
    sys.stderr.write(f"hard exit {status} {os.getpid()}\n")
    sys.stderr.flush()
    real_exit(status)

os._exit = hard_exit  # the end without the interpreter's teardown
atexit.register(lambda: print("atexit ran"))  # unflushed: the exit flushes after the atexit functions
print("before", os.getpid(), end=" ")  # (a forked loader or worker ends by os._exit too: not counted)
sys.argv = ["site_builder", "check", "--content", sys.argv[1]]
runpy.run_module("site_builder", run_name="__main__")
"""


def _run(tmp_path: Path, content: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _CODE, str(content)], capture_output=True,
                          text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)


def test_the_exit_runs_atexit_flushes_and_skips_the_teardown(tmp_path: Path):
    content = tmp_path / "content"
    (content / "terms").mkdir(parents=True)
    (content / "terms" / "one.md").write_text("---\ntitle: One\nsummary: The first.\n---\nBody.\n")
    done = _run(tmp_path, content)
    assert done.returncode == 0, done.stderr
    pid = done.stdout.split()[1]
    assert done.stdout.startswith(f"before {pid} Checking"), done.stdout
    assert done.stdout.rstrip().endswith("atexit ran"), done.stdout
    assert f"hard exit 0 {pid}\n" in done.stderr, done.stderr


def test_a_failing_build_keeps_its_status_and_messages(tmp_path: Path):
    content = tmp_path / "content"
    (content / "terms").mkdir(parents=True)
    (content / "terms" / "one.md").write_text("---\ntitle: One\n---\nBody [[Nowhere]].\n")
    done = _run(tmp_path, content)
    assert done.returncode == 1
    assert "error" in done.stderr and "Nowhere" in done.stderr, done.stderr
    assert done.stdout.rstrip().endswith("atexit ran")
    assert f"hard exit 1 {done.stdout.split()[1]}\n" in done.stderr, done.stderr
