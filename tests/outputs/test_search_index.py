"""The search index (outputs/search_text.py, outputs/search_index.py): what a page
is indexed as, how it ranks, how words are stemmed and sharded, and that the
same content always gives the same bytes."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from site_builder.build import BuildOptions, build_site
from site_builder.outputs import search_index
from site_builder.outputs.search_text import ALIAS, SUMMARY, TITLE, Stemmer, body_record, body_sections, record, words

from helpers import manifest, term, write_tree


def content(root: Path, extra: dict | None = None) -> Path:
    files = {
        "terms/draft-model.md": term("Draft model", "A small model that proposes tokens.", """
            The draft runs first.

            ## Acceptance

            Tokens are drafted, then nucleus sampling keeps some. `hiddencode` and $\\alpha^k$.

            ```
            secretblock = 1
            ```
            """, aliases=["drafter", "assistant model"]),
        "terms/verifier.md": term("Verifier", "Checks what the drafter proposed.", "One memory-bound pass.\n"),
        "terms/cafe.md": term("Café", "Ｆｕｌｌ width and accents fold.", "推测解码 and שלום.\n"),
        "site.toml": 'title = "Search test"\n',
        **(extra or {}),
    }
    return write_tree(root, files)


def built(tmp_path: Path, name: str = "out", **options) -> Path:
    out = tmp_path / name / "out"
    build_site(BuildOptions(content=tmp_path / "content", output=out, jobs=1, **options))
    return out


def shard(out: Path, word: str) -> dict:
    return json.loads((out / "search" / "t" / f"{search_index.file_name(search_index.shard_key(word))}.json").read_text())


def postings(out: Path, stem: str) -> dict[int, int]:
    flat, doc, found = shard(out, stem)["p"][stem], 0, {}
    for i in range(0, len(flat), 2):
        doc += flat[i]
        found[doc] = flat[i + 1]
    return found


def test_words_fold_case_accents_and_width_and_split_ideographs():
    assert words("Draft-Model café ＦＵＬＬ naïve") == ["draft", "model", "cafe", "full", "naive"]
    assert words("推测解码 and שלום") == ["推", "测", "解", "码", "and", "שלום"]
    assert words("snake_case " + "x" * 41) == ["snake", "case"]
    assert words("?!.,") == []


def test_stems_are_snowball_english_and_other_languages_are_left_alone():
    stem = Stemmer("en")
    assert {stem(w) for w in ("draft", "drafted", "drafting", "drafts")} == {"draft"}
    assert stem("memories") == stem("memory")
    assert stem("k") == "k" and stem("2024") == "2024"
    assert Stemmer("xx")("drafted") == "drafted"


def test_sections_follow_headings_maths_by_alttext_code_left_out():
    html = ('<p>Intro <code>inline</code></p><h2 id="a">First</h2><p>x <math alttext="\\alpha^k" display="inline">'
            '<mi>α</mi></math></p><pre><code>block</code></pre><h2 id="b">Second &amp; last</h2><p>y</p>')
    sections = body_sections(html, ["a", "b"])
    assert [words(s) for s in sections] == [["intro"], ["first", "x", "alpha", "k"], ["second", "last", "y"]]
    assert "block" in " ".join(body_sections(html, ["a", "b"], code=True))


def test_a_record_scores_title_over_alias_over_summary_over_body():
    codes, surface, _ = record("Draft model", ["drafter", "verifier aide"], "The draft is checked.",
                               ["draft " * 30, "", "aide"], Stemmer("en"))
    assert codes["draft"] == TITLE
    assert codes["drafter"] == ALIAS
    assert codes["aid"] == ALIAS + 64 * 1  # the second alias
    assert codes["check"] == SUMMARY + 1
    assert codes["the"] == SUMMARY + 1
    assert surface["checked"] == "check"
    body_only = record("T", [], "S.", ["a", "", "word word"], Stemmer("en"))[0]
    assert body_only["word"] == 2 + 64 * 2  # twice, first in section 2


def test_body_words_sharing_a_stem_add_up_and_the_first_section_they_are_in_counts():
    # "methods", "method" and "methodical" may stem alike; whichever do share a
    # stem count together, from the earliest section any of them is in.
    stem = Stemmer("en")
    sections = ["intro", "the methods here " + "methods " * 12, "a method " * 10 + "generously generous"]
    codes, surface, _ = record("T", [], "S.", sections, stem)
    assert stem("methods") == stem("method") == "method"
    assert codes["method"] == 20 + 64 * 1        # 13 + 10 times: capped at the body's maximum, first in section 1
    assert surface["methods"] == "method" and "method" not in surface
    assert codes[stem("generously")] == 2 + 64 * 2 and stem("generously") == stem("generous")
    assert list(codes)[:4] == ["intro", "the", "method", "here"]  # stems in the order their words first appear
    assert record("T", [], "S.", ["a " * 3, "b", "c", "a"], Stemmer("en"))[0]["a"] == 4


def test_phrase_pairs_are_adjacent_stems_in_order_within_each_of_title_aliases_summary():
    _, _, found = record("Draft model", ["drafting models", "assistant"], "Proposes tokens for the verifier.",
                         ["memory bound body words"], Stemmer("en"))
    assert "draft model" in found                                          # the title
    assert found.count("draft model") == 1                                 # the alias's stems: the same pair, once
    assert "propos token" in found and "the verifi" in found               # the summary, stemmed
    assert "model draft" not in found                                      # order counts
    assert "model assist" not in found and "assist propos" not in found    # no pair across two fields
    assert not any("memori" in pair or "bound" in pair for pair in found)  # the body gives none
    assert found == sorted(found)


def test_pair_buckets_spread_pairs_and_a_multiword_title_is_found_together(tmp_path):
    assert len({search_index.pair_bucket(f"w{i} x") for i in range(500)}) == search_index.PAIR_BUCKETS
    content(tmp_path / "content")
    out = built(tmp_path)
    index = json.loads((out / "search" / "index.json").read_text())
    assert index["buckets"] == search_index.PAIR_BUCKETS
    names = {p.name for p in (out / "search" / "p").iterdir()}
    assert names == {f"{n}.json" for n in index["pairs"]}
    bucket = json.loads((out / "search" / "p" / f"{search_index.pair_bucket('draft model')}.json").read_text())
    assert bucket["draft model"] == [1]                  # doc 1, gap-encoded from 0
    # a body phrase is not a pair, in whichever file it would fall
    assert not any("nucleus sampl" in json.loads(f.read_text()) for f in (out / "search" / "p").iterdir())


def test_the_index_is_sharded_by_prefix_and_lists_stems_and_surface_words(tmp_path):
    content(tmp_path / "content")
    out = built(tmp_path)
    index = json.loads((out / "search" / "index.json").read_text())
    assert index["count"] == 3 and index["chunk"] == search_index.CHUNK
    names = {p.name for p in (out / "search" / "t").iterdir()}
    assert names == {f"{search_index.file_name(k)}.json" for k in index["keys"]}
    assert "dr" in index["keys"] and "推" in index["keys"] and "_5e6c.json" not in names
    dr = shard(out, "draft")
    assert set(dr["p"]) >= {"draft", "drafter"} and dr["w"]["drafted"] == "draft"
    assert all(search_index.shard_key(w) == "dr" for w in [*dr["p"], *dr["w"]])
    docs = json.loads((out / "search" / "d" / "0.json").read_text())
    assert [d[0] for d in docs] == ["cafe/index.html", "draft-model/index.html", "verifier/index.html"]
    assert docs[1][3] == ["drafter", "assistant model"] and docs[1][4] == [["acceptance", "Acceptance"]]
    # Doc 1 is the draft model: its title; the verifier (doc 2) only in its summary.
    assert postings(out, "draft") == {1: TITLE}
    assert postings(out, "drafter")[1] == ALIAS and postings(out, "drafter")[2] == SUMMARY + 1
    assert postings(out, "nucleus") == {1: 1 + 64 * 1}
    assert postings(out, "alpha") == {1: 1 + 64 * 1}
    every = {w for f in (out / "search" / "t").iterdir() for part in json.loads(f.read_text()).values() for w in part}
    assert not every & {"hiddencod", "hiddencode", "secretblock"}  # code is not indexed


def test_code_is_indexed_when_the_site_says_so(tmp_path):
    content(tmp_path / "content", {"site.toml": 'title = "Search test"\nsearch_code = true\n'})
    out = built(tmp_path)
    assert "secretblock" in shard(out, "secretblock")["p"]


def test_search_off_writes_no_index_and_no_box(tmp_path):
    content(tmp_path / "content", {"site.toml": 'title = "Search test"\nsearch = false\n'})
    out = built(tmp_path)
    assert not (out / "search").exists()
    page = (out / "verifier" / "index.html").read_text()
    assert "site-search" not in page and "search." not in page


def test_same_content_same_bytes_in_any_order_of_work(tmp_path):
    content(tmp_path / "content")
    first = built(tmp_path, "a", cache=False)
    second = built(tmp_path, "b")
    third = built(tmp_path, "b")  # from the cache
    files = {k: v for k, v in manifest(first).items() if k.startswith("search/")}
    assert files and files == {k: v for k, v in manifest(second).items() if k.startswith("search/")}
    assert files == {k: v for k, v in manifest(third).items() if k.startswith("search/")}


def test_the_hover_card_embed_files_load_no_search(tmp_path):
    content(tmp_path / "content")
    out = built(tmp_path)
    for name in ("glossary-cards.js", "glossary-cards.css"):
        assert "search" not in (out / "embed" / name).read_text().lower()
    shutil.rmtree(tmp_path / "content")


def test_a_body_count_is_capped_and_assemble_gap_encodes_docs_and_pairs():
    codes = record("T", [], "S.", ["", "x " * 25, "x y"], Stemmer("en"))[0]
    assert codes["x"] == 20 + 64 * 1 and codes["y"] == 1 + 64 * 2
    records = [({"a": 5, "b": 7}, {"as": "a"}, ["a b"]), ({"b": 2}, {}, []), ({"a": 1}, {"as": "a"}, ["a b"]),
               ({"a": 3}, {}, ["a b"])]
    shards, counts, pairs = search_index.assemble(iter(records))
    assert shards["a"]["p"]["a"] == [0, 5, 2, 1, 1, 3] and shards["b"]["p"]["b"] == [0, 7, 1, 2]
    assert shards["as"]["w"] == {"as": "a"} and counts == {"as": 2} and pairs == {"a b": [0, 2, 3]}
    bucket = f"search/p/{search_index.pair_bucket('a b')}.json"
    assert json.loads(search_index.pair_files(pairs)[bucket]) == {"a b": [0, 2, 1]}


def test_the_stemmer_imports_its_own_language_alone_and_stems_as_snowballstemmer_does():
    """``search_text.snowball`` imports the configured language's Snowball
    module alone (``import snowballstemmer`` imports all ~36: up to ~90 ms of
    every build that stems a word), and stems as ``snowballstemmer.stemmer``."""
    import subprocess
    import sys

    import snowballstemmer

    from site_builder.outputs.search_text import LANGUAGES, snowball

    probe = ("import sys; from site_builder.outputs.search_text import Stemmer; "
             "assert Stemmer('fr')('nationalement') == 'national', Stemmer('fr')('nationalement'); "
             "loaded = sorted(m for m in sys.modules if 'stemmer' in m.lower() or 'snowball' in m.lower()); "
             "print(loaded)")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert "snowballstemmer" not in loaded.replace("_site_builder_snowball", "") and "french_stemmer" in loaded
    assert "english_stemmer" not in loaded and "armenian" not in loaded, loaded
    sample = ["drafted", "drafting", "nationalement", "organisations", "häuser", "correndo", "läuft", "книгами",
              "kitaplar", "gyerekek", "universitet", "memories", "generously", "running", "a", "x" * 30]
    for name in sorted(set(LANGUAGES.values())):
        ours, theirs = snowball(name), snowballstemmer.stemmer(name)
        assert type(ours).__name__ == type(theirs).__name__
        assert [ours.stemWord(w) for w in sample] == [theirs.stemWord(w) for w in sample], name


def test_a_record_from_the_body_html_is_the_record_of_its_sections():
    """``body_record`` (one split at the headings, the words counted as they are
    split) gives what ``record`` gives of ``body_sections``, also where the
    headings are not the page's heading ids in order: unknown, repeated or
    out-of-order ids, upper-case tags, code, maths, images, entities,
    non-ASCII text, words too long to index and stems two words share."""
    pieces = ['<p>Intro <code>inline</code></p>', '<h2 id="a">First</h2>', '<h2 id="b">Second &amp; last</h2>',
              '<h3 id="a">Again</h3>', '<h2 id="zz">Unknown</h2>', '<H2 id="b">Upper</H2>',
              '<p>x <math alttext="\\alpha^k &amp;lt;" display="inline"><mi>α</mi></math></p>',
              '<pre><code>block</code></pre>', '<img alt="Flow &amp; chart" src="x.png">',
              '<p>Café naïve ΣΑΣ 東京タワー drafts drafting drafted draft</p>',
              '<p>' + 'a' * 45 + ' b' * 25 + ' tokens token</p>', '<p>&#160;x&#8617; &lt; 3 &amp;amp; y</p>',
              '<p>lone < bracket', '<script>var x = 1;</script>']
    headings = [[], ["a"], ["a", "b"], ["b", "a"], ["a", "a"], ["a", "b", "zz"], ["a", "b", "c"]]
    rng = random.Random(40)
    for _ in range(400):
        html = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        ids, code = rng.choice(headings), rng.random() < 0.3
        title, aliases = rng.choice(["Drafting tokens", "Café Σ", ""]), rng.choice([[], ["Draft tokens", "token x"]])
        summary = rng.choice(["Tokens tokens tokens token drafts x x x x x x.", "", "b a b"])
        fresh, reference = Stemmer("en"), Stemmer("en")
        assert (body_record(title, aliases, summary, html, ids, fresh, code)
                == record(title, aliases, summary, body_sections(html, ids, code), reference)), (html, ids, code)
        assert list(fresh.stems.items()) == list(reference.stems.items())  # the same words stemmed, in order


def test_code_and_scripts_are_skipped_in_any_case_as_re_ignorecase_would():
    """The skipped tags' names are matched by case classes (faster than ``re.I``):
    the same matches as the pattern compiled with ``re.I``, its long s and
    Turkish i's included."""
    import re

    from site_builder.outputs import search_text

    reference = re.compile(r"<(pre|code|script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)
    scripts = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)
    bits = ["<code>", "</code>", "<CODE>", "</Code >", "<pre class='x'>", "</pre>", "<\u017fcript>", "</script>",
            "<SCR\u0130PT>", "</scr\u0131pt>", "<style>", "</STYLE>", "x", "<codex>", "</codex>", "<p>", "<pre", ">",
            "\n", "<Pre>", "</PRE>"]
    rng = random.Random(8)
    for _ in range(3000):
        text = "".join(rng.choice(bits) for _ in range(rng.randint(0, 12)))
        assert search_text._SKIPPED.sub(" ", text) == reference.sub(" ", text), text
        assert search_text._SCRIPTS.sub(" ", text) == scripts.sub(" ", text), text


def test_ascii_text_compiles_no_pattern_for_kana_and_han():
    """``_ideographs`` and ``_marks`` (~1.6 ms to compile) are compiled only when
    non-ASCII text needs them: an ASCII site's build never does."""
    from site_builder.outputs import search_text

    search_text._ideographs.cache_clear()
    search_text._marks.cache_clear()
    stem = search_text.Stemmer("en")
    assert search_text.words("Plain ASCII text, 42 words") == ["plain", "ascii", "text", "42", "words"]
    assert [stem(word) for word in ("running", "words")] == ["run", "word"]
    assert search_text._ideographs.cache_info().currsize == 0 and search_text._marks.cache_info().currsize == 0
    assert search_text.words("Café 東京タワー") == ["cafe", "東", "京", "タ", "ワ", "ー"]
    assert stem("東京") == "東京"
