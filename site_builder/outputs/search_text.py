"""What search reads of a page: its words, folded and stemmed, by field.

The client (``static/search.js``) folds and splits a query by the same rules
(``fold``, ``words``), so every rule here has its twin there; it never stems:
the index carries the stemmer's results (``record``'s ``words``: each surface
word -> its stem), so a word of the glossary finds its stem's pages exactly as
the build stemmed it (snowballstemmer, the Snowball project's own stemmers).

A page's fields, in rank order: title, aliases, summary (front matter), and
the body, section by section (the text under each heading, for the link to
the heading a body match sits under). Maths counts by its alttext (the LaTeX
source); code (``<pre>``, ``<code>``) is left out unless ``site.toml`` says
``search_code = true``.
"""

from __future__ import annotations

import collections
import functools
import html
import re
from itertools import repeat
from operator import add
from typing import Iterable


def count_into(counts: dict, items: Iterable) -> None:
    """``counts[item] += 1`` for each item (a new one counted from 0, first
    sightings in order): what ``collections._count_elements`` does, in Python."""
    get = counts.get
    for item in items:
        counts[item] = get(item, 0) + 1


_count_elements = getattr(collections, "_count_elements", count_into)
"""``Counter.update`` without its Python-level checks (in C): a private name
of ``collections``, so its public equivalent where it is missing."""


@functools.cache
def _marks() -> re.Pattern:
    """Combining marks dropped after NFKD (accents): "café" finds "cafe". The same
    ranges as search.js (not Unicode's whole M category, which the two sides'
    Unicode versions may draw differently). Compiled when non-ASCII text first
    needs it (as ``_ideographs``)."""
    return re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


WORD = re.compile(r"[^\W_]+")
"""A run of letters and digits (search.js: ``[\\p{L}\\p{N}]+``)."""

ASCII_WORD = re.compile(r"[a-z0-9]+")
"""``WORD`` on lower-case ASCII text (the same runs, found faster)."""

_ASCII_WORDS = bytes(c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 else 32 for c in range(256))
"""ASCII bytes lowered, anything but a letter or digit a space: ``split()`` then gives
``ASCII_WORD``'s runs of the lowered text, at C speed with no regex (~25 % less)."""

@functools.cache
def _ideographs() -> re.Pattern:
    """Kana and Han: written without spaces, so each character is a word of its own.
    Compiled when non-ASCII text first needs it: ~1.4 ms (its ranges make a large
    character map), for nothing in a process that indexes only ASCII."""
    return re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

MAX_WORD = 40
"""Longer runs (hashes, base64) are not words anyone types: not indexed."""

TITLE, ALIAS, SUMMARY = 60, 50, 30
"""A posting's score by the field it matched in; a body scores its count, at most ``BODY_MAX``."""
BODY_MAX = 20

LANGUAGES = {"en": "english", "fr": "french", "de": "german", "es": "spanish", "it": "italian",
             "nl": "dutch", "pt": "portuguese", "sv": "swedish", "da": "danish", "no": "norwegian",
             "nb": "norwegian", "fi": "finnish", "ru": "russian", "tr": "turkish", "hu": "hungarian",
             "ro": "romanian"}
"""The site's ``language`` (its primary subtag) -> the Snowball stemmer used; others are not stemmed."""

_CASES = {"p": "Pp", "r": "Rr", "e": "Ee", "c": "Cc", "o": "Oo", "d": "Dd", "s": "Ss\u017f", "i": "Ii\u0130\u0131",
          "t": "Tt", "y": "Yy", "l": "Ll"}
"""What each letter of the skipped tags' names matches under ``re.I`` (the
long s and the Turkish i's too): as classes, the opening tag's name is matched
without ``re.I``'s case folding of every character tried (~0.8x the time);
the closing tag is the backreference under ``re.I``, as before."""


def _tags(*names: str) -> re.Pattern:
    r"""``<(name|...)\b[^>]*>.*?</\1\s*>``, dot-all, matching as it did compiled with ``re.I``."""
    alternatives = "|".join("".join(f"[{_CASES[c]}]" for c in name) for name in names)
    return re.compile(rf"<({alternatives})\b[^>]*>.*?</(?i:\1)\s*>", re.S)


