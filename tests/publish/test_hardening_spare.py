"""Hardening: nothing planted in output/ or in the spare tree survives a build.

The write stage keeps the previous site as ``.out.spare`` and stages the next
build into it, trusting a record of both trees to skip unchanged files. Here
entries a build never makes (symlinks to folders, to files, dangling; a FIFO;
a socket; stray files and folders) are planted in either tree, at the top,
deep in a page folder, in place of a page file or a page folder, sometimes
with the folder's mtime set back afterwards, and then the site is rebuilt in
each way it can be (a body edit on the fast path, a full build, --no-cache, no
change at all, serve's in-place writes). After every build, a walk with lstat
of output/ and of the spare must find only regular files and real folders;
output/ must be byte for byte a clean build, and the spare must hold nothing
a clean build lacks.
"""

from __future__ import annotations

import gc
import hashlib
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from site_builder.build import BuildOptions, build_site
from site_builder.files import RefusedPath

from helpers import REPO, fill_disk, plant_socket, term, write_tree



def _content(root: Path) -> Path:
    return write_tree(root, {
        "site.toml": 'title = "Hardening"\npreviews = false\n',
        "terms/alpha.md": term("Alpha", "First.", "Alpha links to [[Beta]].\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
        "terms/gamma.md": term("Gamma", "Third.", "Gamma prose.\n"),
    })


def _tree(folder: Path) -> tuple[dict[str, str], list[str], list[str]]:
    """(relative file -> sha256, folders, anything else), found with lstat, following nothing."""
    files, folders, others = {}, [], []
    pending = [folder]
    while pending:
        current = pending.pop()
        with os.scandir(current) as entries:
            for entry in entries:
                relative = os.path.relpath(entry.path, folder)
                mode = os.lstat(entry.path).st_mode
                if stat.S_ISDIR(mode):
                    folders.append(relative)
                    pending.append(Path(entry.path))
                elif stat.S_ISREG(mode):
                    files[relative] = hashlib.sha256(Path(entry.path).read_bytes()).hexdigest()
                else:
                    others.append(f"{relative} ({stat.filemode(mode)})")
    return files, sorted(folders), sorted(others)


class Site:
    """A content folder, its output, and a clean build to compare with."""

    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        self.content = _content(tmp_path / "content")
        self.output = tmp_path / "site" / "out"
        self.spare = self.output.parent / ".out.spare"
        self.edits = 0
        self.cleans = 0

    def build(self, **options) -> None:
        build_site(BuildOptions(content=self.content, output=self.output, jobs=1, **options))

    def edit(self, slug: str = "beta") -> None:
        """Change one term's body only (the fast path's case)."""
        self.edits += 1
        path = self.content / "terms" / f"{slug}.md"
        path.write_text(path.read_text() + f"\nEdit number {self.edits}.\n")

    def check(self, when: str) -> None:
        self.cleans += 1
        clean = self.tmp / f"clean-{self.cleans}" / "out"
        build_site(BuildOptions(content=self.content, output=clean, cache=False, jobs=1))
        expected, expected_folders, _ = _tree(clean)
        files, folders, others = _tree(self.output)
        assert others == [], f"{when}: output/ holds {others}"
        assert files == expected, f"{when}: output/ differs from a clean build"
        assert folders == expected_folders, f"{when}: output/ has other folders than a clean build"
        if self.spare.exists() or self.spare.is_symlink():
            assert self.spare.is_dir() and not self.spare.is_symlink(), f"{when}: the spare is not a folder"
            files, folders, others = _tree(self.spare)
            assert others == [], f"{when}: the spare holds {others}"
            assert set(files) <= set(expected), f"{when}: the spare holds {sorted(set(files) - set(expected))}"
            assert set(folders) <= set(expected_folders), f"{when}: the spare holds {sorted(set(folders) - set(expected_folders))}"


# --- what is planted, and where -------------------------------------------------------

def _outside(site: Site) -> Path:
    """A folder outside both trees, holding a copy of a page (same bytes, same mtime)."""
    outside = site.tmp / "outside"
    outside.mkdir(exist_ok=True)
    page = site.output / "alpha" / "index.html"
    copy = outside / "index.html"
    copy.write_bytes(page.read_bytes())
    os.utime(copy, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns))
    return outside


