"""A term's images in real Chromium (issue 35): a folder term and a file term,
over HTTP and from file://, each image loaded at the size its attributes
reserve (no layout shift while slow images arrive), no request leaving the
site, the dark variant under the dark scheme and the colour toggle, and
axe-core clean."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from conftest_explainer import Server, Watch, need
from helpers import term, write_tree
from site_builder.build import BuildOptions, build_site

try:
    from axe_playwright_python.sync_playwright import Axe
except ImportError:  # pragma: no cover - reported by need()
    Axe = None

pytestmark = pytest.mark.browser

LIGHT = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 120"><rect width="300" height="120" fill="#ddd"/></svg>'
DARK = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 120"><rect width="300" height="120" fill="#222"/></svg>'
PAGES = ("api/index.html", "token/index.html")
SHIFT = """
window.__shift = 0;
new PerformanceObserver(list => { for (const e of list.getEntries()) window.__shift += e.value; })
  .observe({ type: "layout-shift", buffered: true });
"""


def png(width: int, height: int) -> bytes:
    data = io.BytesIO()
    Image.new("RGB", (width, height), (30, 90, 160)).save(data, "PNG")
    return data.getvalue()


@pytest.fixture(scope="module")
def image_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("images")
    content = write_tree(root / "content", {
        "terms/api/index.md": term("API", "An interface.", "Before.\n\n![The request flow](flow.svg)\n\n"
                                   "Between.\n\n![The shared logo](../images/logo.png)\n\nAfter the images.\n"),
        "terms/api/flow.svg": LIGHT,
        "terms/api/flow.dark.svg": DARK,
        "terms/images/logo.png": png(160, 90),
        "terms/token.md": term("Token", "A piece of text.", "A [[API]] call.\n\n![The shared logo](images/logo.png)\n\n"
                               "Text below.\n"),
    })
    build_site(BuildOptions(content=content, output=root / "out", jobs=1))
    return root / "out"


@pytest.fixture(scope="module")
def image_server(image_site):
    server = Server(image_site)
    yield server
    server.close()


@pytest.mark.parametrize("via", ["http", "file"])
def test_images_load_sized_without_layout_shift_or_outside_requests(browser, image_site, image_server, via):
    base = image_server.url + "/" if via == "http" else image_site.as_uri() + "/"
    context = browser.new_context(viewport={"width": 1024, "height": 800})
    context.add_init_script(SHIFT)
    if via == "http":  # slow images: text after them would jump if their box were not reserved
        context.route("**/media/*", lambda route: (__import__("time").sleep(0.15), route.continue_()))
    try:
        for name in PAGES:
            page = context.new_page()
            watch = Watch(page, (base,))
            page.goto(base + name, wait_until="load")
            images = page.evaluate("""() => [...document.querySelectorAll('.prose img')].map(i => ({
                complete: i.complete, natural: i.naturalWidth, width: i.getBoundingClientRect().width,
                height: i.getBoundingClientRect().height, w: +i.getAttribute('width'), h: +i.getAttribute('height'),
                src: i.currentSrc}))""")
            assert page.evaluate("() => window.__shift") == 0
            assert images and all(i["complete"] and i["natural"] > 0 for i in images), images
            assert all((round(i["width"]), round(i["height"])) == (i["w"], i["h"]) for i in images), images
            assert all(i["src"].startswith(base + "media/") for i in images), images
            watch.assert_clean()
            page.close()
    finally:
        context.close()


def test_the_dark_variant_follows_the_system_scheme_and_the_toggle(browser, image_server):
    context = browser.new_context(color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(image_server.url + "/api/index.html", wait_until="load")
        flow = "document.querySelector('picture img').currentSrc"
        page.wait_for_function(f"() => {flow}.endsWith('-dark.svg')")
        page.select_option("#scheme-select", "light")
        page.wait_for_function(f"() => !{flow}.includes('-dark.') && {flow}.endsWith('.svg')")
        page.reload(wait_until="load")  # the choice is kept, the picture follows it before the first paint
        page.wait_for_function(f"() => !{flow}.includes('-dark.')")
        page.select_option("#scheme-select", "auto")
        page.wait_for_function(f"() => {flow}.endsWith('-dark.svg')")
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_image_pages_are_axe_clean(browser, image_server, scheme):
    need(Axe is not None, "axe-playwright-python is not installed")
    context = browser.new_context(viewport={"width": 320, "height": 800}, color_scheme=scheme)
    found = {}
    try:
        for name in PAGES:
            page = context.new_page()
            page.goto(image_server.url + "/" + name, wait_until="load")
            violations = Axe().run(page).response["violations"]
            if violations:
                found[name] = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]
            page.close()
    finally:
        context.close()
    assert found == {}
