"""Files a term shows or links to (images, PDFs, CSVs), found beside its file.

At load, every local path a body writes as a link or image destination is
resolved against the term file's folder, checked (inside the content folder,
symlinks included; a regular file; an SVG on ``svg_check``'s allow-list) and
described: its published name (content hash), size, pixel size and dark
variant (``x.dark.svg`` beside ``x.svg``). Nothing is reported here: the markup stage reports a problem at the line where the file
is used (a path only written inside a code block is never reported), and the
record is part of the term, so the cache and the fast path see a changed
image as a changed term (``current`` says when a record's files changed).
"""

from __future__ import annotations

import hashlib
import html
import io
import os
import posixpath
import re
import time
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

from ..errors import BuildFailed, Problem, display_path as _display_path
from ..files import RefusedPath, read_regular
from .svg_check import svg_problem

IMAGE_TYPES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".svg"})
"""What ``![alt](file)`` may show."""
FILE_TYPES = frozenset({".pdf", ".csv", ".tsv", ".txt", ".json", ".zip", ".xlsx", ".docx", ".pptx",
                        ".odt", ".ods", ".odp", ".mp3", ".mp4", ".webm", ".ogg", ".wav"})
"""What ``[text](file)`` may link to besides images (never HTML or scripts: they
would run on the site's origin)."""
READ_LIMIT = 256 * 1024 * 1024
"""Files larger than this are never read (``media_max_mb`` cannot go higher)."""
PREVIEW_SIZE = (1200, 630)
"""A social preview's size (``explainers.base.PREVIEW_SIZE``, the drawn cards')."""
SETTLED_NS = 2_000_000_000
"""As ``cache.terms.SETTLED_NS``: a file younger than this is stamped 0 (checked again)."""


class Media(NamedTuple):
    """One file a term refers to, as the load found it (a plain tuple in ``Term.media``)."""

    problem: str
    """Why it cannot be published ("" when it can)."""
    path: str
    """Where to read it when publishing."""
    name: str
    """Its published name under ``media/``: ``stem.<hash>.ext``."""
    size: int
    width: int
    height: int
    """Pixel size of an image (0 for other files)."""
    dark: tuple
    """() or (path, published name, width, height) of its ``.dark`` variant."""
    stamps: tuple
    """((path, stamp), ...) of the file and its variant's place: what ``current`` compares."""


_DESTINATION = re.compile(
    r"\]\(\s*<([^>\n]+)>"                                   # ](<path with spaces>)
    r"|\]\(\s*([^\s()]+)"                                   # ](path "title")
    r"|^[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?([^\s>]+)"             # [ref]: path
    r"|\b(?:src|href)[ \t]*=[ \t]*[\"']([^\"'\n]+)",        # raw HTML, attribute lists
    re.M)
_PUBLISHED_SUFFIX = re.compile(r"\.(?:" + "|".join(sorted(t[1:] for t in IMAGE_TYPES | FILE_TYPES)) + r")\b",
                               re.I)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def reference_key(url: str) -> str | None:
    """The file path (unquoted, without query or fragment) of a local link or image
    destination with a published type; None for anything else (a URL with a
    scheme or host, an anchor, a term's ``slug.md``, a folder)."""
    url = url.strip()
    if not url or _SCHEME.match(url) or url.startswith("//"):
        return None
    path = unquote(urlsplit(url).path)
    if not path or path.endswith("/") or path.endswith(".md") or "\x00" in path:
        return None
    return path if posixpath.splitext(path)[1].lower() in IMAGE_TYPES | FILE_TYPES else None


def references(body: str) -> list[str]:
    """Every key (``reference_key``) a body may use, in order, once each: a superset
    of what the markdown makes (code blocks included), so nothing used is missed."""
    found: dict[str, None] = {}
    if not _PUBLISHED_SUFFIX.search(body):
        return []  # most bodies: one quick scan for a file name ending (the full one is ~5x slower)
    for match in _DESTINATION.finditer(body):
        written = next(group for group in match.groups() if group is not None)
        key = reference_key(html.unescape(written))
        if key is not None:
            found[key] = None
    return list(found)


