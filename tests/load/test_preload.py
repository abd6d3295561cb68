"""Loading the terms in forked loaders while the command line imports (preload.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest

from helpers import REPO, manifest, term, write_tree
from site_builder import build
from site_builder.load import content, preload
from site_builder.build import BuildOptions, build_site



@pytest.fixture
def mixed_content(tmp_path: Path) -> Path:
    """Terms in nested folders, with every kind of problem a load reports."""
    outside = tmp_path / "outside.md"
    outside.write_text(term("Outside", "Not in the content folder."))
    root = write_tree(tmp_path / "content", {
        **{f"terms/t-{i:02d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i} with *em*.",
                                       related=[f"t-{(i + 1) % 12:02d}"]) for i in range(12)},
        "terms/deeper/a-first.md": term("A first", "Sorted first.", "Text."),
        "terms/deeper/t-03.md": term("Duplicate", "Same slug as another file."),
        "terms/Bad Name.md": term("Bad", "A file name that is not a slug."),
        "terms/broken.md": "---\ntitle: [unclosed\n---\nBody\n",
        "terms/quoted.md": '---\ntitle: "Quoted: yes"\nsummary: yes\n---\nNot plain YAML.\n',
    })
    (root / "terms" / "z-link.md").symlink_to(outside)
    return root


@pytest.mark.parametrize("loaders", [1, 3])
def test_loaders_give_exactly_a_load_from_nothing(mixed_content: Path, monkeypatch, loaders: int):
    monkeypatch.setattr(preload, "FILES_PER_LOADER", 1)  # as many loaders as cores allows
    started = preload.start(mixed_content, cores=loaders)
    assert started is not None and len(started._loaders) == loaders
    loaded = started.result()
    assert loaded is not None
    assert loaded == content.load_term_files(mixed_content)  # the same files, stamps, terms and problems, in order
    terms, problems = content.gather_terms(loaded)
    assert len(problems) >= 4 and len(terms) >= 13  # the fixture did exercise the problems


def test_parts_cover_every_file_once(mixed_content: Path):
    whole, _ = content.load_terms(mixed_content)
    parts = [content.load_terms(mixed_content, part=(k, 4))[0] for k in range(4)]
    assert sorted(t.path for part in parts for t in part) == sorted(t.path for t in whole)
    assert content.load_terms(mixed_content.parent / "nowhere", part=(1, 2)) == ([], [])
    assert len(content.load_terms(mixed_content.parent / "nowhere", part=(0, 2))[1]) == 1


def test_a_failed_loader_means_the_build_loads_itself(small_site: Path, tmp_path: Path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a loader that fails")

    monkeypatch.setattr(content, "load_term_files", broken)  # the forked loader inherits this
    started = preload.start(small_site)
    monkeypatch.undo()
    assert started.result() is None
    assert started._loaders == []  # reaped
    reference = tmp_path / "reference"
    build_site(BuildOptions(content=small_site, output=reference, cache=False))
    out = tmp_path / "out"
    monkeypatch.setattr(content, "load_term_files", broken)
    started = preload.start(small_site)
    monkeypatch.undo()
    build_site(BuildOptions(content=small_site, output=out, cache=False), preloaded=started)
    assert manifest(out) == manifest(reference)


@pytest.mark.parametrize("death", ["killed after a short write", "exits after a short write"])
def test_a_truncated_result_means_the_build_loads_itself(small_site: Path, monkeypatch, death):
    real_encoded, real_exit = preload._encoded, os._exit
    monkeypatch.setattr(preload, "_encoded", lambda loaded: real_encoded(loaded)[:40])  # the loader inherits these
    if death == "killed after a short write":
        monkeypatch.setattr(os, "_exit", lambda code: os.kill(os.getpid(), signal.SIGKILL))
    started = preload.start(small_site)
    monkeypatch.undo()
    assert preload._encoded is real_encoded and os._exit is real_exit
    assert started.result() is None
    assert started._loaders == []  # reaped


def test_the_build_takes_the_preload_only_when_loading_from_nothing(small_site: Path, tmp_path: Path, monkeypatch):
    taken = []
    original = preload.Preload.result

    def result(self, *args, **kwargs):
        taken.append(True)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(preload.Preload, "result", result)
    out = tmp_path / "out"
    build_site(BuildOptions(content=small_site, output=out), preloaded=preload.start(small_site))
    assert taken == [True]  # first build: nothing cached
    (small_site / "terms" / "beta.md").write_text(term("Beta", "The second term, edited."))
    later = preload.start(small_site)
    build_site(BuildOptions(content=small_site, output=out), preloaded=later)
    assert taken == [True]  # the cache held the terms: loaded from it, the loaders were stopped
    assert later._loaders == []
    assert "The second term, edited." in (out / "beta" / "index.html").read_text()
    clean = tmp_path / "clean"
    build_site(BuildOptions(content=small_site, output=clean, cache=False))
    assert manifest(clean) == manifest(out)


def test_discard_stops_and_reaps_the_loaders(small_site: Path):
    started = preload.start(small_site)
    pids = [pid for pid, _reader, _payload in started._loaders]
    started.discard()
    started.discard()  # twice is harmless
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie left


def test_templates_compile_while_waiting_for_the_loaders(small_site: Path, tmp_path: Path, monkeypatch):
    order = []
    original = preload.Preload.result

    def result(self, meanwhile=lambda: None):
        def noted():
            order.append("meanwhile")
            meanwhile()
        return original(self, noted)

    monkeypatch.setattr(preload.Preload, "result", result)
    real_select = preload.select.select
    monkeypatch.setattr(preload.select, "select",  # "not done yet" when asked without waiting
                        lambda r, w, x, t: ([], [], []) if t == 0 else real_select(r, w, x, t))
    compiled = []
    monkeypatch.setattr(build, "compile_templates", lambda: compiled.append("compiled"))
    build_site(BuildOptions(content=small_site, output=tmp_path / "out", cache=False),
               preloaded=preload.start(small_site))
    assert order == ["meanwhile"] and compiled  # compiled while the loaders ran


def test_command_line_build_matches_the_library_build_and_skips_pygments(tmp_path: Path):
    """The real content through ``python -m site_builder`` (loaders, no Pygments
    import) gives the very bytes of an in-process build without either."""
    out = tmp_path / "cli"
    script = (
        "import sys\n"
        "from site_builder.cli import main\n"
        f"status = main(['build', '--quiet', '--no-cache', '--content', 'content', '--output', {str(out)!r}])\n"
        "assert 'pygments' not in sys.modules, 'Pygments was imported'\n"
        "sys.exit(status)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    reference = tmp_path / "library"
    build_site(BuildOptions(content=REPO / "content", output=reference, cache=False))
    assert manifest(out) == manifest(reference)
    assert any("```" in path.read_text() for path in (REPO / "content" / "terms").rglob("*.md"))


def test_the_command_line_starts_no_loaders_when_a_cache_exists(small_site: Path, tmp_path: Path, cli, monkeypatch):
    started = []
    original = preload.start
    monkeypatch.setattr(preload, "start", lambda *a, **k: started.append(a) or original(*a, **k))
    out = tmp_path / "site" / "output"
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    assert len(started) == 1  # first build: no cache yet
    assert cli("build", "--content", small_site, "--output", out)[0] == 0
    assert len(started) == 1  # the cache holds the terms
    assert cli("build", "--no-cache", "--content", small_site, "--output", out)[0] == 0
    assert len(started) == 2


def test_explainers_named_reads_the_front_matter_only(tmp_path: Path):
    terms = tmp_path / "content" / "terms"
    terms.mkdir(parents=True)
    (terms / "a.md").write_text("---\ntitle: A\nexplainer: speculative-decoding\n---\nBody.\n", encoding="utf-8")
    (terms / "b.md").write_text("---\ntitle: B\nexplainer: 'other.one'\nsummary: s\n---\n", encoding="utf-8")
    (terms / "c.md").write_text("---\ntitle: C\n---\nexplainer: in-the-body\n", encoding="utf-8")
    (terms / "d.txt").write_text("---\nexplainer: not-a-term\n---\n", encoding="utf-8")
    (terms / "e.md").write_text("title: no front matter\nexplainer: nope\n", encoding="utf-8")
    assert preload.explainers_named(tmp_path / "content") == {"speculative-decoding", "other.one"}
    assert preload.explainers_named(tmp_path / "content", limit=3) == set(), "more term files than the limit"
    assert preload.explainers_named(tmp_path / "missing") == set()


def test_a_first_command_line_build_prepares_its_explainers_before_its_own_imports(tmp_path: Path, cli, monkeypatch):
    """The command line runs the explainers' prepare steps as it starts, before
    the build (its converter worker then starts ~0.3 s earlier); the build's own
    prepare stage does not run them again; nothing is left running after; a
    build with a cache does not do it (its load comes from the cache)."""
    from site_builder import cli as cli_module
    from site_builder.explainers import base, vega
    from site_builder.explainers import speculative_decoding as sd

    content = tmp_path / "content"
    shutil.copytree(REPO / "content", content)
    calls = []
    original = sd.prepare

    def spy(jobs):
        calls.append(any(frame.name == "_prepare_early" for frame in traceback.extract_stack()))
        return original(jobs)

    monkeypatch.setattr(sd, "prepare", spy)
    out = tmp_path / "site" / "output"
    assert cli("build", "--content", content, "--output", out)[0] == 0
    assert calls == [True], "one prepare step, run by the command line before the build"
    assert base._PREPARED == set() and vega._WORKERS is None
    assert cli("build", "--content", content, "--output", out)[0] == 0
    assert calls == [True], "a build from its cache prepares nothing"
    # a first build that fails: nothing left prepared or running
    broken = content / "terms" / "model.md"
    broken.write_text(broken.read_text(encoding="utf-8") + "\nSee [[No such term]].\n", encoding="utf-8")
    assert cli("build", "--no-cache", "--content", content, "--output", tmp_path / "other" / "output")[0] == 1
    assert len(calls) == 2 and base._PREPARED == set() and vega._WORKERS is None
    assert cli_module._prepare_early(tmp_path / "nowhere", 2) is False


def test_a_loaders_payload_is_plain_values_read_back_whole(mixed_content: Path):
    """Marshalled rows, not pickled dataclasses (half the CPU on either side); a
    value marshal cannot hold is pickled; a truncated payload is never read."""
    import datetime

    loaded = content.load_term_files(mixed_content)
    payload = preload._encoded(loaded)
    assert payload[:1] == preload._MARSHAL
    assert preload._decoded(payload) == loaded
    # The front matter's digest too (not compared by ==): a loaded file's first
    # body edit then takes its fields from its record instead of parsing YAML.
    assert [getattr(entry, "front", None) for entry in preload._decoded(payload)] == \
        [getattr(entry, "front", None) for entry in loaded]
    assert sum(1 for entry in loaded if getattr(entry, "front", b"")) >= 12
    odd = [entry for entry in loaded if isinstance(entry, content.LoadedFile) and entry.term is not None][0]
    odd.term.explainer_options = {"since": datetime.date(2024, 1, 2)}
    payload = preload._encoded(loaded)
    assert payload[:1] == preload._PICKLE and preload._decoded(payload) == loaded
    with pytest.raises(Exception):
        preload._decoded(preload._encoded(content.load_term_files(mixed_content))[:-20])


def test_the_loaders_inherit_the_load_modules(small_site: Path):
    """``content`` (PyYAML, the load modules) is imported once, before the fork,
    not by each loader again."""
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from site_builder.load import preload\n"
        "assert 'site_builder.load.content' not in sys.modules and 'yaml' not in sys.modules\n"
        f"started = preload.start(Path({str(small_site)!r}), cores=1)\n"
        "assert 'site_builder.load.content' in sys.modules and 'yaml' in sys.modules\n"
        "assert started.result() is not None\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_each_chunk_is_decoded_as_it_comes_while_the_loaders_work(mixed_content: Path, tmp_path: Path, monkeypatch):
    """Loaders share the files in chunks: one held up on the first file leaves
    every other chunk to the other, and the build decodes those as they come,
    while the first still works (it waits until the build has decoded one),
    not once the loaders have ended; the load is in file order all the same."""
    go_on = tmp_path / "decoded one"
    real_load = content.load_term_file
    first = content.find_term_files(mixed_content)[0][0].path

    def first_waits(file, stamp):
        if file.path == first:
            for _ in range(200):  # at most 10 s: a build that decodes only at the end fails the test, never hangs
                if go_on.exists():
                    break
                time.sleep(0.05)
        return real_load(file, stamp)

    monkeypatch.setattr(preload, "FILES_PER_LOADER", 1)
    monkeypatch.setattr(preload, "FILES_PER_CHUNK", 1)  # a chunk per top-level entry
    monkeypatch.setattr(content, "load_term_file", first_waits)  # the loaders inherit it
    started = preload.start(mixed_content, cores=2)
    monkeypatch.undo()
    assert started._chunks > 2
    decoded = []
    real_decoded = preload._decoded

    def noted(payload):
        found = real_decoded(payload)
        decoded.append(found)
        go_on.touch()
        return found

    monkeypatch.setattr(preload, "_decoded", noted)
    loaded = started.result()
    assert loaded == content.load_term_files(mixed_content)  # in file order all the same
    assert len(decoded) == started._chunks
    paths = [[getattr(entry, "path", None) for entry in part] for part in decoded]
    holding = [i for i, part in enumerate(decoded) if any(isinstance(e, content.LoadedFile) and
                                                           e.shown.endswith(os.path.basename(first)) for e in part)]
    assert holding == [len(decoded) - 1], paths  # the held-up chunk last: the others were decoded before it was done


def test_a_chunk_nobody_loaded_means_the_build_loads_itself(mixed_content: Path, monkeypatch):
    real_claimed = preload._claimed

    def skipping(queue):
        chunk = real_claimed(queue)
        return real_claimed(queue) if chunk == 1 else chunk  # chunk 1 taken, never loaded

    monkeypatch.setattr(preload, "FILES_PER_LOADER", 1)
    monkeypatch.setattr(preload, "FILES_PER_CHUNK", 1)
    monkeypatch.setattr(preload, "_claimed", skipping)  # the loaders inherit it
    started = preload.start(mixed_content, cores=2)
    assert started is not None and started._chunks > 2
    assert started.result() is None


def test_a_payload_is_read_in_place_and_its_memory_given_back(mixed_content: Path):
    loaded = content.load_term_files(mixed_content)
    payload = preload._payload_file()
    try:
        os.write(payload, preload._encoded(loaded))
        assert preload._read_payload(payload) == loaded
        assert os.fstat(payload).st_size == 0  # emptied: a process forked meanwhile holds no copy of it
        with pytest.raises(ValueError):
            preload._read_payload(payload)  # nothing written: never an empty load
    finally:
        os.close(payload)


@pytest.mark.parametrize("failing", ["payload", "pipe", "fork"])
def test_no_descriptor_or_process_to_spare_means_no_preload_and_nothing_left(
        mixed_content: Path, monkeypatch, failing: str):
    """When the third loader cannot get its payload file, its pipe or its
    process (EMFILE, EAGAIN), start() gives None (the build loads the terms
    itself): the two loaders already started are stopped and reaped, and no
    descriptor is left open."""
    monkeypatch.setattr(preload, "FILES_PER_LOADER", 1)
    calls = {"payload": 0, "pipe": 0, "fork": 0}
    pids: list[int] = []
    real = {"payload": preload._payload_file, "pipe": os.pipe, "fork": preload.parallel.fork}

    def counted(kind):
        def call(*args):
            calls[kind] += 1
            if kind == failing and calls[kind] == 3:
                raise OSError(24, "Too many open files")
            result = real[kind](*args)
            if kind == "fork" and result:
                pids.append(result)
            return result
        return call
    monkeypatch.setattr(preload, "_payload_file", counted("payload"))
    monkeypatch.setattr(preload.os, "pipe", counted("pipe"))
    monkeypatch.setattr(preload.parallel, "fork", counted("fork"))
    before = set(os.listdir("/proc/self/fd"))
    assert preload.start(mixed_content, cores=3) is None
    monkeypatch.undo()
    assert calls[failing] == 3 and len(pids) == 2
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # stopped and reaped
    assert set(os.listdir("/proc/self/fd")) <= before


def test_discard_after_a_loader_was_reaped_elsewhere(small_site: Path):
    """An interrupt between result()'s reap of a loader and its record of it
    leaves a pid already reaped: discard() still stops the rest and closes
    every descriptor instead of raising ChildProcessError."""
    started = preload.start(small_site, cores=1)
    pid, reader, payload = started._loaders[0]
    os.waitpid(pid, 0)
    started.discard()
    for descriptor in (reader, payload):
        with pytest.raises(OSError):
            os.fstat(descriptor)


CTRL_C_AT_A_FORK = r"""
import os, signal, sys
from pathlib import Path
from site_builder import parallel
from site_builder.load import preload

