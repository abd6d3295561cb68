"""A stage's slices run by forked workers and the build process together
(``parallel.share``, used by the markdown and page stages): a worker is
topped up while the build process is busy elsewhere, each slice's result is
handed over once, in order, as it comes in, before the last slice is run
here (issue 40, fourth round); guided slices cover every item once.

The fakes below stand in for a stage's work: ``in_worker`` runs in a forked
worker (it leaves a marker file per slice), ``render`` in this process."""

from __future__ import annotations

import gc
import os
import time
from pathlib import Path

import pytest

from site_builder import parallel
from site_builder.render.pages import page_slices

MARKERS: Path | None = None  # where the worker leaves a file per slice it ran (inherited by the fork)
WAIT = 30.0  # seconds a fake waits for the other side before it gives up (never reached when all is well)


def in_worker(bounds: tuple[int, int]):
    (MARKERS / f"{bounds[0]}").write_text(str(os.getpid()))
    return [("worker", bounds)]


def worker_slices() -> int:
    return len(list(MARKERS.iterdir()))


def wait_for(condition) -> bool:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


@pytest.fixture
def markers(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.MARKERS", tmp_path)
    return tmp_path


def test_a_worker_is_given_slices_while_the_build_process_is_busy(markers):
    """While this process runs ``meanwhile()`` (the site files: seconds at
    10,000 terms), the worker gets a new slice as each one is done, not only
    the ``OUTSTANDING_PER_WORKER`` it was given first."""
    seen: list[int] = []
    parallel.share(page_slices(400, 2), 1,
                   meanwhile=lambda: seen.append(wait_for(lambda: worker_slices() > parallel.OUTSTANDING_PER_WORKER + 1)),
                   here=lambda start, end: [("here", (start, end))], in_worker=in_worker, collect=lambda results: None)
    assert seen == [True]


def test_slices_are_handed_over_in_order_as_they_come_in(markers):
    """``collect`` gets every slice's results once, in slice order, and the
    worker's first ones before this process renders its last slice: what is
    made of them (the search index) overlaps the rendering."""
    count = 400
    cuts = page_slices(count, 2)
    collected: list[tuple[str, tuple]] = []
    rendered_here: list[int] = []  # how many results were collected when each slice here started

    def render(start: int, end: int):
        rendered_here.append(len(collected))
        if len(rendered_here) == 1:  # the worker's first slice is done (and reported back) before ours
            wait_for(lambda: worker_slices() >= 1)
        time.sleep(0.02)
        return [("here", (start, end))]

    parallel.share(cuts, 1, meanwhile=lambda: None, here=render, in_worker=paced_worker, collect=collected.extend)
    assert [bounds for _, bounds in collected] == cuts
    assert {who for who, _ in collected} == {"here", "worker"}
    assert rendered_here[-1] > 0, rendered_here  # results were collected before the last slice here


def test_a_failing_slice_fails_the_render_and_stops_handing_out(markers, caplog):
    """An error here ends the render; the slices done meanwhile hand out
    nothing more to the pool shutting down (no "exception calling callback")."""
    def render(start, end):
        wait_for(lambda: worker_slices() >= 1)
        raise RuntimeError("template error")

    with pytest.raises(RuntimeError, match="template error"):
        parallel.share(page_slices(400, 2), 1, meanwhile=lambda: None, here=render, in_worker=slow_worker,
                       collect=lambda results: None)
    assert worker_slices() < len(page_slices(400, 2))
    assert not [record for record in caplog.records if record.name == "concurrent.futures"], caplog.text


def paced_worker(bounds: tuple[int, int]):
    time.sleep(0.02)  # as long as a slice here: each side renders about half
    return in_worker(bounds)


def slow_worker(bounds: tuple[int, int]):
    found = in_worker(bounds)
    time.sleep(0.05)  # still running when the render fails: it ends while the pool shuts down
    return found


def numbers(bounds):  # module level: a worker's task is pickled by name
    return [(str(i), i) for i in range(*bounds)]


def test_every_item_once_in_order_whatever_the_count():
    """Guided slices run here and in a worker give every item once, in order,
    for counts around the smallest slice."""
    for count in (1, 2, 19, 20, 21, 250, 1001):
        collected: list = []
        parallel.share(parallel.guided_slices(count, 2), 1, lambda: None, lambda start, end: numbers((start, end)),
                       numbers, collected.extend)
        assert collected == [(str(i), i) for i in range(count)]


@pytest.mark.parametrize("processes", [1, 2, 3, 8])
def test_guided_slices_shrink_to_the_smallest_at_the_end(processes):
    """Every item once, in order, slices never growing, and the last ones small, so
    neither process waits long for the other at the end."""
    for count in (1, 19, 20, 21, 240, 10_000, 100_003):
        bounds = parallel.guided_slices(count, processes)
        assert [i for start, end in bounds for i in range(start, end)] == list(range(count))
        sizes = [end - start for start, end in bounds]
        assert sizes == sorted(sizes, reverse=True) or sizes[:-1] == sorted(sizes[:-1], reverse=True)
        assert sizes[-1] <= parallel.SMALLEST_SLICE
        assert len(bounds) <= processes * parallel.SHARE_PER_SLICE * 12  # handing over stays cheap


def test_share_leaves_a_collector_it_found_unfrozen_as_it_was():
    """A library caller that froze nothing (``render_bodies(jobs=2)`` called
    directly) gets its collector back unfrozen: ``share`` never starts a
    freeze, so a later ``build_site`` still unfreezes what it froze itself
    (a freeze after each slice, tried in issue 40's fifth round, once left
    24,000 objects frozen for good there)."""
    gc.unfreeze()
    kept: list = []
    parallel.share(parallel.guided_slices(300, 2), 1, lambda: None, lambda start, end: numbers((start, end)),
                   numbers, kept.append)
    assert gc.get_freeze_count() == 0 and len(kept) > 1


@pytest.mark.parametrize("processes", [1, 2, 3, 8])
def test_page_slices_are_equal_then_taper_to_the_smallest(processes):
    """Every page once, in order; equal slices first, never growing, and small
    ones at the end, so the build process does not wait long for a worker's
    last slices before the search tail."""
    for count in (0, 1, 2, 19, 20, 21, 240, 10_000, 100_003):
        bounds = page_slices(count, processes)
        assert [i for start, end in bounds for i in range(start, end)] == list(range(count))
        sizes = [end - start for start, end in bounds]
        assert sizes == sorted(sizes, reverse=True)
        if count >= parallel.SMALLEST_SLICE * processes * parallel.SHARE_PER_SLICE:
            assert sizes[-2] <= parallel.SMALLEST_SLICE  # tapered: the last two are the smallest
        assert len(bounds) <= processes * 24 * 4  # handing over stays cheap


def big_slice(bounds):  # module level: pickled by name; ~40 KB a slice, past parallel.INLINE_BYTES
    return [(str(i), "x" * 2000 + str(i)) for i in range(*bounds)]


def test_a_large_result_comes_back_in_a_file_and_small_ones_through_the_pipe():
    """A worker's result past ``INLINE_BYTES`` is handed back in a file in memory
    (its descriptor sent over a socket), not through the pool's pipe, whose reading
    waited on the busy main thread; what ``collect`` gets is the same either way."""
    cuts = parallel.guided_slices(400, 2)
    collected: list = []
    parallel.share(cuts, 1, lambda: None, lambda start, end: big_slice((start, end)), big_slice, collected.extend)
    assert collected == big_slice((0, 400))
    assert parallel._results is None
    # which way a result takes, asked here as a worker would be:
    from site_builder.slice_files import ResultFiles

    files = ResultFiles.open()
    parallel._results = files
    try:
        assert isinstance(parallel._run_slice(numbers, (0, 3), 0), bytes)  # small: through the pipe
        assert parallel._run_slice(big_slice, (0, 40), 7) == 7  # large: in a file, under its slice's index
        assert ResultFiles.load(files.descriptor(7)) == big_slice((0, 40))
    finally:
        parallel._results = None
        files.close()


def test_a_failed_stage_leaves_no_result_file_open(markers):
    """The files of slices done when the stage fails are closed with it."""
    def render(start, end):
        wait_for(lambda: worker_slices() >= 2)
        raise RuntimeError("template error")

    def descriptors() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = descriptors()
    with pytest.raises(RuntimeError, match="template error"):
        parallel.share(parallel.guided_slices(400, 2), 1, meanwhile=lambda: None, here=render,
                       in_worker=big_marked_worker, collect=lambda results: None)
    assert descriptors() == before


def big_marked_worker(bounds):
    in_worker(bounds)
    return big_slice(bounds)


def test_a_worker_without_a_file_to_spare_sends_its_result_through_the_pipe(monkeypatch):
    """No memory or descriptor for the file (``memfd_create`` failing in the
    worker): the result comes through the pool's pipe, as before, not as an error."""
    def no_file(*args):
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(parallel.os, "memfd_create", no_file)  # the forked worker inherits it
    collected: list = []
    parallel.share(parallel.guided_slices(400, 2), 1, lambda: None, lambda start, end: big_slice((start, end)),
                   big_slice, collected.extend)
    assert collected == big_slice((0, 400))


def test_a_result_file_arrives_close_on_exec():
    """The descriptors a worker sends back are close-on-exec here, as every one
    this process opens: a program it runs (a browser, git) inherits none."""
    from site_builder.slice_files import ResultFiles

    files = ResultFiles.open()
    assert files is not None
    try:
        files.send(7, b"x" * 100)
        descriptor = files.descriptor(7)
        try:
            assert os.get_inheritable(descriptor) is False
            assert os.pread(descriptor, 200, 0) == b"x" * 100
        finally:
            os.close(descriptor)
    finally:
        files.close()


@pytest.mark.parametrize("count", [200, 399, 1000, 10000])
def test_the_last_pages_entries_come_before_those_pages(count):
    """``render.pages.indexed_ahead``: every page is rendered once and indexed
    once; the entries of the last pages are made (and handed over) before those
    pages are rendered, so that what ``collect`` makes of all the entries runs
    while pages are still left to render; the slices still taper at the end."""
    from site_builder.render.pages import INDEX, RENDER, indexed_ahead

    cuts = indexed_ahead(count, 2)
    rendered = [page for start, end, what in cuts if what & RENDER for page in range(start, end)]
    indexed = [page for start, end, what in cuts if what & INDEX for page in range(start, end)]
    assert sorted(rendered) == list(range(count)) and indexed == list(range(count))  # once each, entries in order
    last_entries = max(index for index, (_start, _end, what) in enumerate(cuts) if what & INDEX)
    left = [page for start, end, what in cuts[last_entries + 1:] for page in range(start, end)]
    assert len(left) >= count // 10  # pages to render once every entry is in
    assert cuts[-1][1] - cuts[-1][0] <= max(parallel.SMALLEST_SLICE, count // 100)
