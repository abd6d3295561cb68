"""Load the terms while the interpreter is still importing.

The build starts in one process: the interpreter, then the imports
(Jinja, Python-Markdown, ...: about 0.2 s), then reading and parsing every
term file (about 0.1 ms each), and only then do the markdown workers spread
over the cores. Until then the other cores are idle. So the command line
forks loaders as soon as it has parsed its arguments, before the heavy
imports: each inherits ``content`` (imported just before the fork), loads a
contiguous slice of the term files (``content.load_term_files(part=...)``),
and sends back what the load returns, as plain values (``_encoded``) in a
file in memory (``_payload_file``). The
build takes it in place of its own load when that load would have started
from nothing (no cached terms: a first build, or
``--no-cache``), which makes the two the same computation, only earlier.

This module imports nothing heavy at its top: it runs before everything
else. Loaders fork through ``parallel.fork``, so that a killed build leaves none behind. A loader
that fails (or a build that does not need it) costs nothing but the time it
ran; the build then loads as it always did.
"""

from __future__ import annotations

import gc
import marshal
import mmap
import os
import pickle
import re
import select
import signal
import struct
import time
from pathlib import Path
from typing import Callable

from .. import parallel
from ..errors import Problem
from ..files import RefusedPath, open_regular, write_all

FILES_PER_LOADER = 2500
"""A loader per this many term files, up to one per core: below it, a second
loader's own imports cost more than the half of the files it would take."""

FILES_PER_CHUNK = 250
"""Several loaders take the files in chunks of about this many (~25 ms of
work), each the next chunk no loader has taken (``_claimed``), so that they
end together. With a fixed half each, the one sharing its core with the
build's imports ended 0.08-0.16 s after the other at 10,000 terms, one core
idle (docs/performance.md, "The two cores (issue 40, eighth round)")."""

MAX_CHUNKS = 255
"""Chunks are numbered by one byte each (``_claimed``)."""


