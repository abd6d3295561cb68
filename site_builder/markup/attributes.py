"""Attributes that markdown itself never writes but ``attr_list`` lets an author
add: event handlers, inline styles and script URLs are removed and reported
at the line that sets them (``state`` is the renderer's per-document state).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from html import unescape as unescape_html
from urllib.parse import urlsplit

from markdown.util import HTML_PLACEHOLDER_RE

EXTERNAL_SCHEMES = ("http", "https", "mailto", "ftp", "tel", "data")
"""Schemes a link or URL attribute may use; any other scheme (``javascript:``,
``vbscript:``, ``file:``, ...) is refused."""

_TABLE_ALIGN = re.compile(r"text-align: (left|right|center);")
_URL_ATTRIBUTES = ("src", "action", "formaction", "poster", "background", "xlink:href", "cite", "data")
_CHECKED_ATTRIBUTES = frozenset(("style", "srcdoc", "href") + _URL_ATTRIBUTES)
"""With the "on..." ones, the only attribute names the loop below may remove."""


def strip_unsafe_attributes(element: etree.Element, state) -> None:
    """Remove (and report) attributes that markdown itself never writes but attr_list allows."""
    for name in list(element.keys()):
        lower = name.lower()
        if lower not in _CHECKED_ATTRIBUTES and not lower.startswith("on"):
            continue  # id, class, title...: allowed whatever their value
        value = element.get(name, "")
        if "\x02" in value:  # a character reference ("&#106;") is stashed until the HTML is written
            value = HTML_PLACEHOLDER_RE.sub(lambda m: _stashed_text(state, int(m.group(1))), value)
        if lower == "style" and element.tag in ("th", "td") and _TABLE_ALIGN.fullmatch(value):
            continue  # the tables extension's own column alignment
        if lower.startswith("on") or lower in ("style", "srcdoc"):
            reason = "scripts and inline styles are not allowed in markdown"
        elif lower in _URL_ATTRIBUTES + (("href",) if element.tag != "a" else ()) and _has_script_scheme(value):
            reason = "script URLs are not allowed"
        else:
            continue
        del element.attrib[name]
        state.result.problems.append((attribute_line(state, name, value), f"attribute {name}={value!r} is not allowed: {reason}"))


def _stashed_text(state, index: int) -> str:
    stashed = state.stashed[index] if index < len(state.stashed) else ""
    return stashed if isinstance(stashed, str) else ""


def _has_script_scheme(url: str) -> bool:
    # The browser decodes character references in attribute values before it
    # reads the URL, and the serializer keeps them: "&#106;avascript:" is one.
    scheme = urlsplit("".join(unescape_html(url).split()).lower()).scheme
    return bool(scheme) and scheme not in EXTERNAL_SCHEMES


def attribute_line(state, name: str, value: str) -> int:
    """The line that sets ``name`` to ``value`` (the next such line when it is set
    more than once; or failing that, the first holding ``value``), for the message."""
    found = state.locate().attribute(name, value)
    if found is not None:
        return found
    anywhere = re.compile(re.escape(value))
    for offset, line in enumerate(state.source):
        if anywhere.search(line):
            return state.first_line + offset
    return state.first_line
