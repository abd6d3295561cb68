"""The trees' checker forked by the command line before its imports
(``cli._check_early``, ``publish.ahead.start_early``): a build takes its
answers for the record it reads only when that is the very file the child read
(its signature), hands it the look for pages changed by hand, and leaves no
child behind however it ends. Forced on (``AHEAD_FROM = 0``, a core taken as
free) on the small site of the hardening tests."""

from __future__ import annotations

import os

import pytest

from site_builder import cli
from site_builder.cache import pages as page_cache
from site_builder.publish import ahead, records

from test_ahead import _answers, _made_ahead  # noqa: F401 (the autouse fixture: forced on, no child left)
from test_hardening_spare import _close_caches, site  # noqa: F401 (fixtures)


def _watch(monkeypatch) -> tuple[list, list, list]:
    """(roots of the whole-tree surveys this process makes, what ``ahead.extra``
    gave it, the pids of the children forked early)."""
    whole, given = _answers(monkeypatch)
    forked = []
    start_early = ahead.start_early

    def forking(output):
        started = start_early(output)
        if started:
            forked.append(ahead._running.pid)
        return started
    monkeypatch.setattr(ahead, "start_early", forking)
    return whole, given, forked


def _edit_by_cli(site, *extra: str) -> int:
    site.edit()
    return cli.main(["build", "--content", str(site.content), "--output", str(site.output), "--quiet", *extra])


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_an_edit_takes_the_answers_of_the_child_forked_early(site, monkeypatch):
    whole, given, forked = _watch(monkeypatch)
    for _ in range(2):
        assert _edit_by_cli(site) == 0
    assert len(forked) == 2 and all(_reaped(pid) for pid in forked)
    assert whole == [], "the build surveyed a whole tree itself"
    assert given == [[], []]  # the look handed over, made in the child
    monkeypatch.undo()
    site.check("two edits checked by a child forked early")


def test_a_page_changed_by_hand_is_found_by_the_child_forked_early(site, monkeypatch):
    page = site.output / "alpha" / "index.html"
    with open(page, "ab") as handle:
        handle.write(b"<!-- changed by hand -->")
    _whole, given, forked = _watch(monkeypatch)
    assert _edit_by_cli(site) == 0
    assert forked and given == [["alpha/index.html"]]
    monkeypatch.undo()
    site.check("a page changed by hand, found by a child forked early")


def test_an_answer_is_not_taken_for_another_record(site, monkeypatch):
    """The record rewritten after the child read it (as another build's swap
    does): the build reads a file of another signature and checks in process."""
    live, spare = records._read_trees(site.output)
    assert ahead.start_early(site.output)
    try:
        ahead._running.answer(ahead._SIGNATURE)  # the child has read the record
        records._save_trees(site.output, live, spare)  # a new file, the same sides
        records._last_trees = None
        other_live, other_spare = records._read_trees(site.output)
        assert ahead.spare_held(other_spare, site.spare) is ahead.UNKNOWN
        assert ahead.old_site(site.output, other_live) is None
        assert ahead.extra(site.output) is ahead.UNKNOWN
    finally:
        ahead.stop()


def test_the_same_record_read_by_the_build_is_answered(site):
    records._last_trees = None  # the build's own reading comes after the fork, as in the command line
    assert ahead.start_early(site.output)
    try:
        live, spare = records._read_trees(site.output)
        assert ahead.spare_held(spare, site.spare) is True
        assert ahead.spare_held(spare, site.output) is ahead.UNKNOWN  # another tree at its place
        assert ahead.start(site.output, None)  # handed to it: nothing to look at
        assert ahead.extra(site.output) is None
        assert isinstance(ahead.old_site(site.output, live), records._Snapshot)
    finally:
        ahead.stop()


def test_a_look_that_cannot_be_handed_over_is_made_by_the_build(site):
    records._last_trees = None
    assert ahead.start_early(site.output)
    try:
        live, _spare = records._read_trees(site.output)
        assert ahead.start(site.output, lambda: ["alpha/index.html"])  # a lambda: not pickled
        assert ahead.extra(site.output) is None  # nothing given: changed_by_hand looks itself
        assert isinstance(ahead.old_site(site.output, live), records._Snapshot)  # the rest still answered
    finally:
        ahead.stop()


def test_a_build_that_asks_for_no_look_still_gets_the_live_site(site):
    """A build that never hands over a look (no page manifest read: no cache
    left, a failure first) does not wait for the child forever."""
    records._last_trees = None
    assert ahead.start_early(site.output)
    try:
        live, _spare = records._read_trees(site.output)
        assert isinstance(ahead.old_site(site.output, live), records._Snapshot)
    finally:
        ahead.stop()


