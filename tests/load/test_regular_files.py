"""One rule for every path the build reads (issue 31): only regular files, a
symlink only to inside the content folder, and whatever breaks the rule is an
error at its path, never a hang and never a silent skip. Each failed build
leaves the previous ``output/`` as it was, and the next build works once the
path is fixed."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, manifest, plant_socket, term, write_tree


@pytest.fixture
def alarm():
    """A FIFO must never hang a build: fail the test instead of waiting."""
    def hung(signum, frame):
        raise TimeoutError("the build hung reading a FIFO")
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _content(root: Path) -> Path:
    return write_tree(root, {
        "site.toml": 'title = "Rules"\n',
        "terms/alpha.md": term("Alpha", "First.", "Alpha links to [[Beta]].\n"),
        "terms/beta.md": term("Beta", "Second.", "Beta prose.\n"),
    })


def _plant(path: Path, kind: str, outside: Path) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # a copy of /dev/zero
    elif kind == "socket":
        plant_socket(path)
    elif kind == "dangling":
        os.symlink(path.parent / "nowhere", path)
    else:  # "outside"
        os.symlink(outside, path)


EXPECTED = {"fifo": "is a FIFO; only regular files are read",
            "device": "is a character device; only regular files are read",
            "socket": "is a socket; only regular files are read",
            "dangling": None,  # said below, per path
            "outside": "points outside the content folder"}


@pytest.mark.parametrize("kind", list(EXPECTED))
@pytest.mark.parametrize("where", ["site.toml", "terms/gamma.md", "terms/deep/gamma.md"])
def test_anything_but_a_regular_file_is_an_error_at_its_path(tmp_path, cli, alarm, kind, where):
    content = _content(tmp_path / "content")
    output = tmp_path / "out"
    status, _, err = cli("build", "--content", content, "--output", output, "--quiet")
    assert status == 0, err
    before = manifest(output)
    outside = write_tree(tmp_path / "elsewhere", {"secret.md": term("Secret", "SECRET", "SECRET\n")}) / "secret.md"
    path = content / where
    if where == "site.toml":
        path.unlink()
    path.parent.mkdir(exist_ok=True)
    _plant(path, kind, outside)
    for flags in ((), ("--no-cache",)):
        status, _, err = cli("build", "--content", content, "--output", output, "--quiet", *flags)
        assert status == 1, err
        assert "Traceback" not in err
        shown = f"{path}: " if kind != "outside" or where == "site.toml" else f"{path}:1: "
        line = next((line for line in err.splitlines() if line.startswith(shown)), None)
        assert line is not None, err
        expected = EXPECTED[kind] or ("cannot read: No such file or directory" if where == "site.toml"
                                      else "is a symlink that leads nowhere")
        assert expected in line, line
        assert manifest(output) == before
    path.unlink()
    if where == "site.toml":
        path.write_text('title = "Rules"\n')
    status, _, err = cli("build", "--content", content, "--output", output, "--quiet")
    assert status == 0, err


def test_a_terms_folder_that_is_a_symlink_follows_the_rule_of_term_files(tmp_path, cli):
    content = _content(tmp_path / "content")
    output = tmp_path / "out"
    status, _, err = cli("build", "--content", content, "--output", output, "--quiet")
    assert status == 0, err
    before = manifest(output)
    elsewhere = write_tree(tmp_path / "elsewhere", {"secret.md": term("Secret", "SECRET-SUMMARY", "SECRET\n")})
    os.rename(content / "terms", content / "real-terms")
    (content / "terms").symlink_to(elsewhere)
    status, _, err = cli("build", "--content", content, "--output", output, "--quiet")
    assert status == 1 and f"{content / 'terms'}: points outside the content folder" in err, err
    assert manifest(output) == before
    assert "SECRET" not in "".join(p.read_text() for p in output.rglob("*.html"))
    (content / "terms").unlink()
    (content / "terms").symlink_to("real-terms")  # inside the content folder: read
    status, _, err = cli("build", "--content", content, "--output", output, "--quiet")
    assert status == 0, err
    assert (output / "alpha" / "index.html").is_file()


def _build_without_dac_override(content: Path, output: Path, *flags: str) -> subprocess.CompletedProcess:
    """A build by root without the capabilities that let root read anything
    (CI runs as root, where ``chmod 000`` would not stop a read): the file
    modes apply as to any user. The interpreter (under /root) stays readable
    to its owner."""
    return subprocess.run(
        ["setpriv", "--bounding-set=-dac_override,-dac_read_search", sys.executable, "-m", "site_builder",
         "build", "--content", str(content), "--output", str(output), "--quiet", *flags],
        capture_output=True, text=True, timeout=120, cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.mark.parametrize("where", ["terms/sub", "terms/sub/deeper", "terms"])
def test_an_unreadable_folder_of_terms_is_an_error_not_a_skip(tmp_path, where):
    content = _content(tmp_path / "content")
    write_tree(content, {"terms/sub/gamma.md": term("Gamma", "Third.", "Gamma.\n"),
                         "terms/sub/deeper/delta.md": term("Delta", "Fourth.", "Delta.\n")})
    output = tmp_path / "out"
    result = _build_without_dac_override(content, output)
    assert result.returncode == 0, result.stderr
    before = manifest(output)
    folder = content / where
    folder.chmod(0)
    try:
        for flags in ((), ("--no-cache",)):
            result = _build_without_dac_override(content, output, *flags)
            assert result.returncode == 1, result.stderr
            assert f"{folder}: cannot read: Permission denied" in result.stderr.splitlines(), result.stderr
            assert "Traceback" not in result.stderr
            assert manifest(output) == before
    finally:
        folder.chmod(0o755)
    result = _build_without_dac_override(content, output)
    assert result.returncode == 0, result.stderr
