"""Front matter: the YAML between ``---`` lines, parsed and checked field by field.

Problems are collected, never raised, each at the line of its key, so one run
reports them all. Front matter is read by PyYAML's safe loader (its C loader
where libyaml is there), imported when a front matter is first parsed
(``front_yaml``).
"""

from __future__ import annotations

import re
import sys

from ..errors import Problem
from .schema import INVALID, NAME, NAME_LIMIT, NAME_LIST, SLUG_LIST, STRING, TEXT, TEXT_LIMIT, Field, Kind, Schema, check
from .schema import CONTROL_RE, control_character  # noqa: F401 - their home was here

class ExplainerUse(Kind):
    """``explainer: <name>``, or a mapping of its name and its options
    (``explainer: {name: doubling, start: 3}``): a name, or ``{"name": ...,
    "options": {...}}``. Each option is a plain value (text, number, bool);
    the explainer's own schema checks them (``validate``, which knows the
    installed explainers: this stage knows none)."""

    name = "explainer"

    def clean(self, field, value, cleaned):
        if isinstance(value, str):
            return NAME.clean(field, value, cleaned)
        if not isinstance(value, dict):
            return INVALID, [(f"'explainer' must be a name, or a mapping of 'name' and the explainer's options, "
                              f"not {type(value).__name__}", "error")]
        name = value.get("name")
        if not isinstance(name, str) or not name.strip():
            return INVALID, [("'explainer' as a mapping needs 'name: <explainer>' (its options beside it)", "error")]
        options = {str(k): v for k, v in value.items() if k != "name"}
        for key, option in options.items():
            if not isinstance(option, (str, int, float, bool)):
                return INVALID, [(f"explainer option {key!r} must be text, a number or true/false, "
                                  f"not {'a mapping' if isinstance(option, dict) else type(option).__name__}", "error")]
        return {"name": name.strip(), "options": options}, []


EXPLAINER_USE = ExplainerUse()

TERM_FIELDS = (
    Field("title", TEXT, required=True, max_length=NAME_LIMIT, help="the term's name (required)"),
    Field("summary", TEXT, required=True, max_length=TEXT_LIMIT,
          help="a one-sentence plain-text definition (required)"),
    Field("aliases", NAME_LIST, [], max_length=NAME_LIMIT,
          help="other names the term is known by (list); a repeat, or the title, is dropped with a warning"),
    Field("related", SLUG_LIST, [], max_length=NAME_LIMIT,
          help="slugs of related terms (list); a repeat is dropped with a warning"),
    Field("explainer", EXPLAINER_USE, None,
          help="the name of an interactive explainer to embed, or a mapping of its name and options "
               "({name: doubling, start: 3}; docs/explainers.md)"),
    Field("preview_image", STRING, "", max_length=NAME_LIMIT,
          help="a 1200x630 PNG beside the term, its social preview (og:image) instead of the drawn card"),
)
"""Every front matter key. Texts are measured after collapsing spaces: a title names
the term and a summary is one sentence; longer text belongs in the body."""

TERM_SCHEMA = Schema(TERM_FIELDS, noun="front matter key", default_line=2, suggest=True)


def split_front_matter(text: str, shown: str) -> tuple[str, str, int, Problem | None]:
    """Split ``---``-fenced front matter from the body; returns (front, body, body_line, problem).
    Lines are found one by one up to the closing fence (the body is never split into lines)."""
    end = text.find("\n")
    if (text if end < 0 else text[:end]).strip() != "---":
        return "", "", 1, Problem(shown, 1, "missing front matter: the file must start with a '---' line, then YAML with at least title and summary, then '---'")
    front_start, index = end + 1, 1
    while end >= 0:
        start = end + 1
        end = text.find("\n", start)
        if (text[start:] if end < 0 else text[start:end]).strip() in ("---", "..."):
            front = text[front_start:start - 1] if start > front_start else ""
            body = text[end + 1:] if end >= 0 else ""
            return front, body, index + 2, None
        index += 1
    return "", "", 1, Problem(shown, 1, "front matter is not closed: add a '---' line after the YAML")


def parse_front_matter(front: str, shown: str) -> tuple[dict | None, list[Problem]]:
    """Parse and check the YAML front matter (its first line is line 2 of the file)."""
    from . import front_yaml  # PyYAML (~7 ms to import): not in a process that parses no front matter

    lines = _key_lines(front)
    repeated: list[tuple[str, int, int]] = []
    try:
        data: object = {}
        if front.strip():  # PyYAML also tells every spelling of a key apart, for the repeats
            data, lines, repeated = front_yaml.load_yaml(front, lines)
    except (ValueError, OverflowError) as exc:  # e.g. an integer past Python's limit on digits
        line, limit = _long_number_line(front)
        reason = f"a number of more than {limit:,} digits" if limit and "digits" in str(exc) else str(exc)
        return None, [Problem(shown, line, f"malformed YAML front matter: {reason}")]
    except front_yaml.yaml.YAMLError as exc:
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
    meta, problems = check(data, TERM_SCHEMA, shown, lines, repeated)
    # A term with errors is still checked by the later stages (``load.content.read_term``):
    # a field with an error at its line is left at its default there, so that its
    # faulty value (a title holding a control character, say) starts no other errors.
    # (A missing field's error is at the first line, which may be another key's.)
    faulty = {p.line for p in problems if p.severity == "error" and not p.message.startswith("missing required")}
    for field in TERM_FIELDS:
        if field.name in meta and lines.get(field.name) in faulty:
            meta[field.name] = "" if field.required else field.default
    if isinstance(meta.get("explainer"), dict):  # the mapping form: the name, and its options apart
        meta["explainer_options"] = meta["explainer"]["options"]
        meta["explainer"] = meta["explainer"]["name"]
    meta["__lines__"] = lines
    return meta, problems


def _long_number_line(front: str) -> tuple[int, int]:
    """(line of the first run of more digits than Python turns into an int, or 2; that limit)."""
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
    match = re.search(r"[0-9_]{%d,}" % (limit + 1), front)
    return (front.count("\n", 0, match.start()) + 2 if match else 2), limit


_KEY_LINE_RE = re.compile(r"\n([A-Za-z_][\w-]*)[^\S\n]*:")
"""A line break, then a plain key and its colon (spaces but no line break between).
Searched in the text after a line break of its own: a pattern that starts with a
literal character jumps from one to the next, where ``^`` with ``re.MULTILINE``
was tried at every character (~10 % of parsing a front matter)."""


def _key_lines(front: str) -> dict[str, int]:
    """Each plain key -> the line (of the file) where a line first starts with it."""
    lines: dict[str, int] = {}
    line, counted = 2, 0
    for match in _KEY_LINE_RE.finditer("\n" + front):
        if match.group(1) not in lines:
            start = match.start()  # in ``front``: where that line starts (one character was put before it)
            line += front.count("\n", counted, start)
            counted = start
            lines[match.group(1)] = line
    return lines
