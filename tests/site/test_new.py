"""``site-builder new DIR``: a glossary repository that builds at once, with no
warning, and whose ``.gitignore`` hides everything a build (even a killed one)
leaves beside it; its ``site.toml`` is made from the schema, so it names every
key the build accepts at the default the build uses.

The commands run in subprocesses from a folder outside the repository, as a
team would run them.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from helpers import REPO, make_venv

from site_builder import CACHE_FOLDER, scaffold
from site_builder.load.config import SITE_FIELDS, SiteConfig, load_config


def run(*args, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m site_builder ARGS`` in ``cwd``, with this checkout's package."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "site_builder", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def git(*args, cwd: Path) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


SPEC = "site_builder @ git+https://github.com/example/site_builder@v0.1.0"
"""What the glossaries made here install (whether this checkout has an origin varies with the machine)."""


@pytest.fixture
def glossary(tmp_path: Path) -> Path:
    """A folder made by ``new``."""
    made = run("new", "team-glossary", "--install", SPEC, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    return tmp_path / "team-glossary"


# --- site.toml from the schema ---------------------------------------------

def test_site_toml_names_every_key_at_its_default_under_its_help():
    text = scaffold.site_toml()
    uncommented = "\n".join(re.sub(r"^# (\w+ = )", r"\1", line) for line in text.splitlines())
    values = tomllib.loads(uncommented)
    assert list(values) == [f.name for f in SITE_FIELDS]  # every key, in the schema's order
    assert values == {f.name: list(f.default) if isinstance(f.default, tuple) else f.default for f in SITE_FIELDS}
    for field in SITE_FIELDS:
        block = text.split(f"# {field.name} = ", 1)[0].rsplit("\n\n", 1)[-1]
        first_words = " ".join(field.help.replace("``", "`").split()[:4])
        assert first_words in " ".join(line.lstrip("# ") for line in block.splitlines()), field.name


def test_the_generated_site_toml_loads_with_no_problem(tmp_path: Path):
    (tmp_path / "site.toml").write_text(scaffold.site_toml(), encoding="utf-8")
    config, problems = load_config(tmp_path)
    assert problems == [] and config == SiteConfig()
    # Uncommented whole, too: each default is a value the schema accepts.
    (tmp_path / "site.toml").write_text(re.sub(r"(?m)^# (\w+ = )", r"\1", scaffold.site_toml()), encoding="utf-8")
    config, problems = load_config(tmp_path)
    assert problems == [] and config == SiteConfig()


# --- the new folder ----------------------------------------------------------

def test_a_new_glossary_builds_and_checks_with_no_warning(glossary: Path):
    assert (glossary / "content" / "site.toml").read_text(encoding="utf-8") == scaffold.site_toml()
    built = run("build", cwd=glossary)
    assert built.returncode == 0 and built.stderr == "", built.stderr
    assert built.stdout.startswith("Building content -> output\n")
    # The two example terms link each other (relative links: the site works from disk).
    assert 'href="../term/index.html"' in (glossary / "output/glossary/index.html").read_text(encoding="utf-8")
    assert 'href="../glossary/index.html#adding-a-term"' in (glossary / "output/term/index.html").read_text(encoding="utf-8")
    checked = run("check", "--strict", cwd=glossary)
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr


# --- requirements.txt: what a CI runner can install ------------------------------

@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """This repository's committed tree, cloned (objects shared), with an
    https origin whose branch holds HEAD, as after a push and a fetch."""
    folder = tmp_path_factory.mktemp("clone") / "site_builder"
    git("clone", "-q", "--shared", str(REPO), str(folder), cwd=folder.parent)
    git("remote", "set-url", "origin", "https://github.com/example/site_builder.git", cwd=folder)
    git("update-ref", "refs/remotes/origin/main", "HEAD", cwd=folder)
    return folder


def test_new_after_an_editable_install_pins_the_clone_s_origin_at_its_commit(clone: Path, tmp_path: Path):
    """The issue's case: ``pip install -e`` of a clone, then ``new``. A real
    editable install in a fresh environment (the dependencies are this
    machine's; building needs setuptools from the index, as any install)."""
    venv = tmp_path / "venv"
    make_venv(venv)  # without ensurepip: the machine's pip installs into it
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    installed = subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "-q", "--no-deps", "-e", str(clone)],
                               env=env, capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr
    head = git("rev-parse", "HEAD", cwd=clone).strip()

    def new(name: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(venv / "bin/site-builder"), "new", name], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)

    made = new("g")
    assert made.returncode == 0 and made.stderr == "", made.stderr
    spec = f"site_builder @ git+https://github.com/example/site_builder.git@{head}"
    assert (tmp_path / "g/requirements.txt").read_text(encoding="utf-8").splitlines()[-1] == spec
    assert spec in made.stdout and "OWNER" not in (tmp_path / "g/requirements.txt").read_text(encoding="utf-8")
    # A commit only this machine has: the runner could not fetch it, so new stops.
    git("commit", "-q", "--allow-empty", "-m", "local only", cwd=clone)
    try:
        refused = new("h")
        assert refused.returncode == 1 and not (tmp_path / "h").exists()
        assert "on no branch of origin" in refused.stderr and "push it" in refused.stderr, refused.stderr
        assert "--install SPEC" in refused.stderr
    finally:
        git("reset", "-q", "--hard", "HEAD~1", cwd=clone)


