"""What the write stage refuses to replace, and the marker that says a folder is ours.

A build only ever replaces a folder it made itself: every output folder it
writes holds ``MARKER``, and ``check_output`` (run before anything is built)
refuses a non-empty folder without it, or anything that is not a folder.
"""

from __future__ import annotations

from pathlib import Path

MARKER = ".site-builder"
"""A file in every output folder we build: we only ever replace folders that have it."""

MARKER_TEXT = b"built by site_builder; this folder is replaced whole on every build\n"


class PublishError(Exception):
    """The output folder cannot be replaced safely."""


def check_output(output: Path) -> None:
    """Raise ``PublishError`` now if ``output`` is a folder a build may never replace."""
    _guard(output.absolute())


def _guard(output: Path) -> None:
    if output.is_symlink() or (output.exists() and not output.is_dir()):
        raise PublishError(f"{output} exists and is not a folder; refusing to replace it")
    if output.is_dir() and any(output.iterdir()) and not (output / MARKER).exists():
        raise PublishError(f"{output} is not empty and was not built by site_builder; refusing to replace it (choose another --output or empty it)")
