"""A faster drop-in for Python-Markdown's HTML serializer, same bytes.

``fast_html_string`` (the serializer)
    The same output as ``markdown.serializers.to_html_string`` (same escape
    functions, same attribute order and boolean-attribute rule), written as a
    recursion that appends to one list. Trees with anything but plain string
    tags (comments, processing instructions, ``QName``), or too deep for the
    recursion, are handed to the stock serializer whole.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown import serializers


class _Unusual(Exception):
    """A tree the fast serializer leaves to the stock one."""


_escape_cdata = serializers._escape_cdata
_escape_attrib_html = serializers._escape_attrib_html
_BOOLEAN = serializers.BOOLEAN_ATTRIBUTES["html"]
_HTML_EMPTY = serializers.HTML_EMPTY
_RAW_TEXT = ("script", "style")


def fast_html_string(element: etree.Element) -> str:
    """``markdown.serializers.to_html_string(element)``, with less overhead per element."""
    data: list[str] = []
    try:
        _serialize(data.append, element)
    except (_Unusual, RecursionError):
        return serializers.to_html_string(element)
    return "".join(data)


def _serialize(write, el: etree.Element) -> None:
    """Write ``el``, its subtree and its tail as stock ``_serialize_html`` does for "html"."""
    tag = el.tag
    if tag.__class__ is not str:
        raise _Unusual  # Comment, ProcessingInstruction, None, QName: stock handles those
    try:
        start, end, raw = _TAG_PARTS[tag]
    except KeyError:
        start, end, raw = _tag_parts(tag)
    attrib = el.attrib
    if attrib:
        parts = [start[:-1]]  # "<tag", the attributes go before its ">"
        for k, v in sorted(el.items()):  # lexical order, as stock
            if k.__class__ is not str or (v is not None and v.__class__ is not str):
                raise _Unusual
            if v is None:
                parts.append(f" {k}")
            else:
                v = _escape_attrib_html(v)
                if k == v and k in _BOOLEAN:
                    parts.append(f" {v}")
                else:
                    parts.append(f' {k}="{v}"')
        parts.append(">")
        write("".join(parts))
    else:
        write(start)
    text = el.text
    if text:
        # _escape_cdata only acts on these three; skipping the call is what saves time.
        if not raw and ("&" in text or "<" in text or ">" in text):
            text = _escape_cdata(text)
        write(text)
    for child in el:
        _serialize(write, child)
    if end:
        write(end)
    tail = el.tail
    if tail:
        if "&" in tail or "<" in tail or ">" in tail:
            tail = _escape_cdata(tail)
        write(tail)


_TAG_PARTS: dict[str, tuple[str, str | None, bool]] = {}


def _tag_parts(tag: str) -> tuple[str, str | None, bool]:
    """("<tag>", "</tag>" or None for a void element, whether the text is written raw)."""
    lower = tag.lower()
    parts = (f"<{tag}>", None if lower in _HTML_EMPTY else f"</{tag}>", lower in _RAW_TEXT)
    if len(_TAG_PARTS) < 1000:  # markdown uses a few dozen tags
        _TAG_PARTS[tag] = parts
    return parts