@pytest.mark.parametrize("remote, url", [
    ("https://github.com/o/site_builder.git", "https://github.com/o/site_builder.git"),
    ("https://me:ghp_secret@github.com/o/site_builder", "https://github.com/o/site_builder"),  # no token written
    ("git@github.com:o/site_builder.git", "https://github.com/o/site_builder.git"),
    ("ssh://git@gitlab.example.org:2222/team/site_builder.git", "https://gitlab.example.org/team/site_builder.git"),
    ("/srv/git/site_builder.git", None), ("file:///srv/git/site_builder.git", None),
    ("git://github.com/o/site_builder.git", None), ("http://intranet/site_builder.git", None),
    ("C:/src/site_builder", None), ("../site_builder", None),
])
def test_a_remote_is_written_as_an_https_url_a_runner_can_clone_or_not_at_all(remote, url):
    assert scaffold.runner_url(remote) == url


def test_a_clone_with_no_origin_or_an_unreachable_one_stops_new(clone: Path, tmp_path: Path):
    head = git("rev-parse", "HEAD", cwd=clone).strip()
    assert scaffold.spec_from_checkout(clone) == f"site_builder @ git+https://github.com/example/site_builder.git@{head}"
    git("remote", "set-url", "origin", "/srv/git/site_builder.git", cwd=clone)
    try:
        with pytest.raises(scaffold.ScaffoldError, match="is no https or ssh URL a CI runner can reach"):
            scaffold.spec_from_checkout(clone)
        git("remote", "remove", "origin", cwd=clone)
        with pytest.raises(scaffold.ScaffoldError, match="has no 'origin' remote.*--install SPEC"):
            scaffold.spec_from_checkout(clone)
    finally:
        if "origin" not in git("remote", cwd=clone).split():
            git("remote", "add", "origin", "https://github.com/example/site_builder.git", cwd=clone)
        git("remote", "set-url", "origin", "https://github.com/example/site_builder.git", cwd=clone)
        git("update-ref", "refs/remotes/origin/main", head, cwd=clone)


@pytest.mark.parametrize("origin, spec", [
    ('{"url": "https://github.com/o/site_builder", "vcs_info": {"vcs": "git", "commit_id": "abc123", '
     '"requested_revision": "v0.1.0"}}', "site_builder @ git+https://github.com/o/site_builder@abc123"),
    ('{"url": "ssh://git@github.com/o/site_builder.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}',
     "site_builder @ git+https://github.com/o/site_builder.git@abc123"),
    ('{"url": "https://example.org/site_builder-0.1.0-py3-none-any.whl", "archive_info": {"hashes": '
     '{"sha256": "00ff"}}}', "site_builder @ https://example.org/site_builder-0.1.0-py3-none-any.whl#sha256=00ff"),
    ('{"url": "https://example.org/site_builder-0.1.0-py3-none-any.whl", "archive_info": {}}',
     "site_builder @ https://example.org/site_builder-0.1.0-py3-none-any.whl"),
])
def test_an_install_record_gives_the_requirement_a_runner_installs(origin, spec):
    assert scaffold.spec_from_direct_url(origin) == spec


@pytest.mark.parametrize("origin, why", [
    ('{"url": "file:///home/me/dist/site_builder-0.1.0-py3-none-any.whl", "archive_info": {}}', "a local file"),
    ('{"url": "http://example.org/site_builder-0.1.0-py3-none-any.whl", "archive_info": {}}', "no https URL"),
    ('{"url": "file:///nonexistent/site_builder", "dir_info": {"editable": true}}', "has no 'origin' remote"),
    ('{"url": "file:///nonexistent/site_builder", "vcs_info": {"vcs": "git", "commit_id": "abc"}}', "no 'origin'"),
    ('{"url": "git://github.com/o/site_builder", "vcs_info": {"vcs": "git", "commit_id": "abc"}}', "cannot reach"),
    ("not json", "no record of where it was installed from"),
    ("", "no record of where it was installed from"),
])
def test_an_install_record_no_runner_can_follow_stops_new_with_what_to_pass(origin, why):
    with pytest.raises(scaffold.ScaffoldError, match=why) as raised:
        scaffold.spec_from_direct_url(origin)
    assert "pass --install SPEC" in str(raised.value)


