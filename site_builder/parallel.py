"""Forked workers that never outlive the build that forked them.

Every process a build forks (the term loaders of ``preload.py``, the markdown
and page workers) starts here: ``fork()`` for a single child, ``pool()`` for a
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

The output lock needs nothing here: it is a POSIX lock (``publish/lock.py``),
which belongs to the process that took it, so a child never holds it and a
killed build's lock is free even while a worker of it still runs. With the
death signal there is no stray worker either. Elsewhere than Linux only
step 2 happens. Loops in a worker can also ask ``orphaned()``.
The background deletion of ``publish.remove_tree`` is meant to outlive the
build: it forks on its own, detaches and closes its descriptors.
"""

from __future__ import annotations

import ctypes
import gc
import os
import signal
import sys
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
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
    """``os.fork()``, the child guarded (see the module's docstring)."""
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        guard(parent)
    return pid


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
    # What the worker inherited it only reads: kept out of its collections, so
    # they write no collector headers into pages it shares with the build
    # (each such write copies a 4 KiB page). 3-6 % fewer page faults in a
    # page worker at 10,000 terms (docs/performance.md, "Peak memory (issue 40, third round)").
    gc.freeze()
    if initializer is not None:
        initializer(*initargs)
