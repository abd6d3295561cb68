"""The page's own ids, shown to the heading-id step (toc) so that no heading takes one.

``ReservePageIds`` appends a holder element carrying them (one child per id)
to the tree just before toc (priority 5) chooses heading ids: stock toc and
``accel.fast_toc`` both collect the ids already in the tree, so the two stay
byte-identical. ``ReleasePageIds`` takes the holder out right after toc, so
the later passes (autolinks, unescape, the link pass) do not walk its
elements: nothing there reads or changes them (their tag is no HTML tag,
they have no text, and their ids hold no escape placeholder).
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown.treeprocessors import Treeprocessor

HOLDER_TAG = "site-builder-page-ids"


class ReservePageIds(Treeprocessor):
    """Appends the holder of ``page_ids`` to the tree (before toc)."""

    def __init__(self, md, page_ids: frozenset[str]):
        super().__init__(md)
        self.holder = etree.Element(HOLDER_TAG)  # built once: no processor changes it
        for ident in sorted(page_ids):
            etree.SubElement(self.holder, HOLDER_TAG, id=ident)
        self.fixed_ids = (self.holder, frozenset(page_ids), len(page_ids))
        """(holder, its ids, its size): what ``accel.fast_toc`` takes instead of walking it."""

    def run(self, root):
        try:
            self.md.treeprocessors["toc"].fixed_subtree = self.fixed_ids  # only fast_toc reads it
        except KeyError:
            pass
        root.append(self.holder)


class ReleasePageIds(Treeprocessor):
    """Removes the holder again (after toc)."""

    def run(self, root):
        if len(root) and root[-1].tag == HOLDER_TAG:  # appended last; toc adds no element after it
            del root[-1]  # (anywhere else, the link pass takes it out)
