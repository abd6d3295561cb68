"""Crash safety: a build killed (SIGKILL) at any moment leaves output/ whole.

A ~2,000-term site is built, then rebuilt towards the other of two versions
and killed after a random delay between 0 and one build's time. After every
kill, output/ must be exactly the old tree or exactly the new one (compared as
path -> sha256 manifests), and the next build must succeed and clear the
leftovers. Delays are seeded, so a failure can be replayed.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import REPO, manifest, versioned_corpus, write_tree

KILLS = 8
SEED = 20261130


def build(content: Path, output: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "site_builder", "build", "--quiet", "--content", str(content), "--output", str(output), *extra],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )


def finish(process: subprocess.Popen, timeout: float = 300) -> None:
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err.decode()


def leftovers(output: Path, kind: str) -> list[Path]:
    return sorted(output.parent.glob(f".{output.name}.{kind}*"))


@pytest.mark.timeout(600)
def test_killed_builds_leave_the_old_site_or_the_new_one(tmp_path):
    contents = {v: write_tree(tmp_path / f"content-v{v}", versioned_corpus(v)) for v in (1, 2)}
    expected = {}
    seconds = {}
    for version, content in contents.items():  # reference trees, built whole
        reference = tmp_path / f"reference-v{version}" / "output"
        started = time.monotonic()
        finish(build(content, reference, "--no-cache"))
        seconds[version] = time.monotonic() - started
        expected[version] = manifest(reference)
    assert expected[1] != expected[2]

    site = tmp_path / "site" / "output"
    finish(build(contents[1], site))
    assert manifest(site) == expected[1]
    current = 1
    rng = random.Random(SEED)
    outcomes = []
    for kill in range(KILLS):
        target = 2 if current == 1 else 1
        no_cache = ("--no-cache",) if kill % 2 else ()
        # Stratified: one random moment in each of KILLS slices of 0..1.1 x build time.
        delay = seconds[target] * 1.1 * (kill + rng.random()) / KILLS
        process = build(contents[target], site, *no_cache)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        try:
            os.killpg(process.pid, signal.SIGKILL)  # its markdown workers, if any are left
        except ProcessLookupError:
            pass
        process.communicate()
        now = manifest(site)
        assert now in (expected[1], expected[2]), f"kill {kill} after {delay:.2f} s left a mixed output/"
        current = 1 if now == expected[1] else 2
        outcomes.append((round(delay, 2), "new" if current == target else "old", len(leftovers(site, "staging-"))))
    print(f"build times {seconds}; kills (delay s, site after, staging folders left): {outcomes}")
    assert any(after == "old" for _, after, _ in outcomes), "no kill landed before the swap: test is too lenient"

    # The next build finishes, cleans up what the kills left, and writes the right tree.
    target = 2 if current == 1 else 1
    finish(build(contents[target], site))
    assert manifest(site) == expected[target]
    assert leftovers(site, "staging-") == []
    deadline = time.monotonic() + 30  # old trees are deleted by detached children
    while leftovers(site, "old") and time.monotonic() < deadline:
        time.sleep(0.2)
    stale = [p for p in leftovers(site, "old") if time.time() - p.stat().st_mtime > 60]
    assert stale == [], "old trees that no build will remove"


def test_a_build_never_removes_the_staging_folder_of_a_live_build(tmp_path):
    content = write_tree(tmp_path / "content", {"site.toml": "previews = false\n",
                                                "terms/a.md": "---\ntitle: A\nsummary: a\n---\nx\n"})
    output = tmp_path / "output"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".output.staging-{sleeper.pid}"
        dead = tmp_path / ".output.staging-999999999"
        for folder in (live, dead):
            write_tree(folder, {"a/index.html": "half-written"})
        finish(build(content, output))
        assert live.exists(), "removed the staging folder of a build that is still running"
        assert not dead.exists(), "left a killed build's staging folder"
    finally:
        sleeper.kill()
        sleeper.wait()
    finish(build(content, output))
    assert leftovers(output, "staging-") == []

