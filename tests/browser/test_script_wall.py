"""Issue 30, the browser side: no script from content, with no CSP at all.

The markup stage refuses the attributes and ids below (tests/markup), so to
hold the scripts' own wall independently this module writes them into built
pages afterwards (``HOSTILE``) and takes the page's ``<meta>`` policy out:
nothing but the scripts stands in the way. In real Chromium, over HTTP from a
server that sends no CSP header and from ``file://``, each hostile page must
run no script of its own (no dialog, no ``window.__pwned``, no request for a
``data:`` or ``javascript:`` script) and the explainer, search and hover
cards must still work. Then the untouched pages, under their ``<meta>``
policy alone, must work with zero CSP violations, and that policy must
really be in force (an inline script written in is blocked). One browser,
the session's built site and one copy of it for the whole module.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest_explainer import Server

pytestmark = pytest.mark.browser

PAGE = "speculative-decoding/index.html"

# Each a variant content could try (through attribute lists, raw HTML or
# ids): what an unfixed script would load, follow or take for its own.
FORGED_FIGURES = (
    '<p class="sd-explainer" data-vega-src="data:text/javascript,window.__pwned=1" '
    'data-serving-src="data:text/javascript,window.__pwned=2">first .sd-explainer</p>\n'
    '<p id="sd-explainer" data-vega-src="data:text/javascript,alert(1)">first #sd-explainer</p>\n'
    '<figure id="sd-explainer" class="explainer sd-explainer" data-vega-src="data:text/javascript,window.__pwned=3">'
    '<div class="sd-chart" data-chart="curve" data-spec-src="data:text/javascript,window.__pwned=4"></div></figure>\n'
    '<p id="SpeculativeDecoding">a named element: window.SpeculativeDecoding</p>\n'
)
FORGED_SEARCH = (
    '<div class="site-search" data-script="data:text/javascript,window.__pwned=5" '
    'data-root="javascript:window.__pwned=6//"><p id="search-input">a forged box</p></div>\n'
    '<div class="filter" hidden><p id="filter-input">a forged filter</p><p id="filter-status"></p></div>\n'
    '<dl><div class="entry" data-aliases=\'["pwnalias"]\'><dt><a href="javascript:window.__pwned=7">Pwnentry</a></dt>'
    '<dd>forged entry</dd></div></dl>\n'
    '<p id="glossary-cards-data">{"javascript:window.__pwned=8//": ["Pwncard", "forged card"]}</p>\n'
    '<p id="glossaryCardsData">named</p>\n'
)
FORGED_CARD = '<p><a id="forged-card" class="term-link" data-term="inference" href="https://evil.example/">forged</a></p>\n'
HOSTILE = FORGED_FIGURES + FORGED_SEARCH + FORGED_CARD
META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="[^"]*">\n')

WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__violations.push(e.violatedDirective + " " + e.blockedURI));
"""


def _hostile(html: str, where: str) -> str:
    """``html`` with its meta policy gone and ``HOSTILE`` written in after ``where``."""
    html, n = META.subn("", html)
    assert n == 1, "every page carries one meta policy"
    at = html.index(where) + len(where)
    return html[:at] + "\n" + HOSTILE + html[at:]


@pytest.fixture(scope="module")
def hostile_site(built_site, tmp_path_factory) -> Path:
    """A copy of the built site whose explainer page, index and 404 carry ``HOSTILE``."""
    root = shutil.copytree(built_site, tmp_path_factory.mktemp("wall") / "site")
    # where content is, or comes nearest: the term's opening prose (before the
    # figure), the index's first summary, the 404 page's main (it has none)
    for rel, where in ((PAGE, '<div class="prose prose-opening">'), ("index.html", "<dd>"),
                       ("404.html", '<main id="main">')):
        path = root / rel
        path.write_text(_hostile(path.read_text(encoding="utf-8"), where), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def servers(built_site, hostile_site):
    """Plain static servers that send no CSP header: the untouched site, the hostile copy."""
    plain, hostile = Server(built_site), Server(hostile_site)
    yield {"plain": plain, "hostile": hostile}
    plain.close()
    hostile.close()


def _url(mode: str, servers, which: str, root: Path, rel: str) -> str:
    return f"{servers[which].url}/{rel}" if mode == "http" else (root / rel).as_uri()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.dialogs, page.scripts, page.console = [], [], []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: page.scripts.append(r.url) if r.url.startswith(("data:", "javascript:")) else None)
    page.on("console", lambda m: page.console.append(m.text) if m.type in ("error", "warning") else None)
    page.add_init_script(WATCH)
    yield page
    context.close()


def _no_script_ran(page) -> None:
    assert page.dialogs == [], page.dialogs
    assert page.evaluate("window.__pwned") is None, "a script from the page's content ran"
    assert page.scripts == [], f"requests for URLs content wrote: {page.scripts}"


def _explainer_works(page) -> None:
    """The template's figure is wired (not a forged one) and goes live on use."""
    page.wait_for_selector("#main > article > figure#sd-explainer[data-ready=true]", state="attached")
    assert page.evaluate("SpeculativeDecoding.instance !== undefined && !(SpeculativeDecoding instanceof Node)")
    assert page.evaluate("[...document.querySelectorAll('[data-ready]')].map(e => e.tagName)") == ["FIGURE"]
    before = page.text_content("figure#sd-explainer [data-out=S]")
    page.focus("#sd-gamma")
    page.keyboard.press("End")  # a control used: the runtime and the curve's spec load
    page.wait_for_selector("#main > article > figure [data-chart=curve][data-live=true]", state="attached")
    assert page.text_content("figure#sd-explainer [data-out=S]") != before
    page.evaluate("document.querySelector('[data-chart=serving]').scrollIntoView({ block: 'center' })")
    page.wait_for_selector("figure#sd-explainer[data-serving=ready]", state="attached")


