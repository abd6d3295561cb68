"""Both watchers behind ``serve`` see saves in content and code, and nothing in skipped folders.

watchfiles' watcher is the ``serve`` extra's (the test extra installs it): where
it is missing these tests skip locally and fail under CI=true. The polling
watcher, the fallback, is chosen explicitly and always runs."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from helpers import under_ci
from site_builder.serve import watch

try:
    import watchfiles
except ImportError:  # the serve extra is missing
    watchfiles = None

needs_watchfiles = pytest.mark.skipif(watchfiles is None and not under_ci(),
                                      reason="watchfiles missing: pip install 'site_builder[serve]'")
WATCHERS = [watch.PollingWatcher, pytest.param(watch.WatchfilesWatcher, marks=needs_watchfiles)]


def setup(tmp_path: Path, kind):
    content = tmp_path / "content"
    (content / "terms" / "deep").mkdir(parents=True)
    (content / "terms" / "a.md").write_text("one")
    code = tmp_path / "pkg"
    (code / "__pycache__").mkdir(parents=True)
    (code / "mod.py").write_text("x = 1")
    out = tmp_path / "content" / "output"
    out.mkdir()
    return content, code, out, kind([content], code, lambda path: path == str(out) or path.endswith("__pycache__"))


def change_soon(action, delay=0.05):
    timer = threading.Timer(delay, action)
    timer.start()
    return timer


@pytest.mark.parametrize("kind", WATCHERS)
def test_watchers_see_content_and_code_changes(tmp_path: Path, kind):
    content, code, out, watcher = setup(tmp_path, kind)
    try:
        assert watcher.wait(lambda: False) == (False, False)
        change_soon(lambda: (content / "terms" / "a.md").write_text("two"))
        assert _next_change(watcher) == (True, False)
        assert watcher.changed == {str(content / "terms" / "a.md")}  # what serve tells the build to look at
        change_soon(lambda: (code / "mod.py").write_text("x = 2"))
        assert _next_change(watcher) == (False, True)
        # A new folder, then a file saved inside it: watched at once (the watch restarts with it).
        new = content / "terms" / "new"
        change_soon(lambda: (new.mkdir(), (new / "b.md").write_text("b")))
        assert _next_change(watcher) == (True, False)
        if kind is watch.WatchfilesWatcher:
            assert watcher.changed is None  # a folder event: its files had no events of their own
        change_soon(lambda: (new / "c.md").write_text("c"))
        assert _next_change(watcher) == (True, False)
        # Writes the builder makes itself are not changes.
        change_soon(lambda: (out / "index.html").write_text("built"))
        change_soon(lambda: (code / "__pycache__" / "mod.pyc").write_text("cached"))
        assert _next_change(watcher, within=0.6) is None
    finally:
        watcher.close()


def _next_change(watcher, within: float = 3.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        changed = watcher.wait(lambda: False)
        if changed != (False, False):
            return changed
    return None


@needs_watchfiles
def test_make_watcher_prefers_watchfiles(tmp_path: Path):
    watcher = watch.make_watcher([tmp_path], tmp_path, lambda path: False)
    try:
        assert isinstance(watcher, watch.WatchfilesWatcher)
    finally:
        watcher.close()


def test_make_watcher_polls_without_watchfiles(tmp_path: Path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "watchfiles", None)  # as if the serve extra were not installed
    watcher = watch.make_watcher([tmp_path], tmp_path, lambda path: False)
    try:
        assert isinstance(watcher, watch.PollingWatcher)
        change_soon(lambda: (tmp_path / "a.md").write_text("new"))
        assert _next_change(watcher) == (True, True)  # (tmp_path is both the content and the code here)
    finally:
        watcher.close()


@needs_watchfiles
def test_watchfiles_follows_a_symlinked_terms_folder(tmp_path: Path):
    """content/terms may be a symlink to a folder elsewhere: its saves must be seen."""
    import os

    real = tmp_path / "elsewhere" / "terms"
    real.mkdir(parents=True)
    (real / "a.md").write_text("one")
    content = tmp_path / "content"
    content.mkdir()
    os.symlink(real, content / "terms")
    os.symlink(content, real / "loop")  # a cycle must not hang the watcher
    code = tmp_path / "pkg"
    code.mkdir()
    watcher = watch.WatchfilesWatcher([content], code, lambda path: False)
    try:
        change_soon(lambda: (real / "a.md").write_text("two"))
        assert _next_change(watcher) == (True, False)
        assert watcher.changed == {str(content / "terms" / "a.md")}
    finally:
        watcher.close()
