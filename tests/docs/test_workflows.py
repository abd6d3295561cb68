"""The GitHub workflows, this repository's and the one ``new`` gives a glossary
repository: build on every push, deploy from main only after the tests and the
build pass, never cancel a running deploy, keep the build cache between runs.

Read as YAML, not run: GitHub runs them; what can be checked here is that
they say what docs/hosting.md promises.
"""

from __future__ import annotations

import pytest
import yaml

from helpers import REPO

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


@pytest.mark.parametrize("which", sorted(WORKFLOWS))
def test_pages_builds_every_push_and_deploys_main_only_after_the_tests(which):
    pages_path, tests_path, test_command = WORKFLOWS[which]
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


def test_the_glossary_workflows_install_from_requirements_txt_not_this_checkout():
    for path in WORKFLOWS["new's glossary"][:2]:
        runs = [step.get("run", "") for job in load(path)["jobs"].values() for step in job.get("steps", [])]
        installs = [run for run in runs if "pip install" in run]
        assert installs and all(run.strip() == "python -m pip install -r requirements.txt" for run in installs), path


def test_a_release_attaches_the_wheel_and_sdist_after_the_tests():
    release = load(REPO / ".github/workflows/release.yml")
    assert release["on"] == {"release": {"types": ["published"]}}
    attach = release["jobs"]["attach"]
    assert attach["needs"] == "test" and release["jobs"]["test"]["uses"] == "./.github/workflows/tests.yml"
    runs = " ".join(step.get("run", "") for step in attach["steps"])
    assert "python -m build" in runs and "gh release upload" in runs
