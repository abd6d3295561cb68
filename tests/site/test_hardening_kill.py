"""A build killed with SIGKILL (the main pid alone: an OOM kill, a CI timeout)
leaves no worker behind, and nothing that wedges the next build.

A ~2,000-term build is killed while its term loader runs, while its markdown
workers run and while its page workers run (those hold the output lock's
descriptor when they fork). Every process the build started carries a marker
in its environment; within 5 s of the kill none may be left (a zombie waiting
to be reaped is not left; the detached background deletion of
``publish.remove_tree`` may outlive a build, but holds no lock). The next
build must then finish and give a clean build's tree byte for byte. Then the
lock itself: a build waiting for a live one says so once, and a worker
that outlives a killed build (forked with the lock's descriptor open) holds
no lock: the next build does not wait for it.

Before parallel.py, the markdown and page workers of a killed build blocked
on their queues for ever, the page workers kept the lock, and the next build
waited on it without a word.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from site_builder.publish.removal import DELETION_NAME

from helpers import REPO, manifest, output_lock_held, under_ci, versioned_corpus, write_tree

from site_builder import parallel
from site_builder.publish import lock as output_lock

MARK = "SITE_BUILDER_KILL_TEST"
GONE_SECONDS = 5.0

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; PR_SET_PDEATHSIG is Linux's")


@pytest.fixture(scope="module")
def content(tmp_path_factory) -> Path:
    return write_tree(tmp_path_factory.mktemp("kill") / "content", versioned_corpus(1))


@pytest.fixture(scope="module")
def reference(content, tmp_path_factory) -> dict[str, str]:
    output = tmp_path_factory.mktemp("kill-reference") / "output"
    run = subprocess.run(_command("build", content, output, "--no-cache"), cwd=REPO, capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr.decode()
    return manifest(output)


# --- processes ---------------------------------------------------------------

class Started:
    """A command started with a marker in its environment; its stdout lines collected as they come."""

    def __init__(self, *command: str, stdin=subprocess.DEVNULL, lock: Path | None = None):
        self.lock = lock
        """The output lock's file: the background deletion must not hold it."""
        self.tag = uuid.uuid4().hex
        env = {**os.environ, MARK: self.tag}
        self.process = subprocess.Popen(command, cwd=REPO, env=env, stdin=stdin, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self.errors: list[str] = []
        for stream, into in ((self.process.stdout, self.lines), (self.process.stderr, self.errors)):
            # Daemon threads: a leftover holding the pipes open must not hang the test.
            threading.Thread(target=lambda s=stream, i=into: i.extend(s), daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def said(self, text: str) -> bool:
        return any(text in line for line in self.lines)

    def kill(self) -> None:
        """SIGKILL the main process alone, and reap it."""
        os.kill(self.pid, signal.SIGKILL)
        self.process.wait()

    def leftovers(self) -> list[tuple[int, str]]:
        """(pid, command line) of every live process carrying this run's marker,
        but the detached background deletion (it names itself ``DELETION_NAME``), which may stay."""
        found = []
        for pid, stat in _marked(self.tag):
            if _name(pid) == DELETION_NAME.decode():
                assert not _holds_file(pid, self.lock), f"the background deletion {pid} holds the output lock"
                pipes = _pipes(pid)
                assert not pipes, f"the background deletion {pid} holds the build's pipes {pipes}"
                continue
            found.append((pid, _command_line(pid)))
        return found

    def assert_none_left(self) -> None:
        deadline = time.monotonic() + GONE_SECONDS
        while self.leftovers() and time.monotonic() < deadline:
            time.sleep(0.05)
        left = self.leftovers()
        for pid, _command in left:  # so that a failure here does not wedge the tests after it
            _kill(pid)
        assert left == [], f"{GONE_SECONDS} s after the kill these still run: {left}"


def _command(verb: str, content: Path, output: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "site_builder", verb, "--content", str(content), "--output", str(output), *extra]


def _marked(tag: str) -> list[tuple[int, list[str]]]:
    """(pid, /proc/<pid>/stat fields after the name) of live processes whose environment holds the marker."""
    wanted = f"{MARK}={tag}".encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if wanted not in handle.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/stat") as handle:
                stat = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile, or not ours
        if stat[0] not in "ZX":  # a zombie runs nothing and holds no file
            found.append((int(name), stat))
    return found


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:
        return []


def _cpu_ticks(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            stat = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(stat[11]) + int(stat[12])


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as handle:
            return handle.read().strip()
    except OSError:
        return ""


def _pipes(pid: int) -> list[str]:
    """The pipes ``pid`` holds open (a build's standard streams are pipes here)."""
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return []
    found = []
    for name in names:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue
        if target.startswith("pipe:"):
            found.append(f"{name} -> {target}")
    return found


def _holds_file(pid: int, path: Path | None) -> bool:
    if path is None or not path.exists():
        return False
    target = os.stat(path)
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for name in names:
        try:
            info = os.stat(f"/proc/{pid}/fd/{name}")
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == (target.st_dev, target.st_ino):
            return True
    return False


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.002)


# --- killing a build at three moments ----------------------------------------

def _during_load(build: Started) -> None:
    """Kill while the term loader runs (preload.py), before the load stage ends.

    A loader on its own finishes its slice and then dies on a broken pipe; one
    stopped (standing for one stuck on a slow disk) would stay for ever: it is
    stopped here, once it has run (so it is past its first instructions, where
    it asks for the death signal), and must die with the build all the same.
    """
    _wait_for(lambda: _children(build.pid) or build.said("load"), 20, "the term loader")
    loaders = _children(build.pid)
    assert loaders and not build.said("load"), "the load was over before a loader was seen"
    _wait_for(lambda: _cpu_ticks(loaders[0]) > 0 or build.said("load"), 5, "the loader to run")
    os.kill(loaders[0], signal.SIGSTOP)
    _wait_for(lambda: _state(loaders[0]) != "R", 5, "the loader to stop")
    assert _state(loaders[0]) == "T", "the loader was done before it was stopped"
    build.kill()


def _during_stage(stage_before: str):
    def kill(build: Started) -> None:
        _wait_for(lambda: build.said(stage_before), 30, f"the {stage_before} stage to end")
        _wait_for(lambda: _children(build.pid), 10, "the workers")
        time.sleep(0.05)  # into their first chunks
        assert _children(build.pid), "the workers were gone before the kill"
        build.kill()

    return kill


MOMENTS = {
    "load": _during_load,
    "markdown": _during_stage("validate"),  # the markdown workers
    "render": _during_stage("explainers"),  # the page workers, forked with the output lock held
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("moment", list(MOMENTS))
def test_a_killed_build_leaves_no_worker_and_the_next_build_finishes(moment, content, reference, tmp_path):
    output = tmp_path / "site" / "output"
    # --no-cache: the loaders start only when no build cache is there to load from.
    lock = output.parent / ".output.lock"
    build = Started(*_command("build", content, output, "--jobs", "2", "--no-cache"), lock=lock)
    try:
        MOMENTS[moment](build)
        build.assert_none_left()
    finally:
        for pid, _stat in _marked(build.tag):
            _kill(pid)

    after = Started(*_command("build", content, output, "--quiet"), lock=lock)
    try:
        after.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        after.kill()
        pytest.fail(f"the build after the kill did not finish in 30 s: {''.join(after.errors)!r}")
    assert after.process.returncode == 0, "".join(after.errors)
    assert manifest(output) == reference
    assert not any("waiting" in line for line in after.errors)
    after.assert_none_left()


@pytest.mark.timeout(120)
def test_a_killed_serve_leaves_no_worker(content, reference, tmp_path):
    if len(os.sched_getaffinity(0)) < 2:
        # Under CI (2 cores) this must run: a skip there would hide the test.
        reason = "serve's worker forks no workers on one core (serve has no --jobs)"
        if under_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    output = tmp_path / "site" / "output"
    serve = Started(*_command("serve", content, output, "--port", "0"), lock=output.parent / ".output.lock")
    try:
        _wait_for(lambda: _children(serve.pid), 20, "serve's build worker")
        (worker,) = _children(serve.pid)
        _wait_for(lambda: _children(worker), 20, "the worker's markdown workers")
        markdown = set(_children(worker))
        # The page workers (forked with the lock held) are new children.
        _wait_for(lambda: set(_children(worker)) - markdown, 30, "the worker's page workers")
        # Stopped, the worker cannot end by itself (at the end of its build): only the death signal ends it.
        os.kill(worker, signal.SIGSTOP)
        serve.kill()
        serve.assert_none_left()
    finally:
        for pid, _stat in _marked(serve.tag):
            _kill(pid)
    run = subprocess.run(_command("build", content, output, "--quiet"), cwd=REPO, capture_output=True, timeout=30)
    assert run.returncode == 0, run.stderr.decode()
    assert manifest(output) == reference


@pytest.mark.timeout(180)
def test_a_build_killed_while_its_chart_converters_run_leaves_none(tmp_path):
    # This repository's content names the explainer: the build forks vl-convert's
    # workers (explainers/vega.py) in its prepare stage; killed while they start
    # their runtimes or convert, none may stay.
    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    output = tmp_path / "site" / "output"
    build = Started(*_command("build", content, output, "--jobs", "2", "--no-cache"),
                    lock=output.parent / ".output.lock")
    try:
        _wait_for(lambda: build.said("prepare"), 120, "the prepare stage to end")
        assert _children(build.pid), "no converter worker"
        assert not build.said("explainers"), "the explainers stage was over before the kill"
        build.kill()
        build.assert_none_left()
    finally:
        for pid, _stat in _marked(build.tag):
            _kill(pid)


# --- the lock ----------------------------------------------------------------

HOLDER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from site_builder.publish.lock import lock

    lock(Path(sys.argv[1]))
    print("locked", flush=True)
    sys.stdin.read()  # until the test closes it
""")

LEFTOVER = textwrap.dedent("""\
    # leftover-of-a-killed-build
    # As a killed build leaves it: the lock file names the build (this
    # process, about to exit), and a worker it forked with the lock's
    # descriptor open (a plain fork, no death signal) still runs.
    import os, sys, time
    from pathlib import Path
    from site_builder.publish.lock import lock

    lock(Path(sys.argv[1]))
    child = os.fork()
    if child == 0:
        quiet = os.open(os.devnull, os.O_RDWR)
        for standard in (0, 1, 2):  # or the test would wait for the end of its output
            os.dup2(quiet, standard)
        time.sleep(120)
        os._exit(0)
    print(child, flush=True)
    os._exit(0)
""")


@pytest.fixture
def small(tmp_path) -> Path:
    return write_tree(tmp_path / "content", {"site.toml": "previews = false\n",
                                             "terms/a.md": "---\ntitle: A\nsummary: a\n---\nx\n"})


@pytest.mark.timeout(60)
def test_a_build_waiting_for_a_live_one_says_so_once(small, tmp_path):
    output = tmp_path / "output"
    holder = Started(sys.executable, "-c", HOLDER, str(output), stdin=subprocess.PIPE)
    build = None
    try:
        _wait_for(lambda: holder.said("locked"), 20, "the holder to take the lock")
        build = Started(*_command("build", small, output, "--quiet"))
        message = f"waiting for another build (pid {holder.pid}) to finish…"
        _wait_for(lambda: any(message in line for line in build.errors), 20, "the waiting message")
        time.sleep(1.0)  # waiting on: still once
        assert build.process.poll() is None, "".join(build.errors)
        holder.process.stdin.close()  # the holder exits: the lock is free
        assert build.process.wait(timeout=30) == 0, "".join(build.errors)
        time.sleep(0.1)  # the last of stderr
        assert sum(message in line for line in build.errors) == 1, build.errors
    finally:
        for started in (holder, build):
            if started is not None and started.process.poll() is None:
                started.kill()


@pytest.mark.timeout(60)
def test_a_worker_outliving_a_killed_build_does_not_hold_the_lock(small, tmp_path):
    output = tmp_path / "output"
    lock_file = tmp_path / ".output.lock"
    made = subprocess.run([sys.executable, "-c", LEFTOVER, str(output)], cwd=REPO,
                          capture_output=True, text=True, timeout=30)
    leftover = int(made.stdout)  # its parent, the "build", has exited
    try:
        assert _holds_file(leftover, lock_file), "the leftover should keep the lock's descriptor open"
        recorded = int(lock_file.read_text())
        assert recorded != leftover and not os.path.exists(f"/proc/{recorded}"), "the recorded build still runs"
        started = time.monotonic()
        run = subprocess.run(_command("build", small, output, "--quiet"), cwd=REPO, capture_output=True,
                             text=True, timeout=30)
        seconds = time.monotonic() - started
        assert run.returncode == 0, run.stderr
        assert "waiting" not in run.stderr  # the lock was free: nothing to wait for
        assert seconds < 10
        assert os.path.exists(f"/proc/{leftover}"), "the leftover ended before the build: the test proved nothing"
    finally:
        _kill(leftover)


def _unlock_after(fd: int, seconds: float) -> threading.Thread:
    def later():
        time.sleep(seconds)
        output_lock.unlock(fd)
    thread = threading.Thread(target=later)
    thread.start()
    return thread


def _close_copy(fd: int) -> bool:
    """In a pool worker: close the inherited copy of the lock's descriptor (once: one worker may run both)."""
    try:
        os.close(fd)
    except OSError:
        pass
    return True


def test_forked_workers_neither_hold_nor_release_the_lock(tmp_path):
    output = tmp_path / "output"
    lock_file = tmp_path / ".output.lock"
    fd = output_lock.lock(output)
    try:
        assert output_lock_held(lock_file)
        # Workers that close their inherited copies do not release this process's lock (a POSIX lock
        # is the process's own), and a worker that asks for the lock waits for this process.
        with parallel.pool(2) as pool:
            assert list(pool.map(_close_copy, [fd, fd])) == [True, True]
        pid = parallel.fork()
        if pid == 0:  # pragma: no cover - in the child
            os.close(fd)
            os._exit(0)
        _pid, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) == 0
        assert output_lock_held(lock_file), "a child closing its copy released the lock"
        assert lock_file.read_text() == f"{os.getpid()}\n"
    finally:
        output_lock.unlock(fd)
    assert not output_lock_held(lock_file)


def test_a_second_holder_in_one_process_waits_and_never_releases_the_first(tmp_path, capfd):
    # A POSIX lock is released when its process closes ANY descriptor to the file,
    # and never conflicts with the process's own: a second lock() in the same
    # process (serve's in-place build on a thread) must wait without opening it.
    output = tmp_path / "output"
    lock_file = tmp_path / ".output.lock"
    first = output_lock.lock(output)
    taken: list[int] = []
    second = threading.Thread(target=lambda: taken.append(output_lock.lock(output)))
    second.start()
    second.join(0.5)
    assert second.is_alive() and not taken, "a second holder in one process did not wait"
    assert output_lock_held(lock_file), "the waiting holder released the first's lock"
    # The same file through another spelling of its folder is the same lock.
    (tmp_path / "alias").symlink_to(tmp_path)
    third: list[int] = []
    waiter = threading.Thread(target=lambda: third.append(output_lock.lock(tmp_path / "alias" / "output")))
    waiter.start()
    waiter.join(0.3)
    assert waiter.is_alive() and not third
    assert output_lock_held(lock_file)
    output_lock.unlock(first)
    second.join(10)
    assert taken and output_lock_held(lock_file)
    releaser = _unlock_after(taken[0], 0.2)
    waiter.join(10)
    releaser.join()
    assert third and output_lock_held(lock_file)
    output_lock.unlock(third[0])
    assert not output_lock_held(lock_file)
    assert f"waiting for another build (pid {os.getpid()}) to finish…" in capfd.readouterr().err