@pytest.mark.parametrize("spec", ["./dist/site_builder-0.1.0-py3-none-any.whl", "dist/site_builder-0.1.0.tar.gz",
                                  "site_builder-0.1.0-py3-none-any.whl", "/abs/site_builder", "~/src/site_builder",
                                  "C:\\src\\site_builder", "site_builder @ file:///tmp/site_builder-0.1.0.whl",
                                  "git+file:///srv/site_builder", "site_builder @ ./site_builder", "-e .",
                                  "site_builder\nnumpy"])
def test_install_refuses_what_no_runner_can_reach_and_writes_nothing(tmp_path: Path, spec):
    refused = run("new", "g", "--install", spec, cwd=tmp_path)
    assert refused.returncode == 1 and not (tmp_path / "g").exists()
    assert refused.stderr.startswith("error: --install"), refused.stderr
    assert any(why in refused.stderr for why in ("no CI runner", "one requirement")), refused.stderr


@pytest.mark.parametrize("spec", [SPEC, "site_builder @ https://example.org/site_builder-0.1.0-py3-none-any.whl",
                                  "git+https://github.com/o/site_builder@v0.1.0", "site_builder==0.1.0"])
def test_install_writes_a_reachable_requirement_as_given(tmp_path: Path, spec):
    made = run("new", "g", "--install", spec, cwd=tmp_path)
    assert made.returncode == 0 and made.stderr == "", made.stderr
    assert (tmp_path / "g/requirements.txt").read_text(encoding="utf-8").splitlines()[-1] == spec


def test_new_refuses_a_folder_that_is_not_empty_and_writes_nothing(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    refused = run("new", ".", cwd=tmp_path)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("error: .: not empty (1 entry: notes.txt)"), refused.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    refused = run("new", "notes.txt", cwd=tmp_path)
    assert refused.returncode == 1 and "notes.txt: exists and is not a folder" in refused.stderr
    (tmp_path / "empty").mkdir()
    assert run("new", "empty", "--install", SPEC, cwd=tmp_path).returncode == 0  # an empty folder is fine


def test_new_help_explains_what_it_makes(tmp_path: Path):
    shown = run("new", "--help", cwd=tmp_path)
    assert shown.returncode == 0
    for what in ("missing or empty", "content/site.toml", ".gitignore", "pages.yml", "--install"):
        assert what in shown.stdout, what
    assert "new" in run("--help", cwd=tmp_path).stdout


# --- .gitignore ---------------------------------------------------------------

LEFTOVERS = {
    # name written beside the output -> the pattern in site_builder/publish/ that makes it
    ".output.lock": "lock", ".output.spare": "spare", ".output.spare-record.json": "-record.json",
    ".output.tree-record": "tree-record", ".output.tree-record.tmp": ".tmp",
    ".output.staging-4194305": "staging-", ".output.old": "old", ".output.old-4194305-17": "old-",
    ".output.clock-4194305": "clock-",
}


def test_every_name_publish_writes_beside_the_output_is_in_the_list_below():
    """The leftovers planted in the next test are every name publish/ makes: a
    new one there fails here until the list (and .gitignore) know it."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "site_builder/publish").glob("*.py"))
    made = set(re.findall(r'f"\.\{(?:self\.)?(?:output|current)\.name\}\.([\w-]+)', source))
    assert made, "no f\".{output.name}.<name>\" patterns found: has publish/ changed how it names them?"
    for name in made:
        assert any(planted.startswith(f".output.{name}") for planted in LEFTOVERS), name


def test_after_a_build_and_a_killed_build_git_sees_nothing_new(glossary: Path):
    git("init", "-q", cwd=glossary)
    git("add", ".", cwd=glossary)
    git("commit", "-q", "-m", "new glossary", cwd=glossary)
    assert run("build", cwd=glossary).returncode == 0
    assert (glossary / "output").is_dir() and (glossary / CACHE_FOLDER).is_dir()
    # A real kill: SIGKILL a full rebuild the moment its staging folder appears.
    (glossary / "content/terms/term.md").write_text(
        (glossary / "content/terms/term.md").read_text(encoding="utf-8").replace("One entry", "An entry"))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    process = subprocess.Popen([sys.executable, "-m", "site_builder", "build", "--no-cache"], cwd=glossary,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        if list(glossary.glob(".output.staging-*")):
            os.kill(process.pid, signal.SIGKILL)
            break
        time.sleep(0.002)
    process.wait(timeout=60)
    # And what any kill can leave, at any moment, by the names publish/ gives them.
    for name in LEFTOVERS:
        path = glossary / name
        if not path.exists():
            if name.endswith(("spare", "old", "-17")) or "staging" in name:
                (path / "planted").mkdir(parents=True)
            else:
                path.write_text("left over", encoding="utf-8")
    assert git("status", "--porcelain", "--untracked-files=all", cwd=glossary) == " M content/terms/term.md\n"
    for name in (*LEFTOVERS, "output", CACHE_FOLDER):
        assert subprocess.run(["git", "check-ignore", "-q", name], cwd=glossary).returncode == 0, name
