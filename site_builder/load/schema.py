"""One schema engine for every user-facing setting: ``site.toml`` and front matter.

A schema is data: a tuple of ``Field``s, each with its kind, default, limit and
help text beside it (after MkDocs' ``config_options``). ``check`` applies one to
parsed values and words every problem, so an unknown key, a wrong type, a text
too long, a control character or a key given twice reads the same wherever it
is found. Problems are collected, never raised, each at the line of its key.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..errors import Problem
from ..names import normalise
from ..urls import url_scheme

NAME_LIMIT = 200
"""Characters in a name: a site or term title, an alias, a related slug. It names
something in one heading, card or preview line."""
TEXT_LIMIT = 1000
"""Characters in a sentence-sized text: a summary, the site's description or footer.
Longer text belongs in a body (and would overflow cards and previews)."""

CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters no text on a page may hold: C0 but tab and line feed, DEL, C1.
YAML and TOML refuse them written raw, but write them from escapes ("\\0", "\\x07",
"\\u0000", "\\N"), so parsed values are checked, not only the file's bytes."""

INVALID = object()
"""What a kind returns for a value it refused (its problems say why)."""


class Kind:
    """How one kind of value is checked and cleaned.

    ``clean(field, value, cleaned)`` returns (the cleaned value or ``INVALID``,
    problems as (message, severity)); ``cleaned`` holds the fields before this one.
    """

    name = ""

    def clean(self, field: "Field", value: object, cleaned: dict) -> tuple[object, list[tuple[str, str]]]:
        raise NotImplementedError


class String(Kind):
    """A TOML string, kept as written. ``one`` (e.g. "one URL"): a single token,
    no whitespace inside; ``normalise`` rewrites the accepted value."""

    def __init__(self, name: str = "string", one: str | None = None, normalise=None):
        self.name, self.one, self.normalise = name, one, normalise

    def clean(self, field, value, cleaned):
        if not isinstance(value, str):
            return INVALID, [(f"{field.name!r} must be a str, not {type(value).__name__}", "error")]
        if (message := _too_long(field, value)) is not None:
            return INVALID, [(message, "error")]
        if self.one is not None and (space := re.search(r"\s", value.strip())):
            return INVALID, [(f"{field.name!r} contains whitespace (U+{ord(space.group()):04X}); it is {self.one}, "
                              "without spaces or line breaks", "error")]
        return (self.normalise(value) if self.normalise else value), []


class Bool(Kind):
    name = "bool"

    def clean(self, field, value, cleaned):
        if not isinstance(value, bool):
            return INVALID, [(f"{field.name!r} must be a bool, not {type(value).__name__}", "error")]
        return value, []


class AutoBool(Kind):
    """true, false, or the string "auto" (the default decides from other settings)."""

    name = 'bool or "auto"'

    def clean(self, field, value, cleaned):
        if isinstance(value, bool) or value == "auto":
            return value, []
        return INVALID, [(f"{field.name!r} must be true, false or \"auto\", not {value!r}", "error")]


class Text(Kind):
    """Plain text from YAML, its runs of whitespace collapsed to one space."""

    name = "text"

    def clean(self, field, value, cleaned):
        if not isinstance(value, str):
            return INVALID, [(f"{field.name!r} must be text, not {_kind(value)}", "error")]
        text = " ".join(value.split())
        if (message := _too_long(field, text)) is not None:
            return INVALID, [(message, "error")]
        return text, []


class Name(Kind):
    """One name, e.g. an explainer's: text, stripped."""

    name = "name"

    def clean(self, field, value, cleaned):
        if not isinstance(value, str):
            return INVALID, [(f"{field.name!r} must be a name, not {_kind(value)}", "error")]
        return value.strip(), []


class Integer(Kind):
    """A whole number (not a bool) from ``low`` to ``high`` (None: unbounded)."""

    name = "integer"

    def __init__(self, low: int | None = None, high: int | None = None):
        self.low, self.high = low, high

    def clean(self, field, value, cleaned):
        if isinstance(value, bool) or not isinstance(value, int):
            return INVALID, [(f"{field.name!r} must be an integer, not {_kind(value)}", "error")]
        return _in_range(field, value, self.low, self.high)


