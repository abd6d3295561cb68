"""The term pages rendered by forked workers and the build process together,
slice by slice (``render.pages.write_term_pages`` with ``jobs`` > 1).

The pages are cut into slices, handed out as they are asked for: each forked
worker is kept ``OUTSTANDING_PER_WORKER`` slices ahead, topped up the moment
one of its slices is done (a callback, so also while the build process is
busy with ``meanwhile()``: before, a worker that finished its first slices
then waited for the build process to come back and give it more); the build
process takes the next slice nobody was given. Each slice's results (what
``also`` gave beside each page, and the worker's staging report) are handed
over in order as soon as they and every slice before them are in, between
the build process's own slices: what is made of them (the search index:
``cache.search.Indexer.take``) runs while the workers still render, not after
the last one (docs/performance.md, "Render stage and search tail").
"""

from __future__ import annotations

import threading
from typing import Callable

from .. import parallel

SLICES_PER_PROCESS = 24
"""Into how many slices each rendering process's share of the pages is cut:
small enough that neither side waits long for the other at the end, large
enough that handing one over costs nothing to speak of."""

OUTSTANDING_PER_WORKER = 2
"""Slices handed to each page worker ahead: one to render, one queued, so it never waits."""


def bounds(count: int, processes: int) -> list[tuple[int, int]]:
    """``count`` pages cut into slices for ``processes`` rendering processes."""
    step = max(1, -(-count // (processes * SLICES_PER_PROCESS)))
    return [(start, min(start + step, count)) for start in range(0, count, step)]


def shared_render(staging, count: int, workers: int, meanwhile: Callable[[], None],
                  render: Callable[[int, int], list], in_worker: Callable[[tuple[int, int]], tuple],
                  collect: Callable[[list], None]) -> None:
    """Render ``count`` pages with ``workers`` forked workers and this process.

    ``render(start, end)`` renders a slice here and gives its results;
    ``in_worker((start, end))`` does it in a worker and gives (its staging
    report, its results). This process forks the workers, runs
    ``meanwhile()``, then renders slices itself; ``collect(results)`` gets
    every slice's results in slice order, here, as soon as it can (the
    workers' reports are merged into ``staging`` just before). One fewer
    forked worker than rendering processes is one fewer copy of the pages
    this process shares with it (docs/performance.md, "Peak memory (issue
    40, third round)")."""
    cuts = bounds(count, workers + 1)
    futures: dict[int, object] = {}  # slice -> its worker's future
    mine: dict[int, list] = {}  # slice -> its results, for those rendered here
    taken = 0  # slices handed out so far, to a worker or to this process
    handed = 0  # slices whose results went to collect()
    lock = threading.RLock()  # taken and futures: the main thread's and the pool's result thread's

    def top_up(_done=None) -> None:
        """Keep each worker ``OUTSTANDING_PER_WORKER`` slices ahead; also called
        (as a future's callback) by the pool's thread as each slice is done."""
        nonlocal taken
        with lock:
            running = sum(1 for future in futures.values() if not future.done())
            while taken < len(cuts) and running < workers * OUTSTANDING_PER_WORKER:
                try:
                    future = futures[taken] = pool.submit(in_worker, cuts[taken])
                except Exception:  # (RuntimeError, BrokenProcessPool)
                    if _done is None:
                        raise
                    # In the pool's thread: the pool is shutting down (this process
                    # failed) or broken (a worker died, and the main thread gets that
                    # from its future). Nothing more to hand out, and nothing to log.
                    return
                taken, running = taken + 1, running + 1
                future.add_done_callback(top_up)

    def hand_over(wait: bool) -> None:
        """Give ``collect`` the results of the slices next in order that are in
        (``wait``: every slice, waiting for the workers' last ones)."""
        nonlocal handed
        while handed < len(cuts):
            if handed in mine:
                results = mine.pop(handed)
            else:
                with lock:  # futures: the pool's thread adds to it
                    future = futures.get(handed)
                    if future is None or not (wait or future.done()):
                        return
                    del futures[handed]
                report, results = future.result()
                staging.merge(*report)
            handed += 1
            collect(results)

    with parallel.pool(workers) as pool:
        top_up()  # forks the workers (from this thread: see parallel.py): they start before meanwhile()
        meanwhile()
        while True:
            with lock:
                top_up()
                if taken == len(cuts):
                    break
                index, taken = taken, taken + 1
            mine[index] = render(*cuts[index])
            hand_over(wait=False)
        hand_over(wait=True)