_SKIPPED = _tags("pre", "code", "script", "style")
_SCRIPTS = _tags("script", "style")
_MATH = re.compile(r"<math\b([^>]*)>.*?</math\s*>", re.S | re.I)
_ALTTEXT = re.compile(r'\balttext="([^"]*)"')
_HEADING = re.compile(r'<h([1-6])\b[^>]*?\bid="([^"]*)"[^>]*>', re.I)
_HEADING_SPLIT = re.compile(r'<h[1-6]\b[^>]*?\bid="([^"]*)"[^>]*>', re.I)
"""``_HEADING`` with the id its one group: ``split`` gives [text, id, text, id, ..., text]."""
_IMAGE = re.compile(r'<img\b[^>]*?\balt="([^"]*)"[^>]*>')
_TAG = re.compile(r"<[^>]*>")


def fold(text: str) -> str:
    """Lower case, compatibility forms and accents folded (search.js ``fold``)."""
    if text.isascii():
        return text.lower()
    import unicodedata
    return _marks().sub("", unicodedata.normalize("NFKD", text).lower())


def words(text: str) -> list[str]:
    """The folded words of ``text``, in order; a kana or Han character is a word alone."""
    if text.isascii():
        found = text.encode().translate(_ASCII_WORDS).decode().split()
    else:
        folded = fold(text)
        found = WORD.findall(folded)
        if _ideographs().search(folded):  # else no word has a piece to split off: one call per word saved
            found = [piece for word in found for piece in _split_ideographs(word)]
    if found and max(map(len, found)) > MAX_WORD:
        found = [word for word in found if len(word) <= MAX_WORD]
    return found


def _split_ideographs(word: str) -> Iterable[str]:
    if not _ideographs().search(word):
        return (word,)
    return [piece for piece in re.split(f"({_ideographs().pattern})", word) if piece]


class Stemmer:
    """A Snowball stemmer for the site's language (a stem per distinct word).

    ``stems`` (word -> stem, for instance as an earlier build made them) saves the
    stemming and, while every word is in it, even importing the stemmers (~20 ms);
    every word stemmed is added to it."""

    def __init__(self, language: str, stems: dict[str, str] | None = None):
        self.name = LANGUAGES.get(language.split("-")[0].lower())
        self._stem = None
        self.stems: dict[str, str] = stems if stems is not None else {}

    def __call__(self, word: str) -> str:
        stem = self.stems.get(word)
        if stem is None:
            stem = word
            if self.name and len(word) > 2 and word.isalpha() and (word.isascii() or not _ideographs().search(word)):
                if self._stem is None:
                    self._stem = snowball(self.name).stemWord
                stem = fold(self._stem(word)) or word
            self.stems[word] = stem
        return stem


_STEMMERS = "_site_builder_snowball"
"""The private name snowballstemmer's folder is imported under by ``snowball`` (one language's module alone)."""


def snowball(name: str):
    """``snowballstemmer.stemmer(name)``, the same class from the same file,
    with only that language's module imported.

    ``import snowballstemmer`` imports all of its ~36 stemmers (20-90 ms, the
    Armenian one most of it), a cost every build that stems a new word paid,
    an edit included. Its folder is imported here under a private package name
    (its ``__init__`` not run, ``snowballstemmer`` itself left alone for
    anyone else: Sphinx), and the class is named as its ``__init__`` names it
    (``dutch_porter`` -> ``dutch_porter_stemmer.DutchPorterStemmer``). When
    PyStemmer is installed, or snowballstemmer is imported already, or its
    layout is not that one, ``snowballstemmer.stemmer`` decides, as before."""
    import importlib
    import importlib.util
    import sys
    import types

    if "snowballstemmer" not in sys.modules and importlib.util.find_spec("Stemmer") is None:
        found = importlib.util.find_spec("snowballstemmer")
        if found is not None and found.submodule_search_locations:
            package = sys.modules.get(_STEMMERS)
            if package is None:
                package = types.ModuleType(_STEMMERS)
                package.__path__ = list(found.submodule_search_locations)
                sys.modules[_STEMMERS] = package
            try:
                module = importlib.import_module(f"{_STEMMERS}.{name}_stemmer")
                return getattr(module, "".join(part.capitalize() for part in name.split("_")) + "Stemmer")()
            except (ImportError, AttributeError):
                pass
    import snowballstemmer
    return snowballstemmer.stemmer(name)


