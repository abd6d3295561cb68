"""Regression (found in review): serve's ``changed`` hints when a whole folder of terms is swapped."""

from __future__ import annotations

import os
import subprocess

from site_builder.serve import watch
from site_builder.build import BuildOptions, build_site

from helpers import manifest, term, write_tree
from test_watch import needs_watchfiles


@needs_watchfiles
def test_folder_replaced_by_rename_is_rebuilt(tmp_path):
    kind = watch.WatchfilesWatcher  # (the polling watcher lists every file: it passes)
    content = write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "First.", "Alpha prose.\n"),
        "terms/sub/beta.md": term("Beta", "Second.", "Old beta prose.\n"),
    })
    staged = write_tree(tmp_path / "elsewhere" / "sub", {
        "beta.md": term("Beta", "Second.", "New beta prose.\n"),
    })
    output = tmp_path / "site" / "out"
    code = tmp_path / "pkg"
    code.mkdir()
    watcher = kind([content], code, lambda path: False)
    try:
        build_site(BuildOptions(content=content, output=output, jobs=1))  # serve's first build
        # Swap the folder in two renames (as a checkout tool or a sync might).
        os.rename(content / "terms" / "sub", tmp_path / "elsewhere" / "old-sub")
        os.rename(staged, content / "terms" / "sub")
        _rebuild_like_serve(watcher, content, output)
    finally:
        watcher.close()
    assert "New beta prose." in (output / "beta" / "index.html").read_text()
    assert manifest(output) == _clean_manifest(content, tmp_path)


def test_polling_watcher_sees_a_same_size_edit_that_keeps_the_mtime(tmp_path):
    """``cp -p`` over a term (same size, old mtime kept, same inode): the ctime
    changes, which the load stage's own signature notices, but the polling
    watcher's snapshot (mtime, size, inode) does not, and serve then tells the
    build not to look at that file even when another save triggers it."""
    content = write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "First.", "Alpha says cat.\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
    })
    output = tmp_path / "site" / "out"
    code = tmp_path / "pkg"
    code.mkdir()
    watcher = watch.PollingWatcher([content], code, lambda path: False)
    build_site(BuildOptions(content=content, output=output, jobs=1))  # serve's first build
    alpha = content / "terms" / "alpha.md"
    before = alpha.stat()
    backup = tmp_path / "alpha-backup.md"
    backup.write_text(alpha.read_text().replace("cat", "dog"))
    os.utime(backup, ns=(before.st_atime_ns, before.st_mtime_ns))
    subprocess.run(["cp", "-p", str(backup), str(alpha)], check=True)  # same size, same mtime
    beta = content / "terms" / "beta.md"
    beta.write_text(beta.read_text().replace("Beta prose.", "Beta prose!"))
    try:
        _rebuild_like_serve(watcher, content, output)
    finally:
        watcher.close()
    assert "Alpha says dog." in (output / "alpha" / "index.html").read_text()
    assert manifest(output) == _clean_manifest(content, tmp_path)


def _rebuild_like_serve(watcher, content, output) -> None:
    """What serve does after a save: wait for the watcher, then build with the
    paths it saw (None would mean "check every file")."""
    for _ in range(50):
        if watcher.wait(lambda: False)[0]:
            break
    changed = watcher.changed
    build_site(BuildOptions(content=content, output=output, jobs=1,
                            changed=frozenset(changed) if changed is not None else None))


def _clean_manifest(content, tmp_path) -> dict:
    clean = tmp_path / "clean" / "out"
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    return manifest(clean)
