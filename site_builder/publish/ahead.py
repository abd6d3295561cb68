"""The trees' checks made ahead: while the build loads its terms, a forked
child checks the spare and the live site against the tree record (and runs
one more look the caller gives: the cache's for pages changed by hand), so
that the claim, the fast path and the swap find their answers ready instead
of making ~3 ``stat`` calls per output file on the build's own core
(docs/performance.md, "One-body edit (issue 40, seventh round)").

Each answer says what the in-process check would have said when the child
looked, and is taken only for the very record and tree it was made on: the
record read before the fork (the same objects: ``records._read_trees`` keeps
them while the file's signature holds) and the tree's root inode. Another
build in between rewrites the record (every swap does), so its answers are
no longer taken and the checks run in process, as without this module. A
change made to a tree after the child looked is one made while the build
runs: a folder the build does not write in keeps, in the record, the ctime
the child found, so the next build's check fails and it cleans the tree
(as ``records._carried`` already relies on; docs/errors-and-guarantees.md).
The child only reads: the file system's clock its survey of the live site
needs is probed here before the fork (a probe file the child made could be
left behind when the build ends it). It is forked through ``parallel.fork``,
so it dies with the build.

The command line forks it earlier, before its imports (``start_early``): the
child then reads the record itself, and an answer is taken for the record the
build reads when that file is the one the child read (its signature: path,
inode, size, mtime and ctime; every save writes a new file), the same
objects from then on. The look the build hands it later (``start``, once the
build has read the page manifest) goes to it through a file in memory.
"""

from __future__ import annotations

import functools
import gc
import marshal
import os
import pickle
import signal
import struct
from pathlib import Path
from typing import Callable

from .. import parallel
from ..files import RefusedPath
from . import records
from .records import _identity, _read_trees, _Side, _spare_path
from .snapshot import _clock, _Snapshot, _survey

AHEAD_FROM = 2000
"""Files in the live site from which the checks are made ahead: below it they
take a few milliseconds, less than forking."""

UNKNOWN = object()
"""An answer the child did not give, or not for this record and tree: check in process."""

_SIGNATURE, _SPARE, _EXTRA, _LIVE = range(4)
"""The child's answers in its order (the build's): first the record's signature (None: nothing checked)."""

_running: "_Ahead | None" = None


class _Ahead:
    def __init__(self, output: Path, pid: int, reader: int, handing: tuple[int, int] | None = None):
        self.output, self.pid, self.reader = output, pid, reader
        self.handing = handing  # (file in memory, pipe) for the look of a child forked early, until handed
        self.answers: list = []
        self._sides: tuple[_Side | None, _Side | None] | None = None

    def answer(self, index: int):
        """The child's answer ``index`` (read from its pipe, waiting if need be), or UNKNOWN."""
        if index > _SPARE:
            self.hand(None)  # (a child forked early waits for its look before the next answers)
        while len(self.answers) <= index and self.reader is not None:
            self.answers.append(_read_message(self.reader))
            if self.answers[-1] is UNKNOWN:
                self.stop()
        return self.answers[index] if index < len(self.answers) else UNKNOWN

    def sides(self) -> tuple[_Side | None, _Side | None] | None:
        """The record's sides as this process read them from the very file the child
        checked against (the same signature), or None while it has not (or the child
        checked nothing)."""
        if self._sides is None:
            memo = records._last_trees
            if memo is not None and self.answer(_SIGNATURE) not in (None, UNKNOWN) and memo[0] == self.answers[0]:
                self._sides = memo[1]
        return self._sides

    def current(self) -> bool:
        """True while the tree record is still the one the child checked against."""
        sides = self.sides()
        return sides is not None and _read_trees(self.output) is sides

    def hand(self, extra: Callable[[], object] | None) -> None:
        """Give a child forked early its look (None: none); a no-op once given. A look
        that cannot be pickled (a lambda) is not given: the build then looks itself."""
        if self.handing is None:
            return
        memory, pipe = self.handing
        self.handing = None
        try:
            try:
                data = pickle.dumps(_packed(extra), pickle.HIGHEST_PROTOCOL) if extra is not None else b""
            except (pickle.PicklingError, TypeError, AttributeError):
                data = b""
            os.pwrite(memory, data, 0)
            _send(pipe, len(data))
        except OSError:
            pass  # the child then gets nothing, and answers nothing more
        finally:
            os.close(memory)
            os.close(pipe)

    def stop(self) -> None:
        with parallel.ctrl_c_held():  # a Ctrl-C meanwhile: raised once all is closed and the child reaped
            handing, reader, self.handing, self.reader = self.handing, self.reader, None, None
            for descriptor in (*(handing or ()), *(() if reader is None else (reader,))):
                os.close(descriptor)
            if reader is not None:
                parallel.end(self.pid)  # done, or not needed any more: it holds nothing


class _Marshalled:
    """A large plain dict to pickle as marshal's bytes (``_packed``)."""

    def __init__(self, data: bytes):
        self.data = data

    def __reduce__(self):
        return marshal.loads, (self.data,)  # unpickled: the dict itself


