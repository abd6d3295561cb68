"""What attribute lists (``{: ... }``, Python-Markdown's attr_list) may set.

Markdown itself writes a few attributes (a link's ``href``, an image's ``src``,
footnotes' ids and classes); attribute lists let an author add any other. The
page's scripts read ids, classes and ``data-*`` attributes, so a body that could
set them could drive those scripts (``{: .sd-explainer data-vega-src=... }``).
Without ``allow_raw_html`` (which trusts content with any markup), an attribute
list may therefore set only:

- ``ALLOWED_ATTRIBUTES``, a strict allow-list of names with no behaviour: never
  an event handler, ``style``, ``data-*``, ``aria-*``, ``role``, ``target``;
- a class that no template, style sheet or script of the site or an explainer
  uses, and that does not start with one of their prefixes (``markup.reserved``,
  derived from those files);
- an id no page element has (checked with the heading ids, in ``render``).

The attributes an attribute list sets are recorded as it sets them
(``record_attribute_lists``), so markdown's own are never mistaken for an
author's. The same rule covers a fenced code block's ``{...}`` (``guard_fences``).
Anything else is removed and reported at the line that sets it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown.util import HTML_PLACEHOLDER_RE

from ..urls import refusal
from .reserved import class_prefixes, reserved

ALLOWED_ATTRIBUTES = {
    "*": frozenset({"id", "class", "title", "lang", "dir"}),
    "a": frozenset({"href", "hreflang"}),
    "img": frozenset({"src", "alt", "width", "height", "loading"}),
    "ol": frozenset({"start", "reversed"}),
}
"""Element -> the attribute names an attribute list may set on it (``"*"``: on any).
URLs (``href``, ``src``) must also pass ``urls.is_safe_url``."""

_SCRIPTING = "scripts and inline styles are not allowed in markdown"


def allowed(tag: str, name: str) -> bool:
    """Whether an attribute list may set ``name`` on a ``tag`` element."""
    lower = name.lower()
    return lower in ALLOWED_ATTRIBUTES["*"] or lower in ALLOWED_ATTRIBUTES.get(tag, ())


def name_refusal(tag: str, name: str) -> str:
    """Why an attribute list may not set ``name`` on ``tag`` (``allowed`` said no)."""
    lower = name.lower()
    if lower.startswith("on") or lower in ("style", "srcdoc"):
        return _SCRIPTING
    if lower.startswith("data-"):
        return "data-* attributes are the site's and its scripts'; attribute lists may not set them"
    names = sorted(ALLOWED_ATTRIBUTES["*"] | ALLOWED_ATTRIBUTES.get(tag, frozenset()))
    return f"attribute lists may set only {', '.join(names)} on <{tag}>"


def record_attribute_lists(md, state_ref) -> None:
    """Make ``md``'s attr_list record on ``state_ref()`` what it sets: (element, attributes before).

    Installed after the fast processors, on the instance in use (stock or fast):
    both assign through ``assign_attrs``."""
    processor = md.treeprocessors["attr_list"]
    assign = type(processor).assign_attrs

    def assign_attrs(elem, attrs_string, *, strict=False):
        before = dict(elem.attrib)
        remainder = assign(processor, elem, attrs_string, strict=strict)
        if elem.attrib != before:
            state_ref().set_by_lists.append((elem, before))
        return remainder

    processor.assign_attrs = assign_attrs


def check_attribute_lists(state, explainer_ids: frozenset[str]) -> None:
    """Remove (and report) what attribute lists set that they may not (see the module)."""
    extra = class_prefixes(explainer_ids)
    for element, before in state.set_by_lists:
        for name in list(element.keys()):
            value = element.get(name)
            if name in before and before[name] == value:
                continue  # markdown's own, not the list's
            if name == "class":
                _check_classes(element, before.get("class"), state, extra)
            elif not allowed(element.tag, name):
                del element.attrib[name]
                shown = _shown(state, value or "")
                state.result.problems.append((attribute_line(state, name, shown),
                                              f"attribute {name}={shown!r} is not allowed: {name_refusal(element.tag, name)}"))


def _check_classes(element: etree.Element, before: str | None, state, extra: frozenset[str]) -> None:
    kept = []
    old = set((before or "").split())
    for name in (element.get("class") or "").split():
        reason = None if name in old else reserved().class_reason(name, extra)
        if reason is None:
            kept.append(name)
            continue
        state.result.problems.append((class_line(state, name), f"class {name!r} is not allowed in markdown: {reason}"))
    if kept:
        element.set("class", " ".join(kept))
    else:
        del element.attrib["class"]


def guard_fences(md, state_ref, page_ids: frozenset[str], explainer_ids: frozenset[str]) -> None:
    """Apply the same rule to fenced code's ``{...}`` (``~~~ {.python #id key=value}``),
    which the fenced_code extension turns into HTML itself, out of the tree's reach."""
    processor = md.preprocessors["fenced_code_block"]
    handle = type(processor).handle_attrs
    extra = class_prefixes(explainer_ids)

    def handle_attrs(attrs):
        state = state_ref()
        kept = []
        language = True  # the first class names the language ("language-x" on <code>)
        for key, value in attrs:
            problem = None
            if key == ".":
                reason = None if language else reserved().class_reason(value, extra)
                language = False
                if reason:
                    problem = (fence_line(state, "." + value), f"class {value!r} is not allowed in markdown: {reason}")
            elif key == "class":  # class="a b" (the other way to write classes)
                kept_names = []
                for name in (value or "").split():
                    if reason := reserved().class_reason(name, extra):
                        state.result.problems.append((fence_line(state, name),
                                                      f"class {name!r} is not allowed in markdown: {reason}"))
                    else:
                        kept_names.append(name)
                value = " ".join(kept_names)
                if not value:
                    continue
            elif key == "id":
                if value in page_ids or reserved().id_prefix(value or ""):
                    problem = (fence_line(state, "#" + value), f"id {value!r} is already used by the page around the body")
            elif not allowed("code", key):
                problem = (fence_line(state, key), f"attribute {key}={value!r} is not allowed: {name_refusal('code', key)}")
            if problem:
                state.result.problems.append(problem)
            else:
                kept.append((key, value))
        return handle(processor, kept)

    processor.handle_attrs = handle_attrs


