"""A page's search entries and the index's assembly: this checkout against a revision, in one process.

    python benchmarks/bench_search_entries.py REV --content DIR [--rounds 9]

Builds DIR (a corpus folder with site.toml) once with ``--jobs 1 --no-cache``
into a temporary folder, keeping every page the indexer is given (its term
and rendered body). Then it alternates REV's ``outputs/search_text.py`` and
``outputs/search_index.py`` (read with ``git show``) with this checkout's:
``page_record``'s work (``body_sections`` + ``record``, a fresh stemmer each
round) per page, and ``assemble`` + ``files`` over the records repeated to
five times the pages. It checks both give the same records and files, and
prints medians, bests and their ratios (this checkout / REV), with the load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

from site_builder import build
from site_builder.cache import search as search_cache
from site_builder.outputs import search_index, search_text


def _at(rev: str, path: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    source = subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, text=True, check=True).stdout
    sys.modules[name] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def _pages(content: Path) -> tuple[object, list]:
    """The config and every (term, body) a --jobs 1 cold build hands the indexer."""
    seen, config = [], []
    entries, files = search_cache.Indexer.entries, search_cache.Indexer.files
    search_cache.Indexer.entries = lambda self, term, body: seen.append((term, body)) or entries(self, term, body)
    search_cache.Indexer.files = lambda self, *a, **k: config.append(self.config) or files(self, *a, **k)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            build.build_site(build.BuildOptions(content=content, output=Path(scratch) / "output", jobs=1, cache=False))
    finally:
        search_cache.Indexer.entries, search_cache.Indexer.files = entries, files
    return config[0], seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev")
    parser.add_argument("--content", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    old_text = _at(args.rev, "site_builder/outputs/search_text.py", "old_search_text")
    old_index = _at(args.rev, "site_builder/outputs/search_index.py", "old_search_index")
    config, pages = _pages(args.content)
    code = getattr(config, "search_code", False)

    def records(text):
        stem = text.Stemmer(config.language, {})
        return [text.record(t.title, t.aliases, t.summary,
                            text.body_sections(b.html, [i for _, i, _ in b.headings], code=code), stem) for t, b in pages]

    base = records(old_text)
    assert base == records(search_text), "the records differ"
    many = base * 5
    docs = [search_cache.display(config, t, b) for t, b in pages] * 5

    def index_files(index):
        shards, counts, pairs = index.assemble(iter(many))
        return index.files(shards, docs, pairs), counts

    assert index_files(old_index) == index_files(search_index), "the files differ"
    times: dict[str, list[float]] = {k: [] for k in ("page REV", "page here", "assemble REV", "assemble here")}
    for round_ in range(args.rounds):
        sides = [("REV", old_text, old_index), ("here", search_text, search_index)]
        for side, text, index in sides if round_ % 2 == 0 else sides[::-1]:
            started = time.process_time()
            records(text)
            times[f"page {side}"].append((time.process_time() - started) / len(pages) * 1e6)
            started = time.process_time()
            index_files(index)
            times[f"assemble {side}"].append(time.process_time() - started)
    print(f"{len(pages)} pages, {args.rounds} rounds, load {os.getloadavg()[0]:.1f}")
    for what, unit in (("page", "µs a page"), ("assemble", f"s for {len(many)} records")):
        old, new = times[f"{what} REV"], times[f"{what} here"]
        print(f"{what}: REV median {statistics.median(old):.3f}, here {statistics.median(new):.3f} {unit}; "
              f"ratio median {statistics.median(new) / statistics.median(old):.3f}, best {min(new) / min(old):.3f}")


if __name__ == "__main__":
    main()
