"""The outputs' short cuts through private names of the standard library
(``collections._count_elements``, ``json.encoder.c_make_encoder``): each is
looked up guarded, and its public equivalent, taken where it is missing, gives
exactly the same output."""

from __future__ import annotations

import collections
import importlib
import json
import os
import random
import subprocess
import sys

import pytest

from helpers import REPO
from site_builder.outputs import search_text

glossary_json = importlib.import_module("site_builder.outputs.glossary_json")  # (outputs.glossary_json: a function)

OUTPUTS = r"""
import random
from site_builder.outputs import search_text
from site_builder.outputs.glossary_json import dumps_inert

PIECES = ["<p>Intro <code>inline</code></p>", '<h2 id="a">First</h2>', "<p>Café naïve ΣΑΣ 東京タワー drafts draft</p>",
          "<p>" + "a" * 45 + " b" * 25 + " tokens token</p>", "<p>&#160;x&#8617; &lt; 3 &amp;amp; y</p>",
          '<img alt="Flow &amp; chart" src="x.png">', "<p>Tokens tokens token drafted</p>"]
VALUES = [{"a": [1, 2.5, None, True], "é": "x</script><!--", "k": {"n": -0.0, "s": "\u2028\u2029&<>"}},
          [], {}, "plain", 12345678901234567890, [{"b": 1, "a": 2}, ["\ud7ff", "\t\n"]]]

def outputs() -> str:
    rng, made = random.Random(9), []
    for _ in range(200):
        html = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))
        title, aliases = rng.choice(["Drafting tokens", "Café Σ", ""]), rng.choice([[], ["Draft tokens", "token x"]])
        summary = rng.choice(["Tokens tokens tokens token drafts x x x x x x.", "", "b a b"])
        stem = search_text.Stemmer("en")
        made.append((search_text.body_record(title, aliases, summary, html, ["a"], stem, rng.random() < 0.3),
                     search_text.record(title, aliases, summary, html.split("<h2"), stem), list(stem.stems.items())))
    made += [dumps_inert(value) for value in VALUES]
    return repr(made)  # (a dict's repr keeps its order: the words in the order they were counted)
"""

WITHOUT = r"""
import collections, json, json.encoder, sys, types
MISSING = sys.argv[1]
# json.encoder as the outputs see it (json's own encoder keeps its module and its names)
seen = {k: v for k, v in vars(json.encoder).items() if k != "c_make_encoder"}
if MISSING == "private names absent":
    del collections._count_elements
elif MISSING == "another signature":
    seen["c_make_encoder"] = lambda one: one
else:
    seen["c_make_encoder"] = None  # (json without its C accelerator)
json.encoder = types.SimpleNamespace(**seen)
from site_builder.outputs import search_text
import importlib
glossary_json = importlib.import_module("site_builder.outputs.glossary_json")
taken = (search_text._count_elements is search_text.count_into, glossary_json._COMPACT_CHUNKS is None)
exec(open(sys.argv[2], encoding="utf-8").read())
print(taken)
print(outputs())
"""


@pytest.mark.parametrize("missing", ["private names absent", "another signature", "no C accelerator"])
def test_the_public_equivalents_give_the_same_search_records_and_json(tmp_path, missing: str):
    """In a process whose standard library lacks ``collections._count_elements``
    and ``json.encoder.c_make_encoder`` (or whose encoder takes other arguments,
    or is None): ``search_text.count_into`` counts and ``JSONEncoder.encode``
    writes, and the search records (their words in the same order) and the
    JSON are what the short cuts give here."""
    assert search_text._count_elements is collections._count_elements  # the short cuts, where they are
    assert glossary_json._COMPACT_CHUNKS is not None
    shared = tmp_path / "outputs.py"
    shared.write_text(OUTPUTS, encoding="utf-8")
    scope: dict = {}
    exec(OUTPUTS, scope)
    here = scope["outputs"]()
    script = tmp_path / "without.py"
    script.write_text(WITHOUT, encoding="utf-8")
    result = subprocess.run([sys.executable, str(script), missing, str(shared)], cwd=REPO, capture_output=True,
                            text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.returncode == 0, result.stderr
    taken, there = result.stdout.split("\n", 1)
    assert taken == ("(True, True)" if missing == "private names absent" else "(False, True)")
    assert there.rstrip("\n") == here


def test_count_into_is_count_elements():
    rng = random.Random(3)
    for _ in range(100):
        items = [rng.choice("abcdefé東") * rng.randint(1, 3) for _ in range(rng.randint(0, 40))]
        start = {"b": 2} if rng.random() < 0.5 else {}
        fast, public = dict(start), dict(start)
        collections._count_elements(fast, items)
        search_text.count_into(public, items)
        assert list(fast.items()) == list(public.items())


def test_dumps_inert_with_the_encoder_made_once_is_json_dumps():
    value = {"a": [1, 2.5, None, True], "é": "x", "k": {"n": -0.0}}
    assert glossary_json.dumps_inert(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
