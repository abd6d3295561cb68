"""Regexes and scans written for the regex engine's fast paths: the same answers as the forms they replace.

Issue 40's sixth round rewrote the markdown stage's hottest searches so that
the engine can skip ahead to where a match may start (a literal or a bare
character set first, look-behinds after it; "  \\n" or a placeholder looked
for with ``in``). Each test here compares a rewritten form with the former
one, written out below as the reference, on generated strings aimed at the
edges, and checks the property the speed comes from, so that going back to
the former form fails.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as etree

from markdown import util

from site_builder.markup.accel import direct_inline, inline_triggers

SEED_COUNT = 40_000


def _strings(alphabet: list[str], count: int = SEED_COUNT, longest: int = 24, seed: int = 40) -> list[str]:
    pick = random.Random(seed)
    return ["".join(pick.choice(alphabet) for _ in range(pick.randint(0, longest))) for _ in range(count)]


def _starts(pattern: str, into_groups: bool = True) -> list:
    """The opcode each alternative of ``pattern`` starts with (what the engine can skip to);
    ``into_groups``: what a group there starts with, else SUBPATTERN."""
    parsed = re._parser.parse(pattern)
    first_op, first_av = parsed.data[0]
    if first_op is re._constants.BRANCH:
        branches = first_av[1]
    else:
        branches = [parsed]
    starts = []
    for branch in branches:
        op, av = branch.data[0]
        while into_groups and op is re._constants.SUBPATTERN:  # a group: what it starts with
            op, av = av[-1].data[0]
        starts.append(op)
    return starts


# --- inline_triggers.holds_any: the snapshot's busy / any_key ------------------------


def test_holds_any_answers_as_the_alternation_it_replaces():
    chars = "".join(sorted(re.escape(c) for c in "<&*[\\^_`"))
    prefix = util.INLINE_PLACEHOLDER_PREFIX
    for needles in ((), ("  \n",), ("  \n", prefix), ("  \n", prefix, "@@")):
        reference = re.compile("|".join([f"[{chars}]"] + [re.escape(n) for n in needles])).search
        test = inline_triggers.holds_any(chars, needles)
        alphabet = ["a", " ", "  ", "\n", "<", "&", "*", "[", "\\", "^", "_", "`", "@", prefix, util.STX, util.ETX, "é"]
        for data in _strings(alphabet, count=SEED_COUNT // 4):
            assert bool(test(data)) == (reference(data) is not None), (needles, data)
    only_needles = inline_triggers.holds_any("", ("  \n",))
    assert only_needles("a  \nb") and not only_needles("a \nb")


def test_the_snapshot_tests_are_not_one_alternation_regex():
    from site_builder.markup.render import BodyRenderer
    from site_builder.names import NameIndex

    snapshot = BodyRenderer(NameIndex([])).md.treeprocessors["inline"]._snapshot()
    # An alternation with "  \n" would be a bound re.Pattern.search: tried at every space.
    assert not isinstance(getattr(snapshot.busy, "__self__", None), re.Pattern)
    assert not isinstance(getattr(snapshot.any_key, "__self__", None), re.Pattern)
    assert snapshot.busy("a  \nb") and snapshot.busy("x" + util.INLINE_PLACEHOLDER % "0001")
    assert not snapshot.any_key("x" + util.INLINE_PLACEHOLDER % "0001") and not snapshot.busy("plain words")


# --- direct_inline: _TOKEN and the foreign-character test -----------------------------

_INNER = r"[^\s*_\[\\<&]"
FORMER_TOKEN = re.compile(
    r"(?<!!)\[(?P<text>[^\[\]\\*_<&^][^\[\]\\*_<&]*)\]\((?P<href>[^\s()\[\]<>'\"\\\x02\x03`]+)\)"
    rf"|(?<!\*)(?P<run>\*\*?)(?P<inner>{_INNER}(?:[^*_\[\\<&]*{_INNER})?)(?P=run)(?!\*)"
    rf"|(?<![\w_])(?P<urun>__?)(?P<uinner>{_INNER}(?:[^*_\[\\<&]*{_INNER})?)(?P=urun)(?![\w_])"
)
FORMER_FOREIGN = re.compile(r"[\\<&_]|  \n")


def _matches(pattern: re.Pattern, data: str, runs_from_second: bool = False) -> list:
    """Each match's span, kind and groups (``runs_from_second``: a run's group lacks its first character: put it back)."""
    found = []
    for m in pattern.finditer(data):
        groups = m.groupdict()
        if groups.get("auto", 0) is None:
            del groups["auto"]  # the autolink alternative, which the former form did not have
        for run, inner, first in (("run", "inner", "*"), ("urun", "uinner", "_")):
            if groups[inner] is not None and runs_from_second:
                groups[run] = first + groups[run]
        found.append((m.span(), m.lastgroup, groups))
    return found


def test_token_finds_what_the_former_token_found():  # (no "://" here: the autolinks are new)
    alphabet = ["a", "b", " ", "  ", "\n", "*", "**", "_", "__", "[", "]", "(", ")", "!", "\\", "<", "&",
                "^", "é", "1", "[a](b.md)", "![a](b)", "*a*", "_a_", "**a**", "a_b", "x.md", "***", "___"]
    for data in _strings(alphabet):
        assert _matches(SIXTH_TOKEN, data, runs_from_second=True) == _matches(FORMER_TOKEN, data), data


def test_foreign_test_agrees_with_the_former_one():
    alphabet = ["a", " ", "  ", "\n", "\\", "<", "&", "_", "[", "*", "é", "]"]
    for piece in _strings(alphabet, count=SEED_COUNT // 4):
        former = "[" in piece or "*" in piece or FORMER_FOREIGN.search(piece) is not None
        assert (SIXTH_FOREIGN.search(piece) is not None or "  \n" in piece) == former, piece


def test_token_alternatives_start_with_what_they_consume():
    # The engine skips ahead only when every alternative starts with a bare
    # literal (not a group, not a look-behind, as the former form did).
    assert _starts(SIXTH_TOKEN.pattern, into_groups=False) == [re._constants.LITERAL] * 4  # + autolinks
    assert _starts(FORMER_TOKEN.pattern, into_groups=False) == [re._constants.ASSERT_NOT] * 3
    # The eighth round's one scan (code spans and stray characters too): the same property.
    assert _starts(direct_inline._SCAN.pattern, into_groups=False) == [re._constants.LITERAL] * 11


# The sixth round's spans (cut at backticks, then _TOKEN over each piece between
# them, each text piece tested for a foreign character), the reference for the
# eighth round's one scan over the whole string.
SIXTH_FOREIGN = re.compile(r"[\\<&_\[*]")
_SIXTH_INNER = r"[^\s*_\[\\<&]"
SIXTH_TOKEN = re.compile(
    r"\[(?<!!\[)(?P<text>[^\[\]\\*_<&^][^\[\]\\*_<&]*)\]\((?P<href>[^\s()\[\]<>'\"\\\x02\x03`]+)\)"
    rf"|\*(?<!\*\*)(?P<run>\*?)(?P<inner>{_SIXTH_INNER}(?:[^*_\[\\<&]*{_SIXTH_INNER})?)\*(?P=run)(?!\*)"
    rf"|_(?<![\w_]_)(?P<urun>_?)(?P<uinner>{_SIXTH_INNER}(?:[^*_\[\\<&]*{_SIXTH_INNER})?)_(?P=urun)(?![\w_])"
    r"|<(?P<auto>[A-Za-z][A-Za-z0-9+.-]*://[^<>\s\[\]\\&\x02\x03]*)>"
)


def sixth_spans(data: str):
    """``direct_inline.spans`` as the sixth round wrote it."""
    if "\\" in data or util.INLINE_PLACEHOLDER_PREFIX in data:
        return None
    parts = data.split("`")
    if not len(parts) & 1:
        return None
    lead, elements = None, []

    def text(piece: str) -> bool:
        nonlocal lead
        if SIXTH_FOREIGN.search(piece) or "  \n" in piece:
            return False
        if piece:
            if not elements:
                lead = piece
            else:
                elements[-1].tail = elements[-1].tail + piece if elements[-1].tail else piece
        return True

    last = len(parts) - 1
    for index, part in enumerate(parts):
        if not part and 0 < index < last:
            return None
        if index & 1:
            element = etree.Element("code")
            element.text = util.AtomicString(util.code_escape(part.strip()))
            elements.append(element)
            continue
        position = 0
        for match in SIXTH_TOKEN.finditer(part):
            if not text(part[position:match.start()]):
                return None
            kind = match.lastgroup
            element = etree.Element("a" if kind in ("auto", "href") else "x")
            if kind == "auto":
                element.set("href", match.group("auto"))
                element.text = util.AtomicString(match.group("auto"))
            elif kind == "href":
                if "  \n" in match.group("text"):
                    return None
                element.text = match.group("text")
                element.set("href", match.group("href"))
            else:
                inner = match.group(kind)
                if "  \n" in inner:
                    return None
                element.tag = "strong" if match.group("run" if kind == "inner" else "urun") else "em"
                element.text = inner
            elements.append(element)
            position = match.end()
        if not text(part[position:]):
            return None
    return lead, elements


def _described(built):
    if built is None:
        return None
    lead, elements = built
    return lead, [(e.tag, e.text, type(e.text), dict(e.attrib), e.tail) for e in elements]


def test_one_scan_builds_what_the_cut_at_backticks_built():
    alphabet = ["a", "b", " ", "  ", "\n", "  \n", "*", "**", "_", "__", "[", "]", "(", ")", "!", "\\", "`", "``",
                "<", "&", ">", "^", "é", "1", "[a](b.md)", "![a](b)", "*a*", "_a_", "**a**", "a_b", "***", "___",
                "`c`", "` x `", "<https://e.org/x>", "://", "<h://a`b>", "[t](a`b)", "`*`", "`_x_`", "` a  \nb `",
                "\x02", "\x03", "klzzwxh:"]
    built = 0
    for data in _strings(alphabet, count=SEED_COUNT * 2, longest=14, seed=8):
        expected = _described(sixth_spans(data))
        assert _described(direct_inline.spans(data)) == expected, data
        built += expected is not None
    assert built > SEED_COUNT // 4  # the comparison is not vacuous


# --- fast_passes: the raw-HTML placeholders and the fence search ----------------------

_PLACEHOLDER = util.HTML_PLACEHOLDER % r"([0-9]+)"
FORMER_STASHED = re.compile(f"<p>{_PLACEHOLDER}</p>|{_PLACEHOLDER}")


def test_substitute_stashed_replaces_what_the_stock_pattern_matched():
    from site_builder.markup.accel.fast_passes import substitute_stashed

    stx, etx = util.STX, util.ETX
    alphabet = ["a", "<p>", "</p>", "<", "p", ">", "/", "\n", stx, etx, "wzxhzdk:", "1", "23", "x",
                util.HTML_PLACEHOLDER % "0", util.HTML_PLACEHOLDER % "12", stx + "wzxhzdk:" + etx]

    def former(m: re.Match) -> str:
        return f"[{m.group(1) or m.group(2)}|{bool(m.group(1))}|{m.group(0)}]"

    for text in _strings(alphabet, count=SEED_COUNT // 2):
        ours = substitute_stashed(text, lambda key, wrapped, whole: f"[{key}|{wrapped}|{whole}]")
        assert ours == FORMER_STASHED.sub(former, text), text


def test_raw_html_goes_from_placeholder_to_placeholder(monkeypatch):
    """The postprocessor no longer runs a regex over the page (which tried one at every '<')."""
    from site_builder.markup.accel import fast_passes
    from site_builder.markup.render import BodyRenderer
    from site_builder.names import NameIndex

    searched = []
    real = fast_passes._STASHED_KEY

    class Spy:
        def match(self, text, pos):
            searched.append(pos)
            return real.match(text, pos)

    monkeypatch.setattr(fast_passes, "_STASHED_KEY", Spy())
    html = BodyRenderer(NameIndex([])).render("<b>x</b> and $x$ and\n\n$$y$$\n", 1).html
    assert "<math" in html and "&lt;b&gt;" in html
    assert len(searched) == 2  # one look at each placeholder, none elsewhere


def test_fence_search_finds_what_the_stock_regex_finds():
    from markdown.extensions.fenced_code import FencedBlockPreprocessor

    from site_builder.markup.accel.fast_passes import FastFencedBlockPreprocessor, FenceSearch

    stock = FencedBlockPreprocessor.FENCED_BLOCK_RE
    ours = FastFencedBlockPreprocessor.FENCED_BLOCK_RE
    assert isinstance(ours, FenceSearch) and ours.compiled is stock
    alphabet = ["a", " ", "\n", "`", "```", "````", "~~~", "~", "{.x}", "py", "\n```\n", "\n~~~\n", "x```"]
    pick = random.Random(41)
    for text in _strings(alphabet, count=SEED_COUNT // 4, longest=16):
        pos = pick.randint(0, len(text))
        expected, found = stock.search(text, pos), ours.search(text, pos)
        assert (found and (found.span(), found.groupdict())) == (expected and (expected.span(), expected.groupdict()))


# --- source: inline maths -------------------------------------------------------------

FORMER_INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\\$|[^$\n])+?)(?<![\s\\])\$(?!\d)")


def test_inline_maths_regex_matches_as_the_former_one():
    from site_builder.markup import source

    alphabet = ["$", "$$", "\\", "\\$", "a", "x^2", " ", "\n", "1", "é", "`"]
    for text in _strings(alphabet):
        assert ([(m.span(), m.group(1)) for m in source.INLINE_MATH_RE.finditer(text)]
                == [(m.span(), m.group(1)) for m in FORMER_INLINE_MATH.finditer(text)]), text
    assert _starts(source.INLINE_MATH_RE.pattern) == [re._constants.LITERAL]


def test_link_targets_are_those_of_the_whole_link_target_regex():
    from site_builder.markup import source

    alphabet = ["a", " ", "](x)", "[a]: u", "](", ")", "\n", "[", "]", ":", "<", ">", "  ", "[r]:  <t> ", "](  <y", "\t"]
    for text in _strings(alphabet, count=SEED_COUNT // 2, longest=12):
        expected = [m.group(1) or m.group(2) for m in source.LINK_TARGET_RE.finditer(text)]
        assert list(source._link_targets(text)) == expected, text
    # Past the start only the inline form can match, and alone it starts with its ']'.
    assert _starts(source._INLINE_TARGET_RE.pattern, into_groups=False) == [re._constants.LITERAL]


# --- fast_inline: the elements direct_inline builds are not walked again --------------


def test_inline_pass_does_not_walk_the_elements_it_built_directly():
    """Upstream pushes each built element on its stack; popping one only sets ``ancestors``
    (no children, nothing left to expand). The fast run skips that, and ends with the same
    ``ancestors`` as upstream (tests/markup/accel/test_fast_inline.py compares the state)."""
    from site_builder.markup.accel.fast_inline import FastInlineProcessor
    from site_builder.markup.render import BodyRenderer
    from site_builder.names import NameIndex

    walked = []

    class Counting(FastInlineProcessor):
        @property
        def ancestors(self):
            return self._walk_ancestors

        @ancestors.setter
        def ancestors(self, value):
            walked.append(list(value))  # one per stack entry popped (and the tree)
            self._walk_ancestors = value

    renderer = BodyRenderer(NameIndex([]))
    inline = renderer.md.treeprocessors["inline"]
    assert type(inline) is FastInlineProcessor
    inline.__class__ = Counting
    html = renderer.render("One *a* and `b` and **c**.\n\n- x *y*\n- z `w`\n", 1).html
    assert "<em>a</em>" in html and "<code>w</code>" in html
    # The tree, each element with children (the list), then the ancestors upstream ends
    # with (its last pop: the last item's code): not the five em/code/strong built.
    assert walked == [["div"], ["div"], ["div", "ul", "li", "code"]]