def _packed(extra: Callable[[], object]) -> Callable[[], object]:
    """``extra`` to pickle: a ``functools.partial``'s large plain dicts (the page
    manifest, 10,000 entries and more) as marshal's bytes, 1.2 ms instead of
    pickle's 3.6 at 10,000; anything else as it is."""
    if not isinstance(extra, functools.partial):
        return extra
    return functools.partial(extra.func, *map(_marshalled, extra.args), **extra.keywords)


def _marshalled(value: object) -> object:
    if type(value) is dict and len(value) >= 1000:
        try:
            return _Marshalled(marshal.dumps(value))
        except ValueError:  # a value marshal cannot write: pickled as usual
            pass
    return value


def start(output: Path, extra: Callable[[], object] | None = None) -> bool:
    """Fork the child that checks the trees of ``output`` (and runs ``extra``,
    whose result must be marshallable); False when there is nothing worth
    checking ahead (no tree record, a small site) or no fork. ``stop`` ends it.
    (The caller decides whether a core is free for it: ``cache.pages.check_ahead``.)
    When the command line forked it already (``start_early``), ``extra`` is handed
    to that child instead (pickled: a function of the module and its arguments)."""
    global _running
    output = output.absolute()
    if early(output):
        _running.hand(extra)
        return True
    stop()
    if not hasattr(os, "fork"):  # pragma: no cover - not POSIX
        return False
    try:
        sides = _read_trees(output)  # read once here: the claim takes the same objects (kept by signature)
    except (OSError, RefusedPath):  # a plant at the record's path: the claim refuses it, as ever
        return False
    if not _worth_it(sides):
        return False
    try:
        # The clock now, not in the child: a folder changed since counts as
        # racy (listed), which is safe, and the child writes nothing.
        now = _clock(output)
        reader, writer = os.pipe()
    except OSError:
        return False
    with parallel.ctrl_c_held():  # a Ctrl-C: raised once the child is recorded (``stop`` ends it)
        try:
            pid = parallel.fork()
        except BaseException as error:
            os.close(reader)
            os.close(writer)
            if isinstance(error, OSError):
                return False
            raise
        if pid == 0:  # pragma: no cover - runs in the child; its answers are tested
            os.close(reader)
            _check(output, sides, extra, writer, now)
        os.close(writer)
        _running = _Ahead(output, pid, reader)
    return True


def start_early(output: Path) -> bool:
    """``start``, forked by the command line before its imports (``cli._check_early``):
    the child reads the tree record itself, checks the spare, then waits for the look
    ``start`` hands it; ``early(output)`` meanwhile. False when not forked."""
    global _running
    stop()
    if not hasattr(os, "fork") or not hasattr(os, "memfd_create"):  # pragma: no cover - not Linux
        return False
    output = output.absolute()
    opened: list[int] = []
    with parallel.ctrl_c_held():  # a Ctrl-C: raised once the child is recorded (``stop`` ends it), or all closed
        try:
            if os.stat(records._trees_path(output)).st_size < AHEAD_FROM * 16:
                return False  # under ~16 bytes a path: a small site (the build's own start decides)
            now = _clock(output)
            opened += os.pipe()
            opened += os.pipe()
            opened.append(os.memfd_create("site_builder-ahead", os.MFD_CLOEXEC))
            pid = parallel.fork()
        except BaseException as error:
            for descriptor in opened:
                os.close(descriptor)
            if isinstance(error, OSError):
                return False
            raise
        reader, writer, look_reader, look_writer, memory = opened
        if pid == 0:  # pragma: no cover - runs in the child; its answers are tested
            os.close(reader)
            os.close(look_writer)
            _check(output, None, None, writer, now, (memory, look_reader))
        os.close(writer)
        os.close(look_reader)
        _running = _Ahead(output, pid, reader, (memory, look_writer))
    return True


def early(output: Path) -> bool:
    """Whether a child forked early (``start_early``) checks ``output`` and waits for its look."""
    return _running is not None and _running.handing is not None and _running.output == output.absolute()


def _worth_it(sides: tuple[_Side | None, _Side | None]) -> bool:
    return sides[0] is not None and len(sides[0].paths) >= AHEAD_FROM


def stop() -> None:
    """End the child (a no-op when none runs); its answers are no longer given."""
    global _running
    if _running is not None:
        _running.stop()
        _running = None


def settle(output: Path, before_swap: bool = False) -> None:
    """Wait until the child is done with the spare (before the claim renames it) or,
    ``before_swap``, with the live site too (before the swap exchanges it): it
    never looks at a tree the build has begun to move."""
    ahead = _running
    if ahead is not None and ahead.output == output.absolute():
        ahead.answer(_LIVE if before_swap else _SPARE)


def spare_held(side: _Side | None, root: Path) -> bool | object:
    """``side.holds(root, False)`` as the child found it, or UNKNOWN."""
    ahead = _running
    if ahead is None or side is None or not ahead.current() or side is not ahead.sides()[1]:
        return UNKNOWN
    found = ahead.answer(_SPARE)
    if found is UNKNOWN or found is None or _identity(root, False) != found[0]:
        return UNKNOWN
    return found[1]


