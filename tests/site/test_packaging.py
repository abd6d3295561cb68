"""The package works installed from its wheel, away from this repository.

``pip wheel . -w dist`` (the README's command) builds the wheel from a copy of
the sources; a fresh virtual environment installs it; ``site-builder new``
and ``site-builder build`` then make a glossary, with the explainer, in a
folder outside the repository, with no ``PYTHONPATH``: every template, static
file and explainer file the build reads must have come from the wheel. The
sdist is built too, and a wheel built from the sdist must hold the same files.

The environment is made with ``--system-site-packages`` and the wheel
installed with ``--no-deps``: the dependencies (numpy, altair, vl-convert, ...)
are this machine's, which keeps the test at well under a minute and off the
network for them; the package's own files come only from the wheel (checked:
``site_builder.__file__`` is inside the environment). Building still needs
setuptools from the package index, as any ``pip wheel`` does.
"""

from __future__ import annotations

import concurrent.futures
import email
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

from helpers import REPO, copy_sources, make_venv, manifest, run_clean, term

import site_builder

pytestmark = pytest.mark.timeout(600)

def sh(*command, cwd: Path, timeout: float = 300) -> str:
    """Run ``command`` without this checkout on the path; its stdout, or fail with its output."""
    return run_clean(*command, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def packaged(tmp_path_factory, request) -> dict[str, Path]:
    """The session's wheel (tests/conftest.py ``package_wheel``: ``pip wheel . -w
    dist`` from a copy of the sources), an sdist built from another copy and a
    wheel built from the sdist, the first wheel installed in a fresh venv.

    The sdist's chain (an environment, ``build`` in it, the sdist, a wheel from
    the sdist) runs beside the first wheel's build when that is not built yet:
    they share nothing, and most of their time is spent waiting on pip.
    """
    root = tmp_path_factory.mktemp("packaging")
    sdist_source, from_sdist, venv = copy_sources(root / "src-for-sdist"), root / "from-sdist", root / "venv"

    def sdist_and_its_wheel() -> tuple[Path, Path]:
        python = make_venv(venv)
        sh(python, "-m", "pip", "install", "--quiet", "build", cwd=root)
        sh(python, "-m", "build", "--sdist", "--outdir", root / "sdist", sdist_source, cwd=root)
        sdist = next((root / "sdist").glob("site_builder-*.tar.gz"))
        sh(python, "-m", "pip", "wheel", sdist, "-w", from_sdist, "--no-deps", "--quiet", cwd=root)
        return sdist, next(from_sdist.glob("site_builder-*.whl"))

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        sdist_job = pool.submit(sdist_and_its_wheel)
        built = request.getfixturevalue("package_wheel")
        sdist, sdist_wheel = sdist_job.result()
    wheel = built["wheel"]
    sh(venv / "bin" / "python", "-m", "pip", "install", "--no-deps", "--force-reinstall", "--quiet", wheel, cwd=root)
    return {"root": root, "source": built["source"], "wheel": wheel, "sdist": sdist, "venv": venv,
            "sdist_wheel": sdist_wheel}


def package_files(source: Path) -> set[str]:
    """Every file of the package in the copied sources, relative to the sources."""
    return {p.relative_to(source).as_posix() for p in (source / "site_builder").rglob("*") if p.is_file()}


def wheel_files(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return {name for name in archive.namelist() if name.startswith("site_builder/")}


def test_the_wheel_and_the_sdist_carry_every_file_of_the_package(packaged):
    expected = package_files(packaged["source"])
    # The kinds of file that only package data brings, named so a pattern lost
    # from pyproject.toml fails here by name.
    for needed in ("site_builder/templates/base.html", "site_builder/static/site.css",
                   "site_builder/static/glossary-cards.js", "site_builder/explainers/macros.html",
                   "site_builder/explainers/speculative_decoding/figure.html",
                   "site_builder/explainers/speculative_decoding/settings.json",
                   "site_builder/explainers/speculative_decoding/static/sd-explainer.css",
                   "site_builder/explainers/speculative_decoding/static/sd-explainer.js",
                   "site_builder/skeleton/gitignore", "site_builder/skeleton/pages.yml"):
        assert needed in expected, needed
    assert wheel_files(packaged["wheel"]) == expected
    with tarfile.open(packaged["sdist"]) as archive:
        top = f"site_builder-{site_builder.__version__}/"
        in_sdist = {name.removeprefix(top) for name in archive.getnames()}
    assert expected | {"pyproject.toml", "README.md"} <= in_sdist
    assert wheel_files(packaged["sdist_wheel"]) == expected


def test_the_version_comes_from_one_place(packaged):
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    version = site_builder.__version__
    assert packaged["wheel"].name.startswith(f"site_builder-{version}-")
    assert packaged["sdist"].name == f"site_builder-{version}.tar.gz"
    with zipfile.ZipFile(packaged["wheel"]) as archive:
        metadata = email.message_from_bytes(archive.read(f"site_builder-{version}.dist-info/METADATA"))
    assert metadata["Version"] == version
    shown = sh(packaged["venv"] / "bin" / "site-builder", "--version", cwd=packaged["root"])
    assert shown.strip() == f"site_builder {version}"


def test_the_wheel_declares_every_entry_point(packaged):
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {("console_scripts", name) for name in pyproject["scripts"]}
    declared |= {(group, name) for group, points in pyproject["entry-points"].items() for name in points}
    with zipfile.ZipFile(packaged["wheel"]) as archive:
        text = archive.read(f"site_builder-{site_builder.__version__}.dist-info/entry_points.txt").decode()
    found, group = set(), None
    for line in text.splitlines():
        if line.startswith("["):
            group = line.strip("[]")
        elif "=" in line:
            found.add((group, line.split("=")[0].strip()))
    assert declared and declared <= found


def test_installed_from_the_wheel_it_makes_and_builds_a_glossary_outside_the_repository(packaged):
    venv, root = packaged["venv"], packaged["root"]
    python, command = venv / "bin" / "python", venv / "bin" / "site-builder"
    where = sh(python, "-c", "import site_builder; print(site_builder.__file__)", cwd=root).strip()
    assert Path(where).is_relative_to(venv), f"site_builder imported from {where}, not from the wheel"
    # A local wheel is no place a CI runner can install from: new says so and
    # what to pass, and refuses the wheel's file: URL given as --install.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    # (The three refusals run side by side: each is mostly the interpreter starting.)
    refusals = [subprocess.Popen([command, "new", "glossary", *extra], cwd=root, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
                for extra in ([], ["--install", f"site_builder @ file://{packaged['wheel']}"],
                              ["--install", str(packaged["wheel"])])]
    for refusal in refusals:
        _out, refused = refusal.communicate(timeout=120)
        assert refusal.returncode == 1, refused
        assert "no CI runner can reach" in refused and "--install SPEC" in refused, refused
    assert not (root / "glossary").exists()
    release = "site_builder @ https://example.org/releases/site_builder-0.1.0-py3-none-any.whl"
    sh(command, "new", "glossary", "--install", release, cwd=root)
    glossary = root / "glossary"
    assert (glossary / "requirements.txt").read_text(encoding="utf-8").splitlines()[-1] == release
    assert not glossary.resolve().is_relative_to(REPO.resolve())
    # The explainer too: its figure, macros, settings and static files come from the wheel.
    (glossary / "content/terms/speculative-decoding.md").write_text(
        term("Speculative decoding", "A draft model proposes, the target model checks.",
             explainer="speculative-decoding", related=["term"]), encoding="utf-8")
    # The same site, byte for byte, as this checkout's sources build: nothing the
    # build reads was left out of the wheel or differs in it. The reference is
    # built from a copy of the content, beside the wheel's build (the two share nothing).
    reference = root / "reference"
    shutil.copytree(glossary / "content", reference / "content")
    from_source = subprocess.Popen([sys.executable, "-m", "site_builder", "build", "--no-cache"], cwd=reference,
                                   env={**env, "PYTHONPATH": str(REPO)}, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
    built = subprocess.run([command, "build"], cwd=glossary, env=env, capture_output=True, text=True, timeout=300)
    _out, reference_errors = from_source.communicate(timeout=300)
    assert built.returncode == 0 and built.stderr == "", built.stderr
    assert "Built 3 terms" in built.stdout
    output = glossary / "output"
    assert "sd-explainer" in (output / "speculative-decoding/index.html").read_text(encoding="utf-8")
    assert list((output / "assets").glob("speculative-decoding.*.js")), "the explainer's script is missing"
    assert from_source.returncode == 0, reference_errors
    assert manifest(output) == manifest(reference / "output")
    checked = subprocess.run([python, "-m", "site_builder", "check", "--strict"], cwd=glossary, env=env,
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr


def test_installed_from_a_git_url_it_has_every_committed_file_and_builds(tmp_path):
    """The README's ``pip install "site_builder @ git+https://..."``, with this
    repository as the URL (``git+file://``): pip clones the committed tree and
    builds it, so a file that only package data brings must be committed too."""
    committed = subprocess.run(["git", "ls-files", "site_builder"], cwd=REPO, capture_output=True, text=True,
                               check=True).stdout.split()
    venv = tmp_path / "venv"
    python = make_venv(venv)
    sh(python, "-m", "pip", "install", "--no-deps", "--force-reinstall", "--quiet",
       f"git+file://{REPO}", cwd=tmp_path)  # (pip 23 refuses "name @ git+file:///..."; https URLs take the name)
    where = Path(sh(python, "-c", "import site_builder; print(site_builder.__file__)", cwd=tmp_path).strip()).parent
    assert where.is_relative_to(venv)
    installed = {f"site_builder/{p.relative_to(where).as_posix()}" for p in where.rglob("*")
                 if p.is_file() and "__pycache__" not in p.parts}
    assert installed == set(committed)
    # new pins the installed commit of what pip's record (PEP 610) names: here
    # a file: URL, so the clone's origin; as after "pip install git+https://..."
    # (no network here), that URL itself.
    [record] = venv.glob("lib/python*/site-packages/site_builder-*.dist-info/direct_url.json")
    origin = json.loads(record.read_text(encoding="utf-8"))
    assert origin["url"].startswith("file://") and origin["vcs_info"]["vcs"] == "git"
    commit = origin["vcs_info"]["commit_id"]
    record.write_text(json.dumps({**origin, "url": "https://github.com/example/site_builder.git"}), encoding="utf-8")
    sh(venv / "bin" / "site-builder", "new", "glossary", cwd=tmp_path)
    assert (tmp_path / "glossary/requirements.txt").read_text(encoding="utf-8").splitlines()[-1] == \
        f"site_builder @ git+https://github.com/example/site_builder.git@{commit}"
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    built = subprocess.run([venv / "bin" / "site-builder", "build"], cwd=tmp_path / "glossary", env=env,
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0 and built.stderr == "", built.stderr
