"""A faster drop-in for Python-Markdown's "inline" treeprocessor, same output.

Python-Markdown's ``InlineProcessor`` tries every inline pattern on every text
node: for each one it looks the pattern up in the registry by index (which
re-checks the sort every time) and calls ``__applyPattern``, which runs the
pattern's regex over the text. Most of those regexes cannot match because the
text lacks the character they need (a backtick, a backslash, '[', '<', '&',
'*' or '_'), and most text nodes (prose in paragraphs, headings, table cells)
contain none of those characters at all.

Everything rests on one table, ``TRIGGERS``: for each known regex, a
*necessary* condition for it to match in ``data[startIndex:]`` (some substrings
must be there). When it fails the regex cannot match, and upstream's
``__applyPattern`` would return ``(data, False, 0)`` without calling
``handleMatch`` (so without touching any pattern's state). The conditions are
keyed by the regex source string itself, so a pattern that is unknown, changed
by a new Markdown release, or compiled with flags that could change what a
literal matches has no condition: it is always tried, and it turns the
whole-string short cuts below off. From the conditions, each pattern gets
*keys* (one character, or an all-whitespace substring like the line break's
"  \n") of which at least one must be in a string for it to match there; see
``_Snapshot``.

What ``FastInlineProcessor`` skips, each time only where upstream's code
provably leaves everything as it was:

* **Whole text nodes** (``run``). Upstream runs ``__handleInline`` on each
  element's text and tail, then ``__processPlaceholders`` on the result. When
  the string holds no key (so no pattern can match) and no inline placeholder
  prefix (so there is nothing to expand), ``__handleInline`` returns it
  unchanged and ``__processPlaceholders`` puts it straight back where it was
  taken from and returns no element: the text or tail, the children and
  their order, ``parent_map``, ``stashed_nodes`` and the ancestors all end as
  they were. We leave such a node alone; one regex search decides it. In a
  typical page that is every paragraph of plain prose and every heading.
* **Patterns that cannot match** (``__handleInline``). Upstream walks every
  pattern from ``patternIndex`` on, each from ``startIndex`` 0, and moves on
  when one finds nothing. We walk only the patterns that have a key in the
  string (none at all: the string comes back at once, e.g. the text of most
  ``<em>``), and step over one whose condition fails at ``startIndex`` as
  upstream steps over one that found nothing. Placeholders inserted on the
  way hold no key, so the keys found at the start stay a superset.
* **Calls and look-ups** that do not change what happens: ``__applyPattern``
  for a pattern with a condition, and ``__processPlaceholders``, are
  upstream's steps with the helpers they call (``__stashNode``,
  ``__findPlaceholder``, ``linkText``, ``isString``, ``getCompiledRegExp``)
  written out in place; the pattern list is taken once per document (and
  kept while the registry and the regexes stay the same).
* **__processElementText** on a string without a placeholder prefix: upstream
  takes it off the element and puts an equal one back (an AtomicString stays
  one), inserting nothing.
* **The whole pattern loop** (``run``), for a text or tail whose only markup
  is code spans, links, ``*em*`` and ``**strong**`` among plain words:
  ``direct_inline.spans`` builds the elements upstream would, and ``run``
  files and places them as ``__processPlaceholders`` would (see that module).

A string of another ``str`` subclass than ``AtomicString`` takes upstream's
path, since upstream would hand back a plain ``str`` for it.

These are copies of upstream's private code with short cuts added, so they are
only used over the very upstream sources they were copied from: ``upstream.py``
checks a digest of every upstream file copied or relied on, and ``install``
keeps the stock processor otherwise.
``tests/test_fast_inline.py`` checks each condition against its regex with
random text, that the tree and the processor's state after the inline stage are
the same as upstream's, and that the HTML is byte-identical to the stock pipeline.
"""
from __future__ import annotations

import operator
import re
import xml.etree.ElementTree as etree

import markdown
from markdown import inlinepatterns, util
from markdown.treeprocessors import InlineProcessor

from . import direct_inline, upstream

