"""Front matter of the plainest shape, read without PyYAML's constructor: same values.

A term's front matter is nearly always a few ``key: value`` lines, each value
a double-quoted string without escapes, a plain one-line scalar, or a flow
list of slugs::

    title: "Speculative decoding"
    summary: Drafting tokens cheaply, then verifying them in one pass.
    related: [inference, output-tokens]

PyYAML's C parser reads that fast, but its constructor runs in Python and is
about half the cost of loading a term. ``parse`` reads exactly that shape
and returns None for anything else, which PyYAML then reads. Plain scalars
and keys go through PyYAML's own implicit resolver, the one its safe loader
uses: a value PyYAML would read as a bool, number, date or null (``yes``,
``1.5``, ``2024-01-01``, ``null``) sends the whole front matter to PyYAML.
``tests/load/test_simple_yaml.py`` compares the two on generated front matter.
"""

from __future__ import annotations

import re

import yaml
from yaml.resolver import Resolver

_STR = "tag:yaml.org,2002:str"
_resolve = Resolver().resolve

_LINE = re.compile(
    r"(?P<key>[A-Za-z_][A-Za-z0-9_]*): +(?:"
    r'"(?P<quoted>[^"\\]*)"'  # no escapes: the text is the value
    r"|\[(?P<list>[a-z0-9]+(?:-[a-z0-9]+)*(?:, [a-z0-9]+(?:-[a-z0-9]+)*)*)?\]"
    # no indicator first; no ':' or '#' (mapping, comment); no trailing space
    r"|(?P<plain>[A-Za-z0-9(.][^:#\n\"\\\[\]{}]*(?<! )))"
)


def _is_str(value: str) -> bool:
    """Whether PyYAML's safe loader reads the plain scalar ``value`` as a string."""
    return _resolve(yaml.ScalarNode, value, (True, False)) == _STR


def parse(front: str) -> dict | None:
    """The mapping ``yaml.load(front, SafeLoader)`` gives, or None when ``front`` is not of the plain shape."""
    data: dict = {}
    for line in front.split("\n"):
        if not line:
            continue
        # str.isprintable() admits only characters PyYAML reads as they are (a
        # subset of its printable set): no tab, no control or format character
        # (the BOM), none of YAML 1.1's extra line breaks (NEL, LS, PS), no
        # space but the ASCII one.
        if not line.isprintable():
            return None
        match = _LINE.fullmatch(line)
        if match is None:
            return None
        key = match.group("key")
        if not _is_str(key):
            return None
        quoted = match.group("quoted")
        if quoted is not None:
            data[key] = quoted
            continue
        plain = match.group("plain")
        if plain is not None:
            if not _is_str(plain):
                return None
            data[key] = plain
            continue
        items = match.group("list")
        values = items.split(", ") if items else []
        if not all(map(_is_str, values)):
            return None
        data[key] = values
    return data or None
