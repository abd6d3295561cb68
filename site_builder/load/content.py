"""Load stage: read every term file into a ``Term``, checking each on its own.

A term file is ``content/terms/<slug>.md``: YAML front matter between ``---``
lines (parsed and checked in ``front_matter``), then markdown. Problems are
collected, never raised, so one run reports them all with their file and line.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..errors import Problem, display_path
from ..files import RefusedPath, kind_of, read_regular
from . import media as media_files
from .front_matter import parse_front_matter, split_front_matter

UNPRINTABLE_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_FILE_BYTES = 2 * 1024 * 1024
"""A term larger than this is almost certainly a mistake (and would stall the build)."""

@dataclass
class Term:
    """One glossary entry, as read from its file."""

    slug: str
    title: str
    summary: str
    body: str
    path: str
    """The file as shown in messages."""
    body_line: int
    """Line number of the body's first line in the file, for messages."""
    aliases: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)
    explainer: str | None = None
    field_lines: dict[str, int] = field(default_factory=dict)
    media: dict[str, tuple] = field(default_factory=dict)
    """The files the body (and ``preview_image``) refer to: written path -> ``load.media.Media`` as a tuple."""
    preview_image: str = ""
    explainer_options: dict[str, object] = field(default_factory=dict)
    """The options the term sets for its explainer (front matter ``explainer: {name: ..., ...}``)."""

    def to_record(self) -> tuple:
        """The term as plain values, for the build cache (see ``from_record``)."""
        return (self.slug, self.title, self.summary, self.body, self.path, self.body_line,
                self.aliases, self.related, self.explainer, self.field_lines, self.media, self.preview_image,
                self.explainer_options)

    @classmethod
    def from_record(cls, record: tuple) -> "Term":
        """The term ``to_record`` described."""
        return cls(*record)


RECORD_FIELDS = tuple(f.name for f in fields(Term))
"""The names of ``Term.to_record()``'s values, in order (``from_record`` passes
them by position, so a test that round-trips a term pins the order)."""
_MEDIA_AT = RECORD_FIELDS.index("media")


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


@dataclass(slots=True)
class LoadedFile:
    """One term file, read: its stamp, its term (None when unusable) and its problems."""

    shown: str
    stamp: tuple[int, int, int, int]
    """Size, mtime and ctime (ns) and inode when it was read: any write changes
    the ctime, which no tool can set, so an equal stamp means the same bytes
    (once the file is older than a timestamp tick)."""
    term: Term | None
    problems: tuple[Problem, ...]
    names: tuple[str, ...] = ()
    """For a file whose term could not be made (``term`` None): the names its
    front matter seems to give (title, aliases), read line by line, so links
    to it by those names are not reported as unknown terms (``Dropped``)."""


@dataclass(frozen=True)
class Dropped:
    """A term file that did not load (its problem is reported on it): its
    slug, file and the names it seems to give. Links and related entries that
    name it are not "unknown term" errors elsewhere; one note on the file says
    how many pages link to it (``validate.check_dropped``)."""

    slug: str
    path: str
    title: str = ""
    aliases: tuple[str, ...] = ()


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


def load_term_file(file: TermFile, stamp: tuple[int, int, int, int]) -> LoadedFile:
    """Read and check one term file whose stamp was just taken. A folder's ``index.md`` is the term named
    after its folder (``terms/api/index.md``: ``api``); the files it refers to are described (``load.media``)."""
    term, problems, names = read_term_file(Path(file.path), file.shown)
    if term is not None and is_folder_term(file.path, file.root):
        term.slug = os.path.basename(os.path.dirname(os.path.abspath(file.path)))
        if not SLUG_RE.match(term.slug):
            return LoadedFile(file.shown, stamp, None, (Problem(file.shown, 1, f"folder name {_printable(term.slug)!r} "
                              "of this index.md is not a valid slug: use lowercase letters, digits and single "
                              "hyphens, e.g. 'output-tokens/index.md'"),), names)
    if term is not None and file.root:
        term.media, refused = media_files.resolve_term(term.body, term.preview_image, file.path, file.root)
        problems += [Problem(file.shown, term.field_lines.get("preview_image", 2), refused)] if refused else []
    return LoadedFile(file.shown, stamp, term, tuple(problems), names)


def is_folder_term(path: str, root: str) -> bool:
    """Whether ``path`` is a folder's ``index.md`` under ``terms/``, not ``terms/index.md`` (the term ``index``)."""
    return os.path.basename(path) == "index.md" and bool(root) and \
        os.path.dirname(os.path.abspath(path)) != os.path.join(root, "terms")


def record_is_current(record: tuple | None) -> bool:
    """Whether the files a cached term record refers to are as they were when it was read."""
    return record is None or len(record) < len(RECORD_FIELDS) or media_files.current(record[_MEDIA_AT])


def load_term_files(content_dir: Path, part: tuple[int, int] | None = None,
                    listed: tuple | None = None) -> list[LoadedFile | Problem]:
    """Every term file under ``content_dir`` read, in file order: a ``LoadedFile``
    for each one read, a ``Problem`` for each one that could not be
    (``find_term_files``'s ``part`` slices them; ``listed``: its result, given: a loader's chunk). A term loads in ~65 us, less
    than sending it back from a forked worker costs, so they are read in this
    process; a build's first load can instead run while the interpreter is
    still importing (``preload``)."""
    files, problems = listed or find_term_files(content_dir, part)
    loaded: list[LoadedFile | Problem] = list(problems)
    for file in files:
        stamp = file.refused or stamp_term_file(file)
        if stamp is not None:
            loaded.append(stamp if isinstance(stamp, Problem) else load_term_file(file, stamp))
    return loaded


