"""The search index assembled as the render stage hands the pages' entries
over (cache/search.py ``Indexer.take``, outputs/search_index.py ``Assembly``):
records in doc order are assembled at once, the others wait for their turn,
and the files are the bytes of the whole index made at the end (issue 40,
fourth round: the search tail off the critical path)."""

from __future__ import annotations

import gc
import random

from site_builder import build as build_module
from site_builder.build import BuildOptions, build_site
from site_builder.cache import search as search_cache
from site_builder.cache import store
from site_builder.load.config import SiteConfig
from site_builder.load.content import Term
from site_builder.markup.render import RenderedBody
from site_builder.outputs import search_index

from helpers import manifest, term, write_tree


def pages(count: int) -> tuple[list[Term], dict[str, RenderedBody]]:
    terms, bodies = [], {}
    for i in range(count):
        slug = f"t{i:03d}"
        terms.append(Term(path=f"terms/{slug}.md", slug=slug, title=f"Term {i}", summary=f"Summary {i % 5}.",
                          aliases=[f"alias {i}"] if i % 3 else [], body=f"Body {i}", body_line=5))
        bodies[slug] = RenderedBody(html=f'<p>Body {i} drafts tokens {i % 7}</p><h2 id="s{i}">Part {i}</h2><p>more</p>',
                                    headings=[(2, f"s{i}", f"Part {i}")])
    return terms, bodies


def test_entries_taken_in_any_order_give_the_files_of_a_whole_index():
    terms, bodies = pages(70)  # more than two search/d/ chunks
    config = SiteConfig(title="Stream")
    cache = store.BuildCache(None)
    whole = search_cache.Indexer(cache, config, terms, {}).files(bodies, lambda slugs: None)
    streamed = search_cache.Indexer(cache, config, terms, {}, bodies)
    made = [(t.slug, streamed.entries(t, bodies[t.slug])) for t in terms]
    chunks = [made[i:i + 9] for i in range(0, len(made), 9)]
    random.Random(4).shuffle(chunks)
    assembled = []
    for chunk in chunks:
        streamed.take(chunk)
        assembled.append(streamed._assembly.docs)
    assert assembled[0] < len(terms) and assembled[-1] == len(terms)
    assert any(0 < n < len(terms) for n in assembled)  # in doc order as they came, not all at the end
    assert streamed.files(bodies, lambda slugs: None) == whole
    assert any(name.startswith("search/d/2.json") for name in whole)


def test_pages_not_rendered_are_indexed_at_the_end():
    terms, bodies = pages(10)
    config = SiteConfig(title="Stream")
    cache = store.BuildCache(None)
    whole = search_cache.Indexer(cache, config, terms, {}).files(bodies, lambda slugs: None)
    streamed = search_cache.Indexer(cache, config, terms, {}, bodies)
    streamed.take([(t.slug, streamed.entries(t, bodies[t.slug])) for t in terms if t.slug != "t004"])
    assert streamed._assembly.docs == 4
    filled: list[list[str]] = []
    assert streamed.files(bodies, filled.append) == whole
    assert filled == [["t004"]]


def test_the_assembly_writes_the_doc_files_as_doc_files_does():
    docs = [[f"t{i}/", f"Term {i}", "", [], []] for i in range(100)]
    assembly = search_index.Assembly()
    for shown in docs:
        assembly.add(({}, {}, []), shown)
    assert assembly.doc_files() == search_index.doc_files(docs)


def test_the_render_stage_starts_with_what_the_build_made_frozen(tmp_path, monkeypatch):
    """The build process's collector does not walk the bodies (and all else the
    stages before made) while it renders and assembles the search index."""
    content = write_tree(tmp_path / "content", {
        **{f"terms/t{i}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i}.\n") for i in range(3)},
        "site.toml": 'title = "Frozen"\n'})
    seen: list[bool] = []
    original = build_module.site_renderer

    def site_renderer(config, terms, bodies, *rest):
        tracked = {id(o) for o in gc.get_objects()}  # every generation but the frozen one
        seen.append(id(bodies) not in tracked and id(next(iter(bodies.values())).headings) not in tracked)
        return original(config, terms, bodies, *rest)

    monkeypatch.setattr(build_module, "site_renderer", site_renderer)
    build_site(BuildOptions(content=content, output=tmp_path / "out" / "site", cache=False, jobs=1))
    assert seen == [True]
    assert manifest(tmp_path / "out" / "site")


def test_entries_cross_from_a_worker_as_made_and_give_the_same_files():
    """A forked page worker's entries cross to the build process as they are,
    pickled with its slice (not each page's encoded); what is taken so, beside
    entries made in the build process and encoded ones (the files' own
    indexing), gives the same files."""
    import pickle

    terms, bodies = pages(40)
    config = SiteConfig(title="Stream")
    whole = search_cache.Indexer(store.BuildCache(None), config, terms, {}).files(bodies, lambda slugs: None)
    streamed = search_cache.Indexer(store.BuildCache(None), config, terms, {}, bodies)
    made = [(t.slug, streamed.entries(t, bodies[t.slug])) for t in terms]
    assert all(type(entries) is tuple for _, (entries, _) in made)
    crossed = pickle.loads(pickle.dumps(made[:20], protocol=pickle.HIGHEST_PROTOCOL))  # a worker's slice
    encoded = [(slug, (search_cache._encode(entries), fresh)) for slug, (entries, fresh) in made[30:]]
    streamed.take(crossed + made[20:30] + encoded)
    assert streamed.files(bodies, lambda slugs: None) == whole


def test_the_files_are_made_as_the_last_entries_come_in(monkeypatch):
    terms, bodies = pages(40)
    config = SiteConfig(title="Stream")
    streamed = search_cache.Indexer(store.BuildCache(None), config, terms, {}, bodies)
    made = [(t.slug, streamed.entries(t, bodies[t.slug])) for t in terms]
    calls = []
    original = search_index.files
    monkeypatch.setattr(search_index, "files", lambda *args: calls.append(len(calls)) or original(*args))
    streamed.take(made[:30])
    assert calls == []
    streamed.take(made[30:])
    assert calls == [0]  # made in take: files() has nothing left to make
    files = streamed.files(bodies, lambda slugs: None)
    assert calls == [0] and "search/index.json" in files


def test_an_assembly_without_word_counts_makes_the_same_shards_and_pairs():
    terms, bodies = pages(30)
    config = SiteConfig(title="Stream")
    stem = search_cache.Stemmer(config.language)
    records = [search_cache.page_record(config, stem, t, bodies[t.slug]) for t in terms]
    counted, uncounted = search_index.Assembly(), search_index.Assembly(count_words=False)
    for record in records:
        counted.add(record)
        uncounted.add(record)
    shards, words, pairs = counted.result()
    assert words and uncounted.result() == (shards, {}, pairs)
