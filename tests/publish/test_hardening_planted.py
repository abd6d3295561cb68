"""Planted files beside ``output/``: a symlink, a FIFO or a device at any path the
build keeps there (the lock, the records and their temporaries, the spare, the
old and staging trees, the cache folder and its files) is refused with one
line naming the path; nothing is written through it or waited on, the previous
``output/`` is untouched, and once the plant is removed the next build works.
In the cache, which only saves time, the plant is a warning naming it and the
build goes on without the cache (as ``--no-cache``).
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
from pathlib import Path

import pytest

from helpers import manifest, term, write_tree

CACHE = ".site_builder_cache"
FILES = [".out.lock", ".out.tree-record", ".out.tree-record.tmp", ".out.spare-record.json",
         ".out.spare-record.json.tmp", f"{CACHE}/pages.table", f"{CACHE}/terms.table", f"{CACHE}/blobs.sqlite",
         f"{CACHE}/blobs.sqlite-wal", f"{CACHE}/search.sqlite", f"{CACHE}/.pages.1.1.tmp"]
FOLDERS = [".out.spare", ".out.old", ".out.staging-999999999", ".out.old-1", CACHE]
KINDS = ["symlink", "fifo", "device"]


def _plant(path: Path, kind: str, victim: Path) -> None:
    if kind == "symlink":
        os.symlink(victim, path)
    elif kind == "fifo":
        os.mkfifo(path)
    else:  # a character device: a copy of /dev/null (we run as root in CI)
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))


def _clear(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


@pytest.fixture
def alarm():
    """A planted FIFO must never hang a build: fail the test instead of waiting."""
    def hung(signum, frame):
        raise TimeoutError("the build hung on a planted file")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("relative", FILES + FOLDERS)
def test_a_plant_beside_the_output_is_refused_at_its_path(tmp_path, cli, alarm, relative):
    content = write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "First.", "Alpha links to [[Beta]].\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
    })
    output = tmp_path / "site" / "out"
    build = ("build", "--content", content, "--output", output, "--quiet", "--jobs", "1")
    for _ in range(2):  # twice: the spare and its record exist
        status, _, err = cli(*build)
        assert status == 0, err
    victim_file = tmp_path / "victim.txt"
    victim_folder = tmp_path / "victim"
    victim_folder.mkdir()
    (victim_folder / "keep.txt").write_text("mine")
    path = output.parent / relative
    for kind in KINDS:
        victim_file.write_text("not the site's")
        before = manifest(output)
        (content / "terms" / "beta.md").write_text(term("Beta", "Second.", f"Beta prose {kind}.\n"))
        _clear(path)
        _plant(path, kind, victim_folder if relative in FOLDERS else victim_file)
        status, _, err = cli(*build)
        assert str(path) in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
        if relative.startswith(CACHE):  # the cache only saves time: given up, with a warning
            assert status == 0 and err.startswith("warning: ") and "could not be saved" in err, err
            assert f"Beta prose {kind}." in (output / "beta" / "index.html").read_text()
        else:
            assert status == 1 and err.startswith("error: "), f"{kind} at {relative}: built ({err})"
            assert manifest(output) == before, f"{kind} at {relative}: output/ changed"
        assert victim_file.read_text() == "not the site's"
        assert sorted(p.name for p in victim_folder.iterdir()) == ["keep.txt"]
        assert os.path.lexists(path), "the plant is the user's to remove"
        _clear(path)
        status, _, err = cli(*build)
        assert status == 0, f"after removing the {kind} at {relative}: {err}"
        assert f"Beta prose {kind}." in (output / "beta" / "index.html").read_text()