class Number(Kind):
    """A finite number, integer or not (not a bool), from ``low`` to ``high``."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None):
        self.low, self.high = low, high

    def clean(self, field, value, cleaned):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value in (float("inf"), float("-inf")):
            return INVALID, [(f"{field.name!r} must be a finite number, not {value!r}"
                              if isinstance(value, float) else f"{field.name!r} must be a number, not {_kind(value)}", "error")]
        return _in_range(field, value, self.low, self.high)


def _in_range(field, value, low, high) -> tuple[object, list[tuple[str, str]]]:
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"from {low} to {high}" if low is not None and high is not None else \
            (f"at least {low}" if low is not None else f"at most {high}")
        return INVALID, [(f"{field.name!r} is {value}; it must be {bounds}", "error")]
    return value, []


class TextList(Kind):
    """A list of non-empty texts (one text is a list of one), each collapsed; an
    entry repeating an earlier one is dropped with a warning. ``as_names``:
    entries are compared as names resolve (``normalise``), and one equal to the
    ``title`` field is dropped too; otherwise as written (slugs)."""

    def __init__(self, name: str, as_names: bool):
        self.name, self.as_names = name, as_names

    def clean(self, field, value, cleaned):
        key = field.name
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            return INVALID, [(f"{key!r} must be a list of non-empty strings", "error")]
        too_long = [v for v in value if field.max_length is not None and len(v) > field.max_length]
        if too_long:
            return INVALID, [(f"{key!r} has an entry {len(too_long[0]):,} characters long; the limit is {field.max_length:,}", "error")]
        same = normalise if self.as_names else str
        title = cleaned.get("title") if self.as_names and value else None  # (no entries: no key needed)
        earlier: dict[str, str | None] = {same(title): None} if title else {}
        kept, problems = [], []
        for entry in (" ".join(v.split()) for v in value):
            key_of_entry = same(entry)
            if key_of_entry not in earlier:
                earlier[key_of_entry] = entry
                kept.append(entry)
                continue
            first = earlier[key_of_entry]
            if first is None:
                problems.append((f"alias {entry!r} is the term's own title; it is ignored", "warning"))
            else:
                what = f"{entry!r} twice" if first == entry else f"{first!r} and {entry!r}, the same name"
                problems.append((f"{key!r} lists {what}; the repeat is ignored", "warning"))
        return kept, problems


def normalise_base_url(url: str) -> str:
    """Make a non-empty base URL end with exactly one slash."""
    url = url.strip()
    return url.rstrip("/") + "/" if url else ""


STRING = String()
def base_url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a site's ``base_url`` (None: it can). Only ``http(s)://host/...``
    or a path: the base URL is written into ``<script src>`` and links of pages
    served at any depth (404.html), so ``javascript:`` or ``data:`` would run there."""
    url = url.strip()
    if not url:
        return None
    if "\\" in url:
        return f"{url!r} contains a backslash, which browsers read as '/'; write the URL with '/'"
    scheme = url_scheme(url)
    if scheme is None:
        if url.startswith("//"):
            return f"{url!r} has no scheme; write it as https:{url} (or give a path such as /docs/)"
        return None
    parts = urlsplit(url)
    if scheme not in ("http", "https") or parts.scheme.lower() != scheme or not parts.netloc:
        return f"{url!r} is neither an http(s):// URL with a host nor a path (scheme {scheme + ':'!r})" \
            if scheme != "\x01" else f"{url!r} contains control characters"
    return None


class BaseUrl(String):
    """``base_url``: one token, ``http(s)://host/...`` or a path (``base_url_problem``)."""

    def clean(self, field, value, cleaned):
        if isinstance(value, str) and (problem := base_url_problem(value)) is not None:
            return INVALID, [(f"{field.name!r}: {problem}", "error")]
        return super().clean(field, value, cleaned)


URL = BaseUrl("URL", one="one URL", normalise=normalise_base_url)
"""A line break in a base URL would add lines to robots.txt: one token only."""
LANGUAGE = String("language tag", one="one language tag")
BOOL = Bool()
AUTO_BOOL = AutoBool()
TEXT = Text()
NAME = Name()
NAME_LIST = TextList("list of names", as_names=True)
SLUG_LIST = TextList("list of slugs", as_names=False)


@dataclass(frozen=True)
class Field:
    """One key of a schema, documented where it is declared."""

    name: str
    kind: Kind
    default: object = None
    """The value when the key is absent (or null)."""
    help: str = ""
    required: bool = False
    """Absent, null or blank is an error ("missing required field")."""
    max_length: int | None = None
    """Characters (of a list: of each entry)."""


