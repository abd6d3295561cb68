"""The validate stage runs while the markdown workers start (the markup
stage's ``meanwhile``), not before them with the second core idle, and it
still runs, and its findings are reported with the markup stage's, whether or not there are workers and whether
or not the bodies come from the cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder import build
from site_builder.build import BuildOptions, build_site
from site_builder.errors import BuildFailed
from site_builder.markup import stage
from site_builder.markup.stage import PARALLEL_THRESHOLD

from helpers import term, write_tree


def _content(root: Path, count: int) -> Path:
    files = {f"terms/t{i:03d}.md": term(f"Term {i}", f"Summary {i}.", f"Body {i}, see [[Term {(i + 1) % count}]].\n")
             for i in range(count)}
    files["terms/twin.md"] = term("Term 3", "A second term with the third one's title.", "Body.\n")
    files["terms/lost.md"] = term("Lost", "Links nowhere.", "See [[No such term]].\n")
    files["site.toml"] = 'title = "Overlap"\npreviews = false\n'
    return write_tree(root, files)


def _watch(monkeypatch) -> list[int]:
    """How many bodies the markdown workers were handed (``markup.stage._items``,
    set just before they are forked) each time check_terms is called: none
    before the markup stage, or when it runs without workers."""
    workers: list[int] = []
    real = build.validate.check_terms

    def check_terms(*args, **kwargs):
        workers.append(len(stage._items))
        return real(*args, **kwargs)
    monkeypatch.setattr(build.validate, "check_terms", check_terms)
    return workers


def _failure(content: Path, output: Path, jobs: int, cache: bool = False) -> list[str]:
    with pytest.raises(BuildFailed) as failed:
        build_site(BuildOptions(content=content, output=output, jobs=jobs, cache=cache))
    return [problem.message for problem in failed.value.problems]


def test_validate_runs_beside_the_markdown_workers(tmp_path, monkeypatch):
    content = _content(tmp_path / "content", PARALLEL_THRESHOLD + 10)
    workers = _watch(monkeypatch)
    messages = _failure(content, tmp_path / "site" / "output", jobs=2)
    assert workers and workers[0] >= PARALLEL_THRESHOLD, "check_terms ran before the markdown workers were started"
    assert any(m.startswith("duplicate title 'Term 3'") for m in messages)  # validate's
    assert any("No such term" in m for m in messages)  # and the markup stage's, in one run
    assert not (tmp_path / "site" / "output").exists()


@pytest.mark.parametrize("jobs, cache", [(1, False), (2, True)])
def test_validate_runs_without_workers_and_over_cached_bodies(tmp_path, monkeypatch, jobs, cache):
    content = _content(tmp_path / "content", 5 if jobs == 1 else PARALLEL_THRESHOLD + 10)
    workers = _watch(monkeypatch)
    output = tmp_path / "site" / "output"
    if cache:  # every body from the cache: no workers, the meanwhile runs alone
        twin = content / "terms" / "twin.md"
        text = twin.read_text()
        twin.write_text(text.replace("title: Term 3", "title: Twin"))
        (content / "terms" / "lost.md").unlink()
        build_site(BuildOptions(content=content, output=output, jobs=jobs, cache=True))
        twin.write_text(text)
    messages = _failure(content, output, jobs=jobs, cache=cache)
    assert len(workers) == (2 if cache else 1)
    assert workers[-1] == 0
    assert any(m.startswith("duplicate title 'Term 3'") for m in messages)
