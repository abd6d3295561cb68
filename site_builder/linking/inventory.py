"""``objects.inv``: a Sphinx intersphinx inventory (version 2) of the glossary.

With it, a Sphinx project writes ``:term:`glossary:Speculative decoding``` or
``:ref:`glossary:inference``` and gets a link to the right page. Entries:

- ``std:term``: every title and every alias, lowercased as Sphinx's own
  glossary lookups are case-insensitive; they point at the term's page and
  their display name is ``-``, so a reference shows the text as written.
- ``std:label`` and ``std:doc``: every slug, and every alias slug that has a
  redirect page (so references written before a rename keep resolving);
  display name: the title.
- ``std:label`` ``<slug>#<anchor>``: every heading on a term page.

URIs are relative to the inventory. Sphinx's ``$`` shorthand (an URI ending in
the object's name) never fits here: no name is a suffix of its URI, so URIs are
written in full (the reader below still expands ``$``). Names and display names have their whitespace collapsed
so no text can break the line format.
"""

from __future__ import annotations

import re
import zlib
from typing import Iterable

from .glossary_json import Entry

PRIORITY = -1
"""Sphinx gives terms, labels and documents priority -1 (not shown in its search)."""


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def inventory_lines(entries: Iterable[Entry], headings: dict[str, list[tuple[str, str]]] | None = None) -> list[str]:
    """The uncompressed object lines, sorted; ``headings``: slug -> [(anchor, text)]."""
    headings = headings or {}
    objects: dict[tuple[str, str], tuple[str, str]] = {}

    def add(name: str, role: str, uri: str, dispname: str) -> None:
        name = _clean(name)
        if name and (role, name) not in objects:
            objects[role, name] = (uri, _clean(dispname))

    for entry in entries:
        for name in (entry.title, *entry.aliases):
            add(name.lower(), "std:term", entry.url, name.lower())  # display "-": the text as written
        for slug in (entry.slug, *entry.redirects):
            add(slug, "std:label", entry.url, entry.title)
            add(slug, "std:doc", entry.url, entry.title)
        for anchor, text in headings.get(entry.slug, ()):
            add(f"{entry.slug}#{anchor}", "std:label", f"{entry.url}#{anchor}", text or anchor)
    lines = []
    for (role, name), (uri, dispname) in sorted(objects.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if dispname == name:
            dispname = "-"
        lines.append(f"{name} {role} {PRIORITY} {uri} {dispname}")
    return lines


def objects_inv(project: str, version: str, entries: Iterable[Entry], headings: dict[str, list[tuple[str, str]]] | None = None) -> bytes:
    """The bytes of ``objects.inv`` (deterministic: fixed zlib level, sorted lines)."""
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {_clean(project)}\n"
        f"# Version: {_clean(version)}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = "".join(line + "\n" for line in inventory_lines(entries, headings))
    return header.encode("utf-8") + zlib.compress(body.encode("utf-8"), 9)


def read_inventory(data: bytes) -> list[tuple[str, str, int, str, str]]:
    """Parse ``objects.inv`` bytes into (name, role, priority, uri, dispname) with ``$`` expanded."""
    lines = data.split(b"\n", 4)
    if lines[0] != b"# Sphinx inventory version 2" or b"zlib" not in lines[3]:
        raise ValueError("not a Sphinx inventory version 2")
    result = []
    for line in zlib.decompress(lines[4]).decode("utf-8").splitlines():
        match = re.match(r"(.+?)\s+(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)", line.rstrip())
        if not match:
            continue
        name, role, priority, uri, dispname = match.groups()
        if uri.endswith("$"):
            uri = uri[:-1] + name
        result.append((name, role, int(priority), uri, dispname))
    return result