@pytest.mark.parametrize("mode", ["http", "file"])
def test_content_cannot_drive_the_explainer_or_the_search_box(page, servers, hostile_site, mode):
    page.goto(_url(mode, servers, "hostile", hostile_site, PAGE))
    _explainer_works(page)
    # the forged elements stay as they were: no script wired them
    assert page.evaluate("""[...document.querySelectorAll('[data-charts], [data-live], [data-ready]')]
        .filter((e) => !document.querySelector('#main > article > figure').contains(e)).length""") == 0
    assert page.is_hidden("#main .prose .filter")
    # a forged term link (right data-term, another host) gets no card; the template's own do
    page.focus("#forged-card")
    page.wait_for_timeout(250)
    assert page.evaluate("!document.getElementById('glossary-card') || document.getElementById('glossary-card').hidden")
    page.focus(".related a.term-link[data-term=inference]")
    page.wait_for_selector("#glossary-card:not([hidden])")
    # search: the forged entry is not the page's, and nothing content wrote is followed
    page.fill("header #search-input", "pwnentry")
    page.wait_for_function("() => document.querySelector('header .site-search').getAttribute('data-answered') === 'pwnentry'")
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    _no_script_ran(page)
    assert page.url.split("?")[0].endswith(PAGE)


@pytest.mark.parametrize("mode", ["http", "file"])
def test_the_index_and_404_take_no_search_box_filter_or_data_from_content(page, servers, hostile_site, mode):
    page.goto(_url(mode, servers, "hostile", hostile_site, "index.html"))
    page.wait_for_selector("#main > .filter:not([hidden])")  # the template's filter works
    page.fill("#filter-input", "model")
    page.wait_for_function("() => document.getElementById('filter-status').textContent !== ''")
    for query in ("pwncard", "pwnentry", "pwnalias"):  # from disk the box searches the page itself
        page.fill("header #search-input", query)
        page.wait_for_function("q => document.querySelector('header .site-search').getAttribute('data-answered') === q",
                               arg=query)
        # the text written into a summary is that entry's text now; no forged entry or card is one
        titles = page.evaluate("[...document.querySelectorAll('#search-results .search-title')].map(t => t.textContent)")
        assert not any(t.lower().startswith("pwn") for t in titles), (query, titles)
    page.keyboard.press("Enter")
    page.wait_for_load_state("load")
    assert not page.url.startswith(("javascript:", "data:"))
    _no_script_ran(page)
    # 404.html without base_url has no search box: the forged one is never shown nor loads a script
    page.goto(_url(mode, servers, "hostile", hostile_site, "404.html"))
    page.wait_for_load_state("load")
    page.keyboard.press("/")
    page.wait_for_timeout(200)
    assert page.evaluate("document.querySelectorAll('script[src*=search]').length") == 0
    _no_script_ran(page)


@pytest.mark.parametrize("mode", ["http", "file"])
def test_the_meta_policy_alone_lets_every_script_work_with_no_violation(page, servers, built_site, mode):
    """No CSP header: the page's <meta> policy is the one in force. The explainer
    (runtime, every spec, the serving panel), search and cards all work under it."""
    page.goto(_url(mode, servers, "plain", built_site, PAGE))
    _explainer_works(page)
    for name in page.evaluate("[...document.querySelectorAll('figure#sd-explainer [data-chart]')].map(c => c.dataset.chart)"):
        page.evaluate("n => document.querySelector(`[data-chart=${n}]`).scrollIntoView({ block: 'center' })", name)
        page.wait_for_selector(f"[data-chart={name}][data-live=true]", state="attached")
    page.focus(".related a.term-link")
    page.wait_for_selector("#glossary-card:not([hidden])")
    page.fill("#search-input", "inference")
    page.wait_for_function("() => document.querySelector('.site-search').getAttribute('data-answered') === 'inference'")
    assert page.locator("#search-results li").count() > 0
    assert page.evaluate("window.__violations") == []
    with page.expect_navigation():
        page.keyboard.press("Enter")  # follows a result: a page of the site, under its own policy
    page.wait_for_selector("html.js")  # site.js ran there too
    assert "/inference/" in page.url
    assert page.evaluate("window.__violations") == []
    csp_messages = [m for m in page.console if "Content Security Policy" in m or "Content-Security-Policy" in m]
    assert csp_messages == []
    _no_script_ran(page)


@pytest.mark.parametrize("mode", ["http", "file"])
def test_the_meta_policy_is_in_force_without_a_header(page, servers, built_site, hostile_site, mode):
    """The second wall really stands: an inline script and a data: script written
    into a page after its meta element are blocked, and reported, with no header."""
    html = (built_site / "index.html").read_text(encoding="utf-8")
    assert len(META.findall(html)) == 1 and html.index("Content-Security-Policy") < html.index("<script")
    hostile = html.replace("<body>", "<body>\n<script>window.__pwned = 'inline'</script>\n"
                           '<script src="data:text/javascript,window.__pwned=%27data%27"></script>', 1)
    name = "meta-check.html"
    target = hostile_site / name
    target.write_text(hostile, encoding="utf-8")
    try:
        page.goto(_url(mode, servers, "hostile", hostile_site, name))
        page.wait_for_load_state("load")
        assert page.evaluate("window.__pwned") is None
        assert any(v.startswith("script-src") for v in page.evaluate("window.__violations")), page.evaluate("window.__violations")
    finally:
        target.unlink()
