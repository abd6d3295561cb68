"""Sphinx cross-references into the glossary, as ``check --links-in`` finds them
in reStructuredText (``.rst``) and MyST markdown (``.md``).

A Sphinx project links to the glossary through intersphinx, under the name
its ``intersphinx_mapping`` gives it (``glossary`` in docs/linking.md)::

    :term:`glossary:Speculative decoding`        :term:`text <glossary:Model>`
    :external+glossary:term:`LLM`                :ref:`glossary:inference#two-phases`
    :doc:`glossary:model`                        {term}`glossary:Model`  (MyST)

A role names the glossary when it says ``external+NAME`` or its target starts
with ``NAME:``; other roles (``:term:`Model``` alone) are the project's own and
are left alone. The names a role may reach are what the glossary's
``objects.inv`` lists (outputs/inventory.py), worked out from ``glossary.json``:
``term``: every title and alias, lowercased; ``ref``: every slug and old slug,
and ``slug#anchor`` for each heading; ``doc``: every slug and old slug.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from ..markup.source import FENCE_RE
from .published import PublishedGlossary

_PREFIX = r"(?:external(?:\+(?P<inv>[\w.-]+))?:)?(?:std:)?(?P<role>term|ref|doc)"
RST_ROLE_RE = re.compile(r"(?<![\w`\\]):" + _PREFIX + r":`(?P<content>[^`]+)`(?!`)")
MYST_ROLE_RE = re.compile(r"\{" + _PREFIX + r"\}`(?P<content>[^`]+)`")
_MYST_OR_CODE_RE = re.compile(MYST_ROLE_RE.pattern + r"|(?P<ticks>`+).+?(?P=ticks)")
_RST_LITERAL_RE = re.compile(r"``.+?``")
_RST_CODE_DIRECTIVE_RE = re.compile(r"^\s*\.\.\s+(?:code-block|code|sourcecode|highlight|math)::")
_RST_COMMENT_RE = re.compile(r"^\s*\.\.(?:\s|$)(?!\s*(?:\[|_|\||[\w:+-]+::))")
_MYST_CODE_DIRECTIVES = frozenset({"code", "code-block", "sourcecode", "code-cell", "literalinclude", "math"})
_SPACE_RE = re.compile(r"\s+")


@dataclass(frozen=True)
class Role:
    """One cross-reference into the glossary: its line, as written, role and target."""

    line: int
    written: str
    role: str
    target: str


def _ours(match: re.Match, name: str) -> tuple[str, str] | None:
    """(role, target) when the role points into the inventory ``name``, else None."""
    content = match.group("content")
    explicit = re.fullmatch(r"(?s)(.*?)\s*<([^<>]+)>", content)
    target = (explicit.group(2) if explicit else content).strip().lstrip("~!")
    if match.group("inv") is not None:
        return (match.group("role"), target) if match.group("inv") == name else None
    inventory, colon, rest = target.partition(":")
    return (match.group("role"), rest.strip()) if colon and inventory == name else None


def rst_prose(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line) of each reStructuredText line outside literal blocks (after
    ``::``), code directives and comments, with inline literals blanked."""
    block_indent: int | None = None  # inside a skipped block indented deeper than this
    for offset, line in enumerate(text.splitlines()):
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if not line.strip() or indent > block_indent:
                continue
            block_indent = None
        if _RST_CODE_DIRECTIVE_RE.match(line) or _RST_COMMENT_RE.match(line):
            block_indent = indent
            continue
        if line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            block_indent = indent  # a literal block follows (this line is still prose)
        yield offset, _RST_LITERAL_RE.sub(lambda m: " " * len(m.group()), line)


def rst_roles(text: str, name: str) -> Iterator[Role]:
    """The glossary roles in a reStructuredText text, outside code and comments."""
    for offset, prose in rst_prose(text):
        if "`" not in prose:
            continue
        for match in RST_ROLE_RE.finditer(prose):
            found = _ours(match, name)
            if found:
                yield Role(offset + 1, match.group(0), *found)


def myst_lines(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(offset, line) of each markdown line that is prose: outside code fences,
    but inside MyST directive fences (```` ```{note} ````), whose body is markdown."""
    stack: list[tuple[str, int, bool]] = []  # open fences: (character, length, is code)
    for offset, line in enumerate(lines):
        match = FENCE_RE.match(line)
        if match:
            fence, info = match.group(1), line[match.end():].strip()
            top = stack[-1] if stack else None
            if top and fence[0] == top[0] and len(fence) >= top[1] and not info:
                stack.pop()
                continue
            if not (top and top[2]):  # a fence line inside code is code
                directive = re.match(r"\{([^}\s]+)\}", info)
                stack.append((fence[0], len(fence), not directive or directive.group(1) in _MYST_CODE_DIRECTIVES))
                continue
        if not stack or not stack[-1][2]:
            yield offset, line


def myst_roles(text: str, name: str) -> Iterator[Role]:
    """The glossary roles in a MyST markdown text, outside code (fences, code spans)."""
    for offset, line in myst_lines(text.splitlines()):
        if "}`" not in line:
            continue
        # One pass: a role and a code span both use backticks; the leftmost wins.
        for match in _MYST_OR_CODE_RE.finditer(line):
            if match.group("role"):
                found = _ours(match, name)
                if found:
                    yield Role(offset + 1, match.group(0), *found)


def inventory_names(glossary: PublishedGlossary) -> dict[str, frozenset[str]]:
    """What each role can reach in the glossary's objects.inv, by role (as
    outputs/inventory.py writes it, with footnote anchors left out)."""
    def clean(text: str) -> str:
        return " ".join(text.split())

    terms: set[str] = set()
    pages: set[str] = set()
    labels: set[str] = set()
    for term in glossary.terms.values():
        terms.update(clean(n.lower()) for n in (term.title, *term.aliases))
        pages.update(clean(s) for s in (term.slug, *term.redirects))
        labels.update(clean(f"{term.slug}#{a}") for a in term.anchors if not a.startswith("fn:"))
    return {"term": frozenset(terms - {""}), "doc": frozenset(pages - {""}),
            "ref": frozenset((pages | labels) - {""})}


def check_role(role: Role, names: dict[str, frozenset[str]]) -> str | None:
    """What is wrong with one role (None: Sphinx will resolve it)."""
    wanted = _SPACE_RE.sub(" ", role.target).strip()
    if role.role == "term":
        return None if wanted.lower() in names["term"] else f"unknown glossary term {role.written}"
    # Sphinx lowercases :ref: targets; :doc: names are the slugs, already lowercase.
    if (wanted.lower() if role.role == "ref" else wanted) in names[role.role]:
        return None
    page, _, anchor = wanted.partition("#")
    if anchor and page.lower() in names["doc"]:
        return f"glossary page '{page}' has no heading '#{anchor}': {role.written}"
    return f"unknown glossary {'page' if role.role == 'doc' else 'label'} {role.written}"
