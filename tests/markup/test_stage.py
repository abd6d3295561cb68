"""The markup stage spread over processes (``markup.stage``): the same bodies as in one process.

With ``jobs`` > 1, ``jobs - 1`` forked workers and the build process itself
render slices of the bodies (``parallel.share``); whoever renders a body, the
stage must hand back the same ``RenderedBody`` values in the terms' order.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import REPO
from site_builder import parallel
from site_builder.load.config import load_config
from site_builder.load.content import load_terms
from site_builder.markup import stage
from site_builder.markup.render import BodyRenderer, Link, RenderedBody
from site_builder.names import NameIndex

MAKE_CORPUS = REPO / "benchmarks" / "make_corpus.py"


@pytest.fixture(scope="module")
def realistic(tmp_path_factory):
    """Terms of the realistic mix (maths, tables, code, footnotes, wiki links), above the parallel threshold."""
    content = tmp_path_factory.mktemp("stage-corpus")
    subprocess.run([sys.executable, str(MAKE_CORPUS), str(stage.PARALLEL_THRESHOLD + 40), str(content / "terms"),
                    "--mix", "realistic"], check=True, stdout=subprocess.DEVNULL)
    (content / "site.toml").write_text('title = "Stage"\npreviews = false\n')
    terms, problems = load_terms(content)
    assert terms and not problems
    config, _ = load_config(content)
    return terms, config, NameIndex(terms)


@pytest.mark.parametrize("jobs", [2, 3])
def test_workers_and_the_build_process_render_what_one_process_renders(realistic, jobs, monkeypatch):
    terms, config, names = realistic
    alone = stage.render_bodies(terms, config, names, jobs=1)

    forked, meanwhile = [], []
    real_pool = parallel.pool
    monkeypatch.setattr(stage.parallel, "pool", lambda workers, *args: forked.append(workers) or real_pool(workers, *args))
    here = []  # bodies rendered in this process (a worker's appends stay in the worker)
    real_render = BodyRenderer.render
    monkeypatch.setattr(BodyRenderer, "render", lambda self, *args: here.append(args[-1]) or real_render(self, *args))

    shared = stage.render_bodies(terms, config, names, jobs=jobs, meanwhile=lambda: meanwhile.append(len(here)))

    assert forked == [jobs - 1]  # one worker fewer: this process renders too
    assert meanwhile == [0]  # once, before this process renders
    assert 0 < len(here) < len(terms)  # slices rendered here, and in the workers
    assert list(shared) == list(alone) == [t.slug for t in terms]  # the terms' order
    for slug, body in alone.items():
        assert type(shared[slug]) is RenderedBody and shared[slug] == body
        assert all(type(link) is Link for link in shared[slug].links)


def test_a_workers_slices_travel_as_plain_rows_and_this_process_keeps_its_own(realistic, monkeypatch):
    """A worker's bodies come back as (slug, html, record) rows, cheaper to pickle
    than the dataclass and its links; this process's own slices stay as made."""
    terms, config, names = realistic
    carried = []
    real_share = parallel.share

    def share(cuts, workers, meanwhile, here, in_worker, collect, *args):
        return real_share(cuts, workers, meanwhile, here, in_worker,
                          lambda result: carried.append(result) or collect(result), *args)
    monkeypatch.setattr(stage.parallel, "share", share)
    assert stage.render_bodies(terms, config, names, jobs=2) == stage.render_bodies(terms, config, names, jobs=1)
    rows = [row for result in carried if isinstance(result, tuple) for row in result]
    assert rows and all(type(html) is str and type(record) is tuple for _slug, html, record in rows)
    own = [pair for result in carried if isinstance(result, list) for pair in result]
    assert own and all(type(body) is RenderedBody for _slug, body in own)
    assert len(rows) + len(own) == len(terms)
