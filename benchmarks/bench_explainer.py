"""Benchmark the speculative decoding explainer in headless Chromium.

    python benchmarks/bench_explainer.py [--site DIR]

Prints: build(ctx) seconds; per slider input, the time until readout and
curve are updated (median, p95, max over 60 inputs, measured in the page with
performance.now() around the input event and the chart's runAsync); long
tasks (> 50 ms, PerformanceObserver 'longtask') while the animation plays at
10x for 4 s and while 100-round skips run. Informational: no assertions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "browser")]

from conftest_explainer import Server, build_site, launch  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from site_builder.explainers import base  # noqa: E402
from site_builder.explainers.speculative_decoding import page as sd_page  # noqa: E402

MEASURE_INPUTS = """async () => {
  const h = window.__sdExplainer, input = document.querySelector('#sd-alpha');
  const out = [];
  for (let i = 0; i < 60; i++) {
    const v = (0.2 + 0.75 * ((i * 37) % 60) / 60).toFixed(3);
    const t0 = performance.now();
    input.value = v;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    await h.views.curve.runAsync();
    const readout = document.querySelector('[data-out=S]').textContent;
    out.push(performance.now() - t0);
    await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  }
  return out;
}"""

OBSERVE = """() => { window.__long = []; new PerformanceObserver(l => l.getEntries().forEach(e => window.__long.push(e.duration))).observe({type: 'longtask', buffered: false}); }"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", type=Path, help="an already built site (default: build one)")
    args = ap.parse_args()

    t = time.perf_counter()
    sd_page.build(base.ExplainerContext(slug="speculative-decoding", root="../", add_asset=lambda n, d: f"assets/{n}"))
    print(f"build(ctx): {time.perf_counter() - t:.2f} s  stages: " +
          ", ".join(f"{k} {v:.2f} s" for k, v in sd_page.LAST_TIMINGS.items()))

    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build_site(Path(tmp) / "out")
        server = Server(site)
        with sync_playwright() as p:
            browser = launch(p)
            pg = browser.new_page(viewport={"width": 1280, "height": 900})
            pg.goto(f"{server.url}/speculative-decoding/")
            pg.wait_for_selector(".sd-explainer[data-charts=live]", state="attached", timeout=30_000)
            pg.evaluate(OBSERVE)
            times = pg.evaluate(MEASURE_INPUTS)
            times.sort()
            print(f"slider input -> readout + curve updated: median {statistics.median(times):.2f} ms, "
                  f"p95 {times[int(0.95 * len(times)) - 1]:.2f} ms, max {times[-1]:.2f} ms (n={len(times)})")
            long_inputs = pg.evaluate("window.__long.splice(0)")
            pg.select_option("#sd-speed", "10")
            pg.click("[data-action=play]")
            pg.wait_for_timeout(4000)
            pg.click("[data-action=play]")
            long_anim = pg.evaluate("window.__long.splice(0)")
            for _ in range(10):
                pg.click("[data-action=skip]")
            pg.wait_for_timeout(300)
            long_skip = pg.evaluate("window.__long.splice(0)")
            rounds = pg.inner_text("[data-tally=rounds]")
            print(f"long tasks > 50 ms: during inputs {len(long_inputs)} {long_inputs}, "
                  f"animation 4 s at 10x {len(long_anim)} {long_anim}, 10 x 100-round skips {len(long_skip)} {long_skip}; rounds run {rounds}")
            browser.close()
        server.close()


if __name__ == "__main__":
    main()