# regex source -> necessary condition, as a tuple of groups: every group must
# have at least one of its substrings in data[startIndex:]. Each substring is
# text the regex consumes or looks ahead at (never what a lookbehind sees), so
# it lies at or after the match start, which finditer(data, startIndex) keeps
# at or after startIndex. The first group is the one the whole-string check
# looks for, so it is the rarest one in prose ('&' rather than ';').
TRIGGERS: dict[str, tuple[tuple[str, ...], ...]] = {
    # Both alternatives end at a backtick (consumed, or in the (?=`+) lookahead).
    inlinepatterns.BACKTICK_RE: (("`",),),
    inlinepatterns.ESCAPE_RE: (("\\",),),
    # Also REFERENCE_RE, the same string (link, reference, short_reference).
    inlinepatterns.LINK_RE: (("[",),),
    # Also IMAGE_REFERENCE_RE (image_link, image_reference, short_image_ref).
    inlinepatterns.IMAGE_LINK_RE: (("![",),),
    inlinepatterns.AUTOLINK_RE: (("<",), ("://",), (">",)),
    inlinepatterns.AUTOMAIL_RE: (("<",), ("@",), (">",)),
    inlinepatterns.LINE_BREAK_RE: (("  \n",),),
    # '<' (tag | comment | PI | CDATA) '>'
    inlinepatterns.HTML_RE: (("<",), (">",)),
    inlinepatterns.ENTITY_RE: (("&",), (";",)),
    # The footnotes extension's marker; a local in FootnoteExtension.extendMarkdown.
    r"\[\^([^\]]*)\]": (("[^",),),
    # DelimiterProcessor (em_strong) joins its escaped tokens with '|'.
    r"\*|_": (("*", "_"),),
    r"\*": (("*",),),
    r"_": (("_",),),
}

# Flags under which a literal in the source might match other text (or a space
# in the source would be ignored): patterns compiled with these are always tried.
# An int: masking with the RegexFlag enum costs a Python-level __and__ call.
_UNSAFE_FLAGS = int(re.IGNORECASE | re.VERBOSE)

_PLACEHOLDER_PREFIX = util.INLINE_PLACEHOLDER_PREFIX
_PLACEHOLDER = util.INLINE_PLACEHOLDER
_PLACEHOLDER_RE = util.INLINE_PLACEHOLDER_RE
_AtomicString = util.AtomicString


def trigger_for(pattern: object) -> tuple[tuple[str, ...], ...] | None:
    """The necessary condition for ``pattern`` to match, or None (always try it)."""
    if not isinstance(pattern, inlinepatterns.InlineProcessor):
        return None  # old-style Pattern: match() on a sliced string, keep it upstream's way
    if (type(pattern).getCompiledRegExp is not inlinepatterns.Pattern.getCompiledRegExp
            or "getCompiledRegExp" in getattr(pattern, "__dict__", ())):
        return None  # the regex actually used may not be compiled_re
    compiled = getattr(pattern, "compiled_re", None)
    if not isinstance(compiled, re.Pattern) or not isinstance(compiled.pattern, str):
        return None
    if compiled.flags & _UNSAFE_FLAGS:
        return None
    return TRIGGERS.get(compiled.pattern) or None  # an empty condition would always hold


def holds(trigger: tuple[tuple[str, ...], ...], data: str, start: int) -> bool:
    """Whether ``data[start:]`` meets ``trigger``: a substring of every group is there."""
    for group in trigger:
        for needle in group:
            if data.find(needle, start) >= 0:
                break
        else:
            return False
    return True


def _key(needle: str) -> str:
    """The part of ``needle`` that stands for it in the candidate scan (see _Snapshot)."""
    stripped = needle.rstrip()
    return stripped[-1] if stripped else needle


