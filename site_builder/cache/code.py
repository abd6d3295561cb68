"""The code version: part of every cache key, and what the code was stamped with.

``code_version`` hashes the package's own code, templates and static files,
the versions of the packages whose output is ours, and every installed
explainer's version (see ``compute``). Reading and hashing ~2 MB of files and
asking ``importlib.metadata`` for ten versions took ~0.05-0.1 s of every
build, a one-body edit's too. So a build with a cache folder keeps beside its
tables what the version was made from (``STAMPS``): the inode, size, mtime
and ctime of every file hashed and of every folder holding them (a file
added or removed changes its folder's ctime), and of every folder on
``sys.path`` and every dependency's metadata (a package installed, removed
or upgraded changes them). A later process stats those ~200 paths instead,
and hashes again when any differs.

Safe as the tree records are (``publish/snapshot.py``): no tool can set a
ctime back. A file changed while it was hashed, or just before, could keep
the ctime its stamp holds (file system clocks tick coarsely): no stamps are
kept when any is younger than ``RACY_NS`` at the start of the hashing, so
the next build hashes again.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import time
from pathlib import Path

from .. import __version__
from ..files import RefusedPath, check_owned_folder, read_owned, write_owned

OUTPUT_DEPENDENCIES = ("markdown", "jinja2", "latex2mathml", "pyyaml", "markupsafe", "numpy",
                       "altair", "vl-convert-python", "snowballstemmer", "rjsmin")
"""Packages whose version can change the bytes we write."""

CODE_SUFFIXES = (".py", ".html", ".css", ".js", ".json")
"""Files that are code: a change to any of them may change the output."""

STAMPS = "code.stamps"
"""The stamps' file in the cache folder (not a table: tables are keyed by this version)."""

RACY_NS = 2_000_000_000
"""Stamps younger than this when the hashing started are not kept (see the docstring)."""

_version: str | None = None
_reserved: frozenset[str] | None = None


def code_version(folder: Path | None = None) -> str:
    """The code version, made once per process: from the stamps kept in the cache
    ``folder`` when they all still hold, else hashed (``compute``) and, with a
    ``folder``, stamped there for the next process."""
    global _version
    if _version is None:
        _version = _stamped(folder) if folder is not None else compute()[0]
    return _version


def _forget() -> None:
    """Make the next ``code_version`` look again (a test that changes the code)."""
    global _version, _reserved
    _version = _reserved = None


code_version.cache_clear = _forget  # type: ignore[attr-defined]  # as functools.lru_cache's


def reserved_ids(folder: Path) -> frozenset[str]:
    """``explainers.reserved_ids()``, kept with the stamps in the cache ``folder``:
    the ids come from the installed explainers' declarations, which the stamps
    cover (their code, and the distributions' metadata and entry points that
    name them; kept only when every explainer found loads, as a broken one's
    code is in no stamp), so while the stamps hold, a later process takes them from there
    instead of importing ``importlib.metadata``, scanning every distribution's
    entry points and importing each explainer (~40 ms of a one-body edit)."""
    code_version(folder)
    if _reserved is not None:
        return _reserved
    # Not kept: a version made without a folder, or an installed explainer
    # that does not load (see ``_stamped``).
    from ..explainers.base import reserved_ids as found

    return found()


def package_root() -> Path:
    """The folder of the package's own files."""
    return Path(__file__).resolve().parent.parent


def compute() -> tuple[str, list[str], list[str]]:
    """(the code version, the trees hashed, the dependencies' metadata files found)."""
    from importlib import metadata  # here, not at the top: stamped builds never need it (~20 ms)

    digest = hashlib.sha256(f"{__version__} {sys.version}".encode())
    found = []
    for package in OUTPUT_DEPENDENCIES:  # their output is our output: a new version is new code
        try:
            distribution = metadata.distribution(package)
            digest.update(f"{package} {distribution.version}".encode())
            found.append(str(getattr(distribution, "_path", "")))
        except metadata.PackageNotFoundError:
            digest.update(f"{package} -".encode())
    trees = [str(package_root())]
    _hash_tree(digest, package_root())
    lines, outside = _explainers()
    for line in lines:
        digest.update(line.encode())
    return digest.hexdigest(), trees + outside, found


def _hash_tree(digest, root: Path) -> None:
    paths = sorted(root.rglob("*")) if root.is_dir() else [root]
    for path in paths:
        if path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root.parent if root.is_file() else root)).encode())
            digest.update(path.read_bytes())


def explainer_versions() -> list[str]:
    """One line per installed explainer: its name and declared version, and
    for one outside ``site_builder`` a hash of its own package's files, so an
    explainer that changes is never served from the cache. Every key holds the
    code version, so this is part of every key (as Sphinx's ``env_version``)."""
    return _explainers()[0]


def _explainers() -> tuple[list[str], list[str]]:
    """(``explainer_versions``, the outside packages' files hashed for them)."""
    import importlib.util

    from ..explainers.base import REGISTRY

    lines, outside = [], []
    for explainer in REGISTRY.usable():
        line = f"explainer {explainer.name} {explainer.version}"
        top = REGISTRY.module_of(explainer.name).split(".")[0]
        if top != "site_builder":
            spec = importlib.util.find_spec(top)
            origin = spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else spec and spec.origin
            if origin:
                files = hashlib.sha256()
                _hash_tree(files, Path(origin))
                line += f" {files.hexdigest()}"
                outside.append(str(origin))
        lines.append(line)
    return lines, outside


# --- the stamps ------------------------------------------------------------------------

