"""Autolinks: the first mention of a term or alias becomes a link (``autolink = "first"``).

One module for the three places that link mentions: the glossary's own
bodies (``markup.render``), the Python-Markdown extension and the MkDocs
plugin (``integrations.mdext``, which the plugin drives). Each hands in the
names to look for and a function that makes the link; the rules are here:

- a mention is a title or alias, in any case, as whole words (a hyphen joins
  words: ``pre-model`` holds no ``model``), with simple plurals (``models``,
  ``policies``, ``boxes``); at one place the longest name wins;
- "first" is per page, or per section (``unit = "section"``: each ``##``
  heading starts a new count); a term already linked in the unit (by hand) is
  not linked again there;
- never touched: code, headings, existing links, maths (``$...$``,
  ``\\(...\\)``, MathML, arithmatex), image alt text (an attribute), raw HTML,
  and the term's own page; nor the text between inline raw HTML tags that
  hold code, links or maths, or that autolinks do not know (``_RawTags``);
- ``<!--no-autolink-->`` right before a mention leaves that one mention as
  text (the next one is linked): an HTML comment, invisible in any markdown
  renderer. ``markup.mentions`` finds the same mentions in markdown source,
  with their lines, for ``check --links-in``.
"""

from __future__ import annotations

import functools
import posixpath
import re
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator
from urllib.parse import unquote, urlsplit

from markdown.treeprocessors import Treeprocessor

from ..names import NameIndex

UNITS = ("page", "section")
"""What "first" counts in: the whole page, or each ``##`` section."""
MARKER_RE = re.compile(r"<!--\s*no-autolink\s*-->", re.IGNORECASE)
"""The opt-out for one mention (docs/linking.md)."""
PRIORITY = 1
"""After the inline patterns (20), toc (5) and attribute lists (8); before the
glossary's link pass and unescaping (0), which finish the links it makes."""

_WORD_RE = re.compile(r"[^\W_]+")
_SEPARATOR_RE = re.compile(r"[\s_-]+")
_STASHED_RE = re.compile(r"\x02[^\x02\x03]*\x03")
"""Python-Markdown's placeholders (stashed HTML, escaped characters): never part of a mention."""
_MATH_RE = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?![\s$])(?:\\\$|[^$\n])+?(?<![\s\\])\$(?!\d)"
                      r"|\\\(.+?\\\)|\\\[.+?\\\]"
                      r"|\x0240\x03.+?\x0241\x03|\x0291\x03.+?\x0293\x03", re.DOTALL)
"""Maths as text: ``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]`` (also as Python-Markdown
leaves the escaped brackets: placeholders of ``(`` and ``[``)."""
_SKIP_TAGS = frozenset({"a", "code", "pre", "kbd", "samp", "script", "style", "math", "svg", "textarea",
                        "h1", "h2", "h3", "h4", "h5", "h6"})
_SKIP_CLASSES = frozenset({"arithmatex", "math", "katex", "no-autolink"})
_LINKABLE_TAGS = frozenset({
    "span", "em", "strong", "b", "i", "u", "s", "mark", "small", "sub", "sup", "del", "ins", "q", "cite",
    "abbr", "bdi", "bdo", "time", "data", "div", "p", "blockquote", "ul", "ol", "li", "dl", "dt", "dd",
    "figure", "figcaption", "table", "thead", "tbody", "tfoot", "tr", "td", "th", "caption", "section",
    "article", "aside", "header", "footer", "details"})
