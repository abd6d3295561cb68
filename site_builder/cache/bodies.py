"""The markup stage, memoised: bodies whose key is in the cache are not rendered again.

A body's key hashes everything its HTML depends on (the code, the config
flags, the name index, the body and its first line), so a cached body can be
missing but never stale. With autolinks (``autolink = "first"``) a body
depends on its own slug and on every name it may mention, and on no other:
its key takes, instead of the whole index, the names whose first word (or
its plural) is a word of the body (``mentions_material``), so renaming a term
renders again exactly the bodies that mention its old or new name. The stage itself (``markup.stage``) knows nothing
of this: it is handed the bodies there is no entry for.
"""

from __future__ import annotations

import functools
import html
import marshal
import pickle
import re
from typing import Callable, Mapping

from ..load.config import SiteConfig
from ..load import media
from ..load.content import Term
from ..markup.autolink import singulars
from ..markup.render import RenderedBody
from ..markup.stage import render_bodies
from ..names import NameIndex
from . import store as cache

TABLE = "markdown"
"""Cache table: body key -> the body's record without its HTML (kept as blobs),
``packed``: (whether it has problems, the record marshalled)."""


def packed(record: tuple) -> tuple:
    """A body's record as ``TABLE`` keeps it: (whether it has problems, its bytes).

    An edit reads the whole table but looks at a few records (the edited body,
    the anchors its links name, the pages rendered again) and at whether any
    has problems: kept as bytes, the table of 10,000 realistic bodies loads in
    ~7 ms instead of ~50-75 ms (its lists of anchors, links and headings are
    made only for the records asked for: ``unpacked``). A full build over a
    warm cache unpacks them all (~+30 ms at 10,000).

    A record marshal cannot store (a subclass of str, say, which Python-Markdown
    makes) is pickled instead, marked by a third item, as the store itself
    falls back (``store._write``): slower, never a failed build."""
    try:
        return bool(record[2]), marshal.dumps(record)
    except ValueError:  # an object marshal refuses
        return bool(record[2]), pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL), "pickle"


def unpacked(entry: tuple | None) -> tuple | None:
    """The record ``packed`` made (None for None)."""
    if entry is None:
        return None
    return pickle.loads(entry[1]) if len(entry) > 2 else marshal.loads(entry[1])


def shared_body_key(config: SiteConfig, names: NameIndex, reserved_ids: frozenset[str]) -> str:
    """The part of every body key that is the same across the site: code, config,
    names (without autolinks; with them each body's own, ``body_key``), and the
    ids the page reserves around a body."""
    settings = (config.pretty_urls, config.allow_raw_html, sorted(reserved_ids), config.media_max_mb,
                config.autolink_unit_or_none)
    return cache.key(cache.code_version(), repr(settings),
                     "" if config.autolink_unit_or_none else names.digest_material())


def body_key(shared: str, term: Term, mentions: Callable[[str], str] | None = None) -> str:
    """The cache key of ``term``'s rendered body, given ``shared_body_key`` and, with
    autolinks, ``mentions_material`` (``body_mentions``); with what its files are
    (``load.media.material``), so a changed image renders again exactly the bodies
    that refer to it."""
    parts = [shared, term.body, str(term.body_line)]
    if term.media:
        parts.append(media.material(term.media))
    if mentions is not None:
        parts += [term.slug, mentions(term.body)]
    return cache.key(*parts)


def body_mentions(config: SiteConfig, names: NameIndex) -> Callable[[str], str] | None:
    """With autolinks, ``mentions_material`` of ``names``; None without (the shared key has them all)."""
    return mentions_material(names) if config.autolink_unit_or_none else None


def body_keys(terms: list[Term], config: SiteConfig, names: NameIndex, reserved_ids: frozenset[str]) -> dict[str, str]:
    """slug -> cache key of its rendered body: everything the HTML depends on."""
    shared = shared_body_key(config, names, reserved_ids)
    mentions = body_mentions(config, names)
    return {t.slug: body_key(shared, t, mentions) for t in terms}


_WORD_RE = re.compile(r"[^\W_]+")


@functools.lru_cache(maxsize=4)
def mentions_material(names: NameIndex) -> Callable[[str], str]:
    """body -> a stable text of the part of ``names`` the body's HTML can depend on.

    A name can match (autolinks, ``[[...]]``: ``autolink.TermMatcher``,
    ``NameIndex.resolve``) only where the body holds each of its words (its last
    perhaps as a plural), and a ``slug.md`` link only where it holds the slug's
    words: those entries, plus the few names with no word at all. Each entry is
    filed under its rarest word, so a body tries few. Entities are read both as
    written and decoded."""
    entries = [(f"{key}\t{slug}", key) for key, slug in names.by_name.items()]
    entries += [(f"slug\t{slug}", slug.casefold()) for slug in names.slugs]
    worded = [(entry, frozenset(_WORD_RE.findall(text))) for entry, text in entries]
    frequency: dict[str, int] = {}
    for _entry, words in worded:
        for word in words:
            frequency[word] = frequency.get(word, 0) + 1
    by_word: dict[str, list[tuple[str, frozenset[str]]]] = {}
    always: list[str] = []
    for entry, words in worded:
        if words:
            by_word.setdefault(min(words, key=lambda w: (frequency[w], w)), []).append((entry, words))
        else:
            always.append(entry)

    def material(body: str) -> str:
        text = body.casefold()
        if "&" in text:
            text += "\n" + html.unescape(text).casefold()
        forms: set[str] = set()
        for word in set(_WORD_RE.findall(text)):
            forms.update(singulars(word))
            forms.add(word + "s")
        found = set(always)
        for form in forms:
            for entry, words in by_word.get(form, ()):
                if words <= forms:
                    found.add(entry)
        return "\n".join(sorted(found))
    return material