class Preload:
    """Forked loaders at work on the terms of one content folder."""

    def __init__(self, content: Path, loaders: list[tuple[int, int, int]], started_ns: int, chunks: int = 0):
        self.content = content
        self.started_ns = started_ns
        """``time.time_ns()`` before the loaders started: every stamp they take is newer."""
        self._loaders = loaders  # (pid, read end of its pipe, the file its payload goes to), in slice order
        self._chunks = chunks  # 0: each loader loads its own slice; else how many chunks they share

    def result(self, meanwhile: Callable[[], None] = lambda: None):
        """Every term file loaded, as ``content.load_term_files(content)`` gives
        them; None if any loader failed. ``meanwhile()`` runs first
        if the loaders are not done yet, instead of waiting idle.

        A loader's pipe is read only to learn that it exited (end of file); its
        load is in its payload file (``_payload_file``). Each is decoded as soon
        as its loader exits cleanly, whichever that is, while the others may
        still be at work: through a pipe, the second payload (10 MB at 5,000
        realistic terms) waited until the first was read and decoded, and then
        crossed 64 KiB at a time (~0.1 s on this 2-core machine).

        Loaders that share chunks (``FILES_PER_CHUNK``) end together: each
        appends a chunk's load to its payload file as soon as it is loaded and
        says so on its pipe (``_CHUNK_NOTE``), and each is decoded here as it
        comes, while the loaders still work; a loader's exit then only ends it.
        Decoded once both had ended, the two payloads took ~40 ms of one core."""
        parts: dict[int, list] = {}  # loader (with chunks: chunk) -> its load
        notes: dict[int, bytes] = {}  # loader -> the part of a chunk's note read so far
        offsets: dict[int, int] = {}  # loader -> where its next chunk starts in its payload file
        pending = {reader: index for index, (_pid, reader, _payload) in enumerate(self._loaders)}
        if pending and len(select.select(list(pending), [], [], 0)[0]) < len(pending):
            meanwhile()
        while pending:
            for reader in select.select(list(pending), [], [], None)[0]:
                index = pending[reader]
                pid, _reader, payload = self._loaders[index]
                news = os.read(reader, 65536)
                if news:
                    data = notes.get(index, b"") + news
                    whole = len(data) - len(data) % _CHUNK_NOTE.size
                    try:
                        for chunk, size in _CHUNK_NOTE.iter_unpack(data[:whole]):
                            at = offsets.get(index, 0)
                            if chunk in parts or chunk >= self._chunks:
                                raise ValueError(f"chunk {chunk} loaded twice, or not a chunk")
                            parts[chunk] = _decoded(_read_exactly(payload, size, at))
                            offsets[index] = at + size
                    except Exception:  # unreadable: the build loads the terms itself
                        self.discard()
                        return None
                    notes[index] = data[whole:]
                    continue
                del pending[reader]
                with parallel.ctrl_c_held():  # (reaped and recorded so together: discard() never kills its pid)
                    _pid, status = os.waitpid(pid, 0)  # its pipe ended: it has exited (or is exiting)
                    self._loaders[index] = (0, reader, payload)  # reaped
                decoded = None
                if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
                    if self._chunks:
                        decoded = [] if not notes.get(index) else None  # (a note cut short: never clean)
                    else:
                        # (a loader that exits cleanly after a short write leaves an unreadable payload)
                        try:
                            decoded = _read_payload(payload)
                        except Exception:  # unreadable: the build loads the terms itself
                            decoded = None
                if decoded is None:
                    self.discard()  # the others' work is not wanted either
                    return None
                if not self._chunks:
                    parts[index] = decoded
        self.discard()  # closes what is left open (the payloads emptied); every loader is reaped
        if self._chunks and sorted(parts) != list(range(self._chunks)):
            return None  # a chunk nobody loaded
        return [entry for key in sorted(parts) for entry in parts[key]]  # in file order

    def discard(self) -> None:
        """Stop the loaders whose result is not wanted; safe to call twice. Every
        one is killed and reaped before a Ctrl-C that comes meanwhile is raised."""
        with parallel.ctrl_c_held():
            self._discard()

    def _discard(self) -> None:
        for pid, _reader, _payload in self._loaders:
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:  # pragma: no cover - already gone
                    pass
        for pid, reader, payload in self._loaders:
            try:
                os.ftruncate(payload, 0)  # its memory freed, though a process forked meanwhile holds it
            except OSError:
                pass
            for descriptor in (reader, payload):
                try:
                    os.close(descriptor)
                except OSError:
                    pass
            if pid:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:  # reaped already (an interrupt between result()'s reap and its record)
                    pass
        self._loaders = []


_CHUNK_NOTE = struct.Struct("<II")
"""What a loader that shares chunks writes to its pipe after each: (chunk, bytes
of its load appended to the loader's payload file)."""


def _read_exactly(payload: int, size: int, at: int) -> bytes:
    """``size`` bytes of the file ``payload`` from ``at``; ValueError if it holds fewer."""
    data = os.pread(payload, size, at)
    if len(data) != size:
        raise ValueError("a chunk's load cut short")
    return data


def _claimed(queue: int) -> int | None:
    """In a loader: the next chunk no loader has taken, or None when none is left.

    ``queue`` is a pipe holding one byte per chunk, its writing end closed: a read
    of one byte is atomic, so each chunk goes to exactly one loader."""
    taken = os.read(queue, 1)
    return taken[0] if taken else None


def _payload_file() -> int:
    """A file for one loader's payload, in memory, that no path leads to: written by
    the loader, read by the build (``_read_payload``), which shares the descriptor."""
    try:
        return os.memfd_create("site_builder-load", os.MFD_CLOEXEC)
    except (AttributeError, OSError):  # pragma: no cover - no memfd (old kernel, not Linux)
        import tempfile  # here: this module runs before the heavy imports

        descriptor, name = tempfile.mkstemp(prefix="site_builder-load-")
        os.unlink(name)
        return descriptor


def _read_payload(payload: int) -> list:
    """The load a loader wrote to ``payload`` (``_encoded``), decoded straight from
    its pages (mapped, not copied); the file is emptied then, so that its memory is
    freed even where a process forked meanwhile holds the descriptor too."""
    try:
        size = os.fstat(payload).st_size
        if not size:
            raise ValueError("an empty payload")
        with mmap.mmap(payload, size, access=mmap.ACCESS_READ) as mapped:
            with memoryview(mapped) as view:
                return _decoded(view)
    finally:
        os.ftruncate(payload, 0)