def extra(output: Path) -> object:
    """What ``extra`` gave in the child, or UNKNOWN: taken only while the tree record
    is the one the child saw (no build swapped a tree since) and the live site is
    the tree it describes."""
    ahead = _running
    if ahead is None or ahead.output != output.absolute() or not ahead.current():
        return UNKNOWN
    if _identity(ahead.output, True) != ahead.sides()[0].identity:
        return UNKNOWN
    return ahead.answer(_EXTRA)


def old_site(root: Path, old: _Side | None) -> _Snapshot | bool | None:
    """The snapshot of the site just swapped out (now at ``root``, the spare), as
    ``records._describe_spare`` surveys it against ``old`` (its side of the record
    when it went live); False when it no longer matched; None when the child did
    not look at this very tree against this very record."""
    ahead = _running
    if ahead is None or old is None or ahead.sides() is None or old is not ahead.sides()[0]:
        return None
    found = ahead.answer(_LIVE)
    if found is UNKNOWN or found is None:
        return None
    if found is False:
        return False  # changed since the record: listed and cleaned, as in process
    root_inode, listed, moved = found
    if _identity(root, False) != [root_inode]:
        return None
    ctimes = {folder: ctime for folder, ctime in old.snapshot.ctimes.items() if folder not in listed}
    ctimes.update(moved)
    return _Snapshot(ctimes, listed)


def _check(output: Path, sides: tuple[_Side | None, _Side | None] | None, extra: Callable[[], object] | None,
           writer: int, now: int, handed: tuple[int, int] | None = None) -> None:  # pragma: no cover - in the child
    """In the child: send the answers, then exit. Forked by the build, it imports
    nothing (another thread of its process may hold a lock); forked early
    (``sides`` None), it reads the record, and unpickles the look ``handed`` it."""
    code = 1
    try:
        gc.disable()  # short-lived, and it makes no cyclic garbage
        if sides is None:
            try:
                sides = _read_trees(output)
            except (OSError, RefusedPath):
                sides = None, None
            if not _worth_it(sides):
                _send(writer, None)  # nothing checked: the build checks in process
                code = 0
                return
        _send(writer, records._last_trees[0])  # the signature of the record read (kept while it holds)
        live, spare = sides
        spare_root = _spare_path(output)
        held = None  # only a tree found as recorded is answered: anything else is checked in process
        if spare is not None and _identity(spare_root, False) == spare.identity and \
                _survey(str(spare_root), spare.paths, None, before=spare.snapshot) is not None and \
                _identity(spare_root, False) == spare.identity:
            held = (spare.identity, True)
        _send(writer, held)
        if handed is not None:
            memory, pipe = handed
            size = _read_message(pipe)
            if not isinstance(size, int):
                return  # the build ended first: nothing more to answer
            extra = pickle.loads(os.pread(memory, size, 0)) if size else None
        _send(writer, extra() if extra is not None else None)
        _send(writer, _live_answer(output, live, now))
        code = 0
    finally:
        os._exit(code)


def _live_answer(output: Path, live: _Side, now: int) -> tuple | bool | None:  # pragma: no cover - in the child
    """The live site's snapshot against its record, as ``_describe_spare`` takes it
    after the swap, sent as what differs from the record: (root inode, the folders
    listed, the ctimes that are not the record's); False when it does not match;
    None when the live site is not the tree the record describes (not checked)."""
    if _identity(output, True) != live.identity:
        return None
    found = _survey(str(output), live.paths, now, before=live.snapshot)
    if _identity(output, True) != live.identity:
        return None  # (the tree surveyed may not be the one recorded)
    if found is None:
        return False
    moved = {folder: ctime for folder, ctime in found.ctimes.items() if live.snapshot.ctimes.get(folder) != ctime}
    rebuilt = {folder: ctime for folder, ctime in live.snapshot.ctimes.items() if folder not in found.listed}
    rebuilt.update(moved)
    if rebuilt != found.ctimes:  # (cannot be: the survey compared every folder with the record)
        raise ValueError("the snapshot does not follow from the record")
    return live.identity[0], found.listed, moved


_LENGTH = struct.Struct("<Q")


def _send(writer: int, value: object) -> None:  # pragma: no cover - in the child
    data = marshal.dumps(value)
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(writer, view):]


def _read_message(reader: int) -> object:
    """The next value the child sent, or UNKNOWN when it sent no more (it failed)."""
    head = _read_exactly(reader, _LENGTH.size)
    if head is None:
        return UNKNOWN
    body = _read_exactly(reader, _LENGTH.unpack(head)[0])
    if body is None:
        return UNKNOWN
    try:
        return marshal.loads(body)
    except (ValueError, EOFError, TypeError):
        return UNKNOWN


def _read_exactly(reader: int, size: int) -> bytes | None:
    parts, left = [], size
    while left:
        try:
            part = os.read(reader, min(left, 1 << 20))
        except OSError:
            return None
        if not part:
            return None
        parts.append(part)
        left -= len(part)
    return b"".join(parts)
