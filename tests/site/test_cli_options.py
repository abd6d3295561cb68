"""The command line's smaller promises: a problem with a folder has no line
number, ``serve`` says what it builds before its stage lines, ``-o``/``-p`` are
``--output``/``--port``, and ``--config FILE`` reads a ``site.toml`` from anywhere
(``build``, ``check`` and ``serve``, which rebuilds when that file changes).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from helpers import term, write_tree
from serve_client import Serve, no_traceback

from site_builder.cli import make_parser
from site_builder.errors import BuildFailed, Problem


def test_a_content_folder_without_terms_is_named_with_no_line_number(tmp_path: Path, cli):
    (tmp_path / "content").mkdir()
    status, _, err = cli("check", "--content", tmp_path / "content")
    assert status == 1
    problem = err.splitlines()[0]
    assert re.fullmatch(r"\S*content: no terms/ folder: expected content/terms/<slug>\.md files", problem), err


def test_an_empty_terms_folder_is_named_with_no_line_number(tmp_path: Path, cli):
    (tmp_path / "content" / "terms").mkdir(parents=True)
    status, _, err = cli("check", "--content", tmp_path / "content")
    assert status == 1 and re.match(r"\S*content/terms: no term files \(\*\.md\) found\n", err), err


def test_problems_with_and_without_a_line_sort_and_print_together():
    whole = Problem("terms/a.md", None, "cannot read: Permission denied")
    at_two = Problem("terms/a.md", 2, "missing required field 'title'", "warning")
    other = Problem("content", None, "no terms/ folder")
    assert sorted([at_two, whole, other]) == [other, whole, at_two]  # a path's own problem before its lines
    assert BuildFailed([at_two, whole, at_two]).problems == [whole, at_two]
    assert str(whole) == "terms/a.md: cannot read: Permission denied"
    assert str(at_two) == "terms/a.md:2: warning: missing required field 'title'"
    assert at_two.location == "terms/a.md:2" and whole.location == "terms/a.md"


def test_short_flags_mean_the_long_ones():
    parser = make_parser()
    build = parser.parse_args(["build", "-o", "site"])
    assert build.output == Path("site")
    serve = parser.parse_args(["serve", "-o", "site", "-p", "8123"])
    assert (serve.output, serve.port) == (Path("site"), 8123)


def test_short_output_flag_builds_there(small_site: Path, tmp_path: Path, cli):
    assert cli("build", "--content", small_site, "-o", tmp_path / "site")[0] == 0
    assert (tmp_path / "site" / "index.html").is_file()


def test_config_from_anywhere_is_read_and_wins_over_the_content_folders(small_site: Path, tmp_path: Path, cli):
    (small_site / "site.toml").write_text('title = "Inside"\n', encoding="utf-8")
    elsewhere = write_tree(tmp_path / "settings", {"glossary.toml": 'title = "From elsewhere"\n'})
    status, _, err = cli("build", "--content", small_site, "-o", tmp_path / "out",
                         "--config", elsewhere / "glossary.toml")
    assert status == 0, err
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "<title>From elsewhere</title>" in index and "Inside" not in index


def test_config_problems_name_that_file(small_site: Path, tmp_path: Path, cli):
    settings = write_tree(tmp_path / "settings", {"site.toml": 'title = "T"\ntitel = "typo"\n'})
    status, _, err = cli("check", "--content", small_site, "--config", settings / "site.toml", "--strict")
    assert status == 1 and "settings/site.toml:2: warning: unknown key 'titel'" in err, err


def test_a_config_that_does_not_exist_is_an_error_not_the_defaults(small_site: Path, tmp_path: Path, cli):
    status, _, err = cli("build", "--content", small_site, "-o", tmp_path / "out", "--config", tmp_path / "nope.toml")
    assert status == 1 and re.search(r"nope\.toml: no such file \(given as --config\)\n", err), err
    assert not (tmp_path / "out").exists()


def test_links_in_refuses_config(tmp_path: Path, cli, capsys):
    with pytest.raises(SystemExit) as exit:
        cli("check", "--links-in", tmp_path, "--glossary", tmp_path, "--config", tmp_path / "site.toml")
    assert exit.value.code == 2 and "--config" in capsys.readouterr().err


def test_serve_prints_a_header_before_its_stage_lines_and_watches_a_config_elsewhere(tmp_path: Path):
    write_tree(tmp_path / "content", {"terms/a.md": term("A", "The first.")})
    config = write_tree(tmp_path / "settings", {"site.toml": 'title = "Before"\n', "other.txt": "x"}) / "site.toml"
    running = Serve(tmp_path, "--config", str(config))
    try:
        lines = [line.rstrip("\n") for line in running.stdout]
        assert re.fullmatch(r"Building \S*content -> \S*output \(then serving it and rebuilding on change\)", lines[0]), lines
        assert re.match(r"  load +\d", lines[1]), lines
        assert b"<title>Before</title>" in running.get("/index.html")[2]
        # Another file beside the config is no input: no rebuild for it.
        (tmp_path / "settings" / "other.txt").write_text("y", encoding="utf-8")
        time.sleep(1)
        assert not any("Change detected" in line for line in running.stdout)
        config.write_text('title = "After"\n', encoding="utf-8")
        running.wait_for_line("Change detected")
        deadline = time.monotonic() + 30
        while b"<title>After</title>" not in running.get("/index.html")[2]:
            assert time.monotonic() < deadline, "".join(running.printed)
            time.sleep(0.1)
        assert running.interrupt() == 0
        no_traceback(running)
    finally:
        running.close()


def test_the_process_entry_returns_mains_status_and_skips_the_last_collection(tmp_path: Path):
    # cli.run (``site-builder``, ``python -m site_builder``) is main, then
    # gc.freeze() before the process exits: the interpreter's last collection
    # would walk every object the build left (~0.2 s with Altair loaded).
    import os
    import subprocess
    import sys

    from helpers import REPO

    code = ("import gc, sys\nfrom site_builder import cli\n"
            "sys.argv = ['site-builder', 'check', '--quiet', '--content', sys.argv[1]]\n"
            "status = cli.run()\nprint(status, gc.get_freeze_count() > 0)\n")
    (tmp_path / "content").mkdir()
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "content")], capture_output=True, text=True,
                         cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert run.stdout.split() == ["1", "True"], run.stderr