class _Snapshot:
    """The inline patterns of one document, with what the short cuts need to know about them."""

    def __init__(self, patterns: list) -> None:
        self.patterns = patterns
        triggers = [trigger_for(p) for p in patterns]
        # The regex each condition was read from: a pattern whose compiled_re is
        # replaced later gets a new snapshot (see FastInlineProcessor._snapshot).
        self.regexes = [getattr(p, "compiled_re", None) for p in patterns]
        self.pairs = list(zip(patterns, triggers))
        # Keys for each pattern: for each substring of its condition's first
        # group, its last character that is not whitespace (newlines and spaces
        # are everywhere in prose), or the whole substring if it is all
        # whitespace ("  \n", a line break). Each key is part of its substring,
        # so a pattern none of whose keys is in a string cannot match in it, nor
        # in what the string becomes while __handleInline works on it: that only
        # swaps matched text for placeholders, which (STX, "klzzwxh:", digits,
        # ETX) hold no key and cannot join two characters into one. Unknown
        # patterns have no keys and are always candidates.
        self.keys = [frozenset(_key(needle) for needle in t[0]) if t else None for t in triggers]
        all_keys = set().union(*(k for k in self.keys if k))
        chars = "".join(sorted(re.escape(k) for k in all_keys if len(k) == 1))
        self.long_keys = tuple(sorted(k for k in all_keys if len(k) > 1))
        self.scan = re.compile(f"[{chars}]").findall if chars else (lambda data: [])
        self._candidates: dict[frozenset[str], tuple[int, ...]] = {}
        if all(triggers):
            alternatives = ([f"[{chars}]"] if chars else []) + [re.escape(k) for k in self.long_keys]
            # No key: no pattern can match (the common case, cheaper than candidates()).
            self.any_key = re.compile("|".join(alternatives)).search
            # No key and no placeholder prefix: __handleInline returns the
            # string unchanged and __processPlaceholders puts it back as it was.
            self.busy = re.compile("|".join(alternatives + [re.escape(_PLACEHOLDER_PREFIX)])).search
            # Only over the stock patterns: the simplest markup built directly (direct_inline).
            self.delimiters = direct_inline.delimiter_processor(patterns)
        else:
            self.any_key = self.busy = None  # a pattern we know nothing about: no whole-string skips
            self.delimiters = None

    def candidates(self, data: str) -> tuple[int, ...]:
        """Indices of the patterns that might match in ``data``, in order (cached per set of keys)."""
        if self.any_key is not None and self.any_key(data) is None:
            return ()
        present = set(self.scan(data))
        for key in self.long_keys:
            if key in data:
                present.add(key)
        present = frozenset(present)
        found = self._candidates.get(present)
        if found is None:
            found = self._candidates[present] = tuple(
                index for index, keys in enumerate(self.keys) if keys is None or not keys.isdisjoint(present))
        return found

    def still_valid(self, patterns: list) -> bool:
        """Whether ``patterns`` (the registry now) is the list this was made for, regexes included."""
        return (len(patterns) == len(self.patterns) and all(map(operator.is_, patterns, self.patterns))
                and all(map(operator.is_, [getattr(p, "compiled_re", None) for p in patterns], self.regexes)))