def _symlink_to_etc(site, tree):
    os.symlink("/etc", tree / "etclink")


def _symlink_to_outside_file(site, tree):
    os.symlink(_outside(site) / "index.html", tree / "alpha" / "copy.html")


def _dangling_symlink(site, tree):
    os.symlink(site.tmp / "nowhere", tree / "beta" / "dangling")


def _symlink_replacing_a_page(site, tree):
    # Pointing at the live page (same bytes): a check that follows links takes it for the file.
    page = tree / "gamma" / "index.html"
    page.unlink()
    os.symlink(site.output / "gamma" / "index.html", page)


def _symlink_replacing_a_page_to_a_copy(site, tree):
    copy = _outside(site) / "index.html"
    page = tree / "alpha" / "index.html"
    page.unlink()
    os.symlink(copy, page)


def _symlink_replacing_a_page_folder(site, tree):
    outside = _outside(site)
    folder = tree / "alpha"
    for child in folder.iterdir():
        child.unlink()
    folder.rmdir()
    os.symlink(outside, folder)


def _fifo(site, tree):
    os.mkfifo(tree / "beta" / "pipe")


def _fifo_replacing_a_page(site, tree):
    page = tree / "beta" / "index.html"
    page.unlink()
    os.mkfifo(page)


def _socket(site, tree):
    plant_socket(tree / "gamma" / "sock")


def _stray_file_and_folder(site, tree):
    (tree / "stray.txt").write_text("left here")
    (tree / "alpha" / "stray.html").write_text("left here too")
    (tree / "stray-folder" / "deeper").mkdir(parents=True)
    (tree / "beta" / "empty-folder").mkdir()


def _restoring_mtime(plant):
    """``plant``, then every touched folder's mtime set back: only ctime can tell."""
    def planted(site, tree):
        folders = [tree, *(p for p in tree.iterdir() if p.is_dir() and not p.is_symlink())]
        times = {folder: (folder.stat().st_atime_ns, folder.stat().st_mtime_ns) for folder in folders}
        plant(site, tree)
        for folder, ns in times.items():
            if folder.is_dir() and not folder.is_symlink():
                os.utime(folder, ns=ns)
    planted.__name__ = f"{plant.__name__}_mtime_restored"
    return planted


PLANTS: list[Callable[[Site, Path], None]] = [
    _symlink_to_etc, _symlink_to_outside_file, _dangling_symlink, _symlink_replacing_a_page,
    _symlink_replacing_a_page_to_a_copy, _symlink_replacing_a_page_folder, _fifo, _fifo_replacing_a_page,
    _socket, _stray_file_and_folder,
    _restoring_mtime(_symlink_to_etc), _restoring_mtime(_symlink_replacing_a_page), _restoring_mtime(_fifo),
    _restoring_mtime(_stray_file_and_folder),
]


# --- how the site is rebuilt ---------------------------------------------------------------

def _body_edit(site):
    site.edit()
    site.build()


def _full_build(site):
    # A summary shows on other pages (the index, hover cards): the full pipeline, with the cache.
    site.edits += 1
    path = site.content / "terms" / "gamma.md"
    path.write_text(re.sub(r"^summary: .*$", f"summary: Third, version {site.edits}.", path.read_text(), count=1, flags=re.M))
    site.build()


def _no_cache(site):
    site.edit()
    site.build(cache=False)


def _no_change(site):
    site.build()


def _in_place(site):
    site.edit()
    site.build(in_place=True)  # what serve's worker runs


BUILDS = [_body_edit, _full_build, _no_cache, _no_change, _in_place]


def _name(value) -> str:
    return value.__name__.strip("_")


@pytest.fixture(autouse=True)
def _close_caches():
    """Each in-process build leaves its cache's SQLite handles to the garbage
    collector: collect them, or this module's ~700 builds run the process out of
    the descriptors select() can watch (test_watch fails after it)."""
    yield
    gc.collect()


