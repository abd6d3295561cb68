"""Explainer options (issue 36): front matter's two forms, and the declared
schema checking a term's options with the engine of site.toml and front matter."""

from __future__ import annotations

from site_builder.explainers.base import Explainer
from site_builder.load.front_matter import parse_front_matter
from site_builder.load.schema import BOOL, Field, Integer, Number

DOUBLING = Explainer(name="doubling", element_ids=frozenset({"ex-explainer"}), version="1", build="x:build",
                     options=(Field("start", Integer(0, 10), 3), Field("ratio", Number(0, 1), 0.5), Field("dots", BOOL, True)))


def parse(front: str):
    meta, problems = parse_front_matter("title: T\nsummary: S.\n" + front, "t.md")
    return meta, [(p.line, p.message, p.severity) for p in problems]


def test_the_plain_name_and_the_mapping_give_the_name_and_the_options_with_their_lines():
    meta, problems = parse("explainer: doubling\n")
    assert problems == [] and meta["explainer"] == "doubling" and "explainer_options" not in meta
    meta, problems = parse("explainer:\n  name: doubling\n  start: 5\n  dots: false\n")
    assert problems == [] and meta["explainer"] == "doubling"
    assert meta["explainer_options"] == {"start": 5, "dots": False}
    assert meta["__lines__"]["explainer.start"] == 6 and meta["__lines__"]["explainer.dots"] == 7


def test_a_mapping_without_a_name_or_with_a_nested_value_is_an_error_at_its_line():
    meta, problems = parse("explainer:\n  start: 5\n")
    assert problems == [(4, "'explainer' as a mapping needs 'name: <explainer>' (its options beside it)", "error")]
    assert meta.get("explainer") is None
    _, problems = parse("explainer: {name: doubling, start: {a: 1}}\n")
    assert [p[:2] for p in problems] == [(4, "explainer option 'start' must be text, a number or true/false, not a mapping")]


def test_declared_options_fill_their_defaults_and_refuse_unknown_keys_and_wrong_types_as_errors():
    values, problems = DOUBLING.options_for({"start": 5})
    assert values == {"start": 5, "ratio": 0.5, "dots": True} and problems == []
    lines = {"stat": 6, "ratio": 7, "dots": 8}
    _, problems = DOUBLING.options_for({"stat": 5, "ratio": 2, "dots": "yes"}, "t.md", lines, 4)
    assert sorted((p.line, p.message, p.severity) for p in problems) == [
        (6, "unknown option of explainer 'doubling' 'stat' (did you mean 'start'?)", "error"),
        (7, "'ratio' is 2; it must be from 0 to 1", "error"),
        (8, "'dots' must be a bool, not str", "error"),
    ]
    _, problems = DOUBLING.options_for({"start": True}, "t.md", {}, 4)
    assert [(p.line, p.message) for p in problems] == [(4, "'start' must be an integer, not bool")]


def test_an_explainer_without_options_names_the_option_it_does_not_take():
    plain = Explainer(name="plain", element_ids=frozenset(), version="1", build="x:build")
    _, problems = plain.options_for({"start": 1}, "t.md", {"start": 6}, 4)
    assert [(p.line, p.message, p.severity) for p in problems] == [
        (6, "unknown option 'start': explainer 'plain' takes no options", "error")]
