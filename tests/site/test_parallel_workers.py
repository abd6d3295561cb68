"""A pool worker keeps what it inherited out of its collector's walks
(``parallel.pool``: ``gc.freeze`` first thing), so its collections write no
collector headers into the pages it shares copy-on-write with the build."""

from __future__ import annotations

import gc

from site_builder import parallel

_inherited: list[list[int]] = []


def _still_collected(_ignored: int) -> tuple[bool, bool]:
    """In a worker: (is the inherited list still in a generation the collector
    walks, is a list made here in one)."""
    made_here = [[1], [2]]
    walked = {id(o) for o in gc.get_objects()}  # every generation but the frozen one
    return id(_inherited) in walked, id(made_here) in walked


def test_a_pool_worker_collects_only_what_it_made():
    global _inherited
    _inherited = [[n] for n in range(100)]
    try:
        assert any(o is _inherited for o in gc.get_objects()), "the test's own list must start unfrozen"
        with parallel.pool(1) as pool:
            inherited_walked, own_walked = pool.submit(_still_collected, 0).result()
        assert not inherited_walked, "the worker's collector still walks what it inherited"
        assert own_walked, "the worker's collector must still walk what it makes"
    finally:
        _inherited = []