signal.signal(signal.SIGINT, signal.default_int_handler)
content, at = Path(sys.argv[1]), int(sys.argv[2])
forks = 0

def ctrl_c_at_the_chosen_fork():
    # Right after the fork, in this process, while Ctrl-C is held: it is
    # delivered when the fork lets it through, before start() has the pid.
    global forks
    forks += 1
    if forks == at:
        os.kill(os.getpid(), signal.SIGINT)

os.register_at_fork(after_in_parent=ctrl_c_at_the_chosen_fork)
preload.FILES_PER_LOADER = 1  # a loader per core given
before = set(os.listdir("/proc/self/fd"))
try:
    preload.start(content, cores=3)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted")
print("forks", forks)
try:
    left = os.waitpid(-1, os.WNOHANG)  # (0, 0): a child still runs; (pid, status): one never reaped
    print("a child left", left)
except ChildProcessError:
    print("no child left")
print("descriptors left", sorted(set(os.listdir("/proc/self/fd")) - before))
"""


@pytest.mark.parametrize("at", [1, 2, 3])
def test_a_ctrl_c_held_across_a_loaders_fork_leaves_no_loader_and_no_descriptor(
        mixed_content: Path, tmp_path: Path, at: int):
    """A Ctrl-C that comes while the first, second or last of three loaders is
    forked is held and raised as the fork ends, before start() has that
    loader's pid: every loader forked (that one and those before it) is killed
    and reaped before start() raises it, and no descriptor is left open (no
    loader outlives a build that stopped; before, start() lost them all)."""
    script = tmp_path / "ctrl_c.py"
    script.write_text(CTRL_C_AT_A_FORK)
    result = subprocess.run([sys.executable, str(script), str(mixed_content), str(at)], cwd=REPO,
                            capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert result.stdout.splitlines() == ["interrupted", f"forks {at}", "no child left", "descriptors left []"], \
        result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr, result.stderr


def test_a_ctrl_c_while_the_command_line_prepares_explainers_leaves_no_loader(
        small_site: Path, tmp_path: Path, monkeypatch):
    """The explainers' early prepare runs after the loaders are forked: a
    Ctrl-C there (or any failure) still discards them (before, it came before
    the ``try`` that does, and left them unreaped with their descriptors open)."""
    from site_builder import cli

    started = []
    original = preload.start
    def start(*args, **kwargs):
        made = original(*args, **kwargs)
        started.append(list(made._loaders) if made is not None else None)
        return made
    monkeypatch.setattr(preload, "start", start)

    def interrupted(content, jobs):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli, "_prepare_early", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cli.main(["build", "--content", str(small_site), "--output", str(tmp_path / "out"), "--quiet"])
    assert started and started[0]
    for pid, reader, payload in started[0]:
        if pid:
            with pytest.raises(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)  # reaped: none left running or a zombie
        for descriptor in (reader, payload):
            with pytest.raises(OSError):
                os.fstat(descriptor)