def render_cached(
    terms: list[Term],
    config: SiteConfig,
    names: NameIndex,
    store: "cache.BuildCache | None",
    jobs: int = 1,
    meanwhile: Callable[[], None] = lambda: None,
    reserved_ids: frozenset[str] = frozenset(),
) -> tuple[dict[str, RenderedBody], dict[str, str]]:
    """(slug -> rendered body, slug -> body key) for every term, reusing cached bodies.

    The bodies not in the cache are rendered by the markup stage, by
    ``jobs - 1`` forked workers and this process (``parallel.share``);
    ``meanwhile()`` runs here first, while the workers start (before
    rendering, when there are no workers). ``reserved_ids``: as for
    ``markup.stage.render_bodies``.

    Without a ``store`` nothing is cached, and no keys are computed (the dict is empty).

    Bodies taken from the cache are ``StoredBody``: most pages are reused
    whole, so their HTML is read from the store only when asked for, and
    ``fill_html`` reads it at once for the pages that are rendered again.
    """
    cached = store.table(TABLE) if store is not None else {}
    results: dict[str, RenderedBody] = {}
    keys: dict[str, str] = {}
    if cached:
        keys = body_keys(terms, config, names, reserved_ids)
        fetch = stored_html(terms, keys, config, store, reserved_ids)
        # Each record unpacked makes its lists: long-lived, no cyclic garbage. The
        # collector walked them again and again as they grew (~2x the time at 10,000).
        with cache.collector_paused():
            for term in terms:
                entry = cached.get(keys[term.slug])
                if entry is not None:
                    results[term.slug] = StoredBody.kept(unpacked(entry), term.slug, fetch)
        todo = [t for t in terms if t.slug not in results]
        fresh = render_bodies(todo, config, names, jobs, meanwhile=meanwhile, reserved_ids=reserved_ids)
    else:
        # Nothing to reuse (a cold build): hash the bodies while the workers render
        # them; without a store (--no-cache, check) nothing would keep the keys.
        todo = terms
        def key_all() -> None:
            if store is not None:
                keys.update(body_keys(terms, config, names, reserved_ids))
            meanwhile()

        fresh = render_bodies(todo, config, names, jobs, meanwhile=key_all, reserved_ids=reserved_ids)
    results.update(fresh)
    if store is not None and todo:
        store.save_table(TABLE, {keys[slug]: packed(body.to_record()) if slug in fresh else cached[keys[slug]]
                                 for slug, body in results.items()})
        store.blobs.put_many({keys[slug]: body.html for slug, body in fresh.items()}, live=set(keys.values()))
    return results, keys


class StoredHtml:
    """A body kept by the cache: its HTML read from the store the first time it
    is asked for (``fill_html`` reads many at once, before workers fork)."""

    _html: str | None = None
    _slug: str = ""
    _fetch: Callable[[list[str]], dict[str, str]] | None = None

    @property
    def html(self) -> str:
        if self._html is None:
            self._html = self._fetch([self._slug])[self._slug]
        return self._html

    @html.setter
    def html(self, value: str | None) -> None:
        self._html = value

    @property
    def html_read(self) -> bool:
        """Whether the HTML has been read from the store yet."""
        return self._html is not None


class StoredBody(StoredHtml, RenderedBody):
    """A ``RenderedBody`` kept by the cache (see ``StoredHtml``)."""

    @classmethod
    def kept(cls, record: tuple, slug: str, fetch: Callable[[list[str]], dict[str, str]]) -> "StoredBody":
        """The body ``record`` describes, its HTML given by ``fetch([slug])`` when asked for."""
        body = cls.from_record(record, None)  # type: ignore[arg-type]  (read later)
        body._slug, body._fetch = slug, fetch
        return body


def stored_html(terms: list[Term], keys: Mapping[str, str], config: SiteConfig, store: "cache.BuildCache | None",
                reserved_ids: frozenset[str] = frozenset()) -> Callable[[list[str]], dict[str, str]]:
    """slugs -> their bodies' HTML: from the store, or rendered again if it lost them."""
    def fetch(slugs: list[str]) -> dict[str, str]:
        stored = store.blobs.get_many([keys[slug] for slug in slugs]) if store is not None else {}
        found = {slug: stored[keys[slug]] for slug in slugs if stored.get(keys[slug]) is not None}
        lost = set(slugs) - found.keys()
        if lost:
            again = render_bodies([t for t in terms if t.slug in lost], config, NameIndex(terms), jobs=1,
                                  reserved_ids=reserved_ids)
            found.update((slug, body.html) for slug, body in again.items())
        return found
    return fetch


def fill_html(slugs: list[str], bodies: Mapping[str, RenderedBody]) -> None:
    """Read the HTML of the stored bodies among ``slugs`` now, in one query (the
    pages about to be rendered, before the workers fork)."""
    waiting: dict[Callable, list[str]] = {}
    for slug in slugs:
        body = bodies[slug]
        if isinstance(body, StoredHtml) and not body.html_read:
            waiting.setdefault(body._fetch, []).append(slug)
    for fetch, some in waiting.items():
        for slug, html in fetch(some).items():
            bodies[slug].html = html
