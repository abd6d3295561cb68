"""The fast markdown processors against Python-Markdown's own: renderer pairs,
generated markdown and the synthetic corpus.

Shared by the tests of tests/markup/accel/ (fast_inline, fast_tree, fast_blocks,
direct_inline, regression_fast_markdown). ``PAIRS`` and ``STATE_PAIRS`` are
reused across those modules, like renderers in a build.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from helpers import REPO
from site_builder.load.front_matter import split_front_matter
from site_builder.markup.accel import fast_inline
from site_builder.markup.render import BodyRenderer
from site_builder.names import NameIndex

MAKE_CORPUS = REPO / "benchmarks" / "make_corpus.py"

FUZZ = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@dataclass
class T:
    slug: str
    title: str
    aliases: list = field(default_factory=list)


def stock(names: NameIndex, **settings) -> BodyRenderer:
    """A BodyRenderer with Python-Markdown's own processors throughout (the reference)."""
    return BodyRenderer(names, fast=False, **settings)


class Pair:
    """A BodyRenderer and a stock one with the same names and settings, reused like in a build."""

    def __init__(self, names: NameIndex, **settings):
        self.ours = BodyRenderer(names, **settings)
        self.stock = stock(names, **settings)

    def check(self, body: str, first_line: int = 1):
        expected = self.stock.render(body, first_line)
        actual = self.ours.render(body, first_line)
        assert actual.html == expected.html
        assert actual == expected  # anchors, links, problems, headings too
        return actual


def load_terms(paths: list[Path]) -> tuple[NameIndex, list[tuple[str, str, int]]]:
    terms, bodies = [], []
    for path in paths:
        front, body, line, problem = split_front_matter(path.read_text(encoding="utf-8"), path.name)
        assert problem is None, problem
        meta = yaml.safe_load(front) or {}
        terms.append(T(path.stem, str(meta.get("title", path.stem)), [str(a) for a in meta.get("aliases") or []]))
        bodies.append((path.name, body, line))
    return NameIndex(terms), bodies


_CORPORA: dict[str, tuple[Path, ...]] = {}
"""Mix -> the corpus's files, made once per session: the modules that take the
``corpus`` fixture only read them (a module's own fixture would make each mix
again for every module that imports it)."""


@pytest.fixture(scope="module", params=["simple", "realistic"])
def corpus(request, tmp_path_factory) -> list[Path]:
    """300 terms of make_corpus.py's simple mix, then of its realistic one (maths, tables,
    code, footnotes, wiki links, aliases with spaces): a fast path must match stock on both.
    Read only: a test that writes must copy them first."""
    if request.param not in _CORPORA:
        out = tmp_path_factory.mktemp(f"corpus-{request.param}")
        subprocess.run([sys.executable, str(MAKE_CORPUS), "300", str(out), "--flavor", "plain", "--mix", request.param],
                       check=True)
        _CORPORA[request.param] = tuple(sorted(out.glob("*.md")))
    return list(_CORPORA[request.param])


# Generated markdown: inline constructs, nested, inside the block constructs they appear in.

WORD = st.sampled_from(["token", "Inference", "draft", "a", "x_y", "snake_case_word", "2*3", "end.", "(paren)",
                        "https://example.org", "me@example.org", "LLM inference", "caf\u00e9"])
STRAY = st.sampled_from(["*", "**", "_", "__", "`", "``", "[", "]", "(", ")", "!", "<", ">", "&", ";", "\\", "^",
                         "#", "|", ":", "{", "}", "$", "  \n", "\n", " ", "***", "___", "[^", "![", "<!--", "-->"])
LEAF = st.one_of(
    WORD, STRAY,
    st.sampled_from([
        "`code`", "`` a ` b ``", "`*not em*`", "`<b>`", "\\*", "\\_", "\\[", "\\\\", "\\`", "\\<", "\\&", "\\x",
        "&amp;", "&#35;", "&#x41;", "&copy;", "&bogus", "& x;", "AT&T", "<span>x</span>", "<b>", "</b>",
        "<!-- note -->", "<br/>", "<a href=\"inference.md\">a</a>", "<http://example.org/a?b=c>",
        "<me@example.org>", "[^1]", "[^2]", "[^missing]", "[ref]", "[ref][]", "[text][ref]", "[Ref] [ref]",
        "![alt](img.png \"t\")", "![alt][ref]", "[[Inference]]", "[[output tokens|outputs]]", "[[Nobody]]",
        "$a^2$", "$x_1 * y_2$", "[x](inference.md#top)", "[x](output-tokens.md)", "[x](nowhere.md)",
        "[x](https://example.org \"title\")", "[x](<a b>)", "[x]( 'bad' )", "{: #i .c }", "{: onclick=x }",
    ]),
)