def start(content: Path, cores: int | None = None) -> Preload | None:
    """Fork the loaders for ``content``, at most ``cores`` (default: one per
    core this process may use); None where fork is missing or there is nothing to load."""
    if not hasattr(os, "fork") or not hasattr(os, "sched_getaffinity"):  # pragma: no cover - not Linux
        return None
    cores = cores or parallel.default_jobs()
    try:
        with os.scandir(content / "terms") as listing:
            count = sum(1 for _ in listing)  # the top folder only: a guide to how many loaders
    except OSError:
        return None
    parts = max(1, min(cores, count // FILES_PER_LOADER))
    # Imported here, once, before forking: each loader inherits it instead of
    # importing it again (PyYAML and this package's load modules: ~30 ms a
    # loader, ~70 ms where bytecode is not written); the build needs it next.
    from . import content as _loading, front_yaml as _parsing  # noqa: F401
    started_ns = time.time_ns()
    loaders: list[tuple[int, int, int]] = []
    chunks, queue = 0, None
    if parts > 1:
        chunks = max(parts, min(MAX_CHUNKS, count // FILES_PER_CHUNK))
        try:
            reading, writing = os.pipe2(os.O_CLOEXEC)  # (close-on-exec, as os.pipe's)
        except OSError:  # no descriptor to spare: the build loads the terms itself
            return None
        try:
            write_all(writing, bytes(range(chunks)))  # (at most 255 bytes: never more than a pipe holds)
        finally:
            os.close(writing)  # every chunk in: a loader reading past the last one finds the end
        queue = reading
    preload = Preload(content, [], started_ns, chunks)
    loaders = preload._loaders  # each loader's record as soon as it is forked: discard() ends it
    opened: list[int] = []  # descriptors that no record holds
    try:
        for index in range(parts):
            opened = [_payload_file()]
            opened += os.pipe()
            payload, reader, writer = opened
            # Guarded: it dies with this process, so a killed build leaves no loader. A
            # Ctrl-C held across the fork is raised in it, that loader ended there.
            pid = parallel.fork()
            if pid == 0:  # pragma: no cover - runs in the child; its result is tested
                # (the other loaders' descriptors: only the build may hold them)
                _load(content, (index, parts), writer, payload, queue, chunks,
                      [reader, *(descriptor for _pid, *earlier in loaders for descriptor in earlier)])
            loaders.append((pid, reader, payload))
            os.close(writer)
            opened = []
    except BaseException as error:
        # A Ctrl-C, or no descriptor or process to spare (EMFILE, EAGAIN): no
        # loader forked so far outlives this, nor any descriptor; on the
        # latter the build loads the terms itself.
        held = {descriptor for _pid, *descriptors in loaders for descriptor in descriptors}
        for descriptor in [*opened, *([queue] if queue is not None else [])]:
            if descriptor not in held:
                try:
                    os.close(descriptor)
                except OSError:  # (the writer, closed just before a Ctrl-C)
                    pass
        preload.discard()
        if isinstance(error, OSError):
            return None
        raise
    if queue is not None:
        os.close(queue)  # the loaders hold it
    return preload


def _load(content: Path, part: tuple[int, int], writer: int, payload: int,  # pragma: no cover - in the child
          queue: int | None = None, chunks: int = 0, inherited: list[int] | tuple = ()) -> None:
    """In a loader: close the build's descriptors ``inherited``, load one part
    (or, given a ``queue`` of ``chunks``, every chunk it claims first:
    ``_load_chunks``), write it encoded to ``payload``, and exit (which ends
    ``writer``'s pipe: the build learns it is done). It never returns."""
    code = 1
    try:
        for descriptor in inherited:
            os.close(descriptor)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C: stop quietly; the parent reports it
        # Collector off, as in the build's own load (cache.collector_paused): the
        # terms make no cycles and live until this process exits. It ran ~100
        # times walking the growing load, ~70-120 ms of a 5,000-term loader.
        gc.disable()
        from . import content as loading

        if queue is None:
            write_all(payload, _encoded(loading.load_term_files(content, part=part)))
        else:
            _load_chunks(loading, content, queue, chunks, writer, payload)
        code = 0
    finally:
        os._exit(code)


def _load_chunks(loading, content: Path, queue: int, chunks: int,  # pragma: no cover - in a loader
                 writer: int, payload: int) -> None:
    """In a loader: every chunk it claims (``_claimed``) loaded as
    ``content.load_term_files`` loads those files, appended to ``payload``
    encoded, and noted on ``writer`` (``_CHUNK_NOTE``) as soon as it is. The
    files are listed once; chunk k is the k-th of ``chunks`` contiguous slices
    of them, and the folder's own problem goes with the first."""
    files, problems = loading.find_term_files(content)
    while (chunk := _claimed(queue)) is not None:
        part = files[len(files) * chunk // chunks:len(files) * (chunk + 1) // chunks]
        loaded = loading.load_term_files(content, listed=(part, problems if chunk == 0 else ()))
        data = _encoded(loaded)
        write_all(payload, data)
        write_all(writer, _CHUNK_NOTE.pack(chunk, len(data)))


_MARSHAL, _PICKLE = b"M", b"P"
"""First byte of a loader's payload."""


def _encoded(loaded: list) -> bytes:
    """What a loader sends back: ``loaded`` as plain values (a term as its record,
    a problem as its fields), marshalled; pickled only if a value is not plain.
    Pickling the dataclasses cost the loader ~15 ms and the waiting build
    ~10 ms per 1,000 terms; this about half."""
    rows = []
    for entry in loaded:
        if isinstance(entry, Problem):
            rows.append((entry.path, entry.line, entry.message, entry.severity))
        else:
            rows.append((entry.shown, entry.stamp, entry.term.to_record() if entry.term is not None else None,
                         tuple((p.path, p.line, p.message, p.severity) for p in entry.problems), entry.names, entry.front))
    try:
        return _MARSHAL + marshal.dumps(rows)
    except ValueError:  # a value marshal cannot hold (none that front matter gives today)
        return _PICKLE + pickle.dumps(loaded, protocol=pickle.HIGHEST_PROTOCOL)


def _decoded(payload: bytes) -> list:
    """The load ``_encoded`` sent (a problem's row has 4 values, a file's 6)."""
    from .content import LoadedFile, Term  # imported by then: the build needs it

    if payload[:1] == _PICKLE:
        return pickle.loads(memoryview(payload)[1:])
    if payload[:1] != _MARSHAL:
        raise ValueError("not a loader's payload")
    return [Problem(*row) if len(row) == 4 else
            LoadedFile(row[0], row[1], Term.from_record(row[2]) if row[2] is not None else None,
                       tuple(Problem(*p) for p in row[3]), row[4], row[5])
            for row in marshal.loads(memoryview(payload)[1:])]


EARLY_SCAN = 1000
"""At most this many term files are read for ``explainers_named``: a site that
big takes long enough to build that an explainer's early start is noise."""
_EXPLAINER_LINE = re.compile(rb"^explainer:[ \t]*[\"']?([A-Za-z0-9][A-Za-z0-9_.-]*)[\"']?[ \t]*\r?$", re.M)


def explainers_named(content: Path, limit: int = EARLY_SCAN) -> set[str]:
    """The explainers the term files of ``content`` name (``explainer: <name>``
    in their front matter, read from each file's head), so that a first build
    may start preparing them before its own imports; empty when there are more
    than ``limit`` term files or the folder cannot be read. A hint, not a load:
    the build's load stage decides what is valid."""
    try:
        with os.scandir(content / "terms") as listing:
            paths = [entry.path for entry in listing if entry.name.endswith(".md")]
    except OSError:
        return set()
    if len(paths) > limit:
        return set()
    names: set[str] = set()
    for path in paths:
        try:
            # A regular file, not followed (a hint needs no symlinked term): a FIFO must not hang the start.
            descriptor = open_regular(path, owned=False)
        except (OSError, RefusedPath):
            continue  # the load stage reports it
        with open(descriptor, "rb") as file:
            head = file.read(4096)
        if not head.startswith(b"---"):
            continue
        end = head.find(b"\n---", 3)
        found = _EXPLAINER_LINE.search(head, 0, end if end >= 0 else len(head))
        if found:
            names.add(found.group(1).decode("ascii"))
    return names
