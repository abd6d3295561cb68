"""Front matter: the YAML between ``---`` lines, parsed and checked field by field.

Problems are collected, never raised, each at the line of its key, so one run
reports them all. The plain shape of front matter is read by ``simple_yaml``
without PyYAML's constructor; anything else goes to PyYAML's safe loader.
"""

from __future__ import annotations

import re

import yaml

from ..errors import Problem
from . import simple_yaml
from .schema import NAME, NAME_LIMIT, NAME_LIST, SLUG_LIST, TEXT, TEXT_LIMIT, Field, Schema, check
from .schema import CONTROL_RE, control_character  # noqa: F401 - their home was here

try:  # the C loader is ~10x faster; fall back where libyaml is missing
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader

TERM_FIELDS = (
    Field("title", TEXT, required=True, max_length=NAME_LIMIT, help="the term's name (required)"),
    Field("summary", TEXT, required=True, max_length=TEXT_LIMIT,
          help="a one-sentence plain-text definition (required)"),
    Field("aliases", NAME_LIST, [], max_length=NAME_LIMIT,
          help="other names the term is known by (list); a repeat, or the title, is dropped with a warning"),
    Field("related", SLUG_LIST, [], max_length=NAME_LIMIT,
          help="slugs of related terms (list); a repeat is dropped with a warning"),
    Field("explainer", NAME, None, help="the name of an interactive explainer to embed"),
)
"""Every front matter key. Texts are measured after collapsing spaces: a title names
the term and a summary is one sentence; longer text belongs in the body."""

TERM_SCHEMA = Schema(TERM_FIELDS, noun="front matter key", default_line=2, suggest=True)


def split_front_matter(text: str, shown: str) -> tuple[str, str, int, Problem | None]:
    """Split ``---``-fenced front matter from the body; returns (front, body, body_line, problem)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return "", "", 1, Problem(shown, 1, "missing front matter: the file must start with a '---' line, then YAML with at least title and summary, then '---'")
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            front = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1:])
            return front, body, index + 2, None
    return "", "", 1, Problem(shown, 1, "front matter is not closed: add a '---' line after the YAML")


def parse_front_matter(front: str, shown: str) -> tuple[dict | None, list[Problem]]:
    """Parse and check the YAML front matter (its first line is line 2 of the file)."""
    try:
        data = (simple_yaml.parse(front) or yaml.load(front, Loader=_Loader)) if front.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # A mark past the last line means "ran off the end": blame the last line.
        last = max(0, front.count("\n"))
        line = min(mark.line, last) + 2 if mark is not None else 2
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return None, [Problem(shown, line, f"malformed YAML front matter: {reason}")]
    except RecursionError:
        return None, [Problem(shown, 2, "malformed YAML front matter: nested too deeply")]
    if not isinstance(data, dict):
        return None, [Problem(shown, 2, "front matter must be a mapping of keys to values (title: ..., summary: ...)")]
    lines = _key_lines(front)
    meta, problems = check(data, TERM_SCHEMA, shown, lines, _repeated_keys(front))
    meta["__lines__"] = lines
    return meta, problems


def _key_lines(front: str) -> dict[str, int]:
    lines = {}
    for number, text in enumerate(front.split("\n"), 2):
        match = re.match(r"^([A-Za-z_][\w-]*)\s*:", text)
        if match and match.group(1) not in lines:
            lines[match.group(1)] = number
    return lines


def _repeated_keys(front: str) -> list[tuple[str, int, int]]:
    """(key, first line, repeated line) for each top-level key written more than once."""
    seen: dict[str, int] = {}
    repeated = []
    for number, text in enumerate(front.split("\n"), 2):
        match = re.match(r"^([A-Za-z_][\w-]*)\s*:", text)
        if match and match.group(1) in seen:
            repeated.append((match.group(1), seen[match.group(1)], number))
        elif match:
            seen[match.group(1)] = number
    return repeated
