"""The search index: files under ``search/`` that ``static/search.js`` fetches on demand.

- ``search/index.json``: the shard keys there are, how many pages, how many per chunk;
- ``search/t/<key>.json``: one shard per word prefix (a word's first two
  characters; a one-character word is its own key). ``p``: stem -> postings,
  a flat list ``[doc, code, doc, code, ...]`` with each doc id the gap from the
  one before; ``w``: surface word -> its stem, for the words that differ from
  theirs. A query's words need only the shards of their first two characters;
- ``search/d/<n>.json``: the pages with ids ``n * CHUNK`` up to the next:
  ``[url, title, summary, aliases, [[heading id, heading text], ...]]``;
- ``search/p/<n>.json``: phrase pairs, ``"stem stem"`` -> the pages (gap-encoded
  ids) whose title, an alias or summary has the two words side by side in that
  order; a pair is in bucket ``pair_bucket(pair)`` of ``PAIR_BUCKETS``, so a
  multi-word query fetches one small file per pair of adjacent words.

Doc ids are the pages' places in slug order. Every file is JSON with sorted
keys and no spaces: the same content gives the same bytes. A full build
makes the shards from every page's record in one pass (``assemble``); a one-body
edit changes the ``states`` of the shards it touches (a shard's postings by
doc, and how many pages hold each of its surface words: ``apply``) and writes
only those again (``shard_file``).

Why hand-written (issue 33): it earns its place. Pagefind, the well-kept
library for static search, indexing the same 10,000-term build (search off)
took 2.3x the CPU search adds to our cold build on the simple corpus mix
(9.8 s against 4.4 s) and 3.2x on the realistic one (18.8 s against 6.0 s),
wrote 2.3-2.5x the bytes, and cannot change one page's postings on an edit.
``python benchmarks/bench_search.py --runs 2 --edits 3 --no-browser --pagefind BIN``
(docs/performance.md, "Both corpus mixes and the hand-written code").
"""

from __future__ import annotations

import json
import zlib
from collections import Counter, defaultdict
from itertools import repeat
from operator import sub
from typing import Iterable

FOLDER = "search"
CHUNK = 32
"""Pages per ``search/d/`` file: a query's ten results fetch at most ten small files."""
VERSION = 2
PAIR_BUCKETS = 64
"""Files the phrase pairs are spread over: on the 10,000-term corpus ~15 KB each
(~6 KB gzip), fetched only for a query of two words or more."""

Record = tuple[dict[str, int], dict[str, str], list[str]]
"""One page's entries: stem -> code, surface word -> stem, phrase pairs (``search_text.record``)."""


def shard_key(word: str) -> str:
    """The shard a word (or stem) is in: its first two characters."""
    return word[:2]


def file_name(key: str) -> str:
    """A shard key as a file name: ``a-z`` and ``0-9`` as they are, any other
    character as ``_`` and its code point in hex (search.js ``fileName``)."""
    return "".join(c if ("a" <= c <= "z" or "0" <= c <= "9") else f"_{ord(c):x}" for c in key)


def pair_bucket(pair: str) -> int:
    """The bucket of a phrase pair: the CRC-32 of its UTF-8 bytes (zlib's: C speed
    for the ~200,000 pairs of 10,000 pages), modulo ``PAIR_BUCKETS`` (search.js ``pairBucket``)."""
    return zlib.crc32(pair.encode("utf-8")) % PAIR_BUCKETS


def pair_files(pair_docs: dict[str, list[int]]) -> dict[str, bytes]:
    """``search/p/<n>.json`` for the buckets some pair is in, from pair -> its docs in order."""
    # In the serial tail of a full build (~36,000 pairs at 10,000 realistic pages):
    # ``pair_bucket`` inlined, and the ~95 % of pairs in one page only keep their
    # one-doc list (its gap from 0 is the doc) instead of a copy: 0.57x the time.
    buckets: dict[int, dict[str, list[int]]] = {}
    crc32, count = zlib.crc32, PAIR_BUCKETS
    for pair, found in pair_docs.items():
        buckets.setdefault(crc32(pair.encode("utf-8")) % count, {})[pair] = (
            found if len(found) == 1 else [found[0], *map(sub, found[1:], found)])
    return {f"{FOLDER}/p/{bucket}.json": _dumps(gaps) for bucket, gaps in buckets.items()}


def _dumps(data) -> bytes:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8")


def assemble(records: Iterable[Record]) -> tuple[dict[str, dict], dict[str, int], dict[str, list[int]]]:
    """For a full build, in one pass over every page's record (doc id = its place;
    ``records`` may be a generator, so the pages' entries need not all be held at
    once): every shard as its file holds it (``{"p": stem -> flat gap-encoded
    postings, "w": word -> stem}``, by shard key), how many pages hold each surface
    word, and each phrase pair's docs (``Assembly``, fed every record at once)."""
    assembly = Assembly()
    for entries in records:
        assembly.add(entries)
    return assembly.result()


