"""Which inline patterns could match a string: the trigger-character analysis behind ``fast_inline``.

Everything rests on one table, ``TRIGGERS``: for each known regex, a
*necessary* condition for it to match in ``data[startIndex:]`` (some substrings
must be there). When it fails the regex cannot match, and upstream's
``__applyPattern`` would return ``(data, False, 0)`` without calling
``handleMatch`` (so without touching any pattern's state). The conditions are
keyed by the regex source string itself, so a pattern that is unknown, changed
by a new Markdown release, or compiled with flags that could change what a
literal matches has no condition: it is always tried, and it turns the
whole-string short cuts of ``fast_inline`` off. From the conditions, each pattern gets
*keys* (one character, or an all-whitespace substring like the line break's
"  \n") of which at least one must be in a string for it to match there; see
``_Snapshot``.

``trigger_for`` reads a pattern's condition, ``holds`` tests one, and
``_Snapshot`` turns a document's pattern list into the keys and scans that
``FastInlineProcessor`` (``fast_inline``) uses to pass over patterns and text.
"""
from __future__ import annotations

import operator
import re
from itertools import repeat
from typing import Callable

from markdown import inlinepatterns, util

from . import direct_inline

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


def holds_any(chars: str, needles: tuple[str, ...]) -> Callable[[str], bool]:
    """A test: does a string hold one of ``chars`` (a regex character set's contents) or of ``needles``?

    The same answer as searching ``[chars]|needle|...`` as one regex, for a
    third to a half of the CPU: the engine cannot skip ahead to a place where
    such an alternation may start when one alternative starts with a space
    ("  \n", a line break) or STX, so it tries a match at every space of the
    prose; a bare character set it scans for in a tight loop, and ``in`` finds
    a needle with a fast substring search.
    """
    search = re.compile(f"[{chars}]").search if chars else None
    if search is not None and len(needles) == 1:
        needle = needles[0]
        return lambda data: search(data) is not None or needle in data
    if search is not None and len(needles) == 2:
        first, second = needles
        return lambda data: search(data) is not None or first in data or second in data
    return lambda data: (search is not None and search(data) is not None) or any(n in data for n in needles)


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
            # No key: no pattern can match (the common case, cheaper than candidates()).
            self.any_key = holds_any(chars, self.long_keys)
            # No key and no placeholder prefix: __handleInline returns the
            # string unchanged and __processPlaceholders puts it back as it was.
            self.busy = holds_any(chars, self.long_keys + (_PLACEHOLDER_PREFIX,))
            # Only over the stock patterns: the simplest markup built directly (direct_inline).
            self.delimiters = direct_inline.delimiter_processor(patterns)
        else:
            self.any_key = self.busy = None  # a pattern we know nothing about: no whole-string skips
            self.delimiters = None

    def candidates(self, data: str) -> tuple[int, ...]:
        """Indices of the patterns that might match in ``data``, in order (cached per set of keys)."""
        if self.any_key is not None and not self.any_key(data):
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
        # map(getattr, ...): each pattern's compiled_re (None without one) read in C, not in a comprehension.
        return (len(patterns) == len(self.patterns) and all(map(operator.is_, patterns, self.patterns))
                and all(map(operator.is_, map(getattr, patterns, repeat("compiled_re"), repeat(None)), self.regexes)))