"""Raw HTML elements a link may go in. Any other (``button``, ``summary``, a custom
element...) is skipped like code: a link there may be invalid or change what it does."""
_VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                        "track", "wbr"})
_RAW_TAG_RE = re.compile(r"<!--.*?-->|<(/?)([A-Za-z][\w:.-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.DOTALL)
_CLASS_RE = re.compile(r"""\sclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.IGNORECASE)
_PLACEHOLDER_RE = re.compile(r"\x02wzxhzdk:(\d+)\x03")


@functools.lru_cache(maxsize=65536)
def singulars(word: str) -> frozenset[str]:
    """``word`` and what it may be the plural of (as ``names.NameIndex.resolve`` reads plurals)."""
    found = {word}
    for suffix, replacement in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix):
            found.add(word[: -len(suffix)] + replacement)
    return frozenset(found)


def _plurals(word: str) -> set[str]:
    """The words ``singulars`` maps back to ``word``."""
    return {word, word + "s", word + "es"} | ({word[:-1] + "ies"} if word.endswith("y") and len(word) > 1 else set())


@functools.lru_cache(maxsize=65536)  # bounded: a long `serve` sees many glossaries
def _name_pattern(name: str) -> re.Pattern | None:
    """A whole-word, any-case pattern for ``name`` and its simple plurals."""
    parts = [p for p in _SEPARATOR_RE.split(name.strip()) if p]
    if not parts:
        return None
    last = parts[-1]
    if last[-1:].isalpha() and last[-1:].lower() == "y" and len(last) > 1:
        ending = re.escape(last[:-1]) + "(?:y|ies)"
    elif last[-1:].isalpha():
        ending = re.escape(last) + "(?:s|es)?"
    else:
        ending = re.escape(last)
    body = r"[\s_-]+".join([*map(re.escape, parts[:-1]), ending])
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


class TermMatcher:
    """Finds mentions of a set of names (``(name, slug)`` pairs) in text, longest first."""

    def __init__(self, entries: Iterable[tuple[str, str]]):
        # Keyed by the name's first word, and its second when it has one: at a place in
        # the text only the names starting with the words there are tried (a glossary
        # whose titles share a first word, "Model ...", still tries few).
        by_start: dict[tuple[str, str | None], dict[str, tuple[int, str, str, str]]] = {}
        for name, slug in entries:
            words = _WORD_RE.findall(name.casefold())
            if words:  # compiled when first needed: a big glossary's bodies mention few of its names
                start = (words[0], words[1] if len(words) > 1 else None)
                by_start.setdefault(start, {}).setdefault(name.casefold(), (-len(name), name.casefold(), name, slug))
        # Longest name first, then by name: the same text always links the same way.
        self._by_start = {start: [(n, s) for _l, _k, n, s in sorted(found.values(), key=lambda e: e[:2])]
                          for start, found in by_start.items()}
        # Every word a name can start with as written in text (plurals included): most
        # words of a text are none of these and are passed over with one look-up.
        self._starts = {form for first, _second in self._by_start for form in _plurals(first)}

    def __bool__(self) -> bool:
        return bool(self._by_start)

    def find(self, text: str) -> Iterator[tuple[int, int, str]]:
        """(start, end, slug) of each mention in ``text``, left to right, not overlapping."""
        if not self._by_start:
            return
        scan = _masked(text)
        words = list(_WORD_RE.finditer(scan))
        folded = [word.group().casefold() for word in words]
        by_start = self._by_start
        at = 0
        starts = self._starts
        for index, word in enumerate(words):
            if word.start() < at or folded[index] not in starts:
                continue
            # A one-word name may be plural here; a longer one's first word is as written,
            # its second plural only when it is its last.
            candidates = [c for w in singulars(folded[index]) for c in by_start.get((w, None), ())]
            if index + 1 < len(words):
                first = folded[index]
                candidates += [c for w in singulars(folded[index + 1]) for c in by_start.get((first, w), ())]
            found = None
            for name, slug in candidates:
                pattern = _name_pattern(name)
                match = pattern.match(scan, word.start()) if pattern else None
                if match and (found is None or match.end() > found[1]):
                    found = (match.start(), match.end(), slug)
            if found:
                at = found[1]
                yield found


def _masked(text: str) -> str:
    """``text`` with maths and placeholders blanked (same length), so nothing there matches.
    Maths first: Python-Markdown leaves ``\\(...\\)`` as placeholders of the brackets."""
    if "$" in text or "\\" in text or "\x02" in text:
        text = _MATH_RE.sub(lambda m: " " * len(m.group()), text)
    if "\x02" in text:
        text = _STASHED_RE.sub(lambda m: " " * len(m.group()), text)
    return text


def _skipped(element: etree.Element) -> bool:
    if not isinstance(element.tag, str) or element.tag in _SKIP_TAGS:
        return True
    classes = element.get("class")
    return bool(classes) and not _SKIP_CLASSES.isdisjoint(classes.split())


def _raw_skipped(name: str, attributes: str) -> bool:
    """Whether autolinks stay out of a raw HTML element opened as ``<name attributes>``."""
    if name in _SKIP_TAGS or name not in _LINKABLE_TAGS:
        return True
    classes = _CLASS_RE.search(attributes)
    return bool(classes) and not _SKIP_CLASSES.isdisjoint("".join(g or "" for g in classes.groups()).split())


class _RawTags:
    """The raw HTML elements open at a point of a document, followed in document order.

    Python-Markdown stashes each inline raw tag alone, so ``<code>Model</code>``
    reaches the tree as text between two placeholders; the text is only known to
    be inside the code by following the tags. ``open`` holds the skipped elements
    open and what opened inside them (a closing tag closes up to its opening one;
    one never closed keeps the rest of the document unlinked: the safe side)."""

    def __init__(self, stash):
        self.stash, self.open = stash, []

    def blank(self, text: str) -> str:
        """``text`` (same length, NULs kept) with what lies inside a skipped raw element as spaces."""
        if not self.open and "\x02" not in text:
            return text
        pieces, at = [], 0
        for placeholder in _PLACEHOLDER_RE.finditer(text):
            pieces += [self._hide(text[at:placeholder.start()]), placeholder.group()]
            self._follow(int(placeholder.group(1)))
            at = placeholder.end()
        pieces.append(self._hide(text[at:]))
        return "".join(pieces)

    def _hide(self, text: str) -> str:
        return re.sub(r"[^\x00]", " ", text) if self.open else text

    def _follow(self, index: int) -> None:
        blocks = self.stash.rawHtmlBlocks
        raw = blocks[index] if index < len(blocks) else None
        if not isinstance(raw, str):  # an element stashed whole opens nothing
            return
        for tag in _RAW_TAG_RE.finditer(raw):
            closing, name, attributes = tag.groups()
            if name is None:  # a comment
                continue
            name = name.lower()
            if closing:
                if name in self.open:
                    del self.open[len(self.open) - 1 - self.open[::-1].index(name):]
            # "/>" is ignored, as HTML does on a non-void element.
            elif name not in _VOID_TAGS and (self.open or _raw_skipped(name, attributes)):
                self.open.append(name)


@dataclass
class UnitCount:
    """The count of one page or section: terms linked or mentioned, and a pending opt-out."""

    done: set[str]
    skip_next: bool = False


def unmarked(raw: str, find: Callable[[str], Iterator[tuple[int, int, str]]],
             unit: UnitCount) -> Iterator[tuple[int, int, str]]:
    """The mentions ``find`` sees in ``raw`` (opt-out markers as NULs) but the one after
    each marker, which stays text and is not counted; a marker with no mention after
    it in ``raw`` passes to the next text (``unit.skip_next``)."""
    markers = [at for at, char in enumerate(raw) if char == "\x00"] if "\x00" in raw else []
    for start, end, slug in find(raw.replace("\x00", " ") if markers else raw):
        if unit.skip_next or (markers and markers[0] < start):
            markers = [m for m in markers if m > start]
            unit.skip_next = False
            continue
        yield start, end, slug
    unit.skip_next = unit.skip_next or bool(markers)


class AutolinkProcessor(Treeprocessor):
    """Links the first mention of each term per unit (see the module's docstring).

    ``matcher()`` gives the names to look for (asked per document: a glossary
    may be read only once the build starts); ``make_link(slug, text)`` returns
    the ``<a>`` (or None: leave the text); ``target_of(a)`` the slug an existing
    link goes to (or None); ``own()`` the slug of the page being rendered (None:
    not a term's page)."""

    def __init__(self, md, matcher: Callable[[], TermMatcher], make_link: Callable[[str, str], etree.Element | None],
                 target_of: Callable[[etree.Element], str | None], unit: str = "page",
                 own: Callable[[], str | None] = lambda: None):
        super().__init__(md)
        if unit not in UNITS:
            raise ValueError(f"autolink unit must be one of {', '.join(UNITS)}, not {unit!r}")
        self.matcher, self.make_link, self.target_of, self.unit, self.own = matcher, make_link, target_of, unit, own

    def run(self, root):
        matcher = self.matcher()
        if not matcher:
            return None
        self.find = matcher.find
        own = self.own()
        self.raw_tags = _RawTags(self.md.htmlStash)  # followed across units: an element may span them
        for unit in self._units(root):
            linked = {self.target_of(a) for element in unit for a in element.iter("a")}
            state = UnitCount({s for s in linked if s} | ({own} if own else set()))
            for element in unit:
                self._walk(element, state)
        return None

    def _units(self, root) -> list[list[etree.Element]]:
        units: list[list[etree.Element]] = [[]]
        for element in root:
            if self.unit == "section" and element.tag == "h2" and units[-1]:
                units.append([])
            units[-1].append(element)
        return units

    def _walk(self, element: etree.Element, state: UnitCount) -> None:
        if _skipped(element):
            return
        if element.text:
            element.text, made = self._link(element.text, state)
            for index, link in enumerate(made):
                element.insert(index, link)
        for child in list(element):
            self._walk(child, state)
            if child.tail:
                child.tail, made = self._link(child.tail, state)
                at = list(element).index(child) + 1
                for offset, link in enumerate(made):
                    element.insert(at + offset, link)

    def _link(self, text: str, state: UnitCount) -> tuple[str, list[etree.Element]]:
        """(text before the first link, the links made, each holding the text after it as tail)."""
        raw = self._take_markers(text)
        pieces: list[tuple[int, int, etree.Element]] = []
        for start, end, slug in unmarked(self.raw_tags.blank(raw), self.find, state):
            if slug in state.done:
                continue
            link = self.make_link(slug, raw[start:end])
            if link is not None:
                state.done.add(slug)
                pieces.append((start, end, link))
        if not pieces:
            return raw.replace("\x00", ""), []
        return self._split(raw, pieces)

    def _take_markers(self, text: str) -> str:
        """``text`` with each opt-out marker (as written, or stashed raw HTML) as a NUL."""
        if "\x02" in text:
            stash = self.md.htmlStash
            def marker(match: re.Match) -> str:
                index = re.fullmatch(r"\x02wzxhzdk:(\d+)\x03", match.group())
                if index and int(index.group(1)) < len(stash.rawHtmlBlocks) and \
                        MARKER_RE.fullmatch(str(stash.rawHtmlBlocks[int(index.group(1))]).strip()):
                    return "\x00"
                return match.group()
            text = _STASHED_RE.sub(marker, text)
        if "<!--" in text:
            text = MARKER_RE.sub("\x00", text)  # as text: the glossary escapes raw HTML
        return text

    @staticmethod
    def _split(raw: str, pieces: list[tuple[int, int, etree.Element]]) -> tuple[str, list[etree.Element]]:
        for index, (_start, end, link) in enumerate(pieces):
            following = pieces[index + 1][0] if index + 1 < len(pieces) else len(raw)
            link.tail = raw[end:following].replace("\x00", "")
        return raw[:pieces[0][0]].replace("\x00", ""), [link for _start, _end, link in pieces]


def register(md, processor: AutolinkProcessor) -> None:
    """Add ``processor`` to ``md``'s tree processors, where autolinks belong (``PRIORITY``)."""
    md.treeprocessors.register(processor, "autolink", PRIORITY)


@functools.lru_cache(maxsize=4)
def names_matcher(names: NameIndex) -> Callable[[], TermMatcher]:
    """The glossary's own matcher: every name of its index (titles, aliases, slugs, as
    ``normalise`` writes them: the patterns take spaces, hyphens and underscores alike)."""
    matcher = TermMatcher(names.by_name.items())
    return lambda: matcher


def for_bodies(md, renderer) -> None:
    """Autolinks in the glossary's term bodies (``markup.render.BodyRenderer``), when its
    ``autolink_unit`` is set: each a link to ``slug.md``, finished by the body's link pass
    like one written by hand; none on the term's own page (``renderer.slug``)."""
    if not renderer.autolink_unit:
        if not renderer.allow_raw_html:  # else the marker is an HTML comment, passed through unseen
            md.treeprocessors.register(_MarkerRemover(md, lambda: renderer.state.source), "autolink_marker", PRIORITY)
        return

    def make_link(slug: str, text: str) -> etree.Element:
        href = f"./{slug}.md"  # not in the source: its line is the body's first (never reported)
        renderer.state.link_lines.setdefault(href, [renderer.state.first_line])
        link = etree.Element("a", {"href": href})
        link.text = text
        return link

    register(md, AutolinkProcessor(md, names_matcher(renderer.names), make_link, _body_link_target,
                                   renderer.autolink_unit, lambda: renderer.slug))


class _MarkerRemover(Treeprocessor):
    """Autolinks off, raw HTML escaped: an opt-out marker left in a body is dropped
    rather than shown as text (it means nothing then). Only bodies that hold one are walked."""

    def __init__(self, md, source: Callable[[], list[str]]):
        super().__init__(md)
        self.source = source

    def run(self, root):
        if "no-autolink" in "\n".join(self.source()):  # one scan; the marker holds no newline
            for element in root.iter():
                code = element.tag in ("code", "pre", "kbd", "samp")  # keeps it as written
                if element.text and "<!--" in element.text and not code:
                    element.text = MARKER_RE.sub("", element.text)
                if element.tail and "<!--" in element.tail:
                    element.tail = MARKER_RE.sub("", element.tail)
        return None


def _body_link_target(link: etree.Element) -> str | None:
    """The term a link in a body goes to (``slug.md``, ``../slug.md#x``), as the link pass reads it."""
    parts = urlsplit(link.get("href") or "")
    if parts.scheme or parts.netloc or not parts.path:
        return None
    name = posixpath.basename(unquote(parts.path).rstrip("/"))
    return name[:-3] if name.endswith(".md") else None