def resolve_all(body: str, term_path: str, root: str) -> dict[str, tuple]:
    """key -> ``Media`` (as a plain tuple) of every file ``body`` refers to, relative
    to the folder of ``term_path``; ``root``: the content folder (absolute)."""
    keys = references(body)
    folder = os.path.dirname(os.path.abspath(term_path)) if keys else ""
    return {key: tuple(resolve(key, folder, root)) for key in keys}


def resolve_term(body: str, preview_image: str, term_path: str, root: str) -> tuple[dict[str, tuple], str]:
    """(``resolve_all`` of the body with the ``preview_image`` front matter names,
    why that image cannot be the term's social preview or "")."""
    media = resolve_all(body, term_path, root)
    if not preview_image:
        return media, ""
    key = reference_key(preview_image)
    if key is None or not key.lower().endswith(".png"):
        return media, f"preview_image {preview_image!r} must be a PNG file beside the term (a path, not a URL)"
    found = Media(*media.setdefault(key, tuple(resolve(key, os.path.dirname(os.path.abspath(term_path)), root))))
    if found.problem:
        return media, f"preview_image {preview_image!r}: {found.problem}"
    if (found.width, found.height) != PREVIEW_SIZE:
        return media, (f"preview_image {preview_image!r} is {found.width}x{found.height}: a social preview must be "
                       f"{PREVIEW_SIZE[0]}x{PREVIEW_SIZE[1]} (the size its og:image tags announce)")
    return media, ""


def resolve(key: str, folder: str, root: str) -> Media:
    """The ``Media`` of ``key`` written in a term in ``folder``."""
    if key.startswith("/"):
        return _refused("is absolute: write the path relative to the term file (e.g. diagram.svg, "
                        "or ../images/diagram.svg for a shared folder), so the site works under any sub-path")
    path = os.path.normpath(os.path.join(folder, key))
    if not _inside(path, os.path.normpath(root)):
        return _refused("leaves the content folder; only files inside it are published")
    stem, ext = os.path.splitext(path)
    ext = ext.lower()
    dark_path = stem + ".dark" + os.path.splitext(path)[1] if ext in IMAGE_TYPES else None
    stamps = ((path, _stamp(path)),) + (((dark_path, _stamp(dark_path)),) if dark_path else ())
    if not _inside(os.path.realpath(path), os.path.realpath(root)):
        return Media(f"{display_path(path)} leads outside the content folder (symlink?); refusing to read it",
                     path, "", 0, 0, 0, (), stamps)
    problem, data = _read(path)
    if problem:
        return Media(problem, path, "", 0, 0, 0, (), stamps)
    width, height, problem = _size(data, ext) if ext in IMAGE_TYPES else (0, 0, "")
    if problem:
        return Media(f"{display_path(path)}: {problem}", path, "", len(data), 0, 0, (), stamps)
    dark: tuple = ()
    if dark_path and stamps[1][1] is not None:
        if not _inside(os.path.realpath(dark_path), os.path.realpath(root)):
            return Media(f"{display_path(dark_path)} leads outside the content folder (symlink?)", path, "",
                         len(data), 0, 0, (), stamps)
        dark_problem, dark_data = _read(dark_path)
        dark_width, dark_height, dark_problem = (0, 0, dark_problem) if dark_problem else _size(dark_data, ext)
        if dark_problem:
            return Media(f"its dark variant {display_path(dark_path)}: {dark_problem}", path, "", len(data), 0, 0,
                         (), stamps)
        dark = (dark_path, published_name(key, dark_data, "-dark"), dark_width, dark_height)
        data_size = max(len(data), len(dark_data))
    else:
        data_size = len(data)
    return Media("", path, published_name(key, data), data_size, width, height, dark, stamps)


def published_name(key: str, data: bytes, suffix: str = "") -> str:
    """``stem.<hash>[suffix].ext``: a name that changes whenever the bytes do, so
    hosts may cache it forever (as the site's own assets, ``render.assets``)."""
    stem, ext = posixpath.splitext(posixpath.basename(key))
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", stem.removesuffix(".dark")).strip("-") or "file"
    return f"{stem[:60]}.{hashlib.sha256(data).hexdigest()[:10]}{suffix}{ext.lower()}"