class FastInlineProcessor(InlineProcessor):
    """``markdown.treeprocessors.InlineProcessor`` that skips work which cannot change the tree."""

    _cached_snapshot: _Snapshot | None = None
    _fast_snapshot: _Snapshot | None = None  # the one run() uses; set there

    def _snapshot(self) -> _Snapshot:
        """The snapshot for the registry as it is now, reused while the patterns stay the same."""
        patterns = list(self.inlinePatterns)
        snapshot = self._cached_snapshot
        if snapshot is None or not snapshot.still_valid(patterns):
            snapshot = self._cached_snapshot = _Snapshot(patterns)
        return snapshot

    def run(self, tree: etree.Element, ancestors: list[str] | None = None) -> etree.Element:
        """Apply the inline patterns to ``tree``, as upstream's ``run`` (same tree, same state)."""
        snapshot = self._snapshot()
        self._fast_snapshot = snapshot
        busy = snapshot.busy
        if busy is None:
            return super().run(tree, ancestors)

        handle_inline = self._InlineProcessor__handleInline
        process_placeholders = self._InlineProcessor__processPlaceholders
        delimiters = snapshot.delimiters
        spans = direct_inline.spans
        clear = direct_inline.delimiters_clear

        # From here on upstream's run(), with the "leave it alone" short cuts.
        self.stashed_nodes: dict[str, etree.Element | str] = {}

        tree_parents = [] if ancestors is None else ancestors[:]

        self.parent_map = parent_map = {c: p for p in tree.iter() for c in p}
        stack = [(tree, tree_parents)]
        self._InlineProcessor__build_ancestors(tree, tree_parents)

        while stack:
            currElement, parents = stack.pop(0)

            self.ancestors = parents
            if currElement is not tree:
                self.ancestors.append(currElement.tag.lower())

            insertQueue = []
            for child in currElement:
                text = child.text
                if text and not isinstance(text, _AtomicString) and (type(text) is not str or busy(text)):
                    self.ancestors.append(child.tag.lower())
                    child.text = None
                    built = (spans(text) if delimiters is not None and type(text) is str and clear(delimiters)
                             else None)
                    if built is None:
                        lst = process_placeholders(handle_inline(text), child)
                    else:
                        # What __processPlaceholders would return: each element with
                        # its own copy of the ancestors, the leading text on child.
                        lead, elements = built
                        direct_inline.stash(self.stashed_nodes, elements)
                        if lead is not None:
                            child.text = lead
                        ancestors = self.ancestors
                        lst = [(element, ancestors[:]) for element in elements]
                    for item in lst:
                        parent_map[item[0]] = child
                    stack += lst
                    insertQueue.append((child, lst))
                    self.ancestors.pop()
                tail = child.tail
                if tail and (type(tail) is not str or busy(tail)):
                    built = (spans(tail) if delimiters is not None and type(tail) is str and clear(delimiters)
                             else None)
                    if built is not None:
                        lead, elements = built
                        direct_inline.stash(self.stashed_nodes, elements)
                        child.tail = lead
                        pos = list(currElement).index(child) + 1
                        for offset, element in enumerate(elements):
                            parent_map[element] = currElement
                            currElement.insert(pos + offset, element)
                    else:
                        # An AtomicString tail takes this path too: rare, and upstream's
                        # handling of one (placeholders expanded, type kept) stays its own.
                        tail = handle_inline(tail)
                        dumby = etree.Element('d')
                        child.tail = None
                        tailResult = process_placeholders(tail, dumby, False)
                        if dumby.tail:
                            child.tail = dumby.tail
                        pos = list(currElement).index(child) + 1
                        tailResult.reverse()
                        for newChild in tailResult:
                            parent_map[newChild[0]] = currElement
                            currElement.insert(pos, newChild[0])
                if len(child):
                    parent_map[child] = currElement
                    stack.append((child, self.ancestors[:]))

            for element, lst in insertQueue:
                for i, obj in enumerate(lst):
                    newChild = obj[0]
                    element.insert(i, newChild)
        return tree

    # Upstream's __handleInline, name-mangled because it is private. Overriding
    # it is the only way in: run() and __applyPattern() both call it through
    # self, so this replaces it everywhere. Upstream walks every pattern from
    # patternIndex on, each from startIndex 0, re-applying it at the returned
    # startIndex while it matches; a pattern that finds nothing just moves the
    # walk on. We walk the same way over the candidates only, and also pass
    # over a candidate whose condition fails at startIndex: both are patterns
    # that would have found nothing.
    def _InlineProcessor__handleInline(self, data: str, patternIndex: int = 0) -> str:
        if not isinstance(data, _AtomicString):
            snapshot = self._fast_snapshot
            if snapshot is None:  # called before any run(), through the private API
                snapshot = self._fast_snapshot = self._snapshot()
            patterns = snapshot.pairs
            for index in snapshot.candidates(data):
                if index < patternIndex:
                    continue
                pattern, trigger = patterns[index]
                apply = self._apply_known if trigger is not None else self._InlineProcessor__applyPattern
                startIndex = 0
                while True:
                    if trigger is not None and not holds(trigger, data, startIndex):
                        break
                    data, matched, startIndex = apply(pattern, data, index, startIndex)
                    if not matched:
                        break
        return data

    def _apply_known(self, pattern: inlinepatterns.InlineProcessor, data: str, patternIndex: int,
                     startIndex: int) -> tuple[str, bool, int]:
        """Upstream's ``__applyPattern`` for a pattern with a condition.

        Such a pattern is new-style and its regex is ``compiled_re`` (see
        ``trigger_for``), so the old-style branches and the ``getCompiledRegExp``
        call go; so does ``isString(node)`` (always False where upstream asks it)
        and the ``pattern.type()`` whose value ``__stashNode`` ignores. The rest
        is upstream's, step for step.
        """
        for exclude in pattern.ANCESTOR_EXCLUDES:
            if exclude.lower() in self.ancestors:
                return data, False, 0

        match = None
        # handleMatch may reject a match: go on to the next one, as upstream
        # does (including its startIndex arithmetic).
        for match in pattern.compiled_re.finditer(data, startIndex):
            node, start, end = pattern.handleMatch(match, data)
            if start is None or end is None:
                startIndex += match.end(0)
                match = None
                continue
            break

        if not match:
            return data, False, 0

        if node is None:
            return data, True, end

        if not isinstance(node, str):
            if not isinstance(node.text, _AtomicString):
                handle_inline = self._InlineProcessor__handleInline
                for child in [node] + list(node):
                    if child.text:
                        self.ancestors.append(child.tag.lower())
                        child.text = handle_inline(child.text, patternIndex + 1)
                        self.ancestors.pop()
                    if child.tail:
                        child.tail = handle_inline(child.tail, patternIndex)

        stashed = self.stashed_nodes
        id = "%04d" % len(stashed)
        placeholder = _PLACEHOLDER % id
        stashed[id] = node
        # Past the placeholder, so the next try scans only what follows it.
        return data[:start] + placeholder + data[end:], True, start + len(placeholder)

    def _InlineProcessor__processPlaceholders(self, data: str | None, parent: etree.Element,
                                              isText: bool = True) -> list[tuple[etree.Element, list[str]]]:
        """Upstream's ``__processPlaceholders``, with its helpers inlined.

        ``linkText`` and ``__findPlaceholder`` are written out in place; what
        they do, in which order, is upstream's, quirks included (a prefix not
        followed by a known placeholder is kept as text; a search for the
        placeholder's id may find a later one).
        """
        result: list[tuple[etree.Element, list[str]]] = []
        stashed = self.stashed_nodes
        find_id = _PLACEHOLDER_RE.search
        process_element_text = self._InlineProcessor__processElementText
        strartIndex = 0
        while data:
            index = data.find(_PLACEHOLDER_PREFIX, strartIndex)
            if index != -1:
                m = find_id(data, index)
                if m:
                    id, phEndIndex = m.group(1), m.end()
                else:
                    id, phEndIndex = None, index + 1

                if id in stashed:
                    node = stashed.get(id)

                    if index > 0:
                        text = data[strartIndex:index]
                        if text:
                            self._link_text(text, result, parent, isText)

                    if not isinstance(node, str):  # it's Element
                        for child in [node] + list(node):
                            if child.tail:
                                if child.tail.strip():
                                    process_element_text(node, child, False)
                            if child.text:
                                if child.text.strip():
                                    process_element_text(child, child)
                    else:  # it's just a string
                        if node:
                            self._link_text(node, result, parent, isText)
                        strartIndex = phEndIndex
                        continue

                    strartIndex = phEndIndex
                    result.append((node, self.ancestors[:]))

                else:  # wrong placeholder
                    end = index + len(_PLACEHOLDER_PREFIX)
                    text = data[strartIndex:end]
                    if text:
                        self._link_text(text, result, parent, isText)
                    strartIndex = end
            else:
                text = data[strartIndex:]
                if isinstance(data, _AtomicString):
                    # We don't want to loose the `AtomicString`
                    text = _AtomicString(text)
                if text:
                    self._link_text(text, result, parent, isText)
                data = ""

        return result

    @staticmethod
    def _link_text(text: str, result: list, parent: etree.Element, isText: bool) -> None:
        """Upstream's ``linkText`` closure for a non-empty ``text``: append it where it belongs."""
        if result:
            last = result[-1][0]
            if last.tail:
                last.tail += text
            else:
                last.tail = text
        elif not isText:
            if parent.tail:
                parent.tail += text
            else:
                parent.tail = text
        else:
            if parent.text:
                parent.text += text
            else:
                parent.text = text

    # Upstream's __processElementText (called by __processPlaceholders for the
    # text and tails of a stashed element): without a placeholder in the string
    # it takes the string off and puts an equal one back (an AtomicString stays
    # one), inserting nothing.
    def _InlineProcessor__processElementText(self, node: etree.Element, subnode: etree.Element,
                                             isText: bool = True) -> None:
        text = subnode.text if isText else subnode.tail
        if (type(text) is str or type(text) is _AtomicString) and _PLACEHOLDER_PREFIX not in text:
            return
        super()._InlineProcessor__processElementText(node, subnode, isText)


# Only over the upstream sources these were copied from (see upstream.py).
ENABLED = upstream.matches()


def install(md: markdown.Markdown) -> bool:
    """Register the fast processor as ``md``'s "inline" treeprocessor (priority 20).

    Call it after the extensions are loaded. Returns False, leaving the stock
    processor in place, when the installed Markdown is not one this was
    written against.
    """
    if not ENABLED or "inline" not in md.treeprocessors or type(md.treeprocessors["inline"]) is not InlineProcessor:
        return False
    md.treeprocessors.register(FastInlineProcessor(md), "inline", 20)
    return True
