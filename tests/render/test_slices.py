"""The term pages rendered slice by slice by forked workers and the build
process together (render/slices.py): a worker is topped up while the build
process is busy elsewhere, and each slice's results are handed over in order
as they come in, before the last slice is rendered (issue 40, fourth round).

The fakes below stand in for the page rendering: ``in_worker`` runs in a
forked worker (it leaves a marker file per slice), ``render`` in this process."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from site_builder.render import slices

MARKERS: Path | None = None  # where the worker leaves a file per slice it ran (inherited by the fork)
WAIT = 30.0  # seconds a fake waits for the other side before it gives up (never reached when all is well)


class NoStaging:
    def merge(self, *report) -> None:
        pass


def in_worker(bounds: tuple[int, int]):
    (MARKERS / f"{bounds[0]}").write_text(str(os.getpid()))
    return (), [("worker", bounds)]


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
    slices.shared_render(NoStaging(), 400, 1,
                         meanwhile=lambda: seen.append(
                             wait_for(lambda: worker_slices() > slices.OUTSTANDING_PER_WORKER + 1)),
                         render=lambda start, end: [("here", (start, end))], in_worker=in_worker,
                         collect=lambda results: None)
    assert seen == [True]


def test_slices_are_handed_over_in_order_as_they_come_in(markers):
    """``collect`` gets every slice's results once, in slice order, and the
    worker's first ones before this process renders its last slice: what is
    made of them (the search index) overlaps the rendering."""
    count = 400
    cuts = slices.bounds(count, 2)
    collected: list[tuple[str, tuple]] = []
    rendered_here: list[int] = []  # how many results were collected when each slice here started

    def render(start: int, end: int):
        rendered_here.append(len(collected))
        if len(rendered_here) == 1:  # the worker's first slice is done (and reported back) before ours
            wait_for(lambda: worker_slices() >= 1)
        time.sleep(0.02)
        return [("here", (start, end))]

    slices.shared_render(NoStaging(), count, 1, meanwhile=lambda: None, render=render, in_worker=paced_worker,
                         collect=collected.extend)
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
        slices.shared_render(NoStaging(), 400, 1, meanwhile=lambda: None, render=render,
                             in_worker=slow_worker, collect=lambda results: None)
    assert worker_slices() < len(slices.bounds(400, 2))
    assert not [record for record in caplog.records if record.name == "concurrent.futures"], caplog.text


def paced_worker(bounds: tuple[int, int]):
    time.sleep(0.02)  # as long as a slice here: each side renders about half
    return in_worker(bounds)


def slow_worker(bounds: tuple[int, int]):
    found = in_worker(bounds)
    time.sleep(0.05)  # still running when the render fails: it ends while the pool shuts down
    return found
