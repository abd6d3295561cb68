"""``objects.inv`` compressed beside the search tail (issue 40, fifth round,
second half): a cold build without a cache makes the inventory's lines while
the page workers render, and compresses them (zlib level 9, ~0.2 s at 10,000
terms; ``zlib.compress`` releases the GIL) in a thread started once the pages
are in, on the core the page workers have left, while the build process
makes the search files. The same bytes; the thread never outlives the build,
and a failure in it fails the build as any other."""

from __future__ import annotations

import threading
import types
import zlib

import pytest

from site_builder import build as build_module
from site_builder.build import BuildOptions, build_site
from site_builder.outputs import inventory
from site_builder.outputs.glossary_json import Entry


def entries() -> list[Entry]:
    return [Entry(f"term-{n}", f"Term {chr(65 + n % 26)}{n}x", "s", aliases=(f"alias {n}x",)) for n in range(300)]


def test_later_gives_the_bytes_objects_inv_gives(monkeypatch):
    threads = []
    real = zlib.compress

    def compress(data, level):
        threads.append(threading.current_thread())
        return real(data, level)

    monkeypatch.setattr(inventory, "zlib", types.SimpleNamespace(compress=compress, decompress=zlib.decompress))
    headings = {"term-3": [("intro", "Intro")]}
    later = inventory.DeflatedLater(*inventory.inventory_parts("P", "1", entries(), headings))
    later.start()
    made = later.result()
    assert threads == [threads[0]] and threads[0] is not threading.current_thread()
    assert made == inventory.objects_inv("P", "1", entries(), headings)
    assert inventory.read_inventory(made)


def inventory_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "objects.inv"]


def test_a_cold_build_compresses_objects_inv_in_a_thread_once_the_pages_are_in(small_site, tmp_path, monkeypatch):
    events = []
    real_write_pages, real_start = build_module.page_cache.write_pages, inventory.DeflatedLater.start

    def write_pages(*args, **kwargs):
        result = real_write_pages(*args, **kwargs)
        events.append("pages")
        return result

    def start(self):
        events.append("start")
        real_start(self)

    monkeypatch.setattr(build_module.page_cache, "write_pages", write_pages)
    monkeypatch.setattr(inventory.DeflatedLater, "start", start)
    out = tmp_path / "out"
    build_site(BuildOptions(content=small_site, output=out, jobs=2, cache=False))
    assert events[:2] == ["pages", "start"]
    assert not inventory_threads()
    assert inventory.read_inventory((out / "objects.inv").read_bytes())


def test_a_failing_compression_fails_the_build_and_leaves_the_output(small_site, tmp_path, monkeypatch):
    out = tmp_path / "out"
    build_site(BuildOptions(content=small_site, output=out, jobs=2, cache=False))
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}

    def compress(data, level):
        raise MemoryError("no room to compress")

    monkeypatch.setattr(inventory, "zlib", types.SimpleNamespace(compress=compress, decompress=zlib.decompress))
    with pytest.raises(MemoryError):
        build_site(BuildOptions(content=small_site, output=out, jobs=2, cache=False))
    assert not inventory_threads()
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before
