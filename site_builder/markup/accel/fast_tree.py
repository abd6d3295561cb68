"""Faster drop-ins for Python-Markdown's tree, pre- and postprocessors, same output.

Each drop-in subclasses the stock processor and either skips work that
provably cannot change anything, or does the same work with less Python
overhead. They are grouped by what they stand in for, each module explaining
why its drop-ins give byte-identical results: ``fast_toc`` (the toc
treeprocessor: heading ids, no unused table), ``fast_passes`` (attr_list,
unescape, prettify, and the normalize_whitespace, fenced_code_block and
raw_html pre- and postprocessors) and ``fast_serializer`` (the HTML
serializer). This module installs them.

Everything is installed only on Markdown 3.11 and only in place of the exact
stock class it was written against; anything else keeps its processor.
"""

from __future__ import annotations

import markdown
from markdown import serializers, util
from markdown.extensions.attr_list import AttrListTreeprocessor
from markdown.extensions.fenced_code import FencedBlockPreprocessor
from markdown.extensions.toc import TocTreeprocessor
from markdown.postprocessors import RawHtmlPostprocessor
from markdown.preprocessors import NormalizeWhitespace
from markdown.treeprocessors import PrettifyTreeprocessor, UnescapeTreeprocessor

from . import upstream
from .fast_passes import (FastAttrListTreeprocessor, FastFencedBlockPreprocessor, FastNormalizeWhitespace,
                          FastPrettifyTreeprocessor, FastRawHtmlPostprocessor, FastUnescapeTreeprocessor)
from .fast_serializer import fast_html_string
from .fast_toc import FastTocTreeprocessor

__all__ = ["ENABLED", "FastAttrListTreeprocessor", "FastFencedBlockPreprocessor", "FastNormalizeWhitespace",
           "FastPrettifyTreeprocessor", "FastRawHtmlPostprocessor", "FastTocTreeprocessor",
           "FastUnescapeTreeprocessor", "fast_html_string", "install"]

# registry -> name -> (the stock class it must be, the replacement's factory)
_REPLACEMENTS = {
    "treeprocessors": {
        "toc": (TocTreeprocessor, lambda md, old: _copy_into(FastTocTreeprocessor, old)),
        "attr_list": (AttrListTreeprocessor, lambda md, old: FastAttrListTreeprocessor(md)),
        "unescape": (UnescapeTreeprocessor, lambda md, old: FastUnescapeTreeprocessor(md)),
        "prettify": (PrettifyTreeprocessor, lambda md, old: FastPrettifyTreeprocessor(md)),
    },
    "preprocessors": {
        "normalize_whitespace": (NormalizeWhitespace, lambda md, old: FastNormalizeWhitespace(md)),
        "fenced_code_block": (FencedBlockPreprocessor, lambda md, old: _copy_into(FastFencedBlockPreprocessor, old)),
    },
    "postprocessors": {
        "raw_html": (RawHtmlPostprocessor, lambda md, old: FastRawHtmlPostprocessor(md)),
    },
}


def _copy_into(cls, old):
    """A ``cls`` (a subclass of ``type(old)``) with ``old``'s configuration and state."""
    new = cls.__new__(cls)
    new.__dict__.update(old.__dict__)
    return new


def _replace(registry: util.Registry, name: str, new) -> None:
    """Put ``new`` in place of ``registry[name]``, at the same place in the run order."""
    # register() appends after items of equal priority: re-register those that
    # came after the old one so that the order stays as it was.
    order = [(item.name, item.priority) for item in sorted(
        registry._priority, key=lambda item: item.priority, reverse=True)]
    names = [n for n, _ in order]
    index = names.index(name)
    priority = order[index][1]
    registry.register(new, name, priority)
    for later, later_priority in order[index + 1:]:
        if later_priority == priority:
            registry.register(registry[later], later, later_priority)


# Only over the upstream sources these mirror (see upstream.py).
ENABLED = upstream.matches()


def install(md: markdown.Markdown) -> bool:
    """Install the fast processors and serializer into ``md``; False when nothing was installed.

    Call it after the extensions are loaded. A processor that is missing, or
    not exactly the stock class, is left alone; so is a serializer other than
    the stock HTML one.
    """
    if not ENABLED:
        return False
    installed = False
    for registry_name, replacements in _REPLACEMENTS.items():
        registry = getattr(md, registry_name)
        for name, (stock_class, make) in replacements.items():
            if name in registry and type(registry[name]) is stock_class:
                _replace(registry, name, make(md, registry[name]))
                installed = True
    if md.serializer is serializers.to_html_string:
        md.serializer = fast_html_string
        installed = True
    return installed
