"""Front matter and site.toml that Python's own limits would turn into a
traceback, and keys written twice in any of YAML's spellings (issue 31)."""

from __future__ import annotations

import pytest

from site_builder.load.config import load_config
from site_builder.load.front_matter import parse_front_matter

from helpers import write_tree


@pytest.mark.parametrize("number", ["9" * 5000, "-" + "1" * 4301, "1_000" * 1100, "+" + "7" * 10000])
def test_a_huge_integer_is_an_error_at_its_line(number):
    meta, problems = parse_front_matter(f"title: A\nsummary: B\nextra:\n  n: {number}\n", "t.md")
    assert meta is None
    assert [str(p) for p in problems] == ["t.md:5: malformed YAML front matter: a number of more than 4,300 digits"]


def test_a_huge_integer_in_site_toml_is_an_error_at_its_line(tmp_path):
    content = write_tree(tmp_path / "content", {"site.toml": f'title = "x"\n\npreviews = {"9" * 5000}\n'})
    _, problems = load_config(content)
    assert len(problems) == 1 and problems[0].line == 3 and "too many digits" in problems[0].message


@pytest.mark.parametrize("front,line", [
    ('title: A\nsummary: B\n"title": C', 4),
    ("title: A\nsummary: B\n'title': C", 4),
    ("title: A\nsummary: B\n? title\n: C", 4),
    ("{title: A, summary: B, title: C}", 2),
    ("title: A\nsummary: B\n? \"title\"\n: C", 4),
    ("title: A\nsummary: B\n\"\\x74itle\": C", 4),  # an escape spelling the same key
    ("title: A\nsummary: B\nrelated: [x]\nrelated: [y]", 5),
])
def test_a_key_given_twice_in_any_spelling_is_found(front, line):
    _, problems = parse_front_matter(front, "t.md")
    assert any(p.line == line and "is given twice" in p.message for p in problems), problems


def test_distinct_keys_are_not_repeats():
    meta, problems = parse_front_matter('"title": A\n? summary\n: B\nrelated: [x]', "t.md")
    assert problems == [] and meta["title"] == "A" and meta["summary"] == "B"
