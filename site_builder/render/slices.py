"""How the term pages are cut into slices for the rendering processes
(``render.pages.write_term_pages``, through ``parallel.share``): equal slices
tapered at the end, and the search entries of the last pages made ahead of
those pages so the index's files are made while the worker renders."""

from __future__ import annotations

from .. import parallel


SLICES_PER_PROCESS = 24
"""Into how many slices each rendering process's share of the pages is cut:
small enough that neither side waits long for the other at the end, large
enough that handing one over costs nothing to speak of."""


def page_slices(count: int, processes: int, largest: int | None = None) -> list[tuple[int, int]]:
    """``count`` pages cut into slices for ``processes`` rendering processes:
    equal ones (``SLICES_PER_PROCESS`` to a process), then, near the end,
    smaller and smaller ones (``parallel.guided_slices``' rule, down to its
    ``SMALLEST_SLICE``).

    At the end the build process, out of slices, waits for the worker's last
    ones: it holds up to ``parallel.OUTSTANDING_PER_WORKER`` (one rendering,
    one queued). With equal slices to the end that wait was one to two
    slices' time, 0.25-0.9 s of a 10,000-term render stage at load 3-8, the
    serial search tail after it (docs/performance.md, "Render stage (issue
    40, fifth round)"); with tapered ones it is a few dozen pages'.
    ``largest``: the equal slices' size (default: as said above)."""
    equal = largest or max(1, -(-count // (processes * SLICES_PER_PROCESS)))
    bounds, start = [], 0
    while start < count:
        left = count - start
        step = min(equal, max(parallel.SMALLEST_SLICE, -(-left // (processes * parallel.SHARE_PER_SLICE))))
        bounds.append((start, min(start + step, count)))
        start += step
    return bounds


RENDER, INDEX = 1, 2
"""What a slice of ``_term_pages`` does for its pages: render and write them,
make ``also``'s results (the search entries), or both (the default)."""

INDEXED_AHEAD = 5
"""``indexed_ahead``: the last 1 / ``INDEXED_AHEAD`` of the pages have their entries made first."""


def indexed_ahead(count: int, processes: int) -> list[tuple[int, int, int]]:
    """``page_slices`` for a render whose ``collect`` has work to do once every
    page's entries are in (the search files, ~0.1-0.16 s at 10,000 terms):
    (start, end, what) of each slice, ``what`` being ``RENDER | INDEX`` for the
    first pages; then the entries alone (``INDEX``) of the last
    1 / ``INDEXED_AHEAD`` of them, then those pages alone (``RENDER``), tapered.

    The entries of every page are then in while those last pages are still to
    render: this process makes the files from them while the worker renders,
    and renders with it after. Rendered with their entries to the end, the
    files were made after the last page, the worker idle (docs/performance.md,
    "The two cores (issue 40, eighth round)"). Each page is still rendered and
    indexed once; ``collect`` gets the entries in the pages' order."""
    ahead = count // INDEXED_AHEAD
    head = count - ahead
    equal = max(1, -(-count // (processes * SLICES_PER_PROCESS)))
    bounds = [(start, min(start + equal, head), RENDER | INDEX) for start in range(0, head, equal)]
    # An entry costs ~0.4x its page: slices of about the same time as the others.
    bounds += [(start, min(start + 2 * equal, count), INDEX) for start in range(head, count, 2 * equal)]
    bounds += [(head + start, head + end, RENDER) for start, end in page_slices(ahead, processes, equal)]
    return bounds
