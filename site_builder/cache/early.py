"""The cached load's look at the term files, made while the interpreter imports.

With a build cache, the load stage finds every term file and stamps it
against the ``terms`` table (``terms._load_changed``): ~35 ms of a 10,000-term
edit, on the build's one core, after ~90 ms of imports during which the
other core idles. So, when a core is free, the command line forks a child
before its heavy imports (as ``load.preload`` does for a first build) that
reads the table as it is on disk, finds and stamps the files as the load
does, and sends back only what the load needs besides the table: the files
to read again, with their places in the files' order. Anything unusual (a
folder or file problem, a symlink, a file added or gone, no table) and it
answers None: the build then loads as it always did.

The build takes the answer (``loaded``) only for the very table files it read
itself: ``BuildCache.signature``, the same (inode, size, mtime, ctime) before
and after each read, on both sides; a table is only ever replaced by a
rename. A file unchanged when the child stamped it and changed since is one
changed while the build runs: its record keeps the old stamp, so the next
build reads it again, as when the build stamps it itself. The files to read
again are stamped again by the build, just before it reads them.

This module imports nothing heavy at its top: it runs before everything
else. The child forks through ``parallel.fork``, so it dies with the build.
"""

from __future__ import annotations

import gc
import marshal
import os
import signal
import time
from pathlib import Path

from .. import parallel

_running: "_Look | None" = None


class _Look:
    def __init__(self, content: Path, pid: int, reader: int):
        self.content, self.pid, self.reader = content, pid, reader

    def answer(self) -> tuple | None:
        """The child's answer (waiting for it), or None; the child is reaped."""
        parts = []
        try:
            while part := os.read(self.reader, 1 << 20):
                parts.append(part)
        except OSError:
            parts = []
        self.stop()
        try:
            answer = marshal.loads(b"".join(parts)) if parts else None
        except (ValueError, EOFError, TypeError):
            return None
        return answer if isinstance(answer, tuple) and len(answer) == 5 else None

    def stop(self) -> None:
        if self.reader is not None:
            os.close(self.reader)
            self.reader = None
            try:
                os.kill(self.pid, signal.SIGKILL)  # done, or not wanted: it holds nothing
            except ProcessLookupError:  # pragma: no cover - already gone
                pass
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:  # pragma: no cover - reaped already
                pass


def start(content: Path, cache_folder: Path, jobs: int | None = None) -> bool:
    """Fork the child that looks at the term files of ``content`` against the cache
    in ``cache_folder`` (when a core is free for it: ``idle_core``); ``stop`` ends it."""
    global _running
    stop()
    if not hasattr(os, "fork") or not idle_core(jobs):
        return False
    try:
        reader, writer = os.pipe()
    except OSError:
        return False
    try:
        pid = parallel.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return False
    if pid == 0:  # pragma: no cover - runs in the child; its answers are tested
        os.close(reader)
        _child(content, cache_folder, writer)
    os.close(writer)
    _running = _Look(content, pid, reader)
    return True


def stop() -> None:
    """End the child, if any (a no-op once its answer was taken)."""
    global _running
    if _running is not None:
        _running.stop()
        _running = None


def take(content: Path) -> tuple | None:
    """The child's answer for ``content``, once (None: no child, or no answer)."""
    global _running
    running, _running = _running, None
    if running is None:
        return None
    if running.content != content:
        running.stop()
        return None
    return running.answer()


def _child(content: Path, cache_folder: Path, writer: int) -> None:  # pragma: no cover - in the child
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: stop quietly; the build reports it
        gc.disable()  # short-lived, and it makes no cyclic garbage
        from ..files import write_all
        from . import store

        try:
            answer = look(content, store.BuildCache(cache_folder, any_code=True))
        except Exception:  # anything at all: the build loads as without the look
            answer = None
        write_all(writer, marshal.dumps(answer))
        code = 0
    finally:
        os._exit(code)


