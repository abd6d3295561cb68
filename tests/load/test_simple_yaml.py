"""The plain front-matter reader (site_builder/simple_yaml.py) gives PyYAML's values or declines.

Front matter is generated from keys and values chosen to sit on the edges of
YAML 1.1's rules: words PyYAML reads as bools or null, numbers in every base,
dates, quotes and escapes, indicators, comments, colons, odd whitespace and
line breaks. Whenever ``parse`` answers, the answer must equal what PyYAML's
safe loader gives (types included); when PyYAML fails, ``parse`` must decline.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import REPO
from site_builder.load import simple_yaml
from site_builder.load.front_matter import split_front_matter

MAKE_CORPUS = REPO / "benchmarks" / "make_corpus.py"

KEYS = st.sampled_from(["title", "summary", "related", "aliases", "explainer", "on", "yes", "No", "y", "null",
                        "_x", "Title", "a1", "x y", "1", "true"])
WORDS = st.sampled_from([
    "Speculative decoding", "Term 00042 cache", "yes", "No", "on", "OFF", "true", "False", "null", "Null", "~",
    "1", "-1", "+1", "0x1F", "0o17", "017", "0b101", "1_000", "1.5", ".5", "1.", "1e3", "1.0e+3", ".inf", "-.Inf",
    ".nan", "NaN", "2024-01-01", "2024-1-1", "2001-12-14t21:59:43.10-05:00", "12:30", "190:20:30", "=", "<<",
    "a: b", "a:b", "a #b", "a#b", "#c", "- a", "-a", "? a", ": a", "[a]", "{a}", "a, b", "it's", "'q'", "\"q\"",
    "a \\ b", "tab\there", "trail ", " lead", "caf\u00e9", "\u00a0nbsp", "x\u2028y", "x\x85y", "\ufeffbom",
    "&anchor", "*alias", "!tag", "|", ">", "%d", "@at", "`tick", "(paren) text", "...", "---", "a ... b",
    "mixed Case-words 2.0", "",
])
SLUGS = st.sampled_from(["inference", "output-tokens", "term-00289", "yes", "no", "on", "null", "1", "0x1f",
                         "1e3", "2024-01-01", "a-b", "Caps", "a_b", "a--b", "-a", ""])
VALUE = st.one_of(
    WORDS,
    WORDS.map(lambda w: f'"{w}"'),
    WORDS.map(lambda w: f"'{w}'"),
    st.lists(SLUGS, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
    st.lists(SLUGS, max_size=3).map(lambda items: "[" + ",".join(items) + "]"),
    st.text(alphabet=st.sampled_from(list("ab :#\"'[],-\\\t")), max_size=8),
)
SPACES = st.sampled_from([" ", " ", "  ", "", "\t"])
LINE = st.one_of(
    st.tuples(KEYS, SPACES, VALUE).map(lambda t: f"{t[0]}:{t[1]}{t[2]}"),
    st.sampled_from(["", " ", "# comment", "  nested: x", "- item", "---", "key", "key:"]),
)
FRONT = st.lists(LINE, min_size=1, max_size=6).map("\n".join)


def _pyyaml(front: str):
    try:
        return yaml.load(front, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return Exception


def _same(a, b) -> bool:
    """Equal, with the same types all the way down (True == 1, but not here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(type(k) is type(j) for k, j in zip(a, b)) and all(
            _same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(front=FRONT)
@example(front='title: "Term 00042 cache"\nsummary: "A b."\nrelated: [term-00289, term-00803]')
@example(front="title: yes")
@example(front="related: [on, off]")
@example(front="title: 0x1F")
@example(front='title: "a"\ntitle: "b"')
def test_parse_gives_pyyamls_values_or_declines(front):
    ours = simple_yaml.parse(front)
    if ours is not None:
        assert _same(ours, _pyyaml(front)), (front, ours)


# Mostly the plain shape, so that parse answers often and its answers are what is tested.
PLAIN_LINE = st.one_of(
    st.tuples(st.sampled_from(["title", "summary", "explainer", "on", "Yes"]), st.sampled_from([" ", "  "]),
              st.one_of(WORDS, WORDS.map(lambda w: f'"{w}"'))).map(lambda t: f"{t[0]}:{t[1]}{t[2]}"),
    st.tuples(st.sampled_from(["related", "aliases"]), st.lists(SLUGS, max_size=4)).map(
        lambda t: f"{t[0]}: [" + ", ".join(t[1]) + "]"),
    st.just(""),
)
PLAIN_FRONT = st.lists(PLAIN_LINE, min_size=1, max_size=4).map("\n".join)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(front=PLAIN_FRONT)
def test_mostly_plain_front_matter(front):
    ours = simple_yaml.parse(front)
    if ours is not None:
        assert _same(ours, _pyyaml(front)), (front, ours)


@pytest.mark.parametrize("front, expected", [
    ('title: "Speculative decoding"\nsummary: Drafting tokens, then verifying them.\nrelated: [inference, output-tokens]',
     {"title": "Speculative decoding", "summary": "Drafting tokens, then verifying them.",
      "related": ["inference", "output-tokens"]}),
    ("title: Term\n\nrelated: []", {"title": "Term", "related": []}),
    ('title: "a"\ntitle: "b"', {"title": "b"}),
])
def test_the_plain_shape_is_read(front, expected):
    assert simple_yaml.parse(front) == expected


@pytest.mark.parametrize("front", [
    "title: yes", "title: 1.5", "title: 2024-01-01", "title: null", "related: [a, on]", "on: x", "title: 'x'",
    'title: "a\\tb"', "title: a #c", "title: a: b", "title:\tx", "title: x ", "  title: x", "title: |\n  x",
    "aliases:\n  - a", "title: x\u2028y", "title: &a x", "title: [a,b]",
])
def test_anything_else_is_left_to_pyyaml(front):
    assert simple_yaml.parse(front) is None


def test_the_synthetic_corpus_takes_the_plain_path(tmp_path):
    subprocess.run([sys.executable, str(MAKE_CORPUS), "50", str(tmp_path), "--flavor", "plain"], check=True,
                   stdout=subprocess.DEVNULL)
    fronts = [split_front_matter(p.read_text(encoding="utf-8"), p.name)[0] for p in sorted(tmp_path.glob("*.md"))]
    assert len(fronts) == 50
    for front in fronts:
        assert simple_yaml.parse(front) == _pyyaml(front)


def test_isprintable_admits_only_what_pyyaml_reads_as_it_is():
    """parse() trusts str.isprintable(): every such character must be in PyYAML's printable
    set and be none of the characters YAML treats specially (tab, NEL, LS, PS, BOM)."""
    from yaml.reader import Reader

    special = set("\t\x85\u2028\u2029\ufeff")
    admitted = [c for c in map(chr, range(0x110000)) if c.isprintable()]
    assert len(admitted) > 100_000
    assert not [c for c in admitted if Reader.NON_PRINTABLE.match(c) or c in special]