def gather_terms(loaded: list[LoadedFile | Problem]) -> tuple[list[Term], list[Problem]]:
    """The terms (sorted by slug) and problems (in file order) of ``loaded``."""
    terms: list[Term] = []
    problems: list[Problem] = []
    for entry in loaded:
        if isinstance(entry, Problem):
            problems.append(entry)
            continue
        problems.extend(entry.problems)
        if entry.term is not None:
            terms.append(entry.term)
    terms.sort(key=lambda t: t.slug)
    return terms, problems


def gather_dropped(loaded: list[LoadedFile | Problem]) -> list[Dropped]:
    """The term files of ``loaded`` that gave no term, though their name is a
    valid slug (unreadable, no or malformed front matter, ...), sorted by slug."""
    dropped: list[Dropped] = []
    for entry in loaded:
        if isinstance(entry, Problem):
            shown, names = entry.path, ()
        elif entry.term is None:
            shown, names = entry.shown, entry.names
        else:
            continue
        folder, _, name = shown.rpartition("/")
        slug = name.removesuffix(".md")
        if name == "index.md" and "/terms/" in f"/{folder}/" and not f"/{folder}".endswith("/terms"):
            slug = folder.rsplit("/", 1)[-1]  # a folder term (``is_folder_term``)
        if name.endswith(".md") and SLUG_RE.match(slug):
            dropped.append(Dropped(slug, shown, names[0] if names else "", tuple(names[1:])))
    dropped.sort(key=lambda d: (d.slug, d.path))
    return dropped


def load_terms(content_dir: Path, part: tuple[int, int] | None = None) -> tuple[list[Term], list[Problem]]:
    """Read every ``terms/**/*.md`` under ``content_dir``: the terms, sorted by
    slug, and every problem. ``part=(k, n)``: only the k-th of n contiguous
    slices of the files; concatenated, the slices' terms (sorted again) and
    problems are the whole load's."""
    return gather_terms(load_term_files(content_dir, part))


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


def read_term(path: Path, shown: str) -> tuple[Term | None, list[Problem]]:
    """Read one term file; return the term (None when unusable) and its problems.

    A term whose front matter parsed but has errors (a missing title, a value
    of the wrong type) is still returned, its faulty fields at their defaults:
    the later stages check its related entries, aliases and body too, so one
    run reports all its problems; the errors stop anything being written."""
    term, problems, _names = read_term_file(path, shown)
    return term, problems


def read_term_file(path: Path, shown: str) -> tuple[Term | None, list[Problem], tuple[str, ...]]:
    """``read_term``, and for a file that gave no term the names its front
    matter seems to give (``LoadedFile.names``)."""
    slug = path.stem
    problems: list[Problem] = []
    if not SLUG_RE.match(slug):
        problems.append(Problem(shown, 1, f"file name {path.name!r} is not a valid slug: use lowercase letters, digits and single hyphens, e.g. 'output-tokens.md'"))
        return None, problems, ()
    try:
        # A regular file only, checked on the open file: a FIFO swapped in cannot hang the build.
        raw = read_regular(path, follow=True, owned=False, limit=MAX_FILE_BYTES)
    except ValueError as exc:  # over the limit
        return None, [Problem(shown, 1, str(exc))], ()
    except RefusedPath as exc:
        return None, [Problem(shown, None, exc.reason)], ()
    except OSError as exc:
        return None, [Problem(shown, None, f"cannot read: {exc.strerror}")], ()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return None, [Problem(shown, line, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})")], ()
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        return None, [Problem(shown, line, "contains a NUL character")], ()
    front, body, body_line, problem = split_front_matter(text, shown)
    if problem:
        return None, [problem], ()
    meta, problems = parse_front_matter(front, shown)
    if meta is None:
        return None, problems, guess_names(front)
    term = Term(
        slug=slug,
        title=meta.get("title", ""),
        summary=meta.get("summary", ""),
        body=body,
        path=shown,
        body_line=body_line,
        aliases=meta.get("aliases", []),
        related=meta.get("related", []),
        explainer=meta.get("explainer"),
        field_lines=meta.get("__lines__", {}),
        preview_image=meta.get("preview_image", ""),
        explainer_options=meta.get("explainer_options", {}),
    )
    return term, problems, ()


_NAME_LINE_RE = re.compile(r"^(title|aliases)[ \t]*:[ \t]*(.*?)[ \t]*$", re.MULTILINE)


def guess_names(front: str) -> tuple[str, ...]:
    """The title then aliases that front matter YAML could not parse seems to
    give, read line by line (``title: X``, ``aliases: [A, B]``); () when no
    title line is found. Only used so that links to the file by those names
    are not reported as unknown terms: never shown on a page."""
    found = dict((key, value) for key, value in reversed(_NAME_LINE_RE.findall(front)))
    title = _unquote(found.get("title", ""))
    if not title:
        return ()
    aliases = found.get("aliases", "")
    listed = [_unquote(a) for a in aliases.strip("[]").split(",")] if aliases.startswith("[") else []
    return (title, *(a for a in listed if a))


def _unquote(text: str) -> str:
    text = text.split(" #", 1)[0].strip()
    return text[1:-1].strip() if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"" else text