def _context() -> tuple:
    """What the stamps hold good for: this interpreter, this package, this import path."""
    return (__version__, sys.version, sys.executable, str(package_root()), list(map(str, sys.path)),
            [type(finder).__qualname__ for finder in sys.meta_path], OUTPUT_DEPENDENCIES)


def _stamp(path: str) -> tuple | None:
    try:
        info = os.stat(path)
    except OSError:
        return None  # (not there: a stamp too, which a path appearing changes)
    return info.st_ino, info.st_dev, info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _paths(trees: list[str], found: list[str]) -> list[str]:
    """The paths a version was made from: every folder and code file of the
    ``trees`` (no ``__pycache__``: bytecode is not hashed), and the dependencies'
    metadata folders (``found``) with their files."""
    paths = []
    for folder in found:
        if folder:
            paths += [folder, os.path.join(folder, "METADATA"), os.path.join(folder, "PKG-INFO")]
    for tree in trees:
        paths.append(tree)
        for where, folders, files in os.walk(tree):
            folders[:] = sorted(name for name in folders if name != "__pycache__")
            paths += [os.path.join(where, name) for name in folders]
            paths += [os.path.join(where, name) for name in sorted(files) if name.endswith(CODE_SUFFIXES)]
    return paths


_METADATA = (".dist-info", ".egg-info")


_LINKS = (".pth",)
"""Files in a ``sys.path`` folder that point imports elsewhere (an editable install's
``.pth``, or the ``__editable__`` finder setuptools writes beside it)."""


def _distributions() -> list[list[tuple] | None]:
    """For each ``sys.path`` entry, the distributions' metadata it holds (where
    ``importlib.metadata`` finds versions and entry points) and the files that
    point imports elsewhere, each with its stamp: a package installed, upgraded,
    reinstalled or removed, or an editable install pointed at another checkout
    under the same name and version, changes these. Only these entries, not the
    folder's own ctime: the current folder is on ``sys.path`` too, and a build
    changes it (the lock, the records beside the output). A distribution's
    ``entry_points.txt`` is stamped too (edited in place, it changes which
    explainers there are, kept with the stamps: ``reserved_ids``)."""
    entries = []
    for entry in sys.path:
        folder = entry or os.curdir
        try:
            names = sorted(name for name in os.listdir(folder)
                           if name.endswith(_METADATA + _LINKS) or name.startswith("__editable__"))
        except OSError:
            entries.append(None)
            continue
        entries.append([(name, _stamp(os.path.join(folder, name)))
                        + ((_stamp(os.path.join(folder, name, "entry_points.txt")),) if name.endswith(_METADATA) else ())
                        for name in names])
    return entries


def _stamped(folder: Path) -> str:
    """The version the stamps in ``folder`` give, when every one still holds; else
    ``compute``'s, stamped in ``folder`` (when it is one) for the next process."""
    global _reserved
    record = None
    try:
        raw = read_owned(folder / STAMPS)
        record = marshal.loads(raw) if raw is not None else None
    except (OSError, RefusedPath, EOFError, ValueError, TypeError):
        pass
    if (isinstance(record, dict) and record.get("context") == _context()
            and all(_stamp(path) == stamp for path, stamp in record["stamps"])
            and record.get("distributions") == _distributions()):
        kept = record.get("reserved")
        _reserved = frozenset(kept) if isinstance(kept, list) else None
        _take_page_reserved(record.get("page_reserved"))
        return record["version"]
    from ..explainers.base import REGISTRY, reserved_ids as reserved_found

    started = time.time_ns()
    distributions = _distributions()
    version, trees, found = compute()
    _reserved = reserved_found()  # (compute loaded the declarations: no work of its own)
    # A broken explainer's files are in no stamp (only a declaration that
    # loads names its package), so fixing it would change nothing here: its
    # ids are then not kept, and each process asks the registry again.
    kept = sorted(_reserved) if sum(1 for _ in REGISTRY.usable()) == len(REGISTRY) else None
    stamps = [(path, _stamp(path)) for path in _paths(trees, found)]
    young = started - RACY_NS
    if all(stamp is None or stamp[4] < young for _, stamp in stamps):
        try:
            if check_owned_folder(folder):
                write_owned(folder / STAMPS, marshal.dumps({"context": _context(), "version": version,
                                                            "stamps": stamps, "distributions": distributions,
                                                            "reserved": kept,
                                                            "page_reserved": _page_reserved()}))
        except (OSError, RefusedPath):
            pass  # no stamps: the next build hashes again
    return version


def _page_reserved() -> list[list[str]] | None:
    """``markup.reserved.reserved()`` as plain values, kept with the stamps: it is
    read from the package's templates, scripts and styles, which the stamps cover."""
    from importlib import resources

    from ..markup.reserved import reserved

    if Path(str(resources.files("site_builder"))).resolve() != package_root():
        return None  # read from files the stamps do not cover
    found = reserved()
    return [sorted(found.ids), sorted(found.id_prefixes), sorted(found.classes), sorted(found.class_prefixes)]


def _take_page_reserved(kept: object) -> None:
    """Hand ``_page_reserved``'s values, kept with stamps that all hold, to
    ``markup.reserved``: the process then does not read ~240 KB of scripts and
    styles for them (~10-15 ms of a one-body edit). Anything else is left alone
    (read when first asked, as without a cache)."""
    if (isinstance(kept, list) and len(kept) == 4
            and all(isinstance(part, list) and all(isinstance(name, str) for name in part) for part in kept)):
        from ..markup.reserved import Reserved, take_reserved

        take_reserved(Reserved(*map(frozenset, kept)))
