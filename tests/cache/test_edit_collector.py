"""An edit's fast path runs with the cyclic garbage collector paused (it makes
many long-lived containers and no cyclic garbage to speak of), and what it made
is frozen before the collector is back on; a fast path that steps aside gives
the full build its collector back, with nothing of its own frozen."""

from __future__ import annotations

import gc
from pathlib import Path

from site_builder import build
from site_builder.cache import incremental

from helpers import clean_build_manifest, logged_build as _build, manifest, term, write_tree


def _content(root: Path) -> Path:
    files = {f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i}.\n") for i in range(6)}
    files["site.toml"] = 'title = "Collector"\npreviews = false\n'
    return write_tree(root, files)


def _watch(monkeypatch) -> dict:
    """Whether the collector was on when the fast path started, and the collections it ran."""
    seen = {"enabled": [], "collections": 0, "frozen_after": []}
    real = incremental.rebuild

    def counted(phase, info):
        if phase == "start":
            seen["collections"] += 1

    def rebuild(*args, **kwargs):
        seen["enabled"].append(gc.isenabled())
        gc.callbacks.append(counted)
        try:
            return real(*args, **kwargs)
        finally:
            gc.callbacks.remove(counted)
    monkeypatch.setattr(build.incremental, "rebuild", rebuild)
    real_freeze = gc.freeze

    def freeze():
        seen["frozen_after"].append(bool(seen["enabled"]))
        real_freeze()
    monkeypatch.setattr(build.gc, "freeze", freeze)
    return seen


def test_the_fast_path_runs_with_the_collector_paused(tmp_path, monkeypatch):
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)
    gc.collect()
    seen = _watch(monkeypatch)
    path = content / "terms" / "t02.md"
    path.write_text(path.read_text() + "\nAn edited line.\n")
    assert any("fast path" in line for line in _build(content, output))
    assert seen["enabled"] == [False], "the collector was on during the update"
    assert seen["collections"] == 0
    assert seen["frozen_after"][-1], "what the update made is frozen before the collector is back on"
    assert gc.isenabled()
    assert manifest(output) == clean_build_manifest(content, tmp_path)


def test_a_fast_path_that_steps_aside_freezes_nothing_of_its_own(tmp_path, monkeypatch):
    """The full build that follows gets its collector back, and what the update
    made (garbage now) is not frozen: the count of frozen objects is no higher
    when the full build's validate stage starts as when the update gave up."""
    content = _content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    _build(content, output)
    _build(content, output)
    seen = {}
    real_rebuild, real_check = incremental.rebuild, build.validate.check_terms

    def rebuild(*args, **kwargs):
        result = real_rebuild(*args, **kwargs)
        seen["frozen_at_return"] = gc.get_freeze_count()
        return result

    def check_terms(*args, **kwargs):
        seen["frozen_at_validate"], seen["enabled_at_validate"] = gc.get_freeze_count(), gc.isenabled()
        return real_check(*args, **kwargs)
    monkeypatch.setattr(build.incremental, "rebuild", rebuild)
    monkeypatch.setattr(build.validate, "check_terms", check_terms)
    path = content / "terms" / "t02.md"
    path.write_text(path.read_text() + "\n## A new heading\n\nIts anchor changes other pages: a full build.\n")
    assert not any("fast path" in line for line in _build(content, output))
    assert seen["enabled_at_validate"]
    # (frozen objects freed since lower the count: never more)
    assert seen["frozen_at_validate"] <= seen["frozen_at_return"], "the update's objects were frozen"
    assert manifest(output) == clean_build_manifest(content, tmp_path)
