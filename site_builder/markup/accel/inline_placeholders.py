"""Upstream's placeholder expansion for the inline pass, written out in place.

``InlineProcessor.__processPlaceholders`` turns the string ``__handleInline``
made (text with placeholders for stashed nodes) back into text and elements;
``PlaceholderSteps`` is that step with its helpers (``linkText``,
``__findPlaceholder``) inlined, and ``__processElementText`` skipped where it
would put back what it took off. ``FastInlineProcessor`` (``fast_inline``) is
built on it; see that module for why each step leaves the tree as upstream's.
"""
from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown import util
from markdown.treeprocessors import InlineProcessor

_PLACEHOLDER_PREFIX = util.INLINE_PLACEHOLDER_PREFIX
_PLACEHOLDER_RE = util.INLINE_PLACEHOLDER_RE
_AtomicString = util.AtomicString


class PlaceholderSteps(InlineProcessor):
    """``markdown.treeprocessors.InlineProcessor`` with its placeholder steps written out, same results."""

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