@pytest.fixture
def site(tmp_path) -> Site:
    site = Site(tmp_path)
    site.build()
    site.edit()
    site.build()  # a spare with its records
    assert site.spare.is_dir()
    return site


@pytest.mark.parametrize("rebuild", BUILDS, ids=_name)
@pytest.mark.parametrize("where", ["spare", "output"])
@pytest.mark.parametrize("plant", PLANTS, ids=_name)
def test_nothing_planted_survives(site, plant, where, rebuild):
    tree = site.spare if where == "spare" else site.output
    plant(site, tree)
    # Three builds: an entry could travel spare -> output -> spare -> output.
    for round_ in range(3):
        rebuild(site)
        site.check(f"{_name(plant)} in {where}, {_name(rebuild)} #{round_ + 1}")
    assert not (site.tmp / "outside" / "index.html.new").exists()
    assert not Path("/etc/index.html").exists()


@pytest.mark.parametrize("rebuild", BUILDS, ids=_name)
def test_a_symlink_in_place_of_the_spare_itself(site, tmp_path, rebuild):
    """Refused at its path (tests/publish/test_hardening_planted.py plants every
    kind everywhere); with every way of building, removed, the next build works."""
    outside = _outside(site)
    before = sorted(p.name for p in outside.iterdir())
    os.rename(site.spare, tmp_path / "old-spare")
    os.symlink(outside, site.spare)
    with pytest.raises(RefusedPath, match=re.escape(str(site.spare))):
        rebuild(site)
    assert sorted(p.name for p in outside.iterdir()) == before  # nothing was written through the link
    site.spare.unlink()
    for round_ in range(2):
        rebuild(site)
        site.check(f"spare symlink removed, {_name(rebuild)} #{round_ + 1}")


@pytest.mark.parametrize("kind", ["symlink", "fifo", "stray"])
def test_serve_in_place_writes_still_take_the_fast_path_and_clean_up(site, kind):
    """serve's worker writes the edited page in place when the live site matches
    its record; a planted entry voids that (the full build runs), a spare that
    changed is cleaned, and the edits after go in place again."""
    site.edit()
    site.build(in_place=True)
    spare_before = site.spare.stat().st_ino
    site.check("in place, nothing planted")
    target = {"symlink": lambda: os.symlink("/etc", site.output / "alpha" / "etc"),
              "fifo": lambda: os.mkfifo(site.spare / "beta" / "pipe"),
              "stray": lambda: (site.output / "stray.txt").write_text("x")}[kind]
    target()
    site.edit()
    site.build(in_place=True)
    site.check(f"in place after a planted {kind}")
    for _ in range(2):
        site.edit()
        site.build(in_place=True)
        site.check(f"in place, {kind} gone")
    if kind == "fifo":  # planted in the spare only: the live site matched, the writes went in place
        assert site.spare.stat().st_ino == spare_before


def test_the_fast_path_still_touches_only_the_edited_page(site, monkeypatch):
    from site_builder import publish

    touched: list[str] = []
    original_link, original_write = publish.Staging._link, publish.Staging._write
    monkeypatch.setattr(publish.Staging, "_link", lambda self, old, target: (touched.append(target), original_link(self, old, target))[1])
    monkeypatch.setattr(publish.Staging, "_write", lambda self, target, data: (touched.append(target), original_write(self, target, data))[1])
    site.edit("gamma")  # the fixture's last build edited beta
    site.build()
    # gamma's page, and beta's: the spare holds the version of beta before that edit;
    # and of the search index, only the shards the edited words are in (issue 23).
    pages = [t for t in touched if "/search/" not in t]
    assert sorted(Path(t).parent.name for t in pages) == ["beta", "gamma"]
    shards = {os.path.relpath(t, site.output.parent).split(os.sep, 1)[1] for t in touched if "/search/" in t}
    every = {p.relative_to(site.output).as_posix() for p in (site.output / "search").rglob("*") if p.is_file()}
    assert shards < every, "the edit rewrote the whole search index"
    site.check("fast path")


