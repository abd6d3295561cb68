"""Ctrl-C on ``build`` (issue 31): exit status 130 and one line, no traceback;
``output/`` is the previous site or the new one, whole; the next build works.
The signal goes to the whole process group, as a terminal sends it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from helpers import REPO, manifest, term, write_tree


def _terms(content, count: int, edit: str) -> None:
    write_tree(content, {f"terms/t{i:04d}.md": term(f"Term {i}", f"Summary {i}.",
                                                    "Words. " * 60 + f"[[Term {(i + 1) % count}]] {edit}\n")
                         for i in range(count)})


def _as_from_a_terminal() -> None:
    """In the child before exec: Ctrl-C's default disposition, as a terminal's
    command starts with. A suite started in the background by a shell without
    job control (``cmd &`` in a script) runs with SIGINT ignored, every child
    inherits that, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("stage", ["Building", "load", "markup"])
def test_ctrl_c_is_one_line_and_exit_130(tmp_path, stage):
    """Interrupted right after the build log names ``stage``: in the next one."""
    content, output = tmp_path / "content", tmp_path / "out"
    _terms(content, 600, "first")
    command = [sys.executable, "-m", "site_builder", "build", "--content", str(content), "--output", str(output),
               "--no-cache"]
    first = subprocess.run([*command, "--quiet"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    before = manifest(output)
    _terms(content, 600, "second")
    build = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, preexec_fn=_as_from_a_terminal)
    while not build.stdout.readline().strip().startswith(stage):  # (past the imports: the build runs)
        assert build.poll() is None, "the build ended before the stage"
    try:
        os.killpg(build.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    out, err = build.communicate(timeout=120)
    assert build.returncode == 130, err
    assert err.strip().splitlines() == ["interrupted (Ctrl-C); output/ holds the previous site or the new one, whole"], err
    assert manifest(output) == before or "second" in (output / "t0003" / "index.html").read_text()
    again = subprocess.run([*command, "--quiet"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "second" in (output / "t0003" / "index.html").read_text()
