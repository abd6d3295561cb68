"""Front matter: the YAML between ``---`` lines, parsed and checked field by field.

Problems are collected, never raised, each at the line of its key, so one run
reports them all. The plain shape of front matter is read by ``simple_yaml``
without PyYAML's constructor; anything else goes to PyYAML's safe loader.
"""

from __future__ import annotations

import re

import yaml

from ..errors import Problem
from ..names import normalise
from . import simple_yaml

try:  # the C loader is ~10x faster; fall back where libyaml is missing
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader

CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters no text on a page may hold: C0 but tab and line feed, DEL, C1.
YAML and TOML refuse them written raw, but write them from escapes ("\\0", "\\x07",
"\\u0000", "\\N"), so parsed values are checked, not only the file's bytes."""
MAX_LENGTH = {"title": 200, "summary": 1000}
"""Characters (after collapsing spaces). A title names the term and a summary is one
sentence; longer text belongs in the body (and would overflow cards and previews)."""

FIELDS = {
    "title": "the term's name (required)",
    "summary": "a one-sentence plain-text definition (required)",
    "aliases": "other names the term is known by (list)",
    "related": "slugs of related terms (list)",
    "explainer": "the name of an interactive explainer to embed",
}


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
    problems: list[Problem] = []
    meta: dict = {"__lines__": lines}

    def at(key: str) -> int:
        return lines.get(key, 2)

    for key, first, again in _repeated_keys(front):
        problems.append(Problem(shown, again, f"{key!r} is given twice (first on line {first}); YAML would keep only the last"))
    for key, value in data.items():
        found = control_character(key, f"front matter key {str(key)!r}") or control_character(value, repr(str(key)))
        if found is not None:
            problems.append(Problem(shown, at(str(key)), found))
    for key in data:
        if key not in FIELDS:
            hint = _closest(str(key))
            problems.append(Problem(shown, at(str(key)), f"unknown front matter key {key!r}" + (f" (did you mean {hint!r}?)" if hint else f" (known: {', '.join(FIELDS)})"), "warning"))
    for key in ("title", "summary"):
        value = data.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            problems.append(Problem(shown, at(key) if key in data else 2, f"missing required field {key!r}"))
        elif not isinstance(value, str):
            problems.append(Problem(shown, at(key), f"{key!r} must be text, not {_kind(value)}"))
        elif len(text := " ".join(value.split())) > MAX_LENGTH[key]:
            problems.append(Problem(shown, at(key), f"{key!r} is {len(text):,} characters long; the limit is {MAX_LENGTH[key]:,}"))
        else:
            meta[key] = " ".join(value.split())
    for key in ("aliases", "related"):
        value = data.get(key, [])
        if value is None:
            value = []
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            problems.append(Problem(shown, at(key), f"{key!r} must be a list of non-empty strings"))
            continue
        too_long = [v for v in value if len(v) > MAX_LENGTH["title"]]
        if too_long:
            problems.append(Problem(shown, at(key), f"{key!r} has an entry {len(too_long[0]):,} characters long; the limit is {MAX_LENGTH['title']:,}"))
            continue
        meta[key] = _drop_repeats(key, [" ".join(v.split()) for v in value], meta.get("title"), shown, at(key), problems)
    explainer = data.get("explainer")
    if explainer is not None:
        if not isinstance(explainer, str):
            problems.append(Problem(shown, at("explainer"), f"'explainer' must be a name, not {_kind(explainer)}"))
        else:
            meta["explainer"] = explainer.strip()
    return meta, problems


def control_character(value: object, where: str) -> str | None:
    """Why ``value`` (a parsed value: text, or lists and mappings of them, nested
    to any depth) may not be used because of a control character in it, or None;
    ``where`` names the value in the message."""
    todo = [(value, where)]
    seen: set[int] = set()  # YAML anchors share one list many times over (billion laughs): look once
    while todo:  # a loop, not recursion: YAML nests deeper than Python recurses
        value, where = todo.pop()
        if isinstance(value, str):
            found = CONTROL_RE.search(value)
            if found is not None:
                return f"{where} contains the control character U+{ord(found.group()):04X}, which no page can show; remove it"
            continue
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, list):
            todo.extend((item, f"{where} entry {number}") for number, item in reversed(list(enumerate(value, 1))))
        elif isinstance(value, dict):
            for name, item in reversed(list(value.items())):
                todo += [(item, f"{where} key {str(name)!r}"), (name, f"{where} key {str(name)!r}")]
    return None


def _drop_repeats(key: str, values: list[str], title: str | None, shown: str, line: int,
                  problems: list[Problem]) -> list[str]:
    """``values`` without the entries that repeat an earlier one (or, for aliases,
    the title), each dropped one a warning. Related entries are slugs, compared as
    written; aliases are names, compared as names are resolved (``normalise``)."""
    same = normalise if key == "aliases" else str
    earlier: dict[str, str | None] = {same(title): None} if key == "aliases" and title else {}
    kept = []
    for value in values:
        if same(value) not in earlier:
            earlier[same(value)] = value
            kept.append(value)
            continue
        first = earlier[same(value)]
        if first is None:
            problems.append(Problem(shown, line, f"alias {value!r} is the term's own title; it is ignored", "warning"))
        else:
            what = f"{value!r} twice" if first == value else f"{first!r} and {value!r}, the same name"
            problems.append(Problem(shown, line, f"{key!r} lists {what}; the repeat is ignored", "warning"))
    return kept


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


def _closest(key: str) -> str | None:
    import difflib

    match = difflib.get_close_matches(key.lower(), FIELDS, n=1, cutoff=0.6)
    return match[0] if match else None


def _kind(value: object) -> str:
    return {dict: "a mapping", list: "a list"}.get(type(value), type(value).__name__)
