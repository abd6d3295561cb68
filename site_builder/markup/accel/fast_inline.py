"""A faster drop-in for Python-Markdown's "inline" treeprocessor, same output.

Python-Markdown's ``InlineProcessor`` tries every inline pattern on every text
node: for each one it looks the pattern up in the registry by index (which
re-checks the sort every time) and calls ``__applyPattern``, which runs the
pattern's regex over the text. Most of those regexes cannot match because the
text lacks the character they need (a backtick, a backslash, '[', '<', '&',
'*' or '_'), and most text nodes (prose in paragraphs, headings, table cells)
contain none of those characters at all.

The conditions and keys the short cuts rest on (``TRIGGERS``, ``trigger_for``,
``_Snapshot``) are in ``inline_triggers``; upstream's placeholder steps, written
out, in ``inline_placeholders`` (``PlaceholderSteps``, this processor's base).

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
``tests/markup/accel/test_fast_inline.py`` checks each condition against its regex with
random text, that the tree and the processor's state after the inline stage are
the same as upstream's, and that the HTML is byte-identical to the stock pipeline.
"""
from __future__ import annotations

import xml.etree.ElementTree as etree

import markdown
from markdown import inlinepatterns, util
from markdown.treeprocessors import InlineProcessor

from . import direct_inline, upstream
from .inline_placeholders import PlaceholderSteps
from .inline_triggers import TRIGGERS, _Snapshot, holds, trigger_for

__all__ = ["ENABLED", "FastInlineProcessor", "TRIGGERS", "install", "trigger_for"]

_PLACEHOLDER = util.INLINE_PLACEHOLDER
_AtomicString = util.AtomicString


class FastInlineProcessor(PlaceholderSteps):
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
        # Whether the delimiter processor's state is clear (None: ask): only the
        # stock patterns change it, so an answer holds until they next run.
        clean: bool | None = None

        # From here on upstream's run(), with the "leave it alone" short cuts.
        self.stashed_nodes: dict[str, etree.Element | str] = {}

        tree_parents = [] if ancestors is None else ancestors[:]

        self.parent_map = parent_map = {c: p for p in tree.iter() for c in p}
        stack = [(tree, tree_parents)]
        self._InlineProcessor__build_ancestors(tree, tree_parents)
        last_leaf = None  # (ancestors, element) of a built element when it was the last pushed

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
                    if delimiters is not None and type(text) is str:
                        if clean is None:
                            clean = clear(delimiters)
                        built = spans(text) if clean else None
                    else:
                        built = None
                    if built is None:
                        lst = process_placeholders(handle_inline(text), child)
                        clean = None  # the stock patterns ran: ask again
                    else:
                        # What __processPlaceholders would return (the leading text on
                        # child), but not put on the stack: upstream pushes each element
                        # with its own copy of the ancestors, and popping one only sets
                        # self.ancestors, since it has no children and its text holds no
                        # key and no placeholder (direct_inline). The last one pushed is
                        # kept, for the ancestors upstream would end the run with.
                        lead, elements = built
                        direct_inline.stash(self.stashed_nodes, elements)
                        if lead is not None:
                            child.text = lead
                        lst = [(element, None) for element in elements]
                        if elements:
                            last_leaf = (self.ancestors[:], elements[-1])
                    for item in lst:
                        parent_map[item[0]] = child
                    if built is None:
                        stack += lst
                        if lst:
                            last_leaf = None
                    insertQueue.append((child, lst))
                    self.ancestors.pop()
                tail = child.tail
                if tail and (type(tail) is not str or busy(tail)):
                    if delimiters is not None and type(tail) is str:
                        if clean is None:
                            clean = clear(delimiters)
                        built = spans(tail) if clean else None
                    else:
                        built = None
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
                        clean = None
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
                    last_leaf = None

            for element, lst in insertQueue:
                for i, obj in enumerate(lst):
                    newChild = obj[0]
                    element.insert(i, newChild)
        if last_leaf is not None:
            # Upstream's last pop was that element: it set the ancestors so.
            ancestors, element = last_leaf
            ancestors.append(element.tag.lower())
            self.ancestors = ancestors
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
