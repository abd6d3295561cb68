"""Forked workers that never outlive the build that forked them.

Every process a build forks (the term loaders of ``preload.py``, the tree
checker of ``publish/ahead.py``, the markdown and page workers) starts here: ``fork()`` for a single child, ``pool()`` for a
``ProcessPoolExecutor`` (its initializer). ``serve``'s build worker, a fresh
interpreter, calls ``guard`` first thing. Then the child

1. asks the kernel for SIGKILL when its parent dies (Linux's
   ``PR_SET_PDEATHSIG``). It fires when the *thread* that forked exits: fork
   from the thread that also waits for the workers, as every caller here
   does (a fork-context pool forks all its workers at the first submit);
2. checks that its parent is still the process that forked it: if the parent
   died before step 1, no signal will ever come, so it exits at once;
3. (a pool's worker) freezes the collector's view of what it inherited
   (``gc.freeze``): a worker lives for one stage, and what it inherited
   outlives it in the parent.

Ctrl-C is held across every fork (``ctrl_c_held``) and raised after it: in
``fork`` before the caller has the pid, so ``fork`` kills and reaps that child
first (``end``); a pool records its workers before it is raised.

The output lock needs nothing here: it is a POSIX lock (``publish/lock.py``),
which belongs to the process that took it, so a child never holds it and a
killed build's lock is free even while a worker of it still runs. With the
death signal there is no stray worker either. Elsewhere than Linux only
step 2 happens. Loops in a worker can also ask ``orphaned()``.
``share()`` runs a stage's slices on ``jobs - 1`` such workers and the
process that forked them (the markdown and page stages).
The background deletion of ``publish.remove_tree`` is meant to outlive the
build: it forks on its own, detaches and closes its descriptors.
"""

from __future__ import annotations

import ctypes
import gc
import os
import pickle
import signal
import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from .slice_files import ResultFiles
    from concurrent.futures import ProcessPoolExecutor

_PR_SET_PDEATHSIG = 1

_parent: int | None = None
"""In a child set up by ``guard``: the pid of the process that forked it."""


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - a libc without prctl
        return None


_prctl = _load_prctl()  # looked up here, in the parent: a child pays nothing for it


def guard(parent: int) -> None:
    """In a child just forked by ``parent``: die with it."""
    global _parent
    _parent = parent
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if orphaned():  # the parent died before the prctl: no signal will come
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: stop quietly, no traceback; the parent reports it


def orphaned() -> bool:
    """True in a guarded child whose parent has died (it was adopted by another process)."""
    return _parent is not None and os.getppid() != _parent


def fork() -> int:
    """``os.fork()``, the child guarded (see the module's docstring).

    Ctrl-C is held across the fork (``ctrl_c_held``), and one that came
    meanwhile is raised here, before this returns: the caller never learns
    that child's pid. So on that way out (and any other after the fork) the
    child is killed and reaped here first (``end``): a child whose pid this
    returns is the caller's to reap, and no other outlives the call."""
    parent, pid = os.getpid(), 0
    try:
        with ctrl_c_held():
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child
                guard(parent)
    except BaseException:
        if pid > 0:
            end(pid)
        raise
    return pid


def end(pid: int) -> None:
    """Kill the child ``pid`` and reap it (a no-op for one reaped already), with
    Ctrl-C held meanwhile: raised once it is reaped, not between the two."""
    with ctrl_c_held():
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


@contextmanager
def ctrl_c_held() -> Iterator[None]:
    """SIGINT blocked (in the main thread) while this process forks, delivered after:
    a Ctrl-C during a fork raised KeyboardInterrupt in its handlers (``logging``'s,
    ``multiprocessing``'s), here or in the child before it set its disposition
    ("Exception ignored" tracebacks). Held twice, the outer one delivers it."""
    held = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if held else None
    try:
        yield  # (the child unblocks it once its disposition is set)
    finally:
        if held:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