_FENCE_WITH_ATTRIBUTES = re.compile(r"^\s*(?:~{3,}|`{3,})[ ]*\{")


def fence_line(state, written: str) -> int:
    """The line of the first fence opening whose ``{...}`` holds ``written``."""
    for offset, line in enumerate(state.prepared):
        if _FENCE_WITH_ATTRIBUTES.match(line) and written in line:
            return state.first_line + offset
    return state.first_line


def class_line(state, name: str) -> int:
    """The line that sets the class ``name`` (``{: .name }`` or ``class="... name"``)."""
    shorthand = re.compile(r"\{[^{}\n]*\." + re.escape(name) + r"(?![\w-])[^{}\n]*\}")
    for offset, line in enumerate(state.source):
        if shorthand.search(line):
            return state.first_line + offset
    pattern = re.compile(r"\{[^{}\n]*class\s*=\s*[\"']?[^\"'}\n]*(?<![\w-])" + re.escape(name) + r"(?![\w-])")
    for offset, line in enumerate(state.source):
        if pattern.search(line):
            return state.first_line + offset
    return state.first_line


def check_url_attribute(element: etree.Element, name: str, state) -> None:
    """Remove (and report) ``name`` (``src``) when its URL's scheme is not allowed."""
    value = _shown(state, element.get(name) or "")
    reason = refusal(value)
    if reason is not None:
        listed = any(e is element and before.get(name) != element.get(name) for e, before in state.set_by_lists)
        # Written as an image's destination (![](...)), or in an attribute list ({: src=... })
        line = None if listed else state.locate().link(value)
        del element.attrib[name]
        state.result.problems.append((line if line is not None else attribute_line(state, name, value),
                                      f"attribute {name}={value!r} is not allowed: {reason}"))


def _shown(state, value: str) -> str:
    """``value`` with markdown's stash placeholders put back (a character reference
    such as ``&#106;`` is stashed until the HTML is written)."""
    if "\x02" in value:
        return HTML_PLACEHOLDER_RE.sub(lambda m: _stashed_text(state, int(m.group(1))), value)
    return value


def _stashed_text(state, index: int) -> str:
    stashed = state.stashed[index] if index < len(state.stashed) else ""
    return stashed if isinstance(stashed, str) else ""


def off_prefix(element: etree.Element, ident: str, state, prefix: str, root: etree.Element) -> str:
    """An id starting like the ids the page makes (``letter-``): an error when set by
    hand; a heading's own id gets ``_1`` (``_2``...) instead, as toc does for repeats."""
    if element.tag in ("h1", "h2", "h3", "h4", "h5", "h6") and id_line(state, ident, None) is None:
        taken = {other.get("id") for other in root.iter()}
        number = 1
        while f"{ident}_{number}" in taken:
            number += 1
        ident = f"{ident}_{number}"
        element.set("id", ident)
        return ident
    state.result.problems.append((id_line(state, ident), f"id {ident!r} is not allowed: ids starting {prefix!r} "
                                  "are the page's own"))
    del element.attrib["id"]
    return ident


def id_line(state, ident: str, default: int | None = 0) -> int | None:
    """The line that sets the id ``ident`` (``{: #ident }`` or ``id="ident"``), for the message."""
    shorthand = re.compile(r"\{[^{}\n]*#" + re.escape(ident) + r"(?![\w-])[^{}\n]*\}")  # in an attribute list only
    for offset, line in enumerate(state.source):
        if shorthand.search(line):
            return state.first_line + offset
    if default is None:  # only asking whether it is written (a heading's own id is not)
        found = state.locate().attribute("id", ident)
        return found
    return attribute_line(state, "id", ident)


def attribute_line(state, name: str, value: str) -> int:
    """The line that sets ``name`` to ``value`` (the next such line when it is set
    more than once; or failing that, the first holding ``value``), for the message."""
    found = state.locate().attribute(name, value)
    if found is not None:
        return found
    anywhere = re.compile(re.escape(value))
    for offset, line in enumerate(state.source):
        if value and anywhere.search(line):
            return state.first_line + offset
    return state.first_line
