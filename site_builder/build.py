"""The pipeline: load -> validate -> markdown -> compute -> render -> write.

Everything is read, rendered in memory and validated before the write stage
touches the disk; any error stops the build with ``BuildFailed`` and leaves
the previous ``output/`` exactly as it was.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from . import content, validate
from .linking import Linker, check_aliases
from .assets import SITE_ASSETS, AssetStore
from .config import SiteConfig, load_config
from .errors import BuildFailed, Problem
from .explainers import base as explainers
from .markdown_stage import render_bodies
from .pages import PageRenderer, render_all
from .publish import publish


@dataclass
class BuildOptions:
    """What one build is asked to do."""

    content: Path = Path("content")
    output: Path = Path("output")
    base_url: str | None = None
    strict: bool = False
    write: bool = True
    """False for ``check``: validate everything, write nothing."""
    jobs: int | None = None
    """Worker processes for markdown; None: one per core."""


@dataclass
class BuildReport:
    """What a finished build did; printed as the build log."""

    terms: int = 0
    written: int = 0
    unchanged: int = 0
    stages: list[tuple[str, float]] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    seconds: float = 0.0


@contextmanager
def _stage(report: BuildReport, name: str, log: Callable[[str], None]) -> Iterator[None]:
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    report.stages.append((name, elapsed))
    log(f"  {name:<9} {elapsed * 1000:8.1f} ms")


def _raise_if_failing(problems: list[Problem], strict: bool) -> None:
    failing = [p for p in problems if p.severity == "error" or strict]
    if failing:
        raise BuildFailed(problems if strict else failing + [p for p in problems if p.severity == "warning"])


def build_site(options: BuildOptions, log: Callable[[str], None] = lambda line: None) -> BuildReport:
    """Run the whole pipeline; raise ``BuildFailed`` with every problem found."""
    report = BuildReport()
    started = time.perf_counter()
    problems: list[Problem] = []

    with _stage(report, "load", log):
        config, found = load_config(options.content)
        config = config.with_base_url(options.base_url)
        problems += found
        terms, found = content.load_terms(options.content)
        problems += found
    report.terms = len(terms)

    with _stage(report, "validate", log):
        problems += validate.check_terms(terms)
        problems += check_aliases(terms)
        if not terms and not any(p.severity == "error" for p in problems):
            problems.append(Problem(str(options.content / "terms"), 1, "no term files (*.md) found"))
        _raise_if_failing(problems, options.strict)

    with _stage(report, "markdown", log):
        bodies = render_bodies(terms, config, jobs=options.jobs)
        problems += validate.check_links(terms, bodies)
        _raise_if_failing(problems, options.strict)
        backlinks = validate.backlinks(terms, bodies)

    assets = AssetStore()
    for name in SITE_ASSETS:
        assets.add_packaged(name)

    with _stage(report, "compute", log):
        built = {}
        for term in terms:
            if term.explainer:
                context = explainers.ExplainerContext(slug=term.slug, root="../", add_asset=assets.add)
                built[term.slug] = explainers.build(term.explainer, context)

    with _stage(report, "render", log):
        renderer = PageRenderer(config, terms, assets)
        linker = Linker(config, terms, bodies, backlinks, built, assets)
        renderer.page_extras = linker.page_extras
        files = render_all(renderer, terms, bodies, backlinks, built)
        files.update(assets.files)

    with _stage(report, "linking", log):
        files.update(linker.files())
    if options.write:
        with _stage(report, "previews", log):
            files.update(linker.previews())

    report.warnings = [p for p in problems if p.severity == "warning"]
    if options.write:
        with _stage(report, "write", log):
            stats = publish(files, options.output)
        report.written, report.unchanged = stats.written, stats.unchanged
    report.seconds = time.perf_counter() - started
    return report


def default_jobs() -> int:
    """Worker processes to use by default: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
