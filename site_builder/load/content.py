"""Load stage: read every term file into a ``Term``, checking each on its own.

A term file is ``content/terms/<slug>.md``: YAML front matter between ``---``
lines (parsed and checked in ``front_matter``), then markdown. Problems are
collected, never raised, so one run reports them all with their file and line.
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
from dataclasses import dataclass, field, fields
from pathlib import Path

from ..errors import Problem
from ..files import RefusedPath, read_regular
from . import media as media_files
from .front_matter import parse_front_matter, split_front_matter
# Finding and stamping the files: a module of its own (their home was here).
from .term_files import UNPRINTABLE_RE, TermFile, _printable, find_term_files, stamp_term_file, \
    symlink_problem  # noqa: F401

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
    front: bytes = field(default=b"", compare=False)
    """For a file read here that gave a term with no problem: its front matter's
    digest (``front_digest``), so that once it changes again with the same front
    matter (an edit of its body) its fields are taken from its record instead of
    parsed (``load_term_file``'s ``reuse``); b"" otherwise."""


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


def load_term_file(file: TermFile, stamp: tuple[int, int, int, int], reuse: tuple[bytes, tuple] | None = None
                   ) -> LoadedFile:
    """Read and check one term file whose stamp was just taken. A folder's ``index.md`` is the term named
    after its folder (``terms/api/index.md``: ``api``); the files it refers to are described (``load.media``).
    ``reuse``: (``LoadedFile.front``, the term's record) of the file's last read, which gave no problem:
    when its front matter is still that one, its fields are the record's and PyYAML is not asked."""
    term, problems, names, front = read_term_text(Path(file.path), file.shown, reuse)
    if term is not None and is_folder_term(file.path, file.root):
        term.slug = os.path.basename(os.path.dirname(os.path.abspath(file.path)))
        if not SLUG_RE.match(term.slug):
            return LoadedFile(file.shown, stamp, None, (Problem(file.shown, 1, f"folder name {_printable(term.slug)!r} "
                              "of this index.md is not a valid slug: use lowercase letters, digits and single "
                              "hyphens, e.g. 'output-tokens/index.md'"),), names)
    if term is not None and file.root:
        term.media, refused = media_files.resolve_term(term.body, term.preview_image, file.path, file.root)
        problems += [Problem(file.shown, term.field_lines.get("preview_image", 2), refused)] if refused else []
    return LoadedFile(file.shown, stamp, term, tuple(problems), names, front if term is not None and not problems else b"")


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
    return read_term_text(path, shown)[:3]


def front_digest(front: str, body_line: int) -> bytes:
    """What ``LoadedFile.front`` keeps of a front matter: enough to tell it from any other."""
    return hashlib.blake2b(f"{body_line}\n{front}".encode("utf-8", "surrogatepass"), digest_size=16).digest()


def read_term_text(path: Path, shown: str, reuse: tuple[bytes, tuple] | None = None
                   ) -> tuple[Term | None, list[Problem], tuple[str, ...], bytes]:
    """``read_term_file``, and the front matter's digest (``front_digest``; b"" when
    there is none). ``reuse``: as for ``load_term_file``."""
    slug = path.stem
    problems: list[Problem] = []
    if not SLUG_RE.match(slug):
        problems.append(Problem(shown, 1, f"file name {path.name!r} is not a valid slug: use lowercase letters, digits and single hyphens, e.g. 'output-tokens.md'"))
        return None, problems, (), b""
    try:
        # A regular file only, checked on the open file: a FIFO swapped in cannot hang the build.
        raw = read_regular(path, follow=True, owned=False, limit=MAX_FILE_BYTES)
    except ValueError as exc:  # over the limit
        return None, [Problem(shown, 1, str(exc))], (), b""
    except RefusedPath as exc:
        return None, [Problem(shown, None, exc.reason)], (), b""
    except OSError as exc:
        return None, [Problem(shown, None, f"cannot read: {exc.strerror}")], (), b""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return None, [Problem(shown, line, f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start})")], (), b""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        return None, [Problem(shown, line, "contains a NUL character")], (), b""
    front, body, body_line, problem = split_front_matter(text, shown)
    if problem:
        return None, [problem], (), b""
    digest = front_digest(front, body_line)
    if reuse is not None and reuse[0] == digest:
        # The same front matter, at the same line, as when its record was made
        # (which parsing it gave without a problem): the same fields, but the body.
        # (Copies: the record stays what the last build used.)
        fields_of = dict(zip(RECORD_FIELDS, copy.deepcopy(reuse[1])))
        fields_of.update(slug=slug, body=body, path=shown, body_line=body_line, media={})
        return Term(**fields_of), [], (), digest
    meta, problems = parse_front_matter(front, shown)
    if meta is None:
        return None, problems, guess_names(front), digest
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
    return term, problems, (), digest


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


