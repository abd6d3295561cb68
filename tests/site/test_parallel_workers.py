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


def _sigint_disposition(_ignored: int) -> object:
    import signal
    return signal.getsignal(signal.SIGINT)


def test_a_pool_worker_ignores_ctrl_c_and_ends_with_its_pool():
    """Ctrl-C reaches the whole process group: a pool's worker killed by it
    while sending a result would leave half a message in the pool's pipe and
    the build waiting for the rest forever; it ignores it (its pool ends it)."""
    import signal
    # As from a terminal: this process's Ctrl-C not ignored (a suite started in the
    # background by a shell without job control inherits it ignored).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with parallel.pool(1) as pool:
            assert pool.submit(_sigint_disposition, 0).result() == signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # this process's own is untouched
    finally:
        signal.signal(signal.SIGINT, previous)

