"""The code version kept by stamps (``cache/code.py``): a later process stats the
files it was made from instead of hashing them, and any change of code, of a
dependency's version or of the files themselves is still noticed."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from site_builder.cache import code


@pytest.fixture
def fresh(monkeypatch):
    """A process's first ``code_version``, with a short racy window (so that files
    written by the test are old enough to stamp after a short sleep)."""
    code.code_version.cache_clear()
    monkeypatch.setattr(code, "RACY_NS", 50_000_000)
    yield
    code.code_version.cache_clear()


def _again(folder: Path) -> str:
    """``code_version`` as the next process would see it."""
    code.code_version.cache_clear()
    return code.code_version(folder)


def test_a_later_process_takes_the_version_from_the_stamps(tmp_path, fresh, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    first = code.code_version(folder)
    assert (folder / code.STAMPS).is_file()

    def never():
        raise AssertionError("hashed again though nothing changed")

    monkeypatch.setattr(code, "compute", never)
    assert _again(folder) == first


@pytest.fixture
def package(tmp_path, fresh, monkeypatch) -> Path:
    """A package of its own, old enough to be stamped."""
    root = tmp_path / "package"
    (root / "templates").mkdir(parents=True)
    (root / "module.py").write_text("VALUE = 1\n")
    (root / "templates" / "page.html").write_text("<p>{{ x }}</p>\n")
    (root / "logo.png").write_bytes(b"not code")
    monkeypatch.setattr(code, "package_root", lambda: root)
    time.sleep(0.06)
    return root


def _in_place(root: Path) -> None:  # same size, same inode: only the ctime and mtime show it
    path = root / "module.py"
    with open(path, "r+") as handle:
        handle.write("VALUE = 2\n")


def _replaced(root: Path) -> None:  # an editor's save: a new file renamed over the old one
    (root / "templates" / "new.tmp").write_text("<p>{{ y }}</p>\n")
    os.replace(root / "templates" / "new.tmp", root / "templates" / "page.html")


def _added(root: Path) -> None:
    (root / "templates" / "other.html").write_text("more\n")


def _removed(root: Path) -> None:
    (root / "module.py").unlink()


def _folder_added(root: Path) -> None:
    (root / "new").mkdir()
    (root / "new" / "code.js").write_text("x = 1\n")


@pytest.mark.parametrize("change", [_in_place, _replaced, _added, _removed, _folder_added], ids=lambda f: f.__name__[1:])
def test_a_change_of_code_is_noticed(tmp_path, package, change):
    folder = tmp_path / "cache"
    folder.mkdir()
    before = code.code_version(folder)
    assert (folder / code.STAMPS).is_file()
    change(package)
    after = _again(folder)
    assert after != before
    assert after == code.compute()[0]


def test_a_file_changed_just_before_is_not_stamped(tmp_path, fresh, monkeypatch):
    """A file younger than the racy window could change again without its ctime
    showing it: the version is made, but no stamps are kept."""
    root = tmp_path / "package"
    root.mkdir()
    (root / "module.py").write_text("VALUE = 1\n")
    monkeypatch.setattr(code, "package_root", lambda: root)
    monkeypatch.setattr(code, "RACY_NS", 60_000_000_000)
    folder = tmp_path / "cache"
    folder.mkdir()
    code.code_version(folder)
    assert not (folder / code.STAMPS).exists()


def test_a_dependency_installed_on_the_path_is_noticed(tmp_path, package, monkeypatch):
    """Another version of an output dependency, earlier on ``sys.path``, is new code."""
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    folder = tmp_path / "cache"
    folder.mkdir()
    before = code.code_version(folder)
    metadata = site / "markdown-0.0.1.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text("Metadata-Version: 2.1\nName: Markdown\nVersion: 0.0.1\n")
    after = _again(folder)
    assert after != before
    assert after == code.compute()[0]


def test_stamps_from_another_interpreter_or_path_are_not_taken(tmp_path, package, monkeypatch):
    folder = tmp_path / "cache"
    folder.mkdir()
    before = code.code_version(folder)
    monkeypatch.setattr(code, "__version__", "9.9.9")
    assert _again(folder) != before


@pytest.mark.parametrize("change", ["pth", "editable", "reinstalled", "entry_points"])
def test_an_install_pointed_elsewhere_under_the_same_name_is_noticed(tmp_path, package, monkeypatch, change):
    """An editable install's ``.pth`` (or its ``__editable__`` finder) rewritten to
    point at another checkout, or a distribution reinstalled under the same name
    and version, keeps every name on ``sys.path``: its stamp still changes, so
    the next process hashes again instead of taking the stamps."""
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "plugin.pth").write_text(str(tmp_path / "checkout-a") + "\n")
    (site / "__editable___plugin_finder.py").write_text("MAPPING = {'plugin': 'a'}\n")
    (site / "plugin-1.0.dist-info").mkdir()
    (site / "plugin-1.0.dist-info" / "entry_points.txt").write_text("[site_builder.explainers]\na = plugin:A\n")
    monkeypatch.syspath_prepend(str(site))
    folder = tmp_path / "cache"
    folder.mkdir()
    code.code_version(folder)
    time.sleep(0.06)
    hashed = []
    real = code.compute
    monkeypatch.setattr(code, "compute", lambda: hashed.append(1) or real())
    assert _again(folder) and hashed == []  # nothing changed: taken from the stamps
    if change == "pth":
        (site / "plugin.pth").write_text(str(tmp_path / "checkout-b") + "\n")
    elif change == "editable":
        (site / "__editable___plugin_finder.py").write_text("MAPPING = {'plugin': 'b'}\n")
    elif change == "entry_points":  # in place: the folder's stamp does not change, the file's does
        with open(site / "plugin-1.0.dist-info" / "entry_points.txt", "r+") as handle:
            handle.write("[site_builder.explainers]\nb")
    else:
        shutil.rmtree(site / "plugin-1.0.dist-info")
        (site / "plugin-1.0.dist-info").mkdir()
    _again(folder)
    assert hashed == [1]


def test_the_explainers_reserved_ids_are_kept_with_the_stamps(tmp_path, fresh, monkeypatch):
    """A later process takes the ids the explainers reserve from the stamps:
    no registry scan (``importlib.metadata``), no explainer imported."""
    from site_builder.explainers import base

    folder = tmp_path / "cache"
    folder.mkdir()
    first = code.reserved_ids(folder)
    assert first == base.reserved_ids() and first  # the bundled explainer reserves some

    def never():
        raise AssertionError("the registry was scanned though nothing changed")

    monkeypatch.setattr(base.Registry, "found", lambda self: never())
    monkeypatch.setattr(base, "reserved_ids", never)
    code.code_version.cache_clear()
    assert code.reserved_ids(folder) == first


def test_with_an_explainer_that_does_not_load_its_ids_are_asked_each_time(tmp_path, fresh, monkeypatch):
    """A broken explainer's code is in no stamp (only a declaration that loads
    names its package), so fixing it changes no stamp: the ids are then not
    kept, and a later process asks the registry again (while the version is
    still taken from the stamps)."""
    from site_builder.explainers import base

    site = tmp_path / "site-packages"
    (site / "plugin-1.0.dist-info").mkdir(parents=True)
    (site / "plugin-1.0.dist-info" / "entry_points.txt").write_text(
        "[site_builder.explainers]\nplug = plugmod:EXPLAINER\n")
    (site / "plugmod.py").write_text("raise ImportError('not yet')\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(base.REGISTRY, "_found", None)  # this process's scan, with the plugin
    monkeypatch.setattr(base.REGISTRY, "_loaded", {})
    time.sleep(0.06)  # old enough to be stamped
    folder = tmp_path / "cache"
    folder.mkdir()
    assert code.reserved_ids(folder) == base.reserved_ids()
    assert (folder / code.STAMPS).is_file()

    hashed = []
    real = code.compute
    monkeypatch.setattr(code, "compute", lambda: hashed.append(1) or real())
    asked = frozenset({"asked-again"})
    monkeypatch.setattr(base, "reserved_ids", lambda: asked)
    code.code_version.cache_clear()
    assert code.reserved_ids(folder) == asked
    assert hashed == []  # the version itself still came from the stamps


def test_the_names_the_page_reserves_are_kept_with_the_stamps(tmp_path, fresh, monkeypatch):
    """A later process takes ``markup.reserved.reserved()`` from the stamps (which
    cover the templates, scripts and styles it is read from) instead of reading them."""
    from site_builder.markup import reserved as page

    folder = tmp_path / "cache"
    folder.mkdir()
    page.take_reserved(None)
    code.code_version(folder)
    first = page.reserved()
    assert first.ids and first.classes and first.id_prefixes and first.class_prefixes
    assert first == page.read_reserved(page.package_files(code.package_root()))

    def never(files):
        raise AssertionError("the package's scripts and styles were read though nothing changed")

    monkeypatch.setattr(page, "read_reserved", never)
    page.take_reserved(None)  # as in a new process
    code.code_version.cache_clear()
    code.code_version(folder)
    assert page.reserved() == first


def test_the_names_the_page_reserves_are_read_again_when_the_code_changed(tmp_path, package, monkeypatch):
    """Stamps that no longer hold hand nothing in; nor do stamps of a package
    other than the one ``reserved()`` reads (the ``package`` fixture's)."""
    from site_builder.markup import reserved as page

    folder = tmp_path / "cache"
    folder.mkdir()
    code.code_version(folder)
    page.take_reserved(None)
    code.code_version.cache_clear()
    code.code_version(folder)  # the stamps hold, but cover another package than the one read
    assert page._known is None
    _in_place(package)
    page.take_reserved(None)
    code.code_version.cache_clear()
    code.code_version(folder)
    assert page._known is None
