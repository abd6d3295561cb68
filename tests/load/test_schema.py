"""The one schema engine: site.toml and front matter share its fields, limits and
messages, and the docs list exactly the schemas' fields, defaults and limits."""

import re
from dataclasses import fields

from helpers import REPO
from site_builder.load import schema
from site_builder.load.config import SITE_FIELDS, SITE_SCHEMA, SiteConfig
from site_builder.load.front_matter import TERM_FIELDS, TERM_SCHEMA
from site_builder.load.schema import NAME_LIMIT, TEXT_LIMIT, Field, Schema, check

DOCS = REPO / "docs"


def toml_value(value: object) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return ("true" if value else "false") if isinstance(value, bool) else f'"{value}"'


def test_the_site_toml_table_lists_exactly_the_schema_and_its_defaults():
    text = (DOCS / "content.md").read_text(encoding="utf-8").split("## `site.toml`", 1)[1]
    rows = re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", text, re.M)
    assert rows == [(f.name, toml_value(f.default)) for f in SITE_FIELDS]


def test_the_site_toml_limits_in_the_docs_are_the_schemas():
    text = " ".join((DOCS / "content.md").read_text(encoding="utf-8").split())
    limits = {f.name: f.max_length for f in SITE_FIELDS if f.max_length is not None}
    assert limits == {"title": NAME_LIMIT, "description": TEXT_LIMIT, "footer": TEXT_LIMIT}
    assert f"`title` may be {NAME_LIMIT:,} characters long, `description` and `footer` {TEXT_LIMIT:,}." in text


def test_the_front_matter_example_lists_exactly_the_schema():
    text = (DOCS / "content.md").read_text(encoding="utf-8")
    block = text.split("```markdown\n---\n", 1)[1].split("\n---\n", 1)[0]
    keys = [(line.split(":", 1)[0], "# required" in line) for line in block.splitlines()]
    assert keys == [(f.name, f.required) for f in TERM_FIELDS]


def test_the_front_matter_limits_in_the_docs_are_the_schemas():
    text = " ".join((DOCS / "errors-and-guarantees.md").read_text(encoding="utf-8").split())
    assert TERM_SCHEMA["title"].max_length == TERM_SCHEMA["aliases"].max_length == NAME_LIMIT
    assert TERM_SCHEMA["related"].max_length == NAME_LIMIT
    assert TERM_SCHEMA["summary"].max_length == TEXT_LIMIT
    assert f"a title, alias or related entry over {NAME_LIMIT:,} characters, a summary over {TEXT_LIMIT:,};" in text


def test_each_limit_is_defined_once_for_both_files():
    assert SITE_SCHEMA["title"].max_length == TERM_SCHEMA["title"].max_length == NAME_LIMIT
    assert {f.max_length for f in (*SITE_FIELDS, *TERM_FIELDS)} == {None, NAME_LIMIT, TEXT_LIMIT}


def test_site_config_is_the_schema_with_its_defaults():
    assert [(f.name, f.default) for f in fields(SiteConfig)] == [(f.name, f.default) for f in SITE_FIELDS]
    # Cache keys hold repr(config): it names the class and every field in order.
    assert repr(SiteConfig()).startswith("SiteConfig(title='Glossary', description='A glossary of terms.', base_url=''")
    assert all(f.help for f in (*SITE_FIELDS, *TERM_FIELDS))


def test_a_schema_of_ones_own_gets_the_same_checks_and_messages():
    """What a plugin declaring its own options would get."""
    own = Schema((Field("colour", schema.STRING, "blue", max_length=5, help="a colour"),
                  Field("size", schema.BOOL, False, help="big or not"),
                  Field("names", schema.NAME_LIST, [], max_length=NAME_LIMIT, help="names")),
                 noun="option", suggest=True)
    values, problems = check({"colour": "violet", "sise": True, "names": ["A", "a"]}, own, "own.toml", {"sise": 3})
    assert values == {"size": False, "names": ["A"]}
    assert [str(p) for p in problems] == [
        "own.toml:3: warning: unknown option 'sise' (did you mean 'size'?)",
        "own.toml:1: 'colour' is 6 characters long; the limit is 5",
        "own.toml:1: warning: 'names' lists 'A' and 'a', the same name; the repeat is ignored",
    ]
    values, problems = check({"colour": "viol\x07et", "size": "yes"}, own, "own.toml", {})
    assert [p.message for p in problems] == [
        "'colour' contains the control character U+0007, which no page can show; remove it",
        "'colour' is 7 characters long; the limit is 5",
        "'size' must be a bool, not str",
    ]


def test_a_list_default_is_never_shared():
    first, _ = check({}, TERM_SCHEMA, "a.md", {})
    first["aliases"].append("x")
    second, _ = check({}, TERM_SCHEMA, "a.md", {})
    assert second["aliases"] == [] and TERM_SCHEMA["aliases"].default == []


def test_a_names_key_is_the_regex_split_and_plain_names_skip_the_regex(monkeypatch):
    """``names.normalise`` gives the key the regular expression split gives for
    every name (ASCII, with every kind of whitespace, hyphens, underscores, and
    not ASCII: ``ß`` casefolds to ``ss``), and keys an ASCII title, alias or slug
    (both corpus mixes') without the regular expression."""
    import random
    import re

    from site_builder import names
    from site_builder.load import front_matter

    def reference(name):  # the key as it was always defined
        return " ".join(re.split(r"[\s_-]+", name.casefold())).strip()

    pieces = ["a", "B", "Term", "00004:", "it's", " ", "  ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85",
              "\u00a0", "\u2028", "\u3000", "-", "_", "--", "ß", "İ", "Ǆ", "ﬃ", "é", "Σ", "x y"]
    rng = random.Random(40)
    samples = ["", " ", "\x1c", "ß", "Straße Weg", " Output  Tokens ", "layer speculative 4", "Term 00004: memory rate"]
    samples += ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8))) for _ in range(3000)]
    for name in samples:
        assert names.normalise(name) == reference(name), repr(name)

    class Recording:
        def __init__(self, pattern):
            self.pattern, self.split_from = pattern, []

        def split(self, text):
            self.split_from.append(text)
            return self.pattern.split(text)

    recording = Recording(names.SEPARATORS)
    monkeypatch.setattr(names, "SEPARATORS", recording)
    meta, problems = front_matter.parse_front_matter(
        'title: "Term 00004: memory rate"\nsummary: S.\naliases: [layer speculative 4, Term 00004 memory rate, '
        "it's-hyphenated]\n", "a.md")
    assert meta["aliases"] == ["layer speculative 4", "Term 00004 memory rate", "it's-hyphenated"]
    assert recording.split_from == [] and problems == []
    assert names.normalise("Café-Bar") == "café bar" and recording.split_from == ["café-bar"]
    meta, problems = front_matter.parse_front_matter("title: Same\nsummary: S.\naliases: [same, Other, other]\n", "a.md")
    assert meta["aliases"] == ["Other"] and [p.severity for p in problems] == ["warning", "warning"]
    keyed = []
    monkeypatch.setattr(schema, "normalise", lambda name: keyed.append(name) or names.normalise(name))
    assert front_matter.parse_front_matter("title: A title\nsummary: S.\n", "a.md")[0]["aliases"] == []
    assert keyed == [], "no aliases: the title needs no key"