@dataclass(frozen=True)
class Schema:
    """The fields of one file format, and how it words and reports problems."""

    fields: tuple[Field, ...]
    noun: str = "key"
    """What a key is called in messages: "unknown {noun} 'x'"."""
    default_line: int = 1
    """The line blamed when a key's own line is not known."""
    suggest: bool = False
    """Unknown keys: True, "(did you mean 'x'?)" or else the known keys in declared
    order; False, "(known keys: ...)" sorted."""
    one_problem_per_key: bool = False
    """True: a key with a control character is checked no further (site.toml)."""
    unknown: str = "warning"
    """The severity of an unknown key: "error" where a typo must stop the build
    (an explainer's options)."""

    def __post_init__(self):
        object.__setattr__(self, "_names", tuple(f.name for f in self.fields))  # asked once a file

    def names(self) -> tuple[str, ...]:
        return self._names

    def __getitem__(self, name: str) -> Field:
        for field in self.fields:
            if field.name == name:
                return field
        raise KeyError(name)


def check(values: Mapping, schema: Schema, shown: str, key_lines: Mapping[str, int],
          repeated: Sequence[tuple[str, int, int]] = ()) -> tuple[dict, list[Problem]]:
    """Check parsed ``values`` against ``schema``; return (cleaned values, problems).

    The cleaned values hold every valid field, absent ones at their default; a
    field refused is left out. ``key_lines`` maps a key to its line in ``shown``;
    ``repeated``: (key, first line, repeated line) for keys written twice.
    """
    problems: list[Problem] = []

    def at(key: object) -> int:
        return key_lines.get(str(key), schema.default_line)

    for key, first, again in repeated:
        problems.append(Problem(shown, again, f"{key!r} is given twice (first on line {first}); YAML would keep only the last"))
    refused = set()
    texts = _joined_texts(values)  # one search over them all; a key at a time only to say where
    # (printable text holds no control character: a check in C over ASCII text, before the search)
    suspect = values.items() if texts is None or (not texts.isprintable() and CONTROL_RE.search(texts)) else ()
    for key, value in suspect:
        # YAML and TOML write any character from an escape ("\u0000"); none may reach a page.
        found = control_character(key, f"{schema.noun} {str(key)!r}") or control_character(value, repr(str(key)))
        if found is not None:
            problems.append(Problem(shown, at(key), found))
            refused.add(key)
    names = schema.names()
    for key in values:
        if key not in names and not (schema.one_problem_per_key and key in refused):
            problems.append(Problem(shown, at(key), f"unknown {schema.noun} {key!r} {_known(str(key), schema)}", schema.unknown))
    cleaned: dict = {}
    for field in schema.fields:
        key = field.name
        if schema.one_problem_per_key and key in refused:
            continue
        value = values.get(key)
        if field.required and (value is None or (isinstance(value, str) and not value.strip())):
            problems.append(Problem(shown, at(key) if key in values else schema.default_line, f"missing required field {key!r}"))
            continue
        if value is None:
            value = field.default
            if not isinstance(value, list):  # (a list default goes through its kind: a fresh copy)
                cleaned[key] = value
                continue
        value, found = field.kind.clean(field, value, cleaned)
        problems += [Problem(shown, at(key), message, severity) for message, severity in found]
        if value is not INVALID:
            cleaned[key] = value
    return cleaned, problems


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


def _joined_texts(values: Mapping) -> str | None:
    """The text keys and values of ``values`` (a value: text, a list of texts, or a
    number, bool or null, which hold no text) joined by spaces, which neither
    ``CONTROL_RE`` matches nor ``str.isprintable`` refuses; None when a key or value is anything else
    (then ``control_character`` walks it)."""
    texts = []
    for key, value in values.items():
        if type(key) is not str:
            return None
        texts.append(key)
        if type(value) is str:
            texts.append(value)
        elif type(value) is list:
            if not all(type(item) is str for item in value):
                return None
            texts += value
        elif value is not None and type(value) not in (bool, int, float):
            return None
    return " ".join(texts)


def _known(key: str, schema: Schema) -> str:
    if not schema.suggest:
        return f"(known keys: {', '.join(sorted(schema.names()))})"
    match = difflib.get_close_matches(key.lower(), schema.names(), n=1, cutoff=0.6)
    return f"(did you mean {match[0]!r}?)" if match else f"(known: {', '.join(schema.names())})"


def _too_long(field: Field, text: str) -> str | None:
    if field.max_length is not None and len(text) > field.max_length:
        return f"{field.name!r} is {len(text):,} characters long; the limit is {field.max_length:,}"
    return None


def _kind(value: object) -> str:
    return {dict: "a mapping", list: "a list"}.get(type(value), type(value).__name__)
