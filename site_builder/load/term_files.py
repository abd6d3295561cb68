"""Finding the term files: every ``terms/**/*.md`` under the content folder, in
file order, each with the problem that stops it being read, and the stamp that
tells whether it changed since it was read (``cache.terms``)."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import Problem, display_path
from ..files import kind_of

UNPRINTABLE_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


@dataclass(slots=True)
class TermFile:
    """One entry found under ``terms/``, before it is read."""

    path: str
    """Where it is, to read it."""
    shown: str
    """The file as shown in messages (the key a load's results are known by)."""
    absolute: str
    """Its absolute path, as a file watcher reports it."""
    symlinked: bool
    refused: Problem | None
    """Why it is not read at all (a folder that cannot be listed, a symlink
    leading outside the content folder), or None."""
    root: str = ""
    """The content folder (absolute): the files a term refers to must be inside it."""


def find_term_files(content_dir: Path, part: tuple[int, int] | None = None
                    ) -> tuple[list[TermFile], list[Problem]]:
    """Every ``terms/**/*.md`` under ``content_dir`` in file order (each refused
    one with its reason), and the problem of the folder itself (no ``terms/``,
    or a symlink leading outside), if any.

    ``part=(k, n)``: only the k-th of n contiguous slices of the files, in
    file order; the folder's own problem goes with the first slice.
    """
    terms_dir = content_dir / "terms"
    root = content_dir.resolve()
    # One rule for every path read: the terms folder itself may be a symlink
    # only as a term file may, to somewhere inside the content folder.
    refused = symlink_problem(terms_dir, root) if terms_dir.is_symlink() else None
    if refused or not terms_dir.is_dir():
        missing = Problem(display_path(terms_dir), None, refused) if refused else \
            Problem(display_path(content_dir), None, "no terms/ folder: expected content/terms/<slug>.md files")
        return [], [missing] if part is None or part[0] == 0 else []
    shown_dir = display_path(terms_dir)
    # What os.path.abspath(path) gives, by one string join per file instead of one abspath call.
    absolute_prefix = os.path.abspath(terms_dir).rstrip("/") + "/"
    content_root = os.path.abspath(content_dir)
    files = _term_files(terms_dir)
    if part is not None:
        index, count = part
        files = files[len(files) * index // count:len(files) * (index + 1) // count]
    found = []
    for path, relative, symlinked, unreadable in files:
        shown = f"{shown_dir}/{_printable(relative)}" if relative else shown_dir
        refused = unreadable or (symlink_problem(Path(path), root) if symlinked else None)
        problem = Problem(shown, None if unreadable else 1, refused) if refused else None
        found.append(TermFile(path, shown, absolute_prefix + relative, symlinked, problem, content_root))
    return found, []


def stamp_term_file(file: TermFile) -> tuple[int, int, int, int] | Problem | None:
    """The stamp of ``file`` (see ``LoadedFile.stamp``), the problem that stops it
    being read (not a regular file, a dangling symlink), or None for a symlinked
    folder (never walked into, never a term)."""
    try:
        info = os.stat(file.path)
    except OSError as error:  # a dangling symlink, a folder that cannot be searched: said, never skipped
        problem = "is a symlink that leads nowhere" if file.symlinked and not os.path.exists(file.path) else \
            f"cannot read: {error.strerror}"
        return Problem(file.shown, None, problem)
    if stat.S_ISDIR(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        return Problem(file.shown, None, f"is {kind_of(info.st_mode)}; only regular files are read")
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def _term_files(terms_dir: Path) -> list[tuple[str, str, bool, str | None]]:
    """Every ``*.md`` below ``terms_dir`` in a stable order: (path, path relative
    to ``terms_dir`` with "/", is a symlink, why it cannot be read or None).

    Symlinked folders are listed as entries too (flagged), never walked into:
    that avoids loops, and ``find_term_files`` refuses those leading outside. A
    folder that cannot be listed is an entry too, with its reason (never a
    silent skip: its terms would vanish from the site).
    """
    found: list[tuple[str, str, bool, str | None]] = []
    prefix = len(str(terms_dir)) + 1

    def relative(path: str) -> str:
        return path[prefix:].replace(os.sep, "/")

    def walk(folder: str) -> None:
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            found.append((folder, relative(folder), False, f"cannot read: {error.strerror}"))
            return
        files, folders = [], []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry)
                elif entry.name.endswith(".md"):
                    files.append(entry)
                elif entry.is_symlink() and entry.is_dir():
                    folders.append(entry)
            except OSError:
                continue
        for entry in folders:
            if entry.is_symlink():
                found.append((entry.path, relative(entry.path), True, None))
        for entry in files:
            found.append((entry.path, relative(entry.path), entry.is_symlink(), None))
        for entry in folders:
            if not entry.is_symlink():
                walk(entry.path)

    walk(str(terms_dir))
    return found


def _printable(name: str) -> str:
    """A file name as shown in messages: control and line-break characters escaped,
    so every problem stays one ``path:line: message`` line."""
    if name.isprintable():  # false for every character UNPRINTABLE_RE matches
        return name
    return UNPRINTABLE_RE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), name)


def symlink_problem(path: Path, root: Path) -> str | None:
    """Why the symlink ``path`` must not be read, or None when it stays inside ``root``."""
    try:
        path.resolve().relative_to(root)
        return None
    except RuntimeError:  # pathlib's "Symlink loop" (Python < 3.13)
        return "is a symlink loop; refusing to read it"
    except (ValueError, OSError):
        return "points outside the content folder (symlink?); refusing to read it"
