"""Shared fixtures: small content folders built from a dict of files."""

from __future__ import annotations

import subprocess
import sys
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
