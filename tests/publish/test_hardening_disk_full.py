"""A full disk (issue 31): a build that fails on it leaves ``output/`` whole and
nothing behind that stops the next build (its cache blobs and tables, SQLite's
write-ahead log, staging, spare and old trees); a cache that cannot be saved
never fails a build; once there is room again the next build succeeds with
no manual step, with the cache and with ``--no-cache``."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import fill_disk, manifest, term, write_tree

DISK = "2m"


@pytest.fixture
def disk(tmp_path):
    """A 2 MiB tmpfs (we run as root in CI): a 20-term site fits, a 300-term one does not."""
    mount = tmp_path / "disk"
    mount.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(mount)],
                            capture_output=True, text=True)
    assert result.returncode == 0, f"cannot mount a tmpfs (needs root): {result.stderr}"
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _terms(content: Path, count: int, edit: str = "") -> None:
    shutil.rmtree(content / "terms", ignore_errors=True)
    write_tree(content, {"site.toml": 'title = "Full"\npreviews = false\n', **{
        f"terms/t{i:04d}.md": term(f"Term {i}", f"Summary {i}.",
                                   "Body words here. " * 40 + f"[[Term {(i + 1) % count}]] {edit}\n")
        for i in range(count)}})


def _used(disk: Path) -> int:
    info = os.statvfs(disk)
    return (info.f_blocks - info.f_bfree) * info.f_frsize


def _leftovers(parent: Path) -> list[str]:
    """What a build keeps beside the output besides the output, its records,
    its lock, its spare and its cache folder's own files."""
    allowed = {"out", ".out.lock", ".out.tree-record", ".out.spare", ".out.spare-record.json",
               ".site_builder_cache"}
    odd = [name for name in os.listdir(parent) if name not in allowed]
    cache = parent / ".site_builder_cache"
    if cache.is_dir():
        odd += [f"cache/{name}" for name in os.listdir(cache) if name.endswith((".tmp", "-journal"))]
    return odd


@pytest.mark.parametrize("flags", [(), ("--no-cache",)], ids=["cache", "no-cache"])
def test_a_build_that_fills_the_disk_leaves_nothing_that_stops_the_next(tmp_path, disk, cli, flags):
    content = tmp_path / "content"
    output = disk / "site" / "out"
    build = ("build", "--content", content, "--output", output, "--quiet", "--jobs", "1", *flags)
    _terms(content, 20)
    status, _, err = cli(*build)
    assert status == 0, err
    before, used = manifest(output), _used(disk)
    _terms(content, 300)
    status, _, err = cli(*build)
    assert status == 1 and "No space left on device" in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert manifest(output) == before
    assert _leftovers(output.parent) == []
    assert _used(disk) <= used, "the failed build left files behind"
    for edit in ("shrunk", "again"):  # room again: the next builds work, no manual step
        _terms(content, 25, edit)
        status, _, err = cli(*build)
        assert status == 0, err
        assert edit in (output / "t0003" / "index.html").read_text()
    status, _, err = cli("build", "--content", content, "--output", output, "--quiet", "--jobs", "1")
    assert status == 0, err  # and with the cache, after a --no-cache failure


@pytest.mark.parametrize("room", [48, 128, 192, 320])
def test_a_cache_that_cannot_be_saved_never_fails_the_build(tmp_path, disk, cli, room):
    """Room for the site's changed pages but not for all of the cache: the build
    succeeds (a warning, the cache dropped) or fails on the site itself, whole;
    either way the next build works once the disk has room."""
    content = tmp_path / "content"
    output = disk / "site" / "out"
    build = ("build", "--content", content, "--output", output, "--quiet", "--jobs", "1")
    _terms(content, 20)
    status, _, err = cli(*build, "--no-cache")
    assert status == 0, err
    before = manifest(output)
    filler = fill_disk(disk)
    os.truncate(filler, max(0, filler.stat().st_size - room * 1024))
    _terms(content, 20, "edited")
    status, _, err = cli(*build)
    assert "Traceback" not in err
    if status == 0:
        assert "edited" in (output / "t0003" / "index.html").read_text()
        for line in err.strip().splitlines():
            assert line.startswith("warning: the build cache in ") and "could not be saved" in line, err
    else:
        assert err.startswith("error: [Errno 28] No space left on device: ") and str(output) not in err, err
        assert manifest(output) == before
    assert _leftovers(output.parent) == []
    filler.unlink()
    for edit in ("next", "after"):
        _terms(content, 20, edit)
        status, _, err = cli(*build)
        assert status == 0 and err == "", err
        assert edit in (output / "t0003" / "index.html").read_text()