def body_sections(body_html: str, heading_ids: list[str], code: bool = False) -> list[str]:
    """The text of a body per section: [before the first heading, under heading 1, ...],
    one per ``heading_ids`` entry plus one; a heading's own text is in its section."""
    text = body_html
    if "<pre" in text or "<code" in text or "<script" in text or "<style" in text:
        text = (_SCRIPTS if code else _SKIPPED).sub(" ", text)
    if "<math" in text:
        text = _MATH.sub(lambda m: " " + (_alttext(m.group(1))) + " ", text)
    if "<img" in text:  # an image's alt text is searched with the term's words (docs/content.md)
        text = _IMAGE.sub(lambda m: " " + html.unescape(m.group(1)) + " ", text)
    index = {ident: i + 1 for i, ident in enumerate(heading_ids)}
    sections = [""] * (len(heading_ids) + 1)
    at, position = 0, 0
    for match in _HEADING.finditer(text):
        sections[position] += " " + text[at:match.start()]
        position = index.get(match.group(2), position)
        at = match.end()
    sections[position] += " " + text[at:]
    sections = [_TAG.sub(" ", part) for part in sections]
    return [html.unescape(part) if "&" in part else part for part in sections]


def body_counts(body_html: str, heading_ids: list[str], code: bool = False) -> tuple[dict[str, int], list[int]]:
    """The words of ``body_sections``, counted: word -> count, in order of first
    sighting (section by section), and 64 * the section of each one's first
    sighting, in the same order. The same as counting ``words`` of each of
    ``body_sections`` in turn, with fewer passes: the body is cut at its
    headings by one ``split`` (when they are ``heading_ids``, in order, each
    once: else as ``body_sections`` does), and each section's words are counted
    into one dict as they are split (docs/performance.md, "Search index (issue
    40, eighth round)")."""
    text = body_html
    if "<pre" in text or "<code" in text or "<script" in text or "<style" in text:
        text = (_SCRIPTS if code else _SKIPPED).sub(" ", text)
    if "<math" in text:
        text = _MATH.sub(lambda m: " " + (_alttext(m.group(1))) + " ", text)
    if "<img" in text:
        text = _IMAGE.sub(lambda m: " " + html.unescape(m.group(1)) + " ", text)
    parts = _HEADING_SPLIT.split(text)
    if parts[1::2] == heading_ids and len(set(heading_ids)) == len(heading_ids):
        parts = parts[0::2]  # heading i starts section i + 1: body_sections' mapping, without its loop
    else:
        index = {ident: i + 1 for i, ident in enumerate(heading_ids)}
        sections, position = [""] * (len(heading_ids) + 1), 0
        for i in range(0, len(parts), 2):
            sections[position] += " " + parts[i]
            if i + 1 < len(parts):
                position = index.get(parts[i + 1], position)
        parts = sections
    counts: dict[str, int] = {}
    firsts: list[int] = []
    tag, unescape, table = _TAG.sub, html.unescape, _ASCII_WORDS
    for position, part in enumerate(parts):
        part = tag(" ", part)
        if "&" in part:
            part = unescape(part)
        # words(part), its MAX_WORD filter left to the end (over the distinct words only)
        _count_elements(counts, part.encode().translate(table).decode().split() if part.isascii() else words(part))
        if len(counts) > len(firsts):
            firsts += repeat(64 * position, len(counts) - len(firsts))
    if counts and max(map(len, counts)) > MAX_WORD:
        kept = [(word, count, first) for (word, count), first in zip(counts.items(), firsts) if len(word) <= MAX_WORD]
        counts, firsts = {word: count for word, count, _ in kept}, [first for _, _, first in kept]
    return counts, firsts


def _alttext(attributes: str) -> str:
    found = _ALTTEXT.search(attributes)
    return html.unescape(found.group(1)) if found else ""


def record(title: str, aliases: list[str], summary: str, sections: list[str],
           stem: Stemmer) -> tuple[dict[str, int], dict[str, str], list[str]]:
    """One page's index entries: (stem -> code, surface word -> stem for words
    that differ, the phrase pairs: ``pairs`` of its title, aliases and summary).

    A code is ``score + 64 * where``: the best field's score (``TITLE``,
    ``ALIAS``, ``SUMMARY`` plus its count up to 5, or the body count up to
    ``BODY_MAX``), and where it is: the alias's index for an alias, for the
    body the section of its first occurrence (0: before the first heading),
    else 0."""
    # The body: words counted section by section (a dict counted into keeps first
    # sightings in order, so the words a section adds are the last ones counted:
    # their section comes as one ``repeat``).
    counts: dict[str, int] = {}
    firsts: list[int] = []  # 64 * the section of each counted word's first sighting
    for position, text in enumerate(sections):
        _count_elements(counts, words(text))
        firsts += repeat(64 * position, len(counts) - len(firsts))
    return counted_record(title, aliases, summary, counts, firsts, len(sections), stem)


