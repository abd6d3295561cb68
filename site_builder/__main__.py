"""``python -m site_builder``."""

import sys

from .cli import run


def _exit(status: int) -> None:
    """End the process with ``status`` as the interpreter would, less its teardown.

    After a build every module and object is freed one by one before the
    process ends (~4-5 ms after a 10,000-term edit: docs/performance.md,
    "One-body edit (issue 40, eighth round)"), for nothing: the kernel frees
    the memory whole. What the teardown does that counts is done here first:
    the ``atexit`` functions (the logging module's flush, any library's), the
    standard streams flushed. With another thread still running the
    interpreter waits for it: then so does this, by exiting as usual."""
    import threading

    if threading.active_count() > 1 or type(status) is not int:  # os._exit takes an int only
        sys.exit(status)
    import atexit
    import os

    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # a closed, broken or missing stream: what the interpreter would report is moot
        sys.exit(status)
    os._exit(status)


_exit(run())
