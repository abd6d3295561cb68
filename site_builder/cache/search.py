"""The search index, memoised and updated in place.

Each page's index entries (``outputs.search_text.record``) are kept in
``search.sqlite`` under a key of everything they depend on (the code, the
site's language and ``search_code``, the page's title, aliases, summary and
body key), so a full build tokenises only the pages that changed and then
assembles the shards (``outputs.search_index``). The prose-edit fast path
(``cache.incremental``) calls ``update``: it re-indexes the edited pages
alone and rewrites only the shards their entries touch, read back from the
live output (which the fast path has checked nobody changed); it steps aside
(None) when the set of shards would change, and the full build runs.
"""

from __future__ import annotations

import bisect
import json
import marshal
from typing import Callable, Iterable, Mapping

from .. import parallel
from ..load.config import SiteConfig
from ..load.content import Term
from ..markup.render import RenderedBody
from ..outputs import search_index
from ..outputs.search_text import Stemmer, body_record
from . import store as cache

TABLE = "search"
"""Cache table: the settings key, the pages in doc order (``slugs``), each page's
entry key (``keys``: one string, ``KEY_LENGTH`` characters a page in doc order;
``moved``: slug -> key, of the pages edits indexed since), how many pages hold
each surface word (what a shard file does not say), the stems (``stems``, and
``stems+``: those edits added since). An edit looks up a few keys: one string
loads ~5x quicker than a dict of 10,000, and it saves only ``moved``, ``words``,
``pending`` and ``stems+`` (``save_entries``), not the whole table (~1 MB)."""
KEY_LENGTH = 64
"""The length of an entry key (``cache.key``: a sha256 in hex)."""
BLOBS = "search.sqlite"


def enabled(config: SiteConfig) -> bool:
    return bool(getattr(config, "search", True))


def _settings(config: SiteConfig) -> str:
    return cache.key(cache.code_version(), repr((config.language, getattr(config, "search_code", False),
                                                 config.pretty_urls)))


def entry_key(settings: str, term: Term, body_key: str) -> str:
    """Everything a page's index entries depend on."""
    return cache.key(settings, term.title, repr(term.aliases), term.summary, body_key or term.body)


def page_record(config: SiteConfig, stem: Stemmer, term: Term, body: RenderedBody) -> search_index.Record:
    """A page's index entries, from its body's HTML."""
    return body_record(term.title, term.aliases, term.summary, body.html, [ident for _, ident, _ in body.headings],
                       stem, code=getattr(config, "search_code", False))


def display(config: SiteConfig, term: Term, body: RenderedBody) -> list:
    """What a result shows of a page: URL (from the site's root), title, summary, aliases, headings."""
    url = f"{term.slug}/" if config.pretty_urls else f"{term.slug}/index.html"
    return [url, term.title, term.summary, list(term.aliases), [[ident, text] for _, ident, text in body.headings]]


def _encode(entries: search_index.Record) -> bytes:
    return marshal.dumps(entries)  # stored as a BLOB; the key holds the code version, so Python's too


def _decode(data: bytes) -> search_index.Record:
    postings, surface, pairs = marshal.loads(data)
    return postings, surface, pairs


PARALLEL_PAGES = 500
"""From this many pages to index, forked workers index them (``jobs`` of them)."""

_shared: tuple | None = None  # what forked workers inherit (see _records)


