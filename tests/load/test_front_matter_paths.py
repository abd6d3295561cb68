"""The load stage's short cuts around PyYAML give what PyYAML's own safe loader gives."""

import random

import yaml

from site_builder.load.front_matter import _NOT_PLAIN, _FrontMatterLoader, _key_lines, _load_yaml, _plain_data

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
