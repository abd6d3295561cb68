"""Images and linked files in a body: rewritten to their published copies, sized and checked.

``render._LinkPass`` hands every ``<img>`` (``place_image``) and every link to
a local file that is not a term (``link_file``) here. What the files are was
found at load (``load.media``: ``Term.media``); this module only writes the
HTML and reports, at the line where a file is used:

- an image without alt text (a warning; an error under ``--strict``);
- a missing file, a path leaving the content folder, an unsafe SVG, a file
  over ``media_max_mb``, a type that is not published;
- a remote image (the site makes no outside requests), with how to vendor it.

Published files live in ``media/`` at the site's root, named by a hash of
their bytes (``load.media.published_name``); every term page is one folder
deep (``<slug>/index.html``), so ``../media/<name>`` works from ``file://``,
under any sub-path and on any host.
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import unquote, urlsplit

import xml.etree.ElementTree as etree

from ..load.media import FILE_TYPES, IMAGE_TYPES, Media

FOLDER = "media"
"""The output folder of published files."""
PREFIX = f"../{FOLDER}/"
"""A published file's URL from a term page."""
DEFAULT_LIMIT_MB = 5
LAZY_BYTES = 100 * 1024
"""Raster images larger than this load lazily and decode off the main thread."""
DARK_MEDIA = "(prefers-color-scheme: dark)"
"""The dark source's media query, as the chart pictures' (``static/scheme.js`` sets
it to "all" or "not all" when the reader picks a scheme)."""


class Context:
    """What one body's images need: its files (``Term.media``) and the size limit."""

    def __init__(self, media: dict[str, tuple] | None = None, limit_mb: float = DEFAULT_LIMIT_MB):
        self.media = media or {}
        self.limit, self.limit_mb = int(limit_mb * 1024 * 1024), limit_mb
        self.placed: set[int] = set()  # the <img> made inside a <picture> (seen again by the tree walk)


def place_image(element: etree.Element, state) -> None:
    """Point ``element`` (an ``<img>``) at its published file, sized; wrap it in a
    ``<picture>`` with a dark source when the file has a ``.dark`` variant."""
    context: Context = state.media
    src = element.get("src")
    if src is None or id(element) in context.placed:
        return  # refused by its scheme already, or made here
    line = _line(state, src)
    if not (element.get("alt") or "").strip():
        state.result.problems.append((line, f"image {src} has no alt text: say what it shows, "
                                      f"![a short description]({src})", "warning"))
    parts = urlsplit(src)
    if parts.scheme or parts.netloc:
        name = posixpath.basename(unquote(parts.path)) or "image.png"
        state.result.problems.append((line, f"remote image {src}: the site makes no outside requests; download "
                                      f"it beside the term (curl -o {name} '{src}'), check its licence, "
                                      f"and write ![alt]({name})"))
        del element.attrib["src"]
        return
    found = _found(context, src, line, state, "image")
    if found is None:
        del element.attrib["src"]
        return
    if posixpath.splitext(unquote(parts.path))[1].lower() not in IMAGE_TYPES:
        state.result.problems.append((line, f"{src} is not an image: link to it, [text]({src})"))
        del element.attrib["src"]
        return
    element.set("src", PREFIX + found.name)
    problem = _size(element, found)
    if problem:
        state.result.problems.append((line, f"image {src}: {problem}"))
    if not found.name.endswith(".svg") and found.size > LAZY_BYTES:
        element.set("loading", "lazy")
        element.set("decoding", "async")
    if found.dark:
        _picture(element, found, context)


def _size(element: etree.Element, found: Media) -> str:
    """Width and height from the file; one given in an attribute list is kept and
    the other follows the file's proportions (so the box is still reserved).
    Why a given one is refused, or "": only ASCII digits, at most 5 of them
    (``"²".isdigit()`` is true, and a 350-digit number overflows a float)."""
    width, height = element.get("width"), element.get("height")
    for name, value in (("width", width), ("height", height)):
        if value is not None and not _PIXELS.fullmatch(value):
            return f"{name}={value[:20]!r} must be a whole number of pixels (1 to 5 digits 0-9)"
    if width is None and height is None:
        element.set("width", str(found.width))
        element.set("height", str(found.height))
    elif height is None:
        element.set("height", str(max(1, round(int(width) * found.height / found.width))))
    elif width is None:
        element.set("width", str(max(1, round(int(height) * found.width / found.height))))
    return ""


_PIXELS = re.compile(r"[0-9]{1,5}")


def link_file(element: etree.Element, href: str, state) -> bool:
    """Point a link to a local file (``href``, not a term) at its published copy;
    False when it names no file the load found (the caller reports it)."""
    parts = urlsplit(href)
    key = unquote(parts.path)
    if key not in state.media.media:
        return False
    found = _found(state.media, href, _line(state, href), state, "link to")
    if found is None:
        del element.attrib["href"]
    else:
        element.set("href", PREFIX + found.name + (f"#{parts.fragment}" if parts.fragment else ""))
    return True


def _found(context: Context, url: str, line: int, state, what: str) -> Media | None:
    """The usable ``Media`` ``url`` names, or None with its problem reported."""
    key = unquote(urlsplit(url).path)
    record = context.media.get(key)
    if record is None:
        kinds = ", ".join(sorted(t[1:] for t in IMAGE_TYPES | FILE_TYPES))
        known = posixpath.splitext(key)[1].lower() in IMAGE_TYPES | FILE_TYPES
        state.result.problems.append((line, f"{what} {url}: " + ("no such file beside the term" if known else
                                      f"not a published file type (published: {kinds})")))
        return None
    found = Media(*record)
    if found.problem:
        state.result.problems.append((line, f"{what} {url}: {found.problem}"))
        return None
    if found.size > context.limit:
        state.result.problems.append((line, f"{what} {url}: {found.size / 2**20:.2f} MB is over the limit of "
                                      f"{context.limit_mb:g} MB (media_max_mb in site.toml)"))
        return None
    return found


def _picture(element: etree.Element, found: Media, context: Context) -> None:
    """Turn ``element`` into ``<picture><source dark><img></picture>`` in place (the
    tree walk is inside it: its parent is not known here)."""
    image = etree.Element("img", dict(element.attrib))
    tail = element.tail
    element.clear()
    element.tag, element.tail = "picture", tail
    _path, name, width, height = found.dark
    source = etree.SubElement(element, "source", {"media": DARK_MEDIA, "srcset": PREFIX + name})
    if (width, height) != (found.width, found.height):
        source.set("width", str(width))
        source.set("height", str(height))
    element.append(image)
    context.placed.add(id(image))


def _line(state, url: str) -> int:
    found = state.locate().link(url)
    return found if found is not None else state.first_line


def published(terms, limit_mb: float = DEFAULT_LIMIT_MB) -> dict[str, str]:
    """``media/<name>`` -> source path of every file ``terms`` (``Term`` objects) may
    show or link to (a usable file within the limit, and its dark variant): what
    the build copies. Sorted, so the build adds them in the same order every time."""
    files = {}
    for term in terms:
        for record in term.media.values():
            found = Media(*record)
            if not found.problem and found.size <= limit_mb * 1024 * 1024:
                files[f"{FOLDER}/{found.name}"] = found.path
                if found.dark:
                    files[f"{FOLDER}/{found.dark[1]}"] = found.dark[0]
    return dict(sorted(files.items()))