def read_published(path: str, name: str) -> bytes:
    """The bytes of ``path`` to publish as ``name``; ``BuildFailed`` when they are
    no longer those the load hashed (the file changed during the build)."""
    problem, data = _read(path)
    if problem or _hash_part(name) != hashlib.sha256(data).hexdigest()[:10]:
        raise BuildFailed([Problem(display_path(path), None, problem or "changed while the site was being "
                                   "built; build again")])
    return data


def _hash_part(name: str) -> str:
    """The hash ``published_name`` put in ``name`` (``stem.<hash>[-dark].ext``)."""
    return name.rsplit(".", 2)[-2].removesuffix("-dark") if name.count(".") >= 2 else ""


def published_preview(term) -> bytes | None:
    """The PNG a ``Term`` names as its social preview (``preview_image``), or None."""
    record = term.media.get(reference_key(term.preview_image) or "") if term.preview_image else None
    return read_published(record[1], record[2]) if record and not record[0] else None


def current(media: dict[str, tuple]) -> bool:
    """Whether every file ``media`` describes (and every variant's place) is as it was."""
    return all(stamp != 0 and _stamp(path) == stamp for record in media.values() for path, stamp in record[7])


def material(media: dict[str, tuple]) -> str:
    """What a body's HTML takes from ``media`` (not paths or stamps), for its cache key."""
    return repr(sorted((key, r[0], r[2], r[3], r[4], r[5], tuple(r[6][1:])) for key, r in media.items()))


def _refused(problem: str) -> Media:
    return Media(problem, "", "", 0, 0, 0, (), ())


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _stamp(path: str) -> tuple | int | None:
    """(size, mtime, ctime, inode); None: no file; 0: too young to trust (see ``SETTLED_NS``)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) < SETTLED_NS:
        return 0
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


def _read(path: str) -> tuple[str, bytes]:
    """(problem, bytes) of a regular file, read without hanging on a FIFO."""
    shown = display_path(path)
    try:
        return "", read_regular(path, follow=True, owned=False, limit=READ_LIMIT)
    except FileNotFoundError:
        return f"no such file: {shown}", b""
    except ValueError:
        return f"{shown} is over {READ_LIMIT // 2**20} MB", b""
    except RefusedPath as error:
        return f"{shown} {error.reason}", b""
    except OSError as error:
        return f"cannot read {shown}: {error.strerror}", b""


def _size(data: bytes, ext: str) -> tuple[int, int, str]:
    """(width, height, problem) of an image's bytes."""
    if ext == ".svg":
        return svg_size(data)
    try:
        from PIL import Image  # only when a site has raster images
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
    except Exception as error:  # Pillow raises many kinds for a broken or unknown file
        return 0, 0, f"not a readable {ext[1:].upper()} image ({type(error).__name__})"
    return width, height, ""


_UNITS = {"": 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}
_LENGTH = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(px|pt|pc|mm|cm|in)?\s*")


def svg_size(data: bytes) -> tuple[int, int, str]:
    """(width, height, problem) of an SVG: its width and height, else its viewBox;
    a problem when it holds anything off ``svg_check``'s allow-list (refused, not
    sanitised: a rewritten file is not the one its author checked)."""
    root, problem = svg_problem(data)
    if root is None:
        return 0, 0, problem
    width, height = _length(root.get("width")), _length(root.get("height"))
    box = re.split(r"[\s,]+", (root.get("viewBox") or "").strip())
    try:
        box_width, box_height = (float(box[2]), float(box[3])) if len(box) == 4 else (0.0, 0.0)
    except ValueError:
        box_width = box_height = 0.0
    if box_width > 0 and box_height > 0:
        if width and not height:
            height = width * box_height / box_width
        elif height and not width:
            width = height * box_width / box_height
        elif not width and not height:
            width, height = box_width, box_height
    if not width or not height:
        return 0, 0, "SVG has no width and height or viewBox: its size cannot be known (set width and height on <svg>)"
    return max(1, round(width)), max(1, round(height)), ""


def _length(value: str | None) -> float:
    match = _LENGTH.fullmatch(value or "")
    return float(match.group(1)) * _UNITS[match.group(2) or ""] if match else 0.0


def display_path(path: str) -> str:
    """``path`` as messages show it (``errors.display_path`` takes a ``Path``)."""
    return _display_path(Path(path))
