"""Benchmark the speculative decoding explainer in headless Chromium.

    python benchmarks/bench_explainer.py [--site DIR] [--repeat N] [--inputs N] [--no-build-timing]

Targets (issue 4): a slider input updates the readout and the curve within one
frame (under 16 ms of main-thread work here), and the animation causes no long
task (over 50 ms).

Printed, per repeat (the machine's load average is printed too: a loaded
machine makes every figure worse, so compare runs at a similar load):

* slider input -> next frame: for each of N inputs on the alpha slider, each
  dispatched just after a frame, the main-thread work from the input event to
  the painted frame that shows it: the input handler (store, readout, run
  reset) plus that frame (the charts' requestAnimationFrame update, style,
  layout, paint: from the frame's start to the first task after it). Median,
  p95 and max, the handler alone, and how many inputs had both the readout and
  the curve's drawn line updated in that very frame;
* long tasks (> 50 ms, PerformanceObserver 'longtask') during those inputs,
  during 4 s of animation at 10x, and during ten 100-round skips: count and
  longest; for the animation also the gaps between frames (p95, max).

Informational: no assertions (tests/browser asserts behaviour, never timings).
"""

from __future__ import annotations

import argparse
import os
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

MEASURE_INPUTS = """async (n) => {
  const h = window.SpeculativeDecoding.instance, input = document.querySelector('#sd-alpha');
  const line = () => document.querySelector('[data-chart=curve] .mark-line path').getAttribute('d');
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const nextTask = () => new Promise(r => { const ch = new MessageChannel(); ch.port1.onmessage = () => r(performance.now()); ch.port2.postMessage(0); });
  if (h.charts.flushed) await h.charts.flushed();
  const out = [];
  for (let i = 0; i < n; i++) {
    await frame(); await nextTask();          // a fresh frame interval, as between two real inputs
    const before = line();
    const v = (0.2 + 0.75 * ((i * 37) % 60) / 60).toFixed(3);
    const t0 = performance.now();
    input.value = v;
    input.dispatchEvent(new Event('input', {bubbles: true}));
    const t1 = performance.now();             // the handler: store, readout, run reset
    const frameStart = await frame();         // runs after the charts' callback of the same frame
    const readout = document.querySelector('[data-out=S]').textContent;
    const expected = SpeculativeDecoding.model.speedup(Number(v), h.store.get().gamma, h.store.get().c).toFixed(3) + '×';
    const inFrame = readout === expected && line() !== before;
    const t2 = await nextTask();              // after that frame's style, layout and paint
    out.push({handler: t1 - t0, frame: t2 - frameStart, work: (t1 - t0) + (t2 - frameStart), inFrame});
  }
  if (h.charts.flushed) await h.charts.flushed();
  return out;
}"""

OBSERVE = """() => { window.__long = []; new PerformanceObserver(l => l.getEntries().forEach(e => window.__long.push(Math.round(e.duration)))).observe({type: 'longtask', buffered: false}); }"""

FRAME_GAPS = """() => { window.__gaps = []; let last = 0; window.__gapsOn = true;
  const tick = t => { if (last) window.__gaps.push(t - last); last = t; if (window.__gapsOn) requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * len(xs)) - 1))]


def longs(xs: list[int]) -> str:
    return f"{len(xs)} (longest {max(xs)} ms)" if xs else "0"


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} CPUs"


def measure(browser, url: str, n: int) -> None:
    pg = browser.new_page(viewport={"width": 1280, "height": 900})
    pg.goto(url)
    pg.wait_for_selector(".sd-explainer[data-charts=live]", state="attached", timeout=30_000)
    pg.wait_for_timeout(300)
    pg.evaluate(OBSERVE)
    rows = pg.evaluate(MEASURE_INPUTS, n)
    work = [r["work"] for r in rows]
    handler = [r["handler"] for r in rows]
    in_frame = sum(r["inFrame"] for r in rows)
    print(f"  slider input -> next frame, main-thread work: median {statistics.median(work):.1f} ms, "
          f"p95 {pct(work, 0.95):.1f} ms, max {max(work):.1f} ms; over 16 ms: {sum(w > 16 for w in work)}/{n} "
          f"(handler alone: median {statistics.median(handler):.1f} ms, max {max(handler):.1f} ms); "
          f"readout and curve updated in that frame: {in_frame}/{n}")
    long_inputs = pg.evaluate("window.__long.splice(0)")
    pg.select_option("#sd-speed", "10")
    pg.evaluate(FRAME_GAPS)
    pg.click("[data-action=play]")
    pg.wait_for_timeout(4000)
    pg.click("[data-action=play]")
    pg.evaluate("window.__gapsOn = false")
    long_anim = pg.evaluate("window.__long.splice(0)")
    gaps = pg.evaluate("window.__gaps")
    rounds = int(pg.inner_text("[data-tally=rounds]"))
    for _ in range(10):
        pg.click("[data-action=skip]")
    pg.wait_for_timeout(300)
    long_skip = pg.evaluate("window.__long.splice(0)")
    print(f"  long tasks > 50 ms: during the inputs {longs(long_inputs)}; animation 4 s at 10x "
          f"{longs(long_anim)} ({rounds} rounds; frame gaps p95 {pct(gaps, 0.95):.1f} ms, max {max(gaps):.1f} ms, "
          f"{sum(g > 50 for g in gaps)} over 50 ms); ten 100-round skips {longs(long_skip)}")
    pg.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", type=Path, help="an already built site (default: build one)")
    ap.add_argument("--repeat", type=int, default=3, help="measurement rounds, each in a fresh page (default 3)")
    ap.add_argument("--inputs", type=int, default=60, help="slider inputs per round (default 60)")
    ap.add_argument("--no-build-timing", action="store_true", help="skip timing build(ctx)")
    args = ap.parse_args()

    if not args.no_build_timing:
        t = time.perf_counter()
        sd_page.build(base.ExplainerContext(slug="speculative-decoding", root="../", add_asset=lambda n, d: f"assets/{n}"))
        print(f"build(ctx): {time.perf_counter() - t:.2f} s  stages: " +
              ", ".join(f"{k} {v:.2f} s" for k, v in sd_page.LAST_TIMINGS.items()))

    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or build_site(Path(tmp) / "out")
        server = Server(site)
        with sync_playwright() as p:
            browser = launch(p)
            for i in range(args.repeat):
                print(f"run {i + 1}/{args.repeat}, {load()}:")
                measure(browser, f"{server.url}/speculative-decoding/", args.inputs)
            browser.close()
        server.close()


if __name__ == "__main__":
    main()
