"""The explainer kit (issue 36) in real Chromium: a site with the example
explainer (tests/fixtures/example_explainer, installed as an outside package)
and the speculative-decoding explainer. Both pages load the kit's one shared
script; the example's chart comes live over HTTP (under a strict CSP header
too) and from file://, with no console error, no CSP violation and no axe
violation; its state is in the URL, clamped by its slider's own limits; its
option (`start`) sets where it starts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest_explainer import CSP, REPO, Server, Watch, need
from helpers import term, write_tree

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "explainers"))
from test_explainer_contract import install  # noqa: E402 - the contract tests' installer

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - reported by need()
    Axe = None

EXAMPLE = "twice/index.html"
FLAGSHIP = "speculative-decoding/index.html"
WATCH_CSP = ("window.__csp = []; document.addEventListener('securitypolicyviolation', "
             "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")


@pytest.fixture(scope="module")
def kit_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("kit")
    outside = install(root / "site-packages")
    content = write_tree(root / "content", {
        "terms/twice.md": "---\ntitle: Twice\nsummary: Two times a number.\nexplainer:\n  name: doubling\n  start: 5\n---\n"
                          "Doubling, shown.\n",
        "terms/speculative-decoding.md": term("Speculative decoding", "A draft model proposes, the target verifies.",
                                              "Draft, then verify.", explainer="speculative-decoding"),
    })
    out = root / "out"
    env = {"PYTHONPATH": f"{outside}:{REPO}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-m", "site_builder", "build", "--content", str(content), "--output", str(out),
                             "--quiet"], cwd=REPO, env=env, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def kit_server(kit_site):
    server = Server(kit_site, csp=CSP)
    yield server
    server.close()


def _scripts(page: Path) -> list[str]:
    return re.findall(r'<script defer src="\.\./(assets/[^"]+)">', page.read_text(encoding="utf-8"))


def test_both_explainers_load_the_kit_s_one_shared_script(kit_site):
    example, flagship = _scripts(kit_site / EXAMPLE), _scripts(kit_site / FLAGSHIP)
    kit_example = [s for s in example if s.startswith("assets/explainer-kit.")]
    kit_flagship = [s for s in flagship if s.startswith("assets/explainer-kit.")]
    assert kit_example == kit_flagship and len(kit_example) == 1, (example, flagship)
    # before each explainer's own script (deferred scripts run in order)
    assert example.index(kit_example[0]) < example.index(next(s for s in example if "doubling." in s))
    assert flagship.index(kit_flagship[0]) < flagship.index(next(s for s in flagship if "speculative-decoding." in s))
    assert len(list((kit_site / "assets").glob("explainer-kit.*.js"))) == 1, "one file, not a copy per explainer"


def _live(page, url: str) -> None:
    page.goto(url, wait_until="load")
    page.wait_for_function("() => !document.querySelector('#ex-explainer fieldset').disabled")
    page.focus("#ex-n")  # the first use of a control starts the runtime (kit-frames.js startLazily)
    page.wait_for_function("() => document.querySelector('#ex-explainer').dataset.charts === 'live'", timeout=30_000)
    assert page.evaluate("() => !!document.querySelector('[data-chart=double][data-live=true] .kit-vega svg')")


def _current(page) -> list:
    return page.evaluate("() => Doubling.instance.charts.views.double.data('current').map(r => [r.n, r.double])")


@pytest.mark.parametrize("where", ["http", "file"])
def test_the_example_chart_comes_live_with_no_error_and_no_csp_violation(browser, kit_site, kit_server, where):
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    context.add_init_script(WATCH_CSP)
    page = context.new_page()
    base = kit_server.url if where == "http" else (kit_site).resolve().as_uri()
    watch = Watch(page, (base,))
    try:
        _live(page, f"{base}/{EXAMPLE}")
        assert _current(page) == [[5, 10]], "the option start: 5"
        page.fill("#ex-n", "7")  # a slider's input event: the store, the readout, the live chart, the URL
        page.wait_for_function("() => Doubling.instance.charts.views.double.data('current')[0].n === 7")
        assert page.text_content("[data-out=double]") == "14"
        page.wait_for_function("() => location.search === '?n=7'")
        assert page.evaluate("() => window.__csp") == []
        watch.assert_clean()
    finally:
        context.close()


def test_the_url_state_is_clamped_by_the_slider_s_own_limits(browser, kit_server):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"{kit_server.url}/{EXAMPLE}?n=99", wait_until="load")
        page.wait_for_function("() => location.search === '?n=10'")  # max="10": corrected at once
        assert page.input_value("#ex-n") == "10" and page.text_content("[data-out=double]") == "20"
        page.goto(f"{kit_server.url}/{EXAMPLE}?n=junk", wait_until="load")
        page.wait_for_function("() => location.search === '?n=5'")  # junk: the option's start
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_example_page_is_axe_clean_with_its_live_chart(browser, kit_server, scheme):
    need(Axe is not None, "axe-playwright-python is not installed")
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    page = context.new_page()
    try:
        _live(page, f"{kit_server.url}/{EXAMPLE}")
        violations = Axe().run(page).response["violations"]
        assert [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations] == []
    finally:
        context.close()


def test_the_flagship_still_comes_live_on_the_kit(browser, kit_server):
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    context.add_init_script(WATCH_CSP)
    page = context.new_page()
    watch = Watch(page, (kit_server.url,))
    try:
        page.goto(f"{kit_server.url}/{FLAGSHIP}", wait_until="load")
        page.focus("#sd-alpha")
        page.wait_for_selector('[data-charts="live"]', timeout=30_000, state="attached")
        assert page.evaluate("() => window.__csp") == []
        watch.assert_clean()
    finally:
        context.close()
