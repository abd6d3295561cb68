"""``publish/ahead.py``: the trees' checks made in a forked child while the
build loads (the spare at its claim, the live site as it is swapped out,
pages changed by hand). Forced on here (``AHEAD_FROM = 0``: these sites are
small): an edit takes the child's answers instead of surveying the trees
itself; nothing planted in either tree before a build survives it; a page
changed by hand is rendered again; an answer is taken only for the very
record and tree it was made on, and a child that failed gives none."""

from __future__ import annotations

import os

import pytest

from site_builder.cache import pages as page_cache
from site_builder.publish import ahead, records

from test_hardening_spare import PLANTS, _body_edit, _close_caches, _full_build, _name, site  # noqa: F401 (fixtures)


_real_idle_core = page_cache._idle_core  # (the fixture below forces it on)


@pytest.fixture(autouse=True)
def _made_ahead(monkeypatch):
    monkeypatch.setattr(ahead, "AHEAD_FROM", 0)
    monkeypatch.setattr(page_cache, "_idle_core", lambda jobs=None: True)  # whatever the machine's load
    yield
    assert ahead._running is None, "a build left its child running"


def _answers(monkeypatch) -> tuple[list, list]:
    """(roots of the whole-tree surveys this process makes, what ``ahead.extra`` gave it)."""
    whole, given = [], []
    survey, extra = records._survey, ahead.extra

    def surveying(root, paths, now, before=None, only=None, **options):
        if only is None:
            whole.append(root)
        return survey(root, paths, now, before, only, **options)

    def giving(output):
        given.append(extra(output))
        return given[-1]
    monkeypatch.setattr(records, "_survey", surveying)
    monkeypatch.setattr(ahead, "extra", giving)
    return whole, given


def test_an_edit_takes_the_answers_made_ahead(site, monkeypatch):
    whole, given = _answers(monkeypatch)
    for _ in range(3):
        _body_edit(site)
    assert whole == [], "the build surveyed a whole tree itself"
    assert len(given) == 3 and all(found == [] for found in given), given
    monkeypatch.undo()
    site.check("three edits checked ahead")
    live, spare = records._read_trees(site.output)
    assert live.holds(site.output, True) and spare.holds(site.spare, False)


def test_a_page_changed_by_hand_is_rendered_again(site, monkeypatch):
    page = site.output / "alpha" / "index.html"
    with open(page, "ab") as handle:  # in place: the spare's link to it changes too
        handle.write(b"<!-- changed by hand -->")
    whole, given = _answers(monkeypatch)
    _body_edit(site)
    assert given == [["alpha/index.html"]]
    monkeypatch.undo()
    site.check("a page changed by hand, found ahead")


@pytest.mark.parametrize("rebuild", [_body_edit, _full_build], ids=_name)
@pytest.mark.parametrize("where", ["spare", "output"])
@pytest.mark.parametrize("plant", PLANTS[:6] + PLANTS[-4:], ids=_name)
def test_nothing_planted_survives_a_build_checked_ahead(site, plant, where, rebuild):
    plant(site, site.spare if where == "spare" else site.output)
    for round_ in range(2):  # an entry could travel spare -> output -> spare
        rebuild(site)
        site.check(f"{_name(plant)} in {where}, {_name(rebuild)} #{round_ + 1}")


def test_an_answer_goes_with_its_record_and_tree(site):
    live, spare = records._read_trees(site.output)
    assert ahead.start(site.output)
    try:
        assert ahead.spare_held(spare, site.spare) is True
        snapshot = ahead.old_site(site.output, live)  # (the live site itself: no swap here)
        assert isinstance(snapshot, records._Snapshot)
        assert {*snapshot.ctimes, *snapshot.listed} == {*live.snapshot.ctimes, *live.snapshot.listed}
        assert all(live.snapshot.ctimes.get(folder, ctime) == ctime for folder, ctime in snapshot.ctimes.items())
        # Another build's record (every swap writes one): read again, its sides are not the child's.
        records._save_trees(site.output, live, spare)
        records._last_trees = None
        other_live, other_spare = records._read_trees(site.output)
        assert ahead.spare_held(other_spare, site.spare) is ahead.UNKNOWN
        assert ahead.old_site(site.output, other_live) is None
        assert ahead.extra(site.output) is ahead.UNKNOWN
        # The same record, another tree at its place: no answer either.
        assert ahead.spare_held(spare, site.output) is ahead.UNKNOWN
    finally:
        ahead.stop()


