"""The list processors' ``run``, with each one-line item set directly, same tree.

Upstream's ``OListProcessor.run`` (and so ``UListProcessor``'s and the sane
lists' ones) parses every item as a document of its own:
``parser.parseBlocks(li, [item])``. For the usual item (one line such as
`` `decode` is *entropy* `` or ``**cache** then _draft_``) that call goes
through the block loop only to reach ``ParagraphProcessor.run``, which, in
the ``list`` state and on the fresh ``li``, just sets ``li.text =
item.lstrip()`` (or drops an item of blanks). That round trip was about a
tenth of a simple body's rendering.

``run_list`` is upstream 3.11's ``run``, line for line, except that an item
for which ``fast_blocks.paragraph_only`` holds (every processor before the
paragraph one would refuse it) gets that assignment directly. The fast block
loop calls it instead of ``processor.run`` only for the exact upstream list
classes it knows (``fast_blocks.KNOWN``, under ``upstream``'s digest check),
with a ParagraphProcessor among the processors, and only while the stack is
far from the recursion limit (the fast loop's own rule), so skipping the two
frames of the nested call can change no RecursionError.
``tests/markup/accel/test_fast_lists.py`` compares trees with stock on
hostile lists.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from .fast_blocks import paragraph_only


def run_list(parser, processor, parent: etree.Element, blocks: list[str]) -> None:
    """``processor.run(parent, blocks)`` for an upstream (sane) ordered or unordered list processor."""
    items = processor.get_items(blocks.pop(0))
    sibling = processor.lastChild(parent)
    state = parser.state

    if sibling is not None and sibling.tag in processor.SIBLING_TAGS:
        # Upstream: the previous block was a list, so this one makes it loose.
        lst = sibling
        if lst[-1].text:
            p = etree.Element('p')
            p.text = lst[-1].text
            lst[-1].text = ''
            lst[-1].insert(0, p)
        lch = processor.lastChild(lst[-1])
        if lch is not None and lch.tail:
            p = etree.SubElement(lst[-1], 'p')
            p.text = lch.tail.lstrip()
            lch.tail = ''
        li = etree.SubElement(lst, 'li')
        state.set('looselist')
        firstitem = items.pop(0)
        parser.parseBlocks(li, [firstitem])
        state.reset()
    elif parent.tag in ['ol', 'ul']:
        lst = parent
    else:
        lst = etree.SubElement(parent, processor.TAG)
        if not processor.LAZY_OL and processor.STARTSWITH != '1':
            lst.attrib['start'] = processor.STARTSWITH

    state.set('list')
    indent = ' ' * processor.tab_length
    for item in items:
        if item.startswith(indent):
            parser.parseBlocks(lst[-1], [item])
        else:
            li = etree.SubElement(lst, 'li')
            if paragraph_only(item):
                # ParagraphProcessor.run in the 'list' state, on an li with no
                # children and no text: what parseBlocks(li, [item]) comes to.
                if item.strip():
                    li.text = item.lstrip()
            else:
                parser.parseBlocks(li, [item])
    state.reset()