def can_pool() -> bool:
    """Whether ``pool()`` can fork here (not on Windows)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def pool(jobs: int, initializer: Callable[..., None] | None = None, initargs: tuple = ()) -> "ProcessPoolExecutor":
    """A pool of ``jobs`` forked workers, each guarded before ``initializer(*initargs)``.

    Forked (not spawned): workers inherit the imported modules and whatever
    the caller set up for them, so starting one costs milliseconds.
    """
    import multiprocessing  # here: preload imports this module before anything heavy
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker,
                               initargs=(os.getpid(), initializer, initargs))


def default_jobs() -> int:
    """Worker processes to use by default: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def kill(workers: "ProcessPoolExecutor") -> None:
    """End a ``pool`` at once: its processes killed mid-task, queued work
    cancelled. ``ProcessPoolExecutor`` has no public way to stop a running
    task, so this reads its process table, here beside the pool it made."""
    for process in list((getattr(workers, "_processes", None) or {}).values()):
        process.kill()
    workers.shutdown(wait=True, cancel_futures=True)


def _start_worker(parent: int, initializer: Callable[..., None] | None, initargs: tuple) -> None:
    guard(parent)
    # Ctrl-C reaches the whole process group. A pool's worker killed by it while
    # it sends a result leaves half a message in the pool's result pipe, whose
    # write end this process also holds: the pool's thread then waits for the
    # rest forever, and so does the build's exit. A worker ignores Ctrl-C and
    # ends with its pool instead: the build process, interrupted, waits for the
    # slices handed out (``share`` hands each worker at most
    # ``OUTSTANDING_PER_WORKER``); a killed build's workers still die with it
    # (the death signal).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # (blocked across the fork: ctrl_c_held)
    # What the worker inherited it only reads: kept out of its collections, so
    # they write no collector headers into pages it shares with the build
    # (each such write copies a 4 KiB page). 3-6 % fewer page faults in a
    # page worker at 10,000 terms (docs/performance.md, "Peak memory (issue 40, third round)").
    gc.freeze()
    if initializer is not None:
        initializer(*initargs)


OUTSTANDING_PER_WORKER = 2
"""Slices ``share`` keeps handed to each worker ahead: one to run, one queued, so it never waits."""


def share(cuts: list[tuple[int, int]], workers: int, meanwhile: Callable[[], None],
          here: Callable[[int, int], object], in_worker: Callable[[tuple[int, int]], object],
          collect: Callable[[object], None], initializer: Callable[..., None] | None = None,
          initargs: tuple = ()) -> None:
    """Run every slice ``(start, end)`` of ``cuts`` once: on ``workers`` forked
    workers (``pool``) and in this process together.

    This process forks the workers, runs ``meanwhile()``, then takes the next
    slice no worker was given, again and again: ``here(start, end)`` runs a
    slice here, ``in_worker((start, end))`` in a worker (it must be picklable
    by name, and what it gives back must pickle). Each worker is kept
    ``OUTSTANDING_PER_WORKER`` slices ahead, topped up the moment one of its
    slices is done (a callback of the pool's thread: also while this process
    is busy with ``meanwhile()``). ``collect(result)`` gets each slice's
    result, in ``cuts``' order, in this process, as soon as it and every slice
    before it are in (between the slices run here): what is made of them runs
    while the workers still work, not after the last one. A worker's large
    result comes back in a file in memory (``slice_files``), not through the
    pool's pipe.

    Why ``jobs - 1`` workers beside this process rather than ``jobs`` beside a
    waiting one: on ``jobs`` cores they do as much, what runs here is neither
    pickled nor unpickled, and one worker fewer is one copy fewer of what this
    process shares with them (docs/performance.md, "Peak memory (issue 40,
    third round)", "Render stage and search tail (issue 40, fourth round)").
    An error here or in a worker ends the stage: it is raised here, and the
    pool's exit waits for its workers (none outlives the build).
    """
    global _results
    futures: dict[int, object] = {}  # slice -> its worker's future
    mine: dict[int, object] = {}  # slice -> its result, for those run here
    taken = 0  # slices handed out so far, to a worker or to this process
    handed = 0  # slices whose results went to collect()
    lock = threading.RLock()  # taken and futures: the main thread's and the pool's result thread's
    enclosing = _results  # (a share inside another's meanwhile(): the outer one's, given back after)
    from .slice_files import ResultFiles  # (here: a build that shares no stage needs none of it)

    files = _results = ResultFiles.open()  # before the pool forks: its workers inherit the sending end

    def top_up(_done=None) -> None:
        nonlocal taken
        with lock:
            if _done is not None and files is not None:
                files.receive()  # the file of the slice just done, now: a full socket would stall its worker
            running = sum(1 for future in futures.values() if not future.done())
            while taken < len(cuts) and running < workers * OUTSTANDING_PER_WORKER:
                try:
                    future = futures[taken] = workers_pool.submit(_run_slice, in_worker, cuts[taken], taken)
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
                result = mine.pop(handed)
            else:
                with lock:  # futures: the pool's thread adds to it
                    future = futures.get(handed)
                    if future is None or not (wait or future.done()):
                        return
                    del futures[handed]
                sent = future.result()
                if isinstance(sent, bytes):  # small: it came through the pool's pipe
                    result = pickle.loads(sent)
                else:
                    with lock:  # (the pool's thread receives into the same table)
                        descriptor = files.descriptor(handed)
                    result = ResultFiles.load(descriptor)  # unpickled outside the lock: top-ups go on
            handed += 1
            collect(result)

    try:
        with pool(workers, initializer, initargs) as workers_pool:
            with ctrl_c_held():  # (a Ctrl-C now is raised once they are forked)
                top_up()  # forks the workers (from this thread: see the module's docstring), before meanwhile()
            meanwhile()
            while True:
                with lock:
                    top_up()
                    if taken == len(cuts):
                        break
                    index, taken = taken, taken + 1
                mine[index] = here(*cuts[index])
                hand_over(wait=False)
            hand_over(wait=True)
    finally:
        _results = enclosing
        if files is not None:
            files.close()


