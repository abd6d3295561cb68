"""glossary.json and the fast objects.inv writer give the same bytes as the
plain writers they replaced (glossary.json is json.dumps again, by way of
``_document``: the reference pins its keys, order and escapes).

The old implementations are kept here, verbatim, as the reference: a regex
``_clean``, ``str.translate`` for inert JSON, json.dumps(indent=1) for the
whole glossary, and the (role, name)-keyed inventory. Hypothesis feeds both
random, hostile text: every kind of whitespace, HTML, quotes, U+2028/2029,
control characters, ``$``, ``#`` and spaces at the ends.
"""

from __future__ import annotations

import json
import re
import sys
import zlib
from dataclasses import replace

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from site_builder.load.config import SiteConfig
from site_builder.outputs.glossary_json import GENERATOR, VERSION, Entry, dumps_inert, glossary_json, inert
from site_builder.outputs.inventory import PRIORITY, _clean, inventory_lines, objects_inv

# The reference implementations (as they were before the fast ones).


REF_INERT = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", 0x2028: "\\u2028", 0x2029: "\\u2029"}
"""A copy of the table, so a change to the module's is caught."""


def ref_clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def ref_dumps_inert(value: object, indent: int | None = None) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=(",", ": ") if indent else (",", ":"))
    return text.translate(REF_INERT)


def ref_glossary_json(config: SiteConfig, entries) -> bytes:
    base = config.base_url or None
    terms = []
    for entry in sorted(entries, key=lambda e: e.slug):
        item: dict[str, object] = {
            "slug": entry.slug,
            "title": entry.title,
            "summary": entry.summary,
            "aliases": list(entry.aliases),
            "related": list(entry.related),
            "url": entry.url,
        }
        if base:
            item["absolute_url"] = base + entry.url
        item["anchors"] = list(entry.anchors)
        item["redirects"] = list(entry.redirects)
        terms.append(item)
    document = {
        "version": VERSION,
        "generator": GENERATOR,
        "title": config.title,
        "description": config.description,
        "language": config.language,
        "base_url": base,
        "terms": terms,
    }
    return (ref_dumps_inert(document, indent=1) + "\n").encode("utf-8")


def ref_inventory_lines(entries, headings=None) -> list[str]:
    headings = headings or {}
    objects: dict[tuple[str, str], tuple[str, str]] = {}

    def add(name: str, role: str, uri: str, dispname: str) -> None:
        name = ref_clean(name)
        if name and (role, name) not in objects:
            objects[role, name] = (uri, ref_clean(dispname))

    for entry in entries:
        for name in (entry.title, *entry.aliases):
            add(name.lower(), "std:term", entry.url, name.lower())
        for slug in (entry.slug, *entry.redirects):
            add(slug, "std:label", entry.url, entry.title)
            add(slug, "std:doc", entry.url, entry.title)
        for anchor, text in headings.get(entry.slug, ()):
            add(f"{entry.slug}#{anchor}", "std:label", f"{entry.url}#{anchor}", text or anchor)
    lines = []
    for (role, name), (uri, dispname) in sorted(objects.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if dispname == name:
            dispname = "-"
        line = f"{name} {role} {PRIORITY} {uri} {dispname}"
        # terms are the names authors write (titles, aliases): the only ones with spaces
        if role != "std:term" or sphinx_reads_back(line, name, role):
            lines.append(line)
    return lines


def sphinx_reads_back(line: str, name: str, role: str) -> bool:
    """Whether Sphinx's inventory reader (sphinx.util.inventory, its line pattern
    copied here as an independent check) reads ``line`` back as the object
    ``name`` of ``role``: a term line it would read as another object, or skip,
    is not written (issue 30)."""
    m = re.match(r'(.+?)\s+(\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)', line.rstrip())
    return bool(m) and m.group(1) == name and m.group(2) == role


def ref_objects_inv(project: str, version: str, entries, headings=None) -> bytes:
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {ref_clean(project)}\n"
        f"# Version: {ref_clean(version)}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = "".join(line + "\n" for line in ref_inventory_lines(entries, headings))
    return header.encode("utf-8") + zlib.compress(body.encode("utf-8"), 9)


# Strategies: text that is mostly the characters that matter.

WHITESPACE = [c for c in map(chr, range(0x3100)) if c.isspace()] + ["\u3000"]
HOSTILE = list("<>&\"'\\/$#-_ ]}{`\x00\x01\x08\x1b\x1f\x7f\u2028\u2029\ufeff\u00a0\u200b") + ["</script>", "<!--", "${x}", "\r\n"]
pieces = st.one_of(st.sampled_from(WHITESPACE), st.sampled_from(HOSTILE), st.text(max_size=4),
                   st.sampled_from(["a", "B", "é", "İ", "ß", "Σ", "日本", "x y"]))
texts = st.lists(pieces, max_size=12).map("".join)
short = st.lists(st.sampled_from(["a", "b", "A", " ", "\u2028", "-", "#", "<", "é"]), max_size=3).map("".join)
"""Short names collide often: exercises first-object-wins and dispname == name."""
names = st.one_of(texts, short)
string_lists = st.lists(names, max_size=4).map(tuple)

entries_strategy = st.lists(
    st.builds(Entry, slug=names, title=names, summary=texts, aliases=string_lists, related=string_lists,
              anchors=string_lists, redirects=string_lists),
    max_size=6,
)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(SETTINGS, max_examples=100)
"""Whole documents: each example draws dozens of strings."""


def headings_for(entries: list[Entry], data) -> dict[str, list[tuple[str, str]]]:
    return {entry.slug: data.draw(st.lists(st.tuples(names, names), max_size=3)) for entry in entries}


def test_clean_treats_every_code_point_as_the_regex_does():
    # ``\s``, str.split() and str.strip() must agree on what is whitespace.
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    assert re.findall(r"\s", everything) == [c for c in everything if c.isspace()]


@SETTINGS
@given(texts)
@example(" \t a \u2028\u2029 b\x1c\x1d\x1e\x1f\x85 ")
@example("")
@example("\u3000\u00a0")
def test_clean_equals_regex_clean(text):
    assert _clean(text) == ref_clean(text)


@SETTINGS
@given(texts)
@example("</script><!-- & \u2028\u2029 -->")
def test_inert_equals_translate(text):
    assert inert(text) == text.translate(REF_INERT)


@SETTINGS
@given(st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), texts),
                    lambda inner: (st.lists(inner, max_size=3) | st.lists(inner, max_size=3).map(tuple)
                                   | st.dictionaries(texts, inner, max_size=3)),
                    max_leaves=10),
       st.sampled_from([None, 1, 2]))