def _records(config: SiteConfig, todo: list[Term], bodies: Mapping[str, RenderedBody],
             jobs: int, stem: Stemmer) -> dict[str, bytes]:
    """slug -> index entries of ``todo``, encoded (``_encode``: ~1 KB a page where
    the dicts would be several), over ``jobs`` forked workers when there are many."""
    global _shared
    if jobs < 2 or len(todo) < PARALLEL_PAGES or not parallel.can_pool():
        return {t.slug: _encode(page_record(config, stem, t, bodies[t.slug])) for t in todo}
    _shared = (config, todo, bodies, stem.stems)
    try:
        step = -(-len(todo) // jobs)
        with parallel.pool(jobs) as pool:
            parts = list(pool.map(_index_slice, [(start, min(start + step, len(todo)))
                                                 for start in range(0, len(todo), step)]))
    finally:
        _shared = None
    for _, memo in parts:
        stem.stems.update(memo)
    return {slug: entries for part, _ in parts for slug, entries in part}


def _index_slice(bounds: tuple[int, int]) -> tuple[list[tuple[str, bytes]], dict[str, str]]:
    """In a forked worker: the encoded entries of one slice of the pages to index, and the stems it made."""
    config, todo, bodies, memo = _shared
    stem = Stemmer(config.language, dict(memo))
    entries = [(t.slug, _encode(page_record(config, stem, t, bodies[t.slug]))) for t in todo[bounds[0]:bounds[1]]]
    return entries, {w: s for w, s in stem.stems.items() if w not in memo}


def index_files(store: cache.BuildCache, config: SiteConfig, terms: list[Term], bodies: Mapping[str, RenderedBody],
                body_keys: Mapping[str, str], fill_html: Callable[[list[str]], None], jobs: int = 1) -> dict[str, bytes]:
    """Every file under ``search/`` for a full build (none when ``search = false``);
    the pages not in the cache are indexed by ``jobs`` forked workers when there are many."""
    return Indexer(store, config, terms, body_keys).files(bodies, fill_html, jobs)


class _NoteNewStems(Stemmer):
    """A stemmer that also keeps the words its memo lacked (``fresh``): a
    forked page worker hands them back with each page's entries."""

    def __init__(self, language: str, stems: dict[str, str]):
        super().__init__(language, stems)
        self.fresh: dict[str, str] = {}

    def __call__(self, word: str) -> str:
        known = self.stems.get(word)
        if known is not None:
            return known
        self.fresh[word] = stem = super().__call__(word)
        return stem


class Indexer:
    """A full build's search index in two steps: ``entries`` of each page the
    render stage renders, where it renders it (the page workers: so indexing
    is no stage of its own after them), then ``files`` from those and the cache.

    Made before the page workers fork, it holds only keys (the cached entries
    are read on the first ``take``, after the workers fork, or in ``files``):
    the workers carry none of the index's memory."""

    def __init__(self, store: cache.BuildCache, config: SiteConfig, terms: list[Term],
                 body_keys: Mapping[str, str], bodies: Mapping[str, RenderedBody] | None = None):
        self.store, self.config = store, config
        self.bodies = bodies
        """slug -> body: given, each page's display data is made (``search/d/``) as its entries are assembled."""
        self.on = enabled(config)
        self.ordered = sorted(terms, key=lambda t: t.slug)
        # Without a cache no key is looked up (every page's entries are made
        # this build, nothing is stored): none made, ~50 ms at 10,000 terms
        # that ran before the page workers fork; nor the settings key, whose
        # code version no other step of such a build asks for (hashing the
        # code: ~15-20 ms, also before the fork).
        self.settings = _settings(config) if store.enabled else ""
        cached = store.enabled and self.on
        self.keys = ({t.slug: entry_key(self.settings, t, body_keys.get(t.slug, "")) for t in self.ordered}
                     if cached else {})
        self.live = set(self.keys.values())
        previous = store.table(TABLE) if cached else {}
        self.pending = {k: v for k, v in previous.get("pending", {}).items() if k in self.live}
        self.stored: set[str] = set()
        if cached:
            blobs = cache.BlobStore(store.folder / BLOBS, store.fail)
            self.stored = blobs.present(sorted(self.live))
            blobs.close()  # never shared with forked workers
        self.stored |= self.pending.keys()  # what fast paths indexed since: moved into the store in files()
        self.stem = _NoteNewStems(config.language, _stems(previous) if previous.get("settings") == self.settings else {})
        # The records in doc order, as they come (take). Without a cache nothing
        # reads how many pages hold each surface word: not counted (~2 us a page).
        self._assembly = search_index.Assembly(count_words=store.enabled)
        # slug -> entries taken before their turn in doc order
        self._arrived: dict[str, bytes | search_index.Record] = {}
        self._fresh: dict[str, bytes] = {}  # key -> entries made this build, to store (with a cache)
        self._cached: dict[str, bytes] | None = None  # _stored(), once read
        self._made: dict[str, bytes] | None = None  # the files, made as the last page's entries came in

    def entries(self, term: Term, body: RenderedBody) -> tuple[search_index.Record, dict[str, str]] | None:
        """A page's entries and the words stemmed for them that the memo lacked;
        None when the cache has its entries (or search is off).

        The entries stay as made, also in a forked worker: its slice's entries
        cross to the build process pickled with the slice (``parallel.share``),
        where the stems the pages share are the stemmer memo's strings, written
        once a slice. Encoding each page's (``_encode``) cost more: per page, in
        process, 5.5 against 4.7 us to send and 11.3 against 8.0 us to take, at
        1.6x the bytes (docs/performance.md, "Search index (issue 40, eighth
        round)"). With a cache, ``take`` encodes them to store them."""
        if not self.on or (self.stored and self.keys[term.slug] in self.stored):
            return None
        made = page_record(self.config, self.stem, term, body)
        fresh, self.stem.fresh = self.stem.fresh, {}
        return made, fresh

    def take(self, made: Iterable[tuple[str, object]]) -> None:
        """(slug, ``entries(...)``) of pages as the render stage hands them over
        (``parallel.share``: slice by slice, while the workers still render):
        the records next in doc order are assembled now, so that little of the
        index is left to make once the last page is rendered; the others wait
        for their turn. With the bodies given, the files are made as the last
        record comes in (``files`` then returns them)."""
        if not self.on:
            return
        for slug, found in made:
            if found is not None:
                data, stems = found
                self._arrived[slug] = data
                self.stem.stems.update(stems)
                if self.store.enabled:  # stored in files(), encoded
                    self._fresh[self.keys[slug]] = data if type(data) is bytes else _encode(data)
        self._advance()

    def _stored(self) -> dict[str, bytes]:
        """key -> encoded entries the cache (and the fast paths' ``pending``) has, read once."""
        if self._cached is None:
            self._cached = {}
            wanted = sorted(self.stored - self.pending.keys())
            if self.store.enabled and wanted:
                blobs = cache.BlobStore(self.store.folder / BLOBS, self.store.fail)
                self._cached = blobs.get_many(wanted)
                blobs.close()
            self._cached.update(self.pending)
        return self._cached

    def _advance(self) -> None:
        """Assemble the records next in doc order that are in."""
        ordered, keys, arrived, assembly = self.ordered, self.keys, self._arrived, self._assembly
        stored = self._stored() if self.stored else {}
        while assembly.docs < len(ordered):
            slug = ordered[assembly.docs].slug
            data = arrived.pop(slug, None) or stored.get(keys.get(slug)) or self._fresh.get(keys.get(slug))
            if data is None:
                return
            shown = display(self.config, ordered[assembly.docs], self.bodies[slug]) if self.bodies is not None else None
            assembly.add(data if type(data) is tuple else _decode(data), shown)
        if self.bodies is not None and self._made is None:
            # Every page is in: the files now, while the page workers exit (the
            # pool's end waits for them, ~20 ms at 10,000 pages), not after.
            self._made = self._search_files(self.bodies)

    def _search_files(self, bodies: Mapping[str, RenderedBody]) -> dict[str, bytes]:
        """Every file under ``search/``, once every page's record is assembled."""
        shards, self._words, pairs = self._assembly.result()
        shown = (self._assembly.doc_files() if self.bodies is not None
                 else search_index.doc_files([display(self.config, t, bodies[t.slug]) for t in self.ordered]))
        return search_index.files(shards, len(self.ordered), pairs, shown)

    def files(self, bodies: Mapping[str, RenderedBody], fill_html: Callable[[list[str]], None], jobs: int = 1,
              made: Mapping[str, object] = {}) -> dict[str, bytes]:
        """Every file under ``search/`` (none when ``search = false``). ``made``:
        slug -> ``entries(...)`` of the pages indexed already (besides those
        ``take`` was given); the others not in the cache are indexed here, by
        ``jobs`` forked workers when there are many."""
        if not self.on:
            return {}
        self.take(made.items())
        store, config, ordered, keys, stem = self.store, self.config, self.ordered, self.keys, self.stem
        stored, fresh = self._stored(), self._fresh
        todo = [t for t in ordered[self._assembly.docs:]
                if t.slug not in self._arrived and keys.get(t.slug) not in stored and keys.get(t.slug) not in fresh]
        fill_html([t.slug for t in todo])
        self.take((slug, (data, {})) for slug, data in _records(config, todo, bodies, jobs, stem).items())
        files = self._made if self._made is not None else self._search_files(bodies)
        words = self._words
        if store.enabled:
            blobs = cache.BlobStore(store.folder / BLOBS, store.fail)
            blobs.put_many({**self.pending, **fresh}, live=self.live)
            blobs.close()
            slugs = [t.slug for t in ordered]
            table = {"settings": self.settings, "slugs": slugs, "keys": "".join(keys[slug] for slug in slugs),
                     "words": words, "stems": stem.stems}  # every word the stemmer was asked about (never a guess)
            if store.table(TABLE) != table:
                store.save_table(TABLE, table)
        return files


def update(store: cache.BuildCache, config: SiteConfig, terms: Mapping[str, Term],
           edited: Mapping[str, RenderedBody], body_keys: Mapping[str, str],
           read: Callable[[str], bytes]) -> tuple[dict[str, bytes | None], Callable[[], None]] | None:
    """(the files under ``search/`` that body edits change, None for a file to remove;
    ``remember()``, to call once they are written), for ``edited``: slug -> its new
    body, with HTML; None when the full build must make the index instead.
    ``read(relative)`` gives a file of the live output.

    The new entries are kept in the table (``pending``), not in ``search.sqlite``:
    the table is written anyway, and the store's commit and checkpoint would cost
    the edit more than the rest of the update (the next full build moves them)."""
    if not enabled(config):
        return {}, lambda: None
    table = store.table(TABLE)
    settings = _settings(config)
    slugs = table.get("slugs") if table and table.get("settings") == settings else None
    joined = table.get("keys")
    if (slugs is None or not isinstance(joined, str) or len(joined) != KEY_LENGTH * len(slugs)
            or len(slugs) != len(terms) or not all(map(terms.__contains__, slugs))):
        return None
    moved, words = dict(table.get("moved", {})), dict(table["words"])
    pending = dict(table.get("pending", {}))
    stem = _NoteNewStems(config.language, _stems(table))
    changes, fresh = [], {}
    for slug in sorted(edited):
        doc = bisect.bisect_left(slugs, slug)  # (in doc order: sorted by slug)
        if doc == len(slugs) or slugs[doc] != slug:
            return None
        before = moved.get(slug) or joined[doc * KEY_LENGTH:(doc + 1) * KEY_LENGTH]
        key = entry_key(settings, terms[slug], body_keys[slug])
        if key == before:
            continue
        old = pending.get(before) or _stored(store, before)
        if old is None:
            return None
        old, new = _decode(old), page_record(config, stem, terms[slug], edited[slug])
        if old[2] != new[2]:
            return None  # the phrase pairs are the title's, aliases' and summary's: not a body edit
        changes.append((doc, old, new))
        fresh[key] = _encode(new)
        moved[slug] = key
        if before in pending and not _in_use(before, slugs, joined, moved):
            del pending[before]  # (the entries of a page's last edit, no page's now)
    if not changes:
        return {}, lambda: None
    touched = set().union(*(search_index.affected(old, new) for _, old, new in changes))
    try:
        manifest = json.loads(read(f"{search_index.FOLDER}/index.json"))
        present, buckets = set(manifest["keys"]), list(manifest["pairs"])
        states = {key: _state(read(f"{search_index.FOLDER}/t/{search_index.file_name(key)}.json"), words)
                  for key in sorted(touched & present)}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None  # not the files the last build wrote: the full build writes them again
    for doc, old, new in changes:
        search_index.apply(states, doc, old, new)
    keys_now = (present - touched) | set(states)
    for state in states.values():
        for word, entry in state["w"].items():
            words[word] = entry[1]
    for _, old, new in changes:
        for word in old[1].keys() - new[1].keys():
            if not any(word in s["w"] for s in states.values()):
                words.pop(word, None)
    pending.update(fresh)

    def remember() -> None:
        """Keep the new entries: called once the files are written (a failed write keeps the old state).
        Only what changed is saved, in one file beside the table (``save_entries``): one write, as before."""
        store.save_entries(TABLE, {"moved": moved, "words": words, "pending": pending,
                                   **({"stems+": {**table.get("stems+", {}), **stem.fresh}} if stem.fresh else {})})

    files: dict[str, bytes | None] = {}
    for key in sorted(touched):
        name = f"{search_index.FOLDER}/t/{search_index.file_name(key)}.json"
        if key in states:
            files[name] = search_index.shard_file(states[key])
        elif key in present:
            files[name] = None  # emptied: removed
    if keys_now != present:
        files[f"{search_index.FOLDER}/index.json"] = search_index.manifest(keys_now, len(slugs), buckets)
    return files, remember


def _stems(table: Mapping) -> dict[str, str]:
    """The stemmer's memo ``TABLE`` keeps: its ``stems`` and those edits added since (a new dict)."""
    stems = dict(table.get("stems", {}))
    stems.update(table.get("stems+", {}))
    return stems


def _in_use(key: str, slugs: list[str], joined: str, moved: Mapping[str, str]) -> bool:
    """Whether any page's entry key is ``key`` (``TABLE``'s keys and the ``moved`` ones)."""
    if key in moved.values():
        return True
    at = joined.find(key)
    while at >= 0:
        if at % KEY_LENGTH == 0 and slugs[at // KEY_LENGTH] not in moved:
            return True
        at = joined.find(key, at + 1)
    return False


def _stored(store: cache.BuildCache, key: str) -> bytes | None:
    """A page's entries as the last full build stored them, read without
    writing (``BlobStore(read_only=True)``: this works on a full disk, where
    opening the store to write fails and the fast path would step aside)."""
    blobs = cache.BlobStore(store.folder / BLOBS, read_only=True)
    try:
        return blobs.get_many([key]).get(key)
    finally:
        blobs.close()


def _state(data: bytes, words: Mapping[str, int]) -> dict:
    """A shard's state from its file and the cached counts of its surface words."""
    shard = json.loads(data)
    postings = {}
    for stem, flat in shard["p"].items():
        doc, docs = 0, {}
        for i in range(0, len(flat), 2):
            doc += flat[i]
            docs[doc] = flat[i + 1]
        postings[stem] = docs
    return {"p": postings, "w": {word: [stem, words[word]] for word, stem in shard["w"].items()}}