INLINE_BYTES = 16384
"""A worker's result pickled to fewer bytes than this goes back through the
pool's pipe; a larger one in a file in memory (``slice_files.ResultFiles``)."""


_results: "ResultFiles | None" = None
"""While ``share`` runs: its ``slice_files.ResultFiles``, which its forked workers inherit."""


def _run_slice(in_worker: Callable[[tuple[int, int]], object], bounds: tuple[int, int], index: int) -> bytes | int:
    """In a worker of ``share``: slice ``index``'s result, pickled; sent in a file
    when large (then ``index`` is what the pool gets back)."""
    data = pickle.dumps(in_worker(bounds), protocol=pickle.HIGHEST_PROTOCOL)
    if _results is None or len(data) < INLINE_BYTES:
        return data
    try:
        _results.send(index, data)
    except OSError:  # no memory or descriptor to spare for the file: the pipe, as before
        return data
    return index


SHARE_PER_SLICE = 4
"""``guided_slices``: each slice is this fraction (1 / ``SHARE_PER_SLICE``) of
what is left for each process: large slices first, small ones at the end."""

SMALLEST_SLICE = 20
"""``guided_slices``: items in the last slices (~10-20 ms of a stage's work):
what one process may run after the other has finished."""


def guided_slices(count: int, processes: int) -> list[tuple[int, int]]:
    """(start, end) of each slice of ``count`` items for ``processes`` processes, in order.

    Guided: each slice is a ``1 / SHARE_PER_SLICE`` share of what is left for
    each process, down to ``SMALLEST_SLICE``. At the end one process waits
    for the slices the other still holds (up to ``OUTSTANDING_PER_WORKER``):
    with equal slices large enough to cost nothing to hand over (~300 bodies
    at 10,000 terms) that could be ~0.3 s of wall time on the realistic mix;
    with these, the slices handed out last are a few dozen items (39 slices
    at 10,000 on two processes)."""
    bounds, start = [], 0
    while start < count:
        step = max(SMALLEST_SLICE, -(-(count - start) // (processes * SHARE_PER_SLICE)))
        bounds.append((start, min(start + step, count)))
        start += step
    return bounds
