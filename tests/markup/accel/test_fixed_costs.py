"""The per-body fixed-cost short cuts: registries that keep their sorted items, and the
page ids' holder that toc takes as known and that is taken out right after toc.

Each is compared with the stock behaviour it stands in for, including the inputs
that must send it back to the general path (a holder changed, not last, a registry
changed between bodies).
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

import markdown
import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown import util
from markdown.extensions.toc import TocExtension, TocTreeprocessor

from helpers import requires_fast
from site_builder.markup.accel import fast_tree, registries
from site_builder.markup.page_ids import HOLDER_TAG, ReservePageIds
from site_builder.markup.render import PAGE_IDS, BodyRenderer
from markdown_pairs import NAMES

needs_fast = requires_fast(fast_tree)

# --- registries ---------------------------------------------------------------------------

STEP = st.one_of(
    st.tuples(st.just("register"), st.sampled_from("abcdef"), st.sampled_from([0, 5, 5, 10, 20, 7.5])),
    st.tuples(st.just("deregister"), st.sampled_from("abcdef"), st.just(0)),
    st.tuples(st.just("iterate"), st.just(""), st.just(0)),
)


@needs_fast
@given(st.lists(STEP, max_size=30))
def test_a_frozen_order_registry_iterates_like_stock_after_any_changes(steps):
    stock, frozen = util.Registry(), util.Registry()
    frozen.__class__ = registries.FrozenOrderRegistry
    for count, (action, name, priority) in enumerate(steps):
        for registry in (stock, frozen):
            if action == "register":
                registry.register(f"{name}{count}", name, priority)  # a new item each time
            elif action == "deregister":
                registry.deregister(name, strict=False)
        assert list(frozen) == list(stock)
        assert list(frozen) == list(stock)  # the kept tuple, the second time
        assert len(frozen) == len(stock) and [frozen[i] for i in range(len(frozen))] == list(stock)


@needs_fast
def test_the_renderer_registries_are_frozen_and_a_later_registration_is_seen():
    renderer = BodyRenderer(NAMES)
    md = renderer.md
    for registry in (md.preprocessors, md.treeprocessors, md.inlinePatterns, md.postprocessors,
                     md.parser.blockprocessors):
        assert type(registry) is registries.FrozenOrderRegistry
    before = renderer.render("Some *text*.\n", 1).html

    class Shout(markdown.postprocessors.Postprocessor):
        def run(self, text):
            return text.upper()

    md.postprocessors.register(Shout(md), "shout", 1)
    assert renderer.render("Some *text*.\n", 1).html == before.upper()
    md.postprocessors.deregister("shout")
    assert renderer.render("Some *text*.\n", 1).html == before


@needs_fast
def test_install_leaves_a_registry_subclass_alone():
    class Mine(util.Registry):
        pass

    md = markdown.Markdown()
    md.postprocessors = Mine()
    assert registries.install(md)
    assert type(md.postprocessors) is Mine and type(md.treeprocessors) is registries.FrozenOrderRegistry


# --- the page ids' holder -----------------------------------------------------------------

HEADINGS = st.lists(st.one_of(st.sampled_from(sorted(PAGE_IDS)), st.sampled_from(["x", "main_1", "a b"])),
                    max_size=6)


def _toc_ids(fast: bool, headings: list[str], disturb: str) -> tuple[list, list]:
    """The ids toc gives ``headings`` with the page's holder appended, and the tree's tags."""
    md = markdown.Markdown(extensions=[TocExtension(toc_depth="2-4")])
    if fast:
        fast_tree.install(md)
    reserve = ReservePageIds(md, PAGE_IDS)
    root = etree.Element("div")
    for text in headings:
        etree.SubElement(root, "h2").text = text
    reserve.run(root)
    if disturb == "after":  # the holder is not the last child
        etree.SubElement(root, "h2").text = "main"
    elif disturb == "grown":  # the holder changed since it was built
        etree.SubElement(reserve.holder, HOLDER_TAG, id="x")
    try:
        md.treeprocessors["toc"].run(root)
    finally:
        if disturb == "grown":
            del reserve.holder[-1]
    return [el.get("id") for el in root.iter() if el.tag == "h2"], [el.tag for el in root]


@needs_fast
@given(HEADINGS, st.sampled_from(["", "after", "grown"]))
def test_toc_with_the_known_holder_gives_stock_ids(headings, disturb):
    assert type(markdown.Markdown(extensions=["toc"]).treeprocessors["toc"]) is TocTreeprocessor
    assert _toc_ids(True, headings, disturb) == _toc_ids(False, headings, disturb)


@pytest.mark.parametrize("fast", [True, False])
def test_the_holder_is_gone_after_toc_and_headings_avoid_the_page_ids(fast):
    renderer = BodyRenderer(NAMES, fast=fast)
    seen = []

    class Look(markdown.treeprocessors.Treeprocessor):
        def run(self, root):
            seen.append([el.tag for el in root])

    renderer.md.treeprocessors.register(Look(renderer.md), "look", 3)  # after the release (4)
    result = renderer.render("## Main\n\n## Related terms\n\nText.\n", 1)
    assert seen == [["h2", "h2", "p"]]
    assert result.anchors == ["main_1", "related-terms_1"] and HOLDER_TAG not in result.html