# --- a full disk -------------------------------------------------------------------------------

def test_a_full_disk_names_the_file(tmp_path, small_disk):
    content = _content(tmp_path / "content")
    output = small_disk / "site" / "out"
    command = [sys.executable, "-m", "site_builder", "build", "--quiet", "--no-cache",
               "--content", str(content), "--output", str(output)]
    first = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    before, _, _ = _tree(output)
    # Fill the disk, leaving a little room: the next build fails while writing.
    filler = fill_disk(small_disk)
    os.truncate(filler, max(0, filler.stat().st_size - 8192))
    (content / "terms" / "beta.md").write_text(term("Beta", "Second, changed.", "Beta prose. " * 2000))
    failed = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1
    lines = failed.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in failed.stderr, failed.stderr
    assert lines[0].startswith("error: [Errno 28] No space left on device: '"), lines[0]
    named = lines[0].split(": '", 1)[1].rstrip("'")
    assert named.startswith(str(small_disk)), named
    assert _tree(output)[0] == before  # the old site, whole
    assert not list(output.parent.glob(".out.staging-*"))
    filler.unlink()
    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr


def test_a_full_disk_in_serve_in_place_writes_names_the_file_and_leaves_no_temporary(tmp_path, small_disk):
    content = _content(tmp_path / "content")
    # Search on (issue 23): its fast path only reads its store, so a full disk
    # does not make it step aside.
    (content / "site.toml").write_text('title = "Hardening"\npreviews = false\n')
    output = small_disk / "site" / "out"
    build_site(BuildOptions(content=content, output=output, jobs=1))
    build_site(BuildOptions(content=content, output=output, jobs=1))
    filler = fill_disk(small_disk)
    path = content / "terms" / "beta.md"
    path.write_text(path.read_text() + "\n" + "More prose. " * 4000 + "\n")
    with pytest.raises(OSError) as failure:
        build_site(BuildOptions(content=content, output=output, jobs=1, in_place=True))
    assert failure.value.errno == 28 and failure.value.filename
    assert str(failure.value.filename).startswith(str(output)), failure.value.filename
    _, _, others = _tree(output)
    assert others == []
    assert not [p for p in output.rglob("*.tmp")], "a temporary file left in the served site"
    filler.unlink()
    build_site(BuildOptions(content=content, output=output, jobs=1, in_place=True))
    clean = tmp_path / "clean" / "out"
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert _tree(output)[0] == _tree(clean)[0]


def test_a_forged_record_cannot_lead_out_of_the_tree(site, tmp_path):
    """The tree record names files; one naming ``..`` is refused, not followed."""
    import marshal

    victim = site.output.parent / "victim.txt"
    victim.write_text("not the site's")
    record = site.output.parent / ".out.tree-record"
    data = marshal.loads(record.read_bytes())
    # (The paths are one string, "\0" between them; None: the live site's.)
    data["spare"]["paths"] = (data["spare"]["paths"] or data["output"]["paths"]) + "\0../victim.txt"
    record.write_bytes(marshal.dumps(data))
    site.edit()
    site.build()
    site.check("forged record")
    assert victim.read_text() == "not the site's"


def test_a_symlink_left_as_an_interrupted_swap_is_not_restored(tmp_path):
    """``.out.old`` is how the two-rename fallback leaves the old site when killed
    between its renames; a symlink there is never made the site."""
    site = Site(tmp_path)
    site.build()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / ".site-builder").write_text("")
    os.rename(site.output, tmp_path / "moved-away")
    os.symlink(outside, site.output.parent / ".out.old")
    with pytest.raises(RefusedPath, match=re.escape(str(site.output.parent / ".out.old"))):
        site.build()
    assert not site.output.is_symlink()
    (site.output.parent / ".out.old").unlink()
    site.build()
    site.check("after an .out.old symlink")
    assert sorted(p.name for p in outside.iterdir()) == [".site-builder"]
