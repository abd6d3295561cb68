"""Ctrl-C while ``parallel`` forks a loader or a pool's worker: raised in the
build process once the fork is done, never inside the fork's handlers or in a
child before it set how it takes Ctrl-C (``parallel.ctrl_c_held``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from helpers import REPO


CTRL_C_DURING_FORK = r"""
import os, signal, sys
from site_builder import parallel

signal.signal(signal.SIGINT, signal.default_int_handler)
# Ctrl-C lands in the middle of every fork: in the child before it sets how it
# takes Ctrl-C, and in this process while the fork's own handlers run.
os.register_at_fork(after_in_child=lambda: os.kill(os.getpid(), signal.SIGINT))
os.register_at_fork(after_in_parent=lambda: os.kill(os.getpid(), signal.SIGINT))

def numbers(bounds):
    return list(range(*bounds))

if __name__ == "__main__":
    for what in ("fork", "share"):
        try:
            if what == "fork":
                pid = parallel.fork()
                if pid == 0:
                    os._exit(0)  # (never reached: a loader's Ctrl-C ends it quietly)
                os.waitpid(pid, 0)
            else:
                got = []
                parallel.share(parallel.guided_slices(100, 2), 1, lambda: None, lambda s, e: numbers((s, e)),
                               numbers, got.extend)
            print(what, "not interrupted")
        except KeyboardInterrupt:
            print(what, "interrupted")
        try:
            print(what, "left a child", os.waitpid(-1, os.WNOHANG))  # (0, 0): still running; else never reaped
        except ChildProcessError:
            print(what, "left no child")
"""


def test_ctrl_c_during_a_fork_is_raised_after_it_without_a_traceback(tmp_path):
    """A Ctrl-C that comes while a loader or a pool's worker is forked: the
    build process raises KeyboardInterrupt once the fork is done (``cli.run``
    then prints its one line), and neither it nor the child prints the
    "Exception ignored in ..." traceback a KeyboardInterrupt inside the fork's
    handlers gave (seen in ``test_hardening_interrupt.py`` on a busy machine).
    Raised before ``fork`` returns, so before its caller has the child's pid:
    ``fork`` has killed and reaped that child first (none is left unreaped)."""
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C_DURING_FORK)
    result = subprocess.run([sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(REPO)}, preexec_fn=_ctrl_c_as_from_a_terminal)
    assert result.stdout.split("\n")[:4] == ["fork interrupted", "fork left no child", "share interrupted",
                                             "share left no child"], result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr, result.stderr


def _ctrl_c_as_from_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
