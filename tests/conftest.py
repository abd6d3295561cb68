"""Shared fixtures: small content folders built from a dict of files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from site_builder.cli import main

from helpers import REPO, copy_sources, manifest, run_clean, term, write_tree  # noqa: F401  (re-exported for tests)

# Property tests assert behaviour, never speed: Hypothesis's default 200 ms
# deadline per example fails them on a loaded 2-core machine (seen: a serving
# property test under load 16). Bounds on run time are the hardening tests'
# explicit timeouts and the benchmarks' job.
settings.register_profile("site_builder", deadline=None)
settings.load_profile("site_builder")

MEMORY_SCRATCH = Path("/dev/shm")
SCRATCH_ROOM = 4 * 2**30
"""Free room /dev/shm must have to hold the session's temporary folders (the
largest, the crash test's three 2,000-term sites and the packaging
environments, take well under 1 GiB together)."""


def memory_scratch() -> Path | None:
    """/dev/shm when it is a memory file system we can use for the session's
    temporary folders: writable, not ``noexec`` (the packaging tests run
    scripts from their virtual environments there) and roomy (Docker's
    default is 64 MiB); else None: pytest's usual temporary folder."""
    try:
        info = os.statvfs(MEMORY_SCRATCH)
    except OSError:
        return None
    if not os.access(MEMORY_SCRATCH, os.W_OK | os.X_OK) or info.f_flag & os.ST_NOEXEC:
        return None
    return MEMORY_SCRATCH if info.f_bavail * info.f_frsize >= SCRATCH_ROOM else None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    """Every test's ``tmp_path`` on a memory file system when there is one,
    and the test's subprocesses' bytecode kept for the session.

    Most tests build sites: thousands of small files made, renamed and
    removed, where ext4's metadata work took most of a small build's time
    (see tests/site/test_hardening_content.py's SCRATCH). The contract is the
    same on both file systems (a site's staging folder, its swap and the old
    tree are on one file system either way). An explicit ``--basetemp`` wins;
    the folder is a fresh one per session (several sessions may run at once)
    and is removed at the end (it is memory), as is the bytecode's."""
    made = config.stash.setdefault(_MADE_KEY, [])
    scratch = memory_scratch()
    if not config.option.basetemp and scratch is not None:
        config.option.basetemp = tempfile.mkdtemp(prefix="pytest-site_builder-", dir=scratch)
        made.append(config.option.basetemp)
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
        # The tests start ``python -m site_builder`` and ``python -c`` probes a
        # few hundred times; with no bytecode written (this variable, set on
        # some machines and CI images), each start compiles every module it
        # imports again. The children write it to a folder of this session's
        # instead, never into the checkout (which stays as the variable wants).
        prefix = tempfile.mkdtemp(prefix="pytest-site_builder-pycache-", dir=scratch)
        made.append(prefix)
        os.environ.pop("PYTHONDONTWRITEBYTECODE")
        os.environ["PYTHONPYCACHEPREFIX"] = prefix


MAX_WORKERS = 4
"""The most pytest-xdist workers ``-n auto`` starts (see pyproject's addopts)."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """One worker per core this process may run on, at most MAX_WORKERS.

    About half the suite's time is spent waiting on subprocesses and Chromium,
    so two workers fill CI's two cores. Every worker holds its own session
    fixtures (a Chromium, the real site built, the wheel, the markdown
    corpora): past four, that duplicated set-up and the memory of one browser
    each cost more than the shorter queue gains, and the timeout-bound
    hardening tests (whose builds start one process per core themselves)
    would share the cores with more neighbours. ``PYTEST_XDIST_AUTO_NUM_WORKERS``
    still wins, as with pytest-xdist's own rule."""
    forced = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "")
    if forced.isdigit():
        return int(forced)
    return max(1, min(len(os.sched_getaffinity(0)), MAX_WORKERS))


def pytest_unconfigure(config):
    for folder in config.stash.get(_MADE_KEY, []):
        shutil.rmtree(folder, ignore_errors=True)


_MADE_KEY = pytest.StashKey[list]()


@pytest.fixture(scope="session")
def real_site(tmp_path_factory) -> Path:
    """The real ``content/`` built once per test session with the CLI."""
    out = tmp_path_factory.mktemp("real-site") / "output"
    result = subprocess.run(
        [sys.executable, "-m", "site_builder", "build", "--output", str(out), "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, f"site build failed:\n{result.stdout}\n{result.stderr}"
    return out


@pytest.fixture(scope="session")
def themed_site(tmp_path_factory) -> Path:
    """``tests/fixtures/themed`` (template overrides, an extended block, extra CSS
    and JS, a logo, header and footer links) built once per session with the CLI."""
    out = tmp_path_factory.mktemp("themed-site") / "output"
    result = subprocess.run(
        [sys.executable, "-m", "site_builder", "build", "--content", str(REPO / "tests" / "fixtures" / "themed"),
         "--output", str(out), "--quiet", "--no-cache"],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, f"themed site build failed:\n{result.stdout}\n{result.stderr}"
    return out


@pytest.fixture(scope="session")
def package_wheel(tmp_path_factory) -> dict[str, Path]:
    """The package's wheel, built once per session as the README says
    (``pip wheel . -w dist``, build isolation and all) from a copy of the
    sources: {"source": the copy, "wheel": the wheel}. Installed into fresh
    environments by the packaging and MkDocs-plugin tests."""
    root = tmp_path_factory.mktemp("wheel")
    source = copy_sources(root / "src")
    run_clean(sys.executable, "-m", "pip", "wheel", ".", "-w", root / "dist", "--no-deps", "--quiet", cwd=source)
    return {"source": source, "wheel": next((root / "dist").glob("site_builder-*.whl"))}


@pytest.fixture
def small_site(tmp_path: Path) -> Path:
    """A valid three-term content folder."""
    return write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "The first term.", """
            Alpha links to [[Beta]] and [the gamma section](gamma.md#details).

            ## Why it matters

            Inline maths $a^2 + b^2$ and display:

            $$
            \\frac{1}{1 - \\alpha}
            $$
            """, related=["beta"], aliases=["first letter"]),
        "terms/beta.md": term("Beta", "The second term.", """
            Back to [[first letter|the first]].
            """),
        "terms/gamma.md": term("Gamma", "The third term.", """
            ## Details

            Nothing links here but alpha.
            """, related=["alpha", "beta"]),
    })


@pytest.fixture
def cli(capsys):
    """Run the CLI in-process; returns (status, stdout, stderr)."""
    def run(*args: str):
        status = main([str(a) for a in args])
        captured = capsys.readouterr()
        return status, captured.out, captured.err
    return run


@pytest.fixture
def fast_markdown_missing():
    """Used by ``helpers.requires_fast`` under CI when the fast processors are off."""
    from site_builder.markup.accel.upstream import mismatch_warning
    pytest.fail(f"the fast markdown processors are off under CI: {mismatch_warning()}")


@pytest.fixture
def small_disk(tmp_path):
    """A 600 KiB tmpfs (we run as root in CI); skipped nowhere: mounting must work."""
    mount = tmp_path / "disk"
    mount.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(mount)], capture_output=True, text=True)
    assert result.returncode == 0, f"cannot mount a tmpfs (needs root): {result.stderr}"
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