def body_record(title: str, aliases: list[str], summary: str, body_html: str, heading_ids: list[str],
                stem: Stemmer, code: bool = False) -> tuple[dict[str, int], dict[str, str], list[str]]:
    """``record`` of a page from its body's HTML: the same entries as
    ``record(..., body_sections(body_html, heading_ids, code), stem)``, by ``body_counts``."""
    counts, firsts = body_counts(body_html, heading_ids, code)
    return counted_record(title, aliases, summary, counts, firsts, len(heading_ids) + 1, stem)


_SUMMARY_CODES = tuple(SUMMARY + min(count, 5) for count in range(6))
"""A summary's code by its count of a stem, up to 5."""


def counted_record(title: str, aliases: list[str], summary: str, counts: dict[str, int], firsts: list[int],
                   sections: int, stem: Stemmer) -> tuple[dict[str, int], dict[str, str], list[str]]:
    """``record`` from the body's words counted (``body_counts``: word -> count in
    order of first sighting, 64 * the section of each one's first sighting) of
    its ``sections`` sections."""
    # Stems, surface words and codes are made over whole lists at C speed (map,
    # zip, dict); a Python step per word only for the memo's misses and for the
    # stems two words share.
    stems = stem.stems
    title_words, alias_words, summary_words = words(title), [words(alias) for alias in aliases], words(summary)
    body_roots = list(map(stems.get, counts))
    if None in body_roots:  # words the memo lacks: stemmed in order
        for word in counts:
            if word not in stems:
                stem(word)
        body_roots = list(map(stems.__getitem__, counts))
    surface = {word: root for word, root in zip(counts, body_roots) if word != root}
    best = dict(zip(body_roots, map(add, counts.values(), firsts)))
    tally: dict[str, int] = counts
    where: dict[str, int] | None = None
    if len(best) != len(body_roots):  # words sharing a stem: counts add up, the first section wins
        tally, where = {}, {}
        for word, root, at in zip(counts, body_roots, firsts):
            tally[root] = tally.get(root, 0) + counts[word]
            where[root] = min(where.get(root, at), at)
        best = dict(zip(tally, map(add, tally.values(), where.values())))
    if best and max(tally.values()) > BODY_MAX:  # a body's count scores at most BODY_MAX
        if where is None:
            tally, where = dict(zip(body_roots, counts.values())), dict(zip(body_roots, firsts))
        for root, count in tally.items():
            if count > BODY_MAX:
                best[root] = BODY_MAX + where[root]
    # Then the summary, the aliases (the first alias a stem is in names it) and
    # the title, each field's codes written over the lower-ranked fields'.
    alias_words.reverse()
    fields = (summary_words, *alias_words, title_words)
    for text in fields:
        if None in map(stems.get, text):
            for word in text:
                if word not in stems:
                    stem(word)
    last = len(fields) - 1
    for i, text in enumerate(fields):
        found: dict[str, int] = {}
        _count_elements(found, text)
        roots = list(map(stems.__getitem__, found))
        surface.update({word: root for word, root in zip(found, roots) if word != root})
        if i == last:
            best.update(zip(roots, repeat(TITLE)))
        elif i:
            best.update(zip(roots, repeat(ALIAS + 64 * (last - 1 - i))))
        elif len(set(roots)) == len(roots):
            best.update(zip(roots, map(_SUMMARY_CODES.__getitem__, map(min, found.values(), repeat(5)))))
        else:  # summary words sharing a stem: their counts add up
            shared: dict[str, int] = {}
            for root, count in zip(roots, found.values()):
                shared[root] = shared.get(root, 0) + count
            best.update(zip(shared, map(_SUMMARY_CODES.__getitem__, map(min, shared.values(), repeat(5)))))
    found_pairs: set[str] = set()
    for text in fields[::-1]:
        roots = list(map(stems.__getitem__, text))
        found_pairs.update(map(" ".join, zip(roots, roots[1:])))
    return best, surface, sorted(found_pairs)


def pairs(texts: list[list[str]], stem: Stemmer) -> list[str]:
    """The adjacent word pairs of ``texts`` (each a list of ``words``; no pair
    spans two), as "stem stem", sorted: what a query's words in that order are
    looked up as (search.js ``pairKeys``). Only the title, aliases and summary
    give pairs: those of every body would outweigh the index itself (docs/search.md)."""
    found: set[str] = set()
    for text in texts:
        roots = [stem.stems.get(word) or stem(word) for word in text]
        found.update(f"{a} {b}" for a, b in zip(roots, roots[1:]))
    return sorted(found)