def look(content: Path, store) -> tuple | None:
    """What the load of ``content`` against ``store``'s ``terms`` table needs besides
    the table: (the table files' signatures, the path and shown prefixes of every
    file, the files' shown paths in order or None when in the table's order, the
    files to read again as (place, path, shown, absolute path, content root));
    None when anything is unusual. The same decisions as ``terms._load_changed``."""
    from ..errors import display_path
    from ..load import content as loading
    from . import terms

    previous, _base, _recent = terms._previous(store)
    signatures = (store.signature(terms.TABLE), store.signature(terms.RECENT))
    if not previous or None in signatures:
        return None
    files, problems = loading.find_term_files(content)
    if problems or len(files) != len(previous):
        return None
    terms_dir = content / "terms"
    path_prefix, shown_prefix = f"{terms_dir}{os.sep}", f"{display_path(terms_dir)}/"
    cut = len(shown_prefix)
    redo = []
    for place, file in enumerate(files):
        shown = file.shown
        hit = previous.get(shown)
        if hit is None or file.refused is not None or file.symlinked or \
                not shown.startswith(shown_prefix) or file.path != path_prefix + shown[cut:]:
            return None  # a file added (so one gone), refused or linked; a name shown escaped
        stamp = loading.stamp_term_file(file)
        if not isinstance(stamp, tuple):
            return None  # not a regular file: its problem is the load's to report
        if hit[0] != stamp or not (terms._no_media(hit[1]) or loading.record_is_current(hit[1])):
            redo.append((place, file.path, shown, file.absolute, file.root))
    order = [file.shown for file in files]
    return signatures, path_prefix, shown_prefix, None if order == list(previous) else order, redo


def loaded(content: Path, store, known: dict, memo: dict, kept) -> list | None:
    """The load's files (as ``terms._load_changed`` gives them, ``known`` updated
    the same way) from the child's answer for ``content``; None (nothing
    changed) when there is none to take, or not for the table files ``store`` read."""
    answer = take(content)
    if answer is None:
        return None
    from ..load import content as loading
    from . import terms

    signatures, path_prefix, shown_prefix, order, redo = answer
    if tuple(signatures) != (store.signature(terms.TABLE), store.signature(terms.RECENT)) or None in signatures:
        return None  # not the table this build read (another build saved one since)
    order = list(known) if order is None else order
    if len(order) != len(known):
        return None
    again, stamps = {}, {}
    for place, path, shown, absolute, root in redo:
        file = again[place] = loading.TermFile(path, shown, absolute, False, None, root)
        stamp = loading.stamp_term_file(file)  # just before it is read, as the load does
        if not isinstance(stamp, tuple) or order[place] != shown:
            return None
        stamps[place] = stamp
    stamped_ns = time.time_ns()
    cut = len(shown_prefix)
    slots = []
    for place, shown in enumerate(order):
        file = again.get(place)
        if file is None:
            slots.append(terms._from_record(shown, path_prefix + shown[cut:], known[shown], memo, kept))
        else:
            slots.append(loading.load_term_file(file, stamps[place]))
    terms._record(known, [slots[place] for place in sorted(again)], stamped_ns)
    return slots


def idle_core(jobs: int | None = None) -> bool:
    """Whether a core is likely free for the child: ``cache.pages._idle_core``'s
    rule (fewer tasks runnable, this process counted, than the cores this build
    may use), here as that module is too heavy to import before the imports."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return False
    cores = min(cores, jobs or cores, _quota_cores() or cores)
    if cores < 2:
        return False
    try:
        with open("/proc/loadavg", "rb") as handle:
            return int(handle.read().split()[3].partition(b"/")[0]) < cores
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return False


def _quota_cores(path: str = "/sys/fs/cgroup/cpu.max") -> int | None:
    """As ``cache.pages._quota_cores``: the whole cores of a cgroup (v2) CPU quota."""
    try:
        with open(path, "rb") as handle:
            quota, period = handle.read().split()[:2]
        return None if quota == b"max" else max(1, int(quota) // int(period))
    except (OSError, ValueError, ZeroDivisionError):
        return None
