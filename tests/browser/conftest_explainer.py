"""Helpers for the explainer's browser tests: launching Chromium, serving the
built site, and watching a page for errors and outside requests."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'")
REPO = Path(__file__).resolve().parents[2]


def under_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def need(condition: bool, reason: str) -> None:
    """Skip locally, fail under CI: a missing browser must never pass silently there."""
    if condition:
        return
    if under_ci():
        pytest.fail(f"browser tests cannot run under CI: {reason}")
    pytest.skip(reason)


def launch(playwright):
    need(Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (set CHROMIUM=...)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)


def build_site(out: Path) -> Path:
    """Build the real site with the project's CLI into ``out``."""
    result = subprocess.run(
        [sys.executable, "-m", "site_builder", "build", "--output", str(out), "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=240,
    )
    if result.returncode != 0:
        raise RuntimeError(f"site build failed:\n{result.stdout}\n{result.stderr}")
    return out


class _Handler(http.server.SimpleHTTPRequestHandler):
    csp: str | None = None

    def end_headers(self):
        if self.csp:
            self.send_header("Content-Security-Policy", self.csp)
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, *args):  # quiet
        pass


class Server:
    """A threaded http.server on 127.0.0.1, port 0, serving ``root``."""

    def __init__(self, root: Path, csp: str | None = None):
        handler = type("Handler", (_Handler,), {"csp": csp})
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Watch:
    """Collects console errors, page errors and requests leaving ``allowed`` prefixes."""

    def __init__(self, page, allowed: tuple[str, ...]):
        self.errors: list[str] = []
        self.outside: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        page.on("request", lambda r: None if r.url.startswith(allowed) or r.url.startswith("data:") else self.outside.append(r.url))

    def _console(self, m):
        # the browser's own favicon probe is not the page's doing
        if m.type == "error" and not (m.location or {}).get("url", "").endswith("favicon.ico"):
            self.errors.append(f"console {m.type}: {m.text} at {(m.location or {}).get('url')}")

    def assert_clean(self):
        assert not self.errors, self.errors
        assert not self.outside, f"requests outside the site: {self.outside}"


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def bring_charts_near(page) -> None:
    """Scroll the curve into view, as a reader does: the live charts (the Vega
    runtime, the serving panel's script) load only when a chart nears the
    viewport or a control is used (issue 19), and on many screens no chart is
    near at load."""
    page.wait_for_selector(".sd-explainer[data-ready]", state="attached")
    page.evaluate("document.querySelector('[data-chart=curve]').scrollIntoView({ block: 'center' })")


def bring_every_view_live(page) -> None:
    """Every chart's live view built: the curve brought near (the runtime
    loads), then each chart scrolled to in turn (an off-screen view is built
    only as it nears the viewport, issue 19), and the curve centred again."""
    bring_charts_near(page)
    page.wait_for_selector(".sd-explainer[data-charts=live]", state="attached")
    for name in page.evaluate("[...document.querySelectorAll('[data-chart]')].map(c => c.dataset.chart)"):
        page.evaluate("n => document.querySelector(`[data-chart=${n}]`).scrollIntoView({ block: 'center' })", name)
        page.wait_for_selector(f"[data-chart={name}][data-live=true]", state="attached")
    page.evaluate("document.querySelector('[data-chart=curve]').scrollIntoView({ block: 'center' })")


#: What a canvas view draws, read from its Vega scenegraph (a canvas has no DOM
#: to query): every item of the given mark type, each with its text, colours and
#: box in page pixels, in drawing order. The root group's own offset is the
#: view's origin plus its padding; a nested group (an axis, a title) adds its x and y.
SCENE_ITEMS = """([name, marktype]) => {
  const view = SpeculativeDecoding.instance.views[name];
  const canvas = document.querySelector(`[data-chart=${name}] .sd-vega canvas`);
  if (!view || !canvas) return null;
  // where the root group starts on the canvas: the view's origin (axes, title) plus its padding
  const r = canvas.getBoundingClientRect(), k = r.width / parseFloat(canvas.style.width), pad = view.padding();
  const ox = view.origin()[0] + (pad.left || 0), oy = view.origin()[1] + (pad.top || 0);
  const out = [];
  (function walk(mark, dx, dy) {
    for (const item of mark.items || []) {
      const b = item.bounds;
      if (mark.marktype === marktype && b && !b.empty()) {
        out.push({ mark: mark.name || mark.role, role: mark.role, text: item.text == null ? null : String(item.text),
                   fill: item.fill == null ? null : String(item.fill),
                   stroke: item.stroke == null ? null : String(item.stroke),
                   opacity: item.opacity == null ? 1 : item.opacity, fillOpacity: item.fillOpacity == null ? 1 : item.fillOpacity,
                   x: item.x == null ? null : r.left + (ox + dx + item.x) * k, y: item.y == null ? null : r.top + (oy + dy + item.y) * k,
                   left: r.left + (ox + dx + b.x1) * k, right: r.left + (ox + dx + b.x2) * k,
                   top: r.top + (oy + dy + b.y1) * k, bottom: r.top + (oy + dy + b.y2) * k });
      }
      if (mark.marktype === 'group') {
        for (const child of item.items || []) walk(child, dx + (item.x || 0), dy + (item.y || 0));
      }
    }
  })(view.scenegraph().root, 0, 0);
  return out;
}"""


def scene_items(page, name: str, marktype: str) -> list[dict] | None:
    """The items of ``marktype`` the canvas view ``name`` draws (``SCENE_ITEMS``), or None when it has no canvas."""
    return page.evaluate(SCENE_ITEMS, [name, marktype])


#: a Step during a stepped round finishes it at once (sd-animation.js)
_FINISH = "() => { const a = SpeculativeDecoding.instance.animation; if (a.busy()) a.step(); }"


def step_round(page):
    """Press Step (it plays one round's phases, issue 34) and finish that round
    at once, as a second press does: for tests that read a decided round."""
    page.click("[data-action=step]")
    page.evaluate(_FINISH)


def axe_violations(pages: dict) -> dict:
    """axe-core's violations on each loaded page ({name: page}), as
    ``{name: [(rule, first targets)]}`` for the pages that have any.

    The same audit axe-playwright-python's ``Axe.run`` makes (its script, its
    default options: violations only), but started in every page before any
    result is read: each tab's renderer audits beside the others'.
    """
    from axe_playwright_python.sync_playwright import DEFAULT_OPTIONS, Axe

    axe = Axe()
    start = "() => { window.__axe_result = axe.run(%s); }" % axe._format_script_args(context=None, options=DEFAULT_OPTIONS)
    for page in pages.values():
        page.evaluate(axe.axe_script)
        page.evaluate(start)
    found = {}
    for name, page in pages.items():
        violations = page.evaluate("() => window.__axe_result")["violations"]
        if violations:
            found[name] = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in violations]
    return found