def test_a_failed_build_leaves_no_child(site, monkeypatch):
    _whole, _given, forked = _watch(monkeypatch)
    (site.content / "terms" / "beta.md").write_text("no front matter\n")
    assert cli.main(["build", "--content", str(site.content), "--output", str(site.output), "--quiet"]) == 1
    assert forked and _reaped(forked[0])
    monkeypatch.undo()


def test_ctrl_c_during_the_imports_leaves_no_child(site, monkeypatch):
    _whole, _given, forked = _watch(monkeypatch)

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "_import_build", interrupted)
    site.edit()
    with pytest.raises(KeyboardInterrupt):
        cli.main(["build", "--content", str(site.content), "--output", str(site.output), "--quiet"])
    assert forked and _reaped(forked[0])


def test_no_child_is_forked_early_on_busy_cores_or_without_a_cache(site, monkeypatch):
    _whole, _given, forked = _watch(monkeypatch)
    monkeypatch.setattr(page_cache, "_idle_core", lambda jobs=None: False)
    assert _edit_by_cli(site) == 0
    monkeypatch.setattr(page_cache, "_idle_core", lambda jobs=None: True)
    assert _edit_by_cli(site, "--no-cache") == 0
    assert forked == []
    monkeypatch.undo()
    site.check("no child forked early")


def test_the_manifest_is_handed_over_as_it_is():
    """A large plain dict crosses as marshal's bytes (``ahead._packed``): the same
    entries in the same order; anything marshal cannot write is pickled as usual."""
    import functools
    import pickle

    manifest = {f"term-{n:05}/index.html": (f"key{n}", n, n * 10**9) for n in range(3000, 0, -1)}
    look = functools.partial(sorted, manifest, key=len)
    packed = ahead._packed(look)
    assert isinstance(packed.args[0], ahead._Marshalled)
    handed = pickle.loads(pickle.dumps(packed, pickle.HIGHEST_PROTOCOL))
    assert list(handed.args[0].items()) == list(manifest.items()) and handed.keywords == {"key": len}
    odd = {n: object() for n in range(2000)}  # not marshallable
    assert ahead._packed(functools.partial(len, odd)).args[0] is odd


def test_no_child_is_forked_early_for_a_small_site(site, monkeypatch):
    """A tree record too small to list ``AHEAD_FROM`` paths (~16 bytes each at the
    least): no child forked early; the build's own start decides, as before."""
    monkeypatch.setattr(ahead, "AHEAD_FROM", 10**6)
    assert ahead.start_early(site.output) is False and ahead._running is None
    monkeypatch.setattr(ahead, "AHEAD_FROM", 0)
    (site.output.parent / ".out.tree-record").unlink()  # no record: nothing to check
    assert ahead.start_early(site.output) is False and ahead._running is None


CTRL_C_AT_THE_FORK = r"""
import os, signal, sys
from pathlib import Path
from site_builder import cli, parallel
from site_builder.publish import ahead

signal.signal(signal.SIGINT, signal.default_int_handler)
content, output, which = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
for _ in range(2):  # a tree record, and a spare
    assert cli.main(["build", "--content", str(content), "--output", str(output), "--quiet"]) == 0
ahead.AHEAD_FROM = 0
fork = parallel.fork

def interrupted_fork():
    # A Ctrl-C right as the fork returns, before the caller has recorded the child.
    pid = fork()
    if pid:
        os.kill(os.getpid(), signal.SIGINT)
    return pid

parallel.fork = interrupted_fork
before = set(os.listdir("/proc/self/fd"))
try:
    ahead.start_early(output) if which == "early" else ahead.start(output, None)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted", "recorded" if ahead._running is not None else "lost")
ahead.stop()
try:
    print("a child left", os.waitpid(-1, os.WNOHANG))
except ChildProcessError:
    print("no child left")
print("descriptors left", sorted(set(os.listdir("/proc/self/fd")) - before))
"""


@pytest.mark.parametrize("which", ["early", "late"])
def test_a_ctrl_c_as_the_checker_is_forked_leaves_no_child_and_no_descriptor(tmp_path, which):
    """A Ctrl-C that comes as the fork returns is held until the child is
    recorded (``stop`` then ends it) and its pipes are the record's to close;
    before, the child was lost to the caller and its descriptors stayed open."""
    import subprocess
    import sys

    from helpers import REPO, term, write_tree

    content = write_tree(tmp_path / "content", {
        "site.toml": 'title = "T"\npreviews = false\n',
        **{f"terms/t{i}.md": term(f"T{i}", "S.", "Body.\n") for i in range(3)},
    })
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C_AT_THE_FORK)
    result = subprocess.run([sys.executable, str(script), str(content), str(tmp_path / "site" / "output"), which],
                            cwd=REPO, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.stdout.splitlines() == ["interrupted recorded", "no child left", "descriptors left []"], \
        result.stdout + result.stderr
