"""The load stage's short cuts around PyYAML give what PyYAML's own safe loader gives."""

import random

import yaml

from site_builder.load.front_matter import _key_lines
from site_builder.load.front_yaml import _NOT_PLAIN, _FrontMatterLoader, _plain_data, load_yaml as _load_yaml

DOCUMENTS = [
    "title: a\nsummary: b\ntitle: c",
    "title: &x [a, b]\nsummary: *x\naliases: *x",
    "title: 5\nsummary: null\nx: 1.5\ny: true\nz: ~\nd: 2020-01-01",
    "<<: {title: a}\nsummary: s",
    '"<<": 1\ntitle: t',
    "=: a\ntitle: t",
    "explainer: {name: d, start: 3}\ntitle: t",
    "explainer: {name: d, opt: [a, b]}\ntitle: 'x'",
    "title: [[[[a]]]]\nsummary: {a: {b: {c: d}}}",
    "? [a]\n: b\ntitle: t",
    "- a\n- b",
    "title: !!str 5\naliases: !!seq [a, 'b', \"c\"]\nrelated: [term-1, true-ish, no]",
    "title: \"a\\x07\"\nsummary: 'b'\naliases: [\"x\\0\", y]",
]


def _stock(text):
    return yaml.load(text, Loader=yaml.CSafeLoader)


def test_plain_documents_are_built_as_pyyaml_builds_them():
    rng = random.Random(7)
    words = ["a", "b c", "'q'", '"d"', "[x, y]", "{k: v}", "1", "~", "yes", "term-2", "&a e", "*a"]
    generated = []
    for _ in range(300):
        keys = rng.sample(["title", "summary", "aliases", "related", "explainer", "x"], rng.randint(1, 4))
        generated.append("\n".join(f"{key}: {rng.choice(words)}" for key in keys))
    plain = 0
    for text in DOCUMENTS + generated:
        try:
            expected = _stock(text)
        except yaml.YAMLError:
            continue
        data, _lines, _repeated = _load_yaml(text, {})
        assert data == expected, text
        loader = _FrontMatterLoader(text)
        try:
            built = _plain_data(loader.get_single_node())
        finally:
            loader.dispose()
        plain += built is not _NOT_PLAIN
        assert built is _NOT_PLAIN or built == expected, text
    assert plain > 50  # the short cut is taken, not only the fallback


def test_resolve_answers_as_pyyaml_does():
    rng = random.Random(3)
    values = ["", "true", "t", "term-1", "1", "1.5", "~", "null", "<<", "=", "2020-01-01", "0x1f", ".inf", "No"]
    values += ["".join(rng.choice("tTnNyYoO01.-+~:ex_ ") for _ in range(rng.randint(1, 6))) for _ in range(3000)]
    for value in values * 2:  # twice: the remembered answers too
        for implicit in ((True, False), (False, True)):
            expected = yaml.CSafeLoader("").resolve(yaml.ScalarNode, value, implicit)
            assert _FrontMatterLoader("").resolve(yaml.ScalarNode, value, implicit) == expected, value


def test_key_lines_as_line_by_line():
    text = "title: a\n  x : 1\ntitle2 :b\n\x0bk\x0c: v\nk2\x85: v\nt\n: x\n_a-b-: 1\nrelated:[a]\ntitle: again"
    assert _key_lines(text) == {"title": 2, "title2": 4, "k2": 6, "_a-b-": 9, "related": 10}


def test_key_lines_are_those_of_a_line_by_line_search():
    """``_key_lines`` finds each key's line with a pattern that starts with a line
    break (the regex engine jumps from one to the next, instead of trying ``^``
    at every character); the lines are those a multiline ``^`` search gives."""
    import random
    import re

    from site_builder.load.front_matter import _KEY_LINE_RE, _key_lines

    assert _KEY_LINE_RE.pattern.startswith("\\n")
    line_by_line = re.compile(r"^([A-Za-z_][\w-]*)[^\S\n]*:", re.MULTILINE)

    def expected(front: str) -> dict[str, int]:
        found: dict[str, int] = {}
        for match in line_by_line.finditer(front):
            found.setdefault(match.group(1), front.count("\n", 0, match.start()) + 2)
        return found

    rng = random.Random(6)
    pieces = ["title", "a", "_x", "k-y", ":", " ", "\t", "\n", "\n\n", "é", "1", "- ", "#", "  :", "summary:", "\x0b"]
    fronts = ["", "\n", "title: A\nsummary: B\n", "\ntitle: A", "  title: indented\ntitle: B\ntitle: again"]
    fronts += ["".join(rng.choice(pieces) for _ in range(rng.randrange(0, 14))) for _ in range(20000)]
    for front in fronts:
        assert _key_lines(front) == expected(front), repr(front)


def test_printable_front_matter_is_not_searched_for_control_characters(monkeypatch):
    """Keys and values that are all printable (``str.isprintable``) skip the
    control-character search; anything else is searched, and its problem is
    still at its key's line."""
    from site_builder.load import schema
    from site_builder.load.front_matter import parse_front_matter

    searched = []
    real = schema.CONTROL_RE

    class Counting:
        def search(self, text, *args):
            searched.append(text)
            return real.search(text, *args)

    monkeypatch.setattr(schema, "CONTROL_RE", Counting())
    meta, problems = parse_front_matter("title: \"Term 1: it's\"\nsummary: S.\naliases: [a b, é ü]\n", "a.md")
    assert problems == [] and searched == []
    meta, problems = parse_front_matter('title: T\nsummary: "tab\\there, and a bell \\a"\n', "a.md")
    assert searched and [p.line for p in problems] == [3]
    assert problems[0].message.startswith("'summary' contains the control character U+0007")


def test_lists_and_mappings_are_tagged_without_pyyamls_resolver(monkeypatch):
    """libyaml asks ``resolve`` for every node: a list's or a mapping's tag is
    answered at once (as PyYAML's resolver would without path resolvers), and
    PyYAML's own resolver is asked only for a plain scalar it may tag otherwise
    than as text, once per value."""
    import yaml

    from site_builder.load import front_matter, front_yaml

    asked = []
    real = yaml.resolver.BaseResolver.resolve
    monkeypatch.setattr(yaml.resolver.BaseResolver, "resolve",
                        lambda self, kind, value, implicit: asked.append((kind.__name__, value)) or real(self, kind, value, implicit))
    monkeypatch.setattr(front_yaml, "_RESOLVED", {})
    meta, problems = front_matter.parse_front_matter(
        "title: A\nsummary: S.\nrelated: [term-0001, term-0001]\nexplainer: {name: x, start: 3, on: yes}\n", "a.md")
    # (a first character that may start a bool, null or number: t, n, digits, o, y; "term-0001" once)
    assert asked == [("ScalarNode", v) for v in ("title", "term-0001", "name", "3", "on", "yes")]
    assert meta["explainer_options"] == {"start": 3, "True": True}


def test_pyyaml_is_imported_only_to_parse_a_front_matter():
    """The build's modules import no PyYAML (~7 ms): a process whose terms all come
    from the cache or the loaders (or an edit that parses no front matter) never
    needs it; the first front matter parsed imports it."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "import site_builder.build, site_builder.cli, site_builder.integrations.usage\n"
        "assert 'yaml' not in sys.modules, 'imported with the build'\n"
        "from site_builder.load.front_matter import parse_front_matter\n"
        "meta, problems = parse_front_matter('title: A\\nsummary: S.\\n', 'a.md')\n"
        "assert meta['title'] == 'A' and not problems and 'yaml' in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