class Assembly:
    """``assemble`` a record at a time: ``add`` each page's record in doc order
    (as the render stage hands them over, so the work overlaps the page
    workers'), then ``result()`` once. Given each page's display data too
    (``add(..., shown)``), it also writes ``search/d/`` as each chunk fills
    (``doc_files``)."""

    def __init__(self, count_words: bool = True) -> None:
        self.flat: defaultdict[str, list[int]] = defaultdict(list)  # stem -> [doc, code, doc, code, ...]
        self.counts: Counter = Counter()
        self.count_words = count_words
        """Whether to count the pages holding each surface word (``result``'s second item; else empty)."""
        self.stems: dict[str, str] = {}
        self.pair_docs: defaultdict[str, list[int]] = defaultdict(list)
        self.docs = 0
        """Records added so far: the next one's doc id."""
        self._shown: list[list] = []  # display data of the docs since the last full chunk
        self._doc_files: dict[str, bytes] = {}

    def add(self, entries: Record, shown: list | None = None) -> None:
        """The next page's record (doc id ``self.docs``), and what its result
        shows (``cache.search.display``) when ``doc_files`` will be asked for."""
        # Each posting and pair is appended at C speed: map() over the page's stems
        # (a defaultdict's lookup makes a stem's list when new) with list.extend and
        # list.append, drained by any() (they return None); no Python step per posting.
        codes, surface, pairs = entries
        doc = self.docs
        any(map(list.extend, map(self.flat.__getitem__, codes), zip(repeat(doc), codes.values())))
        if self.count_words:
            self.counts.update(surface.keys())
        self.stems.update(surface)  # a word's stem is the same on every page
        any(map(list.append, map(self.pair_docs.__getitem__, pairs), repeat(doc)))
        self.docs = doc + 1
        if shown is not None:
            self._shown.append(shown)
            if len(self._shown) == CHUNK:
                self._doc_files.update(doc_files(self._shown, doc + 1 - CHUNK))
                self._shown = []

    def doc_files(self) -> dict[str, bytes]:
        """``search/d/`` (``doc_files``) of the docs added with their display data."""
        return {**self._doc_files, **doc_files(self._shown, self.docs - len(self._shown))}

    def result(self) -> tuple[dict[str, dict], dict[str, int], dict[str, list[int]]]:
        """What ``assemble`` returns, for the records added. Docs came in order,
        so each stem's list is gap-encoded by one subtraction of its docs shifted
        by one (no sorting). Call it once: the postings are encoded in place."""
        flat = self.flat
        for postings in flat.values():  # doc ids as gaps, in place: docs come in order
            docs = postings[0::2]
            postings[2::2] = list(map(sub, docs[1:], docs))
        out: dict[str, dict] = {}
        for stem, postings in flat.items():
            out.setdefault(shard_key(stem), {"p": {}, "w": {}})["p"][stem] = postings
        for word, stem in self.stems.items():
            out.setdefault(shard_key(word), {"p": {}, "w": {}})["w"][word] = stem
        return out, dict(self.counts), dict(self.pair_docs)


def affected(old: Record, new: Record) -> set[str]:
    """The shard keys whose files a page's change from ``old`` to ``new`` touches."""
    keys = {shard_key(s) for s in old[0].keys() | new[0].keys() if old[0].get(s) != new[0].get(s)}
    keys |= {shard_key(w) for w in old[1].keys() ^ new[1].keys()}
    return keys


def apply(states: dict[str, dict], doc: int, old: Record, new: Record) -> None:
    """Change page ``doc``'s entries from ``old`` to ``new`` in ``states`` (the
    states of at least ``affected(old, new)``; a missing one is made); shards
    left empty are removed from ``states``."""
    def state(key: str) -> dict:
        return states.setdefault(key, {"p": {}, "w": {}})

    for stem in old[0].keys() - new[0].keys():
        postings = state(shard_key(stem))["p"]
        postings[stem].pop(doc, None)
        if not postings[stem]:
            del postings[stem]
    for stem, code in new[0].items():
        if old[0].get(stem) != code:
            state(shard_key(stem))["p"].setdefault(stem, {})[doc] = code
    for word in old[1].keys() - new[1].keys():
        entries = state(shard_key(word))["w"]
        entries[word][1] -= 1
        if entries[word][1] <= 0:
            del entries[word]
    for word in new[1].keys() - old[1].keys():
        entry = state(shard_key(word))["w"].setdefault(word, [new[1][word], 0])
        entry[1] += 1
    for key in [k for k, s in states.items() if not s["p"] and not s["w"]]:
        del states[key]


def shard_file(state: dict) -> bytes:
    """A shard's file: its postings gap-encoded, its words' stems."""
    postings = {}
    for stem, docs in state["p"].items():
        flat, last = [], 0
        for doc in sorted(docs):
            flat += (doc - last, docs[doc])
            last = doc
        postings[stem] = flat
    return _dumps({"p": postings, "w": {word: entry[0] for word, entry in state["w"].items()}})


def manifest(keys: Iterable[str], count: int, pairs: Iterable[int]) -> bytes:
    """``search/index.json``: the shard keys and the phrase-pair buckets there are."""
    return _dumps({"chunk": CHUNK, "count": count, "keys": sorted(keys), "pairs": sorted(pairs),
                   "buckets": PAIR_BUCKETS, "version": VERSION})


def doc_files(docs: list[list], first: int = 0) -> dict[str, bytes]:
    """``search/d/<n>.json`` for the pages' display data, ``CHUNK`` per file
    (``docs`` from doc ``first``, a multiple of ``CHUNK``)."""
    return {f"{FOLDER}/d/{(first + start) // CHUNK}.json": _dumps(docs[start:start + CHUNK])
            for start in range(0, len(docs), CHUNK)}


def files(shard_map: dict[str, dict], docs: list[list] | int, pair_docs: dict[str, list[int]],
          shown: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """Every file under ``search/``, from ``assemble``'s shards and pairs and the
    pages' display data (or, ``shown``: how many pages, and their ``doc_files``)."""
    pairs = pair_files(pair_docs)
    buckets = [int(name.rsplit("/", 1)[1][:-len(".json")]) for name in pairs]
    count, shown = (len(docs), doc_files(docs)) if shown is None else (docs, shown)
    out = {f"{FOLDER}/index.json": manifest(shard_map, count, buckets), **shown, **pairs}
    for key, shard in shard_map.items():
        out[f"{FOLDER}/t/{file_name(key)}.json"] = _dumps(shard)
    return out