@example({"a": [float("nan"), float("inf"), -0.0, 1e300, (1, "<")]}, None)
def test_dumps_inert_equals_reference(value, indent):
    # (the compact form by a C encoder made once, dumps_inert's _COMPACT_CHUNKS: the same text)
    assert dumps_inert(value, indent) == ref_dumps_inert(value, indent)


@FEWER
@given(entries_strategy, st.data())
@example([Entry("x", "Two\u2028lines\nhere", "s", aliases=("a\rb",))], None)
@example([], None)
@example([Entry("a", "a", "s", redirects=("a", " a ")), Entry("a", "A", "t", anchors=("",))], None)
def test_inventory_equals_reference(entries, data):
    headings = headings_for(entries, data) if data is not None else {}
    assert inventory_lines(entries, headings) == ref_inventory_lines(entries, headings)
    project = data.draw(texts) if data is not None else " P\nQ "
    assert objects_inv(project, "1 .0", entries, headings) == ref_objects_inv(project, "1 .0", entries, headings)


@FEWER
@given(entries_strategy, texts, texts, names, st.sampled_from(["", "https://example.org/g/", "https://e.org/<&>\u2028/"]))
@example([], "", "", "", "")
@example([Entry("evil", 'Evil </script><b>"quoted"</b> ]]> {{ x }}', "Says <img> & \u2028 \u2029 \x00 $x")],
         "T <b>", "D &", "en", "https://example.org/")
def test_glossary_json_equals_reference(entries, title, description, language, base_url):
    config = SiteConfig(title=title, description=description, language=language, base_url=base_url)
    assert glossary_json(config, entries) == ref_glossary_json(config, entries)


def test_glossary_json_with_values_that_are_not_strings_is_what_json_writes():
    # Only hand-made entries can hold these; the output is json.dumps's, as before.
    config = SiteConfig(base_url="https://e.org/")
    odd = [Entry("b", 7, None, aliases=("x", 1.5), related=[True]), Entry("a", "A", "s", anchors=(("n", 1),))]
    assert glossary_json(config, odd) == ref_glossary_json(config, odd)
    assert glossary_json(replace(config, title=None), odd[1:]) == ref_glossary_json(replace(config, title=None), odd[1:])
