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

Sphinx reads a line's name lazily (``names.SPHINX_INVENTORY_LINE``): a term name
holding ``<word> <number>`` would end there and the rest become another entry
(``Model std:label -1 //evil.example/pwn Evil`` a label linking to another host).
The build refuses such titles and aliases at their line (``validate.checks``);
this writer leaves out any term line Sphinx would not read back as written, so
no inventory it writes can hold a forged entry, whoever calls it.
"""

from __future__ import annotations

import re
import zlib
from typing import Iterable

from ..names import SPHINX_INVENTORY_LINE, inventory_name_problem
from .glossary_json import Entry

_MAY_SPLIT = re.compile(r"\s-?\d")
"""A name Sphinx could split (``names.inventory_name_problem``) has a number after a space."""

PRIORITY = -1
"""Sphinx gives terms, labels and documents priority -1 (not shown in its search)."""


def _clean(text: str) -> str:
    # Whitespace runs become one space, none at the ends: what
    # ``re.sub(r"\s+", " ", text).strip()`` gives, since ``\s`` in a str
    # pattern, ``str.split()`` and ``str.strip()`` all use the same test
    # (``str.isspace``); several times faster, and called ~11 times per term.
    return " ".join(text.split())


def inventory_lines(entries: Iterable[Entry], headings: dict[str, list[tuple[str, str]]] | None = None) -> list[str]:
    """The uncompressed object lines, sorted; ``headings``: slug -> [(anchor, text)]."""
    headings = headings or {}
    # One dict per role, name -> the line's tail "<uri> <display name>". The
    # first object of a (role, name) wins; separate dicts let the final sort
    # compare plain strings, and the tail is made once, where it is known.
    # A display name equal to the name is written "-".
    terms: dict[str, str] = {}
    labels: dict[str, str] = {}
    docs: dict[str, str] = {}
    for entry in entries:
        url = entry.url
        for name in (entry.title, *entry.aliases):
            # Sphinx looks terms up lowercased. The display name would be the
            # name itself, so always "-": a reference shows the text as written.
            name = _clean(name.lower())
            if name and name not in terms and not (_MAY_SPLIT.search(name) and inventory_name_problem(name)):
                terms[name] = f"{url} -"
        title = None  # cleaned once per entry, and only if some slug needs it
        for slug in (entry.slug, *entry.redirects):
            slug = _clean(slug)
            if not slug:
                continue
            if title is None:
                title = _clean(entry.title)
            tail = f"{url} {'-' if title == slug else title}"
            labels.setdefault(slug, tail)
            docs.setdefault(slug, tail)
        slug = entry.slug
        for anchor, text in headings.get(slug, ()):
            name = _clean(f"{slug}#{anchor}")
            if name and name not in labels:
                text = _clean(text or anchor)
                labels[name] = f"{url}#{anchor} {'-' if text == name else text}"
    lines: list[str] = []
    # Sorted by role, then by name ("std:doc" < "std:label" < "std:term").
    for role, objects in sorted({"std:term": terms, "std:label": labels, "std:doc": docs}.items()):
        middle = f" {role} {PRIORITY} "
        lines += [f"{name}{middle}{objects[name]}" for name in sorted(objects)]
    return lines


def objects_inv(project: str, version: str, entries: Iterable[Entry], headings: dict[str, list[tuple[str, str]]] | None = None) -> bytes:
    """The bytes of ``objects.inv`` (deterministic: fixed zlib level, sorted lines)."""
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {_clean(project)}\n"
        f"# Version: {_clean(version)}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    lines = inventory_lines(entries, headings)
    body = "\n".join(lines) + "\n" if lines else ""
    return header.encode("utf-8") + zlib.compress(body.encode("utf-8"), 9)


def read_inventory(data: bytes) -> list[tuple[str, str, int, str, str]]:
    """Parse ``objects.inv`` bytes into (name, role, priority, uri, dispname) with ``$`` expanded."""
    lines = data.split(b"\n", 4)
    if lines[0] != b"# Sphinx inventory version 2" or b"zlib" not in lines[3]:
        raise ValueError("not a Sphinx inventory version 2")
    result = []
    for line in zlib.decompress(lines[4]).decode("utf-8").splitlines():
        match = SPHINX_INVENTORY_LINE.match(line.rstrip())
        if not match:
            continue
        name, role, priority, uri, dispname = match.groups()
        if uri.endswith("$"):
            uri = uri[:-1] + name
        result.append((name, role, int(priority), uri, dispname))
    return result
