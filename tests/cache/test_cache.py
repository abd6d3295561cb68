"""The build cache must never serve stale output: after each kind of change,
an incremental build gives exactly the bytes of a clean build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from site_builder.cache import store as cache
from site_builder.build import BuildOptions, build_site
from site_builder.render.pages import make_environment

from helpers import fill_disk, manifest, term, write_tree

TEMPLATE = Path(cache.__file__).parents[1] / "templates" / "term.html"


def make_content(root: Path) -> Path:
    files = {
        f"terms/t{i:02d}.md": term(f"Term {i}", f"Summary of term {i}.",
                                   f"Body {i} links to [[Term {(i + 1) % 12}]].\n\n## Part\n\nMore.\n",
                                   related=[f"t{(i + 3) % 12:02d}"])
        for i in range(12)
    }
    files["site.toml"] = 'title = "Cache test"\n'
    return write_tree(root, files)


def build(content: Path, output: Path, use_cache: bool = True):
    return build_site(BuildOptions(content=content, output=output, cache=use_cache, jobs=1))


def assert_same_as_clean(content: Path, incremental: Path, tmp_path: Path):
    clean = tmp_path / "clean" / "out"
    if clean.parent.exists():
        shutil.rmtree(clean.parent)
    build(content, clean, use_cache=False)
    assert manifest(incremental) == manifest(clean)


def edit(path: Path, old: str, new: str):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


CHANGES = {
    "edited body": lambda c: edit(c / "terms/t03.md", "Body 3", "Changed body 3 with $x^2$"),
    "edited summary": lambda c: edit(c / "terms/t04.md", "Summary of term 4.", "A new summary shown on other pages."),
    "edited title": lambda c: edit(c / "terms/t05.md", "title: Term 5", "title: Term Five\naliases: [Term 5]"),
    "deleted term": lambda c: ((c / "terms/t07.md").unlink(),
                               edit(c / "terms/t06.md", "[[Term 7]]", "nothing"),
                               edit(c / "terms/t04.md", "related: [t07]", "related: []")),
    "renamed term": lambda c: ((c / "terms/t08.md").rename(c / "terms/eight.md"),
                               edit(c / "terms/t07.md", "[[Term 8]]", "[[Term 8]] and [x](eight.md#part)"),
                               edit(c / "terms/t05.md", "related: [t08]", "related: [eight]")),
    "changed config": lambda c: (c / "site.toml").write_text('title = "Renamed site"\npretty_urls = true\nbase_url = "https://example.org/g/"\n'),
}


@pytest.fixture
def spared_site(tmp_path: Path) -> tuple[Path, Path]:
    """(content, output) built twice: the second build left a spare tree and its record."""
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    build(content, output)
    return content, output


def count_reads(monkeypatch) -> list[str]:
    """The names of the term files read from now on."""
    from site_builder.load import content as content_module

    reads: list[str] = []
    original = content_module.read_term_text  # (what every read of a term file goes through)
    monkeypatch.setattr(content_module, "read_term_text",
                        lambda path, shown, reuse=None: (reads.append(path.name), original(path, shown, reuse))[1])
    return reads


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_incremental_build_equals_clean_build(change, tmp_path: Path):
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    build(content, output)  # warm
    CHANGES[change](content)
    report = build(content, output)
    assert report.written > 0
    assert_same_as_clean(content, output, tmp_path)


def test_edited_template_invalidates_pages(tmp_path: Path):
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    original = TEMPLATE.read_text()
    try:
        TEMPLATE.write_text(original.replace('<p class="back">', '<p class="back edited">'))
        # What serve's restarted build process would start with: new code, new templates.
        cache.code_version.cache_clear()
        make_environment.cache_clear()
        build(content, output)
        assert 'class="back edited"' in (output / "t01/index.html").read_text()
        assert_same_as_clean(content, output, tmp_path)
    finally:
        TEMPLATE.write_text(original)
        cache.code_version.cache_clear()
        make_environment.cache_clear()


def test_body_edit_rewrites_only_what_it_touches(tmp_path: Path):
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    edit(content / "terms/t03.md", "More.", "More, and more.")
    report = build(content, output)
    # t03's page, and in search/ the shards of "more" (counted again) and "and" (a
    # new shard) and the manifest that lists it; everything else reused or identical
    assert report.written == 4


def test_hand_edited_output_is_not_reused(tmp_path: Path):
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    page = output / "t02/index.html"
    page.write_text("tampered")
    build(content, output)
    assert_same_as_clean(content, output, tmp_path)


@pytest.mark.parametrize("damage", ["tables", "blobs", "both"])
def test_damaged_cache_is_a_cold_cache(tmp_path: Path, damage: str):
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    folder = tmp_path / "site" / ".site_builder_cache"
    damaged = []
    if damage in ("tables", "both"):
        damaged += sorted(folder.glob("*.table"))
    if damage in ("blobs", "both"):
        damaged += [folder / "blobs.sqlite"]
    assert len(damaged) >= (1 if damage == "blobs" else 4)
    for path in damaged:
        path.write_bytes(b"M\xffgarbage" if path.suffix == ".table" else b"not a database")
    CHANGES["edited body"](content)  # stale entries would now show
    build(content, output)
    assert_same_as_clean(content, output, tmp_path)


def test_a_cache_that_cannot_be_saved_leaves_the_site_built(tmp_path: Path, cli):
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / ".site_builder_cache").write_text("a file where the cache folder goes")
    for change in (None, "edited body"):
        if change:
            CHANGES[change](content)
        status, _, err = cli("build", "--content", content, "--output", output, "--quiet")
        assert status == 0, err
        assert "could not be saved" in err and ".site_builder_cache" in err and "Traceback" not in err
        assert_same_as_clean(content, output, tmp_path)


def test_a_table_that_cannot_be_saved_drops_the_others(tmp_path: Path, monkeypatch):
    # Tables record what the last finished build did: half of them from this
    # build and half from an older one must never be read together.
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    folder = tmp_path / "site" / ".site_builder_cache"
    assert len(list(folder.glob("*.table"))) >= 4
    real_write = cache.write_owned

    def refuse_terms(path, data, temporary=None):  # the disk says no to one table, mid-build
        if Path(path).name == "terms.table":
            raise OSError(28, "No space left on device", str(path))
        real_write(path, data, temporary)

    monkeypatch.setattr(cache, "write_owned", refuse_terms)
    CHANGES["renamed term"](content)
    report = build(content, output)
    assert report.cache_failure and "terms.table" in report.cache_failure
    assert_same_as_clean(content, output, tmp_path)
    assert not list(folder.glob("*.table"))
    monkeypatch.undo()
    CHANGES["edited body"](content)
    build(content, output)
    assert_same_as_clean(content, output, tmp_path)


def test_in_place_builds_equal_clean_builds(tmp_path: Path):
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    options = BuildOptions(content=content, output=output, jobs=1, in_place=True)
    build_site(options)
    inode = (output / "t01/index.html").stat().st_ino
    for change in ("edited body", "renamed term", "deleted term"):
        CHANGES[change](content)
        build_site(options)
        assert_same_as_clean(content, output, tmp_path)
    assert (output / "t01/index.html").stat().st_ino == inode  # untouched pages stay where they were
    assert not (output / "t07").exists()


def test_parallel_page_rendering_incremental_equals_clean(tmp_path: Path):
    from site_builder.render.pages import PARALLEL_PAGES

    count = PARALLEL_PAGES + 20
    content = write_tree(tmp_path / "content", {
        f"terms/p{i:04d}.md": term(f"Page {i}", f"Summary {i}.", f"Links to [[Page {(i + 7) % count}]].\n")
        for i in range(count)
    })
    output = tmp_path / "site" / "out"
    options = BuildOptions(content=content, output=output, jobs=2)
    build_site(options)
    before = {p: p.stat().st_mtime_ns for p in output.rglob("*") if p.is_file()}
    edit(content / "terms/p0003.md", "Summary 3.", "A changed summary.")
    report = build_site(options)
    changed = {p.relative_to(output).as_posix() for p in output.rglob("*")
               if p.is_file() and before.get(p) != p.stat().st_mtime_ns}
    # its page, the page linking to it (related card), the page it links to
    # (backlink card), the index and glossary.json: nothing else (no base_url: no previews);
    # in search/, the shards of the summary's new words ("a", "changed"), the manifest
    # that lists them, the chunk with the page's summary, and the phrase pairs' files
    # of the pairs the summary lost ("summari 3") and gained ("a chang", "chang summari")
    from site_builder.outputs.search_index import pair_bucket
    pairs = {f"search/p/{pair_bucket(pair)}.json" for pair in ("summari 3", "a chang", "chang summari")}
    assert changed == {"p0003/index.html", "p0216/index.html", "p0010/index.html", "index.html", "glossary.json",
                       "search/index.json", "search/t/a.json", "search/t/ch.json", "search/d/0.json", *pairs}
    assert report.written == len(changed)
    assert report.written + report.unchanged == len(manifest(output))
    assert_same_as_clean(content, output, tmp_path)


def test_a_damaged_spare_tree_never_reaches_the_output(spared_site, tmp_path: Path):
    content, output = spared_site
    spare = output.parent / ".out.spare"
    assert spare.is_dir()  # the previous site, kept to stage the next build into
    (spare / "t01" / "stray.html").write_text("left over")
    page = spare / "t02" / "index.html"
    page.unlink()  # break the hard link to the live page before changing it
    page.write_text("stale")
    (spare / "t03" / "index.html").unlink()
    (spare / "t05").rename(spare / "gone")
    live_before = (output / "t02" / "index.html").read_bytes()
    edit(content / "terms/t04.md", "Body 4", "Body four")
    build(content, output)
    assert_same_as_clean(content, output, tmp_path)
    assert (output / "t02" / "index.html").read_bytes() == live_before


def test_a_rebuild_touches_only_what_changed(spared_site, tmp_path: Path, monkeypatch):
    """The spare's record lets a rebuild skip every unchanged file: no link, no
    copy, no check per page, so its cost follows the change, not the site."""
    from site_builder import publish

    content, output = spared_site
    assert (output.parent / ".out.spare-record.json").is_file()
    touched: list[str] = []
    original_link, original_write = publish.Staging._link, publish.Staging._write
    monkeypatch.setattr(publish.Staging, "_link", lambda self, old, target: (touched.append(target), original_link(self, old, target))[1])
    monkeypatch.setattr(publish.Staging, "_write", lambda self, target, data: (touched.append(target), original_write(self, target, data))[1])
    edit(content / "terms/t03.md", "Body 3", "Body three")
    build(content, output)
    # The page, and in search/ the new word's new shard and the manifest that lists it.
    assert [Path(t).parent.name for t in touched if "/search/" not in t] == ["t03"]
    assert sorted(t.split("/search/")[1] for t in touched if "/search/" in t) == ["index.json", "t/th.json"]
    assert_same_as_clean(content, output, tmp_path)
    touched.clear()
    edit(content / "terms/t05.md", "Body 5", "Body five")
    build(content, output)
    # The edited page, and the page the last build wrote (the spare holds its older version).
    assert sorted(Path(t).parent.name for t in touched if "/search/" not in t) == ["t03", "t05"]
    assert sorted(t.split("/search/")[1] for t in touched if "/search/" in t) == ["index.json", "t/fi.json", "t/th.json"]
    assert_same_as_clean(content, output, tmp_path)


def test_a_replaced_output_voids_the_spare_record(spared_site, tmp_path: Path):
    content, output = spared_site
    copy = tmp_path / "site" / "copy"
    shutil.copytree(output, copy)  # same bytes, but none of the files are the spare's
    shutil.rmtree(output)
    copy.rename(output)
    edit(content / "terms/t06.md", "Body 6", "Body six")
    build(content, output)
    assert_same_as_clean(content, output, tmp_path)
    (output / "t01" / "index.html").unlink()
    edit(content / "terms/t06.md", "Body six", "Body 6")
    build(content, output)
    assert_same_as_clean(content, output, tmp_path)


def test_unchanged_term_files_are_not_read_again(tmp_path: Path, monkeypatch):
    """A file whose size, mtime, ctime and inode are unchanged is taken from the
    cache; any write changes its ctime (which tools cannot set back), so an edit
    that keeps the size and restores the mtime is still seen."""
    import os

    from site_builder.cache import terms as cached_terms

    monkeypatch.setattr(cached_terms, "SETTLED_NS", 0)  # the files here are seconds old at most
    reads = count_reads(monkeypatch)
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    assert len(reads) == 12
    reads.clear()
    build(content, output)
    assert reads == []
    target = content / "terms/t09.md"
    before = target.stat()
    edit(target, "Body 9", "Body X")  # same size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert target.stat().st_size == before.st_size and target.stat().st_mtime_ns == before.st_mtime_ns
    build(content, output)
    assert reads == ["t09.md"]
    assert "Body X" in (output / "t09" / "index.html").read_text()
    assert_same_as_clean(content, output, tmp_path)


def test_recently_changed_files_are_read_again(tmp_path: Path, monkeypatch):
    """Within the settle time a second same-size edit could keep every timestamp: such files are re-read."""
    reads = count_reads(monkeypatch)
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    reads.clear()
    build(content, output)
    assert len(reads) == 12  # all written just now: none is trusted yet


def test_serve_hints_name_the_only_files_looked_at(tmp_path: Path, monkeypatch):
    """With ``changed`` (serve's watcher), files outside it are taken from the
    cache without a look; files in it are read again; symlinks always are."""
    import os

    from site_builder.cache import terms as cached_terms

    monkeypatch.setattr(cached_terms, "SETTLED_NS", 0)
    content = make_content(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build(content, output)
    (content / "terms" / "t01.md").write_text((content / "terms" / "t01.md").read_text().replace("Body 1", "Unseen"))
    (content / "terms" / "t02.md").write_text((content / "terms" / "t02.md").read_text().replace("Body 2", "Seen"))
    hint = frozenset({os.path.abspath(content / "terms" / "t02.md")})
    build_site(BuildOptions(content=content, output=output, jobs=1, changed=hint))
    assert "Seen" in (output / "t02" / "index.html").read_text()
    assert "Unseen" not in (output / "t01" / "index.html").read_text()  # trusted the hint
    # A term that is a symlink: an edit shows up under the target's path, never the link's.
    (content / "shared").mkdir()
    (content / "shared" / "x.md").write_text(term("Linked", "Via a link.", "Linked body.\n"))
    os.symlink(content / "shared" / "x.md", content / "terms" / "x.md")
    build(content, output)
    (content / "shared" / "x.md").write_text(term("Linked", "Via a link.", "Edited through the link.\n"))
    build_site(BuildOptions(content=content, output=output, jobs=1,
                            changed=frozenset({os.path.abspath(content / "shared" / "x.md")})))
    assert "Edited through the link" in (output / "x" / "index.html").read_text()
    build(content, output)  # no hint: every file is looked at
    assert "Unseen" in (output / "t01" / "index.html").read_text()
    assert_same_as_clean(content, output, tmp_path)


def test_a_full_disk_gives_up_the_blob_store_but_keeps_its_file(small_disk: Path):
    # SQLite says "database or disk is full" (an OperationalError, which is a
    # DatabaseError): that is no damage, so the store must not be deleted.
    import sqlite3

    from site_builder.cache.store import BlobStore

    path = small_disk / "blobs.sqlite"
    store = BlobStore(path)
    store.put_many({"k": "kept"})
    store.close()
    for leftover in (small_disk / "blobs.sqlite-wal", small_disk / "blobs.sqlite-shm"):
        leftover.unlink(missing_ok=True)
    filler = fill_disk(small_disk)
    failures: list[Exception] = []
    full = BlobStore(path, failures.append)
    assert full.get_many(["k"]) in ({}, {"k": "kept"})
    full.close()
    if failures:  # the store could not open: given up, never deleted
        assert isinstance(failures[0], (OSError, sqlite3.Error)), failures
    filler.unlink()
    again = BlobStore(path)
    assert again.get_many(["k"]) == {"k": "kept"}, "the store was deleted on a full disk"
    again.close()
