"""Compiled templates kept in the cache folder, for the render stage's Jinja environment.

A process compiles ``term.html`` and ``base.html`` before it renders a page:
lexing, parsing, generating and compiling Python, ~45 ms on a quiet machine
and most of a one-body edit's render step. Jinja can keep the compiled code
(``jinja2.BytecodeCache``); ``cache_templates`` gives the environment one
whose files sit in the build cache's folder, so the next process loads them
instead (~1 ms).

Never stale: Jinja takes a file only for the same template name, path and
source (a checksum of it, checked when loading) and the same Jinja and Python
(its header); the files are named by the code version too (``code_version``:
our code, so the environment's options and filters, and Jinja's version) and
the environment's class (the package's, or a theme's with its overrides). Read
and written as the cache's other files: never through a link or anything but
a regular file (``files.read_owned``, ``write_owned``).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import jinja2

from ..files import RefusedPath, read_owned, write_owned
from .code import code_version

PREFIX = "template-"
"""The compiled templates' files in the cache folder: ``template-<version>-<class>-<key>``."""


class TemplateCache(jinja2.BytecodeCache):
    """Jinja's compiled templates, one file each in ``folder``, named for ``version``."""

    def __init__(self, folder: Path, version: str):
        self.folder = folder
        self.version = version

    def _path(self, bucket: jinja2.bccache.Bucket) -> Path:
        return self.folder / f"{PREFIX}{self.version}-{type(bucket.environment).__name__}-{bucket.key}"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Fill ``bucket`` from its file, if any (Jinja checks the header and the checksum)."""
        try:
            raw = read_owned(self._path(bucket))
        except (OSError, RefusedPath):
            return  # a plant or an unreadable file: compiled again
        if raw is None:
            return
        try:
            bucket.bytecode_from_string(raw)
        except Exception:  # cut short or garbled past Jinja's header (its checksum is a pickle it does not guard)
            bucket.reset()  # compiled again, and the file rewritten: damage costs time, never the build

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Keep what was just compiled; drop what older code versions left (at most a
        few files each, written only when something was compiled)."""
        try:
            # Through a temporary file of this process's own: two processes compiling the
            # same template at once (page workers, serve) never rename each other's half-written file.
            write_owned(self._path(bucket), bucket.bytecode_to_string(),
                        self.folder / f".{PREFIX}{os.getpid()}.{threading.get_ident()}.tmp")
            with os.scandir(self.folder) as entries:
                stale = [entry.path for entry in entries if entry.name.startswith(PREFIX)
                         and not entry.name.startswith(f"{PREFIX}{self.version}-")
                         and entry.is_file(follow_symlinks=False)]
            for path in stale:
                os.unlink(path)
        except (OSError, RefusedPath):
            pass  # compiled again next time


def cache_templates(folder: Path | None, environment: jinja2.Environment) -> None:
    """Give ``environment`` the compiled templates kept in the cache ``folder`` (None:
    caching off, nothing kept), unless it has another kind of bytecode cache already."""
    current = environment.bytecode_cache
    if folder is None or (current is not None and not isinstance(current, TemplateCache)) or not folder.is_dir():
        return
    version = code_version(folder)[:16]
    if current is None or (current.folder, current.version) != (folder, version):  # (a process building another site)
        environment.bytecode_cache = TemplateCache(folder, version)