def test_a_child_that_failed_answers_nothing(site):
    live, spare = records._read_trees(site.output)
    assert ahead.start(site.output, lambda: 1 / 0)
    pid = ahead._running.pid
    try:
        assert ahead.spare_held(spare, site.spare) is True  # sent before it failed
        assert ahead.extra(site.output) is ahead.UNKNOWN
        assert ahead.old_site(site.output, live) is None
    finally:
        ahead.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped


def test_on_busy_cores_the_build_checks_in_process(site, monkeypatch):
    monkeypatch.setattr(page_cache, "_idle_core", lambda jobs=None: False)
    whole, given = _answers(monkeypatch)
    _body_edit(site)
    assert given == [] and ahead._running is None  # no child asked
    assert str(site.spare) in whole  # the old site, surveyed once swapped out (and the spare at its claim)
    monkeypatch.undo()
    site.check("an edit checked in process")


def test_the_child_writes_nothing_beside_the_output(site, monkeypatch, tmp_path):
    """The file system's clock is probed before the fork: a probe file the child
    made could be left behind when the build ends it mid-look (SIGKILL)."""
    probes = tmp_path / "probes"
    clock = ahead._clock

    def probing(output):
        with open(probes, "a") as handle:  # the child's writes land here too
            handle.write(f"{os.getpid()}\n")
        return clock(output)
    monkeypatch.setattr(ahead, "_clock", probing)
    live, _spare = records._read_trees(site.output)
    assert ahead.start(site.output)
    try:
        assert isinstance(ahead.old_site(site.output, live), records._Snapshot)  # every answer given
    finally:
        ahead.stop()
    assert probes.read_text().split() == [str(os.getpid())]


def test_a_failure_while_the_build_cleans_up_still_ends_the_child(site, monkeypatch):
    """``ahead.stop`` comes first in the build's clean-up: a clean-up step that
    raises must not leave the child running (it outlives a library caller's build)."""
    from site_builder.cache import store as cache

    started = []
    start = ahead.start
    monkeypatch.setattr(ahead, "start", lambda *args: start(*args) and not started.append(ahead._running.pid))

    def closing(self):
        raise OSError("the cache could not be closed")
    monkeypatch.setattr(cache.BuildCache, "close", closing)
    with pytest.raises(OSError, match="could not be closed"):
        _body_edit(site)
    assert started, "no child was started"
    assert ahead._running is None
    with pytest.raises(ChildProcessError):
        os.waitpid(started[0], os.WNOHANG)  # reaped


def test_no_child_without_a_core_to_give_it(monkeypatch, tmp_path):
    """``--jobs 1``, a cgroup quota of one core, or one core: the build checks in
    process whatever the load; a quota is read in whole cores."""
    quota_cores = page_cache._quota_cores
    monkeypatch.setattr(page_cache.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    monkeypatch.setattr(page_cache, "_quota_cores", lambda: None)
    assert _real_idle_core(1) is False
    monkeypatch.setattr(page_cache, "_quota_cores", lambda: 1)
    assert _real_idle_core(None) is False and _real_idle_core(4) is False
    monkeypatch.setattr(page_cache.os, "sched_getaffinity", lambda pid: {0})
    monkeypatch.setattr(page_cache, "_quota_cores", lambda: None)
    assert _real_idle_core(None) is False
    quota = tmp_path / "cpu.max"
    for text, cores in (("max 100000\n", None), ("150000 100000\n", 1), ("400000 100000\n", 4),
                        ("50000 100000\n", 1), ("garbage\n", None)):
        quota.write_text(text)
        assert quota_cores(str(quota)) == cores, text
    assert quota_cores(str(tmp_path / "none")) is None
