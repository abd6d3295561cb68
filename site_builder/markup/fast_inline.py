"""A faster drop-in for Python-Markdown's "inline" treeprocessor, same output.

Python-Markdown's ``InlineProcessor`` tries every inline pattern on every text
node: for each one it looks the pattern up in the registry by index (which
re-checks the sort every time) and calls ``__applyPattern``, which runs the
pattern's regex over the text. Most of those regexes cannot match because the
text lacks the character they start with (a backtick, a backslash, '[', '<',
'&', '*' or '_'), and these calls were about half of the renderer's time.

``FastInlineProcessor`` changes two things and nothing else:

* it copies the sorted pattern list once per ``run()`` instead of indexing the
  registry on every step;
* before applying a pattern it checks a *necessary* condition for the
  pattern's regex to match in ``data[startIndex:]`` (some substrings must be
  there, a cheap ``str.find``). When the condition fails the regex cannot
  match, and upstream would return ``(data, False, 0)`` from
  ``__applyPattern`` without calling ``handleMatch``; we do exactly what it
  does then: ``startIndex`` goes back to 0 and the next pattern is tried.

The conditions are keyed by the regex source string itself, so a pattern that
is unknown, changed by a new Markdown release, or compiled with flags that
could change what a literal matches is always tried, as upstream would.
``tests/test_fast_inline.py`` checks each condition against its regex with
random text, and checks that the HTML is byte-identical to the stock pipeline.
"""

from __future__ import annotations

import inspect
import re

import markdown
from markdown import inlinepatterns, util
from markdown.treeprocessors import InlineProcessor

# regex source -> necessary condition, as a tuple of groups: every group must
# have at least one of its substrings in data[startIndex:]. Each substring is
# text the regex consumes or looks ahead at (never what a lookbehind sees), so
# it lies at or after the match start, which finditer(data, startIndex) keeps
# at or after startIndex.
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
_UNSAFE_FLAGS = re.IGNORECASE | re.VERBOSE


def trigger_for(pattern: object) -> tuple[tuple[str, ...], ...] | None:
    """The necessary condition for ``pattern`` to match, or None (always try it)."""
    if not isinstance(pattern, inlinepatterns.InlineProcessor):
        return None  # old-style Pattern: match() on a sliced string, keep it upstream's way
    if type(pattern).getCompiledRegExp is not inlinepatterns.Pattern.getCompiledRegExp:
        return None  # the regex actually used may not be compiled_re
    compiled = getattr(pattern, "compiled_re", None)
    if not isinstance(compiled, re.Pattern) or not isinstance(compiled.pattern, str):
        return None
    if compiled.flags & _UNSAFE_FLAGS:
        return None
    return TRIGGERS.get(compiled.pattern)


class FastInlineProcessor(InlineProcessor):
    """``markdown.treeprocessors.InlineProcessor`` that skips patterns which cannot match."""

    def run(self, tree, ancestors=None):
        # One snapshot per document: (pattern, necessary condition or None).
        self._fast_patterns = [(p, trigger_for(p)) for p in self.inlinePatterns]
        return super().run(tree, ancestors)

    # Upstream's __handleInline, name-mangled because it is private. Overriding
    # it is the only way in: run() and __applyPattern() both call it through
    # self, so this replaces it everywhere. The loop is upstream's, with the
    # pattern taken from the snapshot and the cannot-match short cut added.
    def _InlineProcessor__handleInline(self, data: str, patternIndex: int = 0) -> str:
        if not isinstance(data, util.AtomicString):
            patterns = self._fast_patterns
            apply = self._InlineProcessor__applyPattern
            startIndex = 0
            count = len(patterns)
            while patternIndex < count:
                pattern, trigger = patterns[patternIndex]
                if trigger is not None:
                    possible = True
                    for group in trigger:
                        for needle in group:
                            if data.find(needle, startIndex) >= 0:
                                break
                        else:
                            possible = False  # none of this group's substrings is there
                            break
                    if not possible:
                        # What upstream does when the regex finds nothing:
                        # __applyPattern returns (data, False, 0).
                        startIndex = 0
                        patternIndex += 1
                        continue
                data, matched, startIndex = apply(pattern, data, patternIndex, startIndex)
                if not matched:
                    patternIndex += 1
        return data


def _upstream_is_compatible() -> bool:
    """Whether the installed Markdown has the private methods this relies on, as in 3.11."""
    if tuple(getattr(markdown, "__version_info__", ()))[:2] != (3, 11):
        return False  # the private loop may differ in another release: keep the stock one
    handle = getattr(InlineProcessor, "_InlineProcessor__handleInline", None)
    apply = getattr(InlineProcessor, "_InlineProcessor__applyPattern", None)
    if handle is None or apply is None:
        return False
    try:
        handle_params = list(inspect.signature(handle).parameters)
        apply_params = list(inspect.signature(apply).parameters)
    except (TypeError, ValueError):
        return False
    return (handle_params == ["self", "data", "patternIndex"]
            and apply_params == ["self", "pattern", "data", "patternIndex", "startIndex"])


ENABLED = _upstream_is_compatible()


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
