"""What the write stage refuses to replace, and the marker that says a folder is ours.

A build only ever replaces a folder it made itself: every output folder it
writes holds ``MARKER``, and ``check_output`` (run before anything is built)
refuses a non-empty folder without it, or anything that is not a folder.
"""

from __future__ import annotations

from pathlib import Path

from ..files import check_owned, check_owned_folder

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
    # The marker first: listing a built site (``iterdir`` lists it whole: 25,000
    # entries at 10,000 realistic terms) only to find it is not empty cost an edit
    # ~10 ms, twice.
    if output.is_dir() and not (output / MARKER).exists() and any(output.iterdir()):
        raise PublishError(f"{output} is not empty and was not built by site_builder; refusing to replace it (choose another --output or empty it)")
    check_beside(output)


OWNED_FILES = ("lock", "tree-record", "tree-record.tmp", "spare-record.json", "spare-record.json.tmp")
"""Files a build keeps beside ``output/`` (as ``.<output>.<name>``)."""
OWNED_FOLDERS = ("spare", "old")
"""Folders a build keeps beside ``output/`` (as ``.<output>.<name>``); with
``.<output>.staging-<pid>`` and ``.<output>.old-<n>``."""


def check_beside(output: Path) -> None:
    """Refuse (``files.RefusedPath``, naming the path) anything but a regular file
    or a real folder where the build keeps its own files beside ``output``, before
    any work: a planted symlink, FIFO, socket or device is never opened."""
    parent, name = output.parent, output.name
    for suffix in OWNED_FILES:
        check_owned(parent / f".{name}.{suffix}")
    for suffix in OWNED_FOLDERS:
        check_owned_folder(parent / f".{name}.{suffix}")
    if parent.is_dir():
        for pattern in (f".{name}.staging-*", f".{name}.old-*"):
            for leftover in sorted(parent.glob(pattern)):
                check_owned_folder(leftover)