def wrap(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(st.sampled_from(["*", "**", "_", "__", "***", "*_", "_*"]), inner).map(lambda t: t[0] + t[1] + t[0][::-1]),
        inner.map(lambda s: f"[{s}](inference.md)"),
        inner.map(lambda s: f"[{s}][ref]"),
        inner.map(lambda s: f"![{s}](i.png)"),
        inner.map(lambda s: f"<em>{s}</em>"),
        inner.map(lambda s: f"`{s}`"),
        st.lists(inner, min_size=1, max_size=4).map(" ".join),
        st.lists(inner, min_size=1, max_size=4).map("".join),
    )


INLINE = st.recursive(LEAF, wrap, max_leaves=12)
LINE = st.lists(INLINE, min_size=1, max_size=8).map(" ".join).map(lambda s: s.replace("\n\n", "\n"))
BLOCK = st.one_of(
    LINE,
    st.lists(LINE, min_size=1, max_size=3).map("\n".join),
    st.tuples(st.sampled_from(["## ", "### ", "#### ", "# "]), LINE).map(lambda t: t[0] + t[1].replace("\n", " ")),
    st.lists(LINE, min_size=1, max_size=4).map(lambda ls: "\n".join("- " + l.replace("\n", " ") for l in ls)),
    st.lists(LINE, min_size=1, max_size=3).map(lambda ls: "\n".join(f"{i}. " + l.replace("\n", " ") for i, l in enumerate(ls, 1))),
    st.lists(LINE, min_size=1, max_size=3).map(lambda ls: "\n".join("> " + l.replace("\n", " ") for l in ls)),
    st.lists(st.tuples(LINE, LINE), min_size=1, max_size=3).map(
        lambda rows: "| a | b |\n|:--|--:|\n" + "\n".join(
            "| " + a.replace("\n", " ").replace("|", "\\|") + " | " + b.replace("\n", " ").replace("|", "\\|") + " |"
            for a, b in rows)),
    LINE.map(lambda s: "```python\n" + s + "\n```"),
    LINE.map(lambda s: "    " + s.replace("\n", "\n    ")),
    LINE.map(lambda s: "[^1]: " + s.replace("\n", " ")),
    LINE.map(lambda s: "[^2]: " + s.replace("\n", "\n    ")),
    st.just("[ref]: https://example.org/ref \"Ref title\""),
    st.just("[Ref]: inference.md#anchor"),
    LINE.map(lambda s: "<div>\n" + s + "\n</div>"),
    LINE.map(lambda s: s.replace("\n", " ") + "\n{: #some-id .a-class }"),
    st.just("[TOC]"),
    st.just("$$\nE = mc^2\n$$"),
    st.just("---"),
)
DOCUMENT = st.lists(BLOCK, min_size=1, max_size=8).map("\n\n".join)

NAMES = NameIndex([T("inference", "Inference", ["LLM inference"]), T("output-tokens", "Output tokens")])
PAIRS = {raw: Pair(NAMES, allow_raw_html=raw) for raw in (False, True)}


# The tree the inline stage leaves, not just the HTML.

def _inline_state(tree, processor) -> tuple:
    """Everything InlineProcessor.run leaves behind, in comparable form (elements by document order)."""
    order = {id(e): i for i, e in enumerate(tree.iter())}
    elements = [(e.tag, sorted(e.attrib.items()), e.text, type(e.text).__name__, e.tail, type(e.tail).__name__,
                 [order[id(c)] for c in e]) for e in tree.iter()]
    parents = sorted((order.get(id(c), -1), order.get(id(p), -1)) for c, p in processor.parent_map.items())
    stash = sorted((k, v if isinstance(v, str) else order.get(id(v), -1)) for k, v in processor.stashed_nodes.items())
    return elements, parents, list(processor.ancestors), stash


class InlineStatePair:
    """Stock and fast inline processors in otherwise stock pipelines, recording the state each run leaves."""

    def __init__(self, raw: bool):
        self.renderers = {"stock": stock(NAMES, allow_raw_html=raw), "fast": stock(NAMES, allow_raw_html=raw)}
        assert fast_inline.install(self.renderers["fast"].md)
        self.states: dict[str, tuple] = {}
        for name, renderer in self.renderers.items():
            processor = renderer.md.treeprocessors["inline"]
            processor.run = self._recording(name, processor, processor.run)

    def _recording(self, name, processor, run):
        def recorded(tree, ancestors=None):
            result = run(tree, ancestors)
            self.states[name] = _inline_state(tree, processor)
            return result
        return recorded

    def check(self, body: str) -> None:
        html = {name: renderer.render(body, 1).html for name, renderer in self.renderers.items()}
        assert html["fast"] == html["stock"]
        assert self.states["fast"] == self.states["stock"]


STATE_PAIRS = {raw: InlineStatePair(raw) for raw in (False, True)} if fast_inline.ENABLED else {}
