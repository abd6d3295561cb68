"""One run reports every problem (issue 38): ``check`` and ``build`` go on
past a failed stage with the terms that loaded, a term file dropped for its
front matter is named once (never as "unknown term" in the pages that link
to it), and nothing is written while any error stands. Warm (the build cache
filled) or cold, the lines are the same."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import manifest, term, write_tree
from site_builder.load.content import gather_dropped, guess_names, load_term_files
from site_builder.names import NameIndex

FIVE = """---
title: Zeta
summary: [not, one, sentence]
related: [alpha, nowhere]
aliases: [Alpha]
---
See [the part](#no-such-part).

Maths: $\\frac{1}{$ here.
"""
"""One term file with five problems: a front-matter value of the wrong type
(line 3), an unknown related entry (4), a duplicate alias (5), a broken anchor
(7) and bad maths (9)."""

BROKEN_YAML = "---\ntitle: Gamma\naliases: [Third]\nsummary: [unclosed\n---\nGamma's body.\n"

GOOD = {
    "terms/alpha.md": term("Alpha", "First.", "Alpha links to [[Gamma]] and [[Third]].\n", related=["gamma"]),
    "terms/beta.md": term("Beta", "Second.", "Beta links to [g](gamma.md#part).\n"),
    "terms/gamma.md": term("Gamma", "Third.", "## Part\n\nGamma's body.\n", aliases=["Third"]),
    "terms/zeta.md": term("Zeta", "Last.", "Plain.\n"),
}
BAD = {**GOOD, "terms/zeta.md": FIVE, "terms/gamma.md": BROKEN_YAML}

EXPECTED = [
    ("gamma.md", None, "warning: 2 pages link here (content/terms/alpha.md, content/terms/beta.md)"),
    ("gamma.md", 4, "malformed YAML front matter"),
    ("zeta.md", 3, "'summary'"),
    ("zeta.md", 4, "related entry 'nowhere' is not a known term slug"),
    ("zeta.md", 5, "duplicate alias 'Alpha'"),
    ("zeta.md", 7, "link to missing anchor '#no-such-part' in this page"),
    ("zeta.md", 9, "unbalanced braces"),
]

LINE = re.compile(r"^content/terms/([a-z]+\.md)(?::(\d+))?: (.*)$")


def problem_lines(err: str) -> list[tuple[str, int | None, str]]:
    """The ``path:line: message`` lines of a failed run, parsed."""
    found = []
    for text in err.splitlines():
        match = LINE.match(text)
        if match:
            found.append((match.group(1), int(match.group(2)) if match.group(2) else None, match.group(3)))
    return found


def assert_every_problem(err: str) -> None:
    found = problem_lines(err)
    assert "unknown term" not in err, err
    assert len(found) == len(EXPECTED), err
    for (name, line, message), (want_name, want_line, want) in zip(found, EXPECTED):
        assert (name, line) == (want_name, want_line) and want in message, err
    assert err.rstrip().endswith("nothing was written"), err


def test_five_problems_in_one_file_are_five_lines_of_one_run(tmp_path: Path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_tree(tmp_path / "content", GOOD)
    assert cli("build", "--content", "content", "--output", "out")[0] == 0  # the cache is warm from here
    before = manifest(tmp_path / "out")
    write_tree(tmp_path / "content", BAD)
    runs = [cli("check", "--content", "content"), cli("build", "--content", "content", "--output", "out"),
            cli("build", "--content", "content", "--output", "out"),  # warm again: the same
            cli("build", "--content", "content", "--output", "out", "--no-cache")]
    for status, _out, err in runs:
        assert status == 1
        assert_every_problem(err)
    assert len({tuple(problem_lines(err)) for _, _, err in runs}) == 1
    assert manifest(tmp_path / "out") == before
    assert not list(tmp_path.glob(".out.staging-*"))


def test_a_dropped_file_is_still_a_name_links_resolve_to(tmp_path: Path):
    write_tree(tmp_path, {"terms/gamma.md": BROKEN_YAML, "terms/delta.md": "no front matter\n",
                          "terms/Bad Name.md": term("X", "Y")})
    dropped = gather_dropped(load_term_files(tmp_path))
    # a file whose name is no slug is no term any link could name
    assert [(d.slug, d.title, d.aliases) for d in dropped] == [("delta", "", ()), ("gamma", "Gamma", ("Third",))]
    names = NameIndex([], dropped)
    assert (names.resolve("gamma"), names.resolve("Third"), names.resolve("delta"), names.resolve("Beta")) == \
        ("gamma", "gamma", "delta", None)


def test_names_are_guessed_only_from_plain_lines():
    assert guess_names("title: 'A B'  # c\naliases: [x, \"y\"]\nsummary: [") == ("A B", "x", "y")
    assert guess_names("summary: [\naliases: [x]") == ()
    assert guess_names("title: First\ntitle: Second") == ("First",)
