"""The explainer's benchmarks still measure what they say (issue 19's figures).

`benchmarks/bench_explainer.py` drives real Chromium: its slider measure must
see every input's readout and curve land in that input's frame, and its live
path must start from a page with no runtime loaded and end on the live curve
following the slider; a change to how the charts load would otherwise break it
silently. `benchmarks/bench_lighthouse.py`'s byte figures are checked against
a report whose sums are worked out by hand here. No timing is asserted: the
benchmarks print those.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_explainer  # noqa: E402
import bench_lighthouse  # noqa: E402

pytestmark = pytest.mark.browser

PAGE = "speculative-decoding/"


def test_the_slider_measure_sees_each_input_in_its_frame(browser, http_server, capsys):
    bench_explainer.measure(browser, f"{http_server.url}/{PAGE}", 8, 1)
    printed = capsys.readouterr().out
    assert "readout and curve updated in that frame: 8/8" in printed, printed
    assert re.search(r"median [\d.]+ ms, p95 [\d.]+ ms", printed), printed
    assert re.search(r"animation 4 s at 10x .*\((\d+) rounds", printed), printed
    assert int(re.search(r"\((\d+) rounds", printed).group(1)) > 0, "the animation ran"


def test_the_live_path_starts_with_no_runtime_and_ends_on_the_live_curve(browser, http_server, capsys):
    bench_explainer.live_path(browser, f"{http_server.url}/{PAGE}", rate=1)
    printed = capsys.readouterr().out
    assert "first use -> live curve follows" in printed, printed
    assert "the runtime had loaded before the first use" not in printed, printed
    fetched = float(re.search(r"the runtime's bytes in at (\d+) ms", printed).group(1))
    assert fetched > 0, "the runtime was requested after the first use, not before"


def test_lighthouse_figures_sort_the_bytes_as_issue_19_counts_them():
    def request(url, kind, size):
        return {"url": f"http://127.0.0.1:1/{url}", "resourceType": kind, "transferSize": size}

    report = {
        "categories": {"performance": {"score": 0.99}},
        "audits": {
            "network-requests": {"details": {"items": [
                request(PAGE, "Document", 18_000),
                request("assets/site.abc.css", "Stylesheet", 3_000),
                request("assets/speculative-decoding.abc.js", "Script", 17_000),
                request(f"{PAGE}curve.svg", "Image", 2_000),
                request("assets/vega-runtime.abc.js", "Script", 186_000),
                request("assets/sd-specs-curve.abc.js", "Script", 2_200),
                request("assets/sd-serving.abc.js", "Script", 5_000),
            ]}},
            "bootup-time": {"details": {"items": [{"scripting": 10, "scriptParseCompile": 2}, {"scripting": 5}]}},
            "long-tasks": {"details": {"items": [{"duration": 60}, {"duration": 120}]}},
            "total-blocking-time": {"numericValue": 70},
            "largest-contentful-paint": {"numericValue": 1400},
            "cumulative-layout-shift": {"numericValue": 0},
        },
    }
    got = bench_lighthouse.figures(report)
    assert got["bytes before interaction, KB"] == 233.2
    assert got["first load: HTML, CSS, scripts, KB"] == 38.0  # no picture, no lazy asset
    assert got["lazy assets loaded, KB"] == 193.2  # the runtime, a chart's spec, the serving panel's script
    assert got["Vega runtime loaded, KB"] == 186.0
    assert got["pictures (static charts, icon), KB"] == 2.0
    assert got["bytes without the lazy assets, KB"] == 40.0
    assert got["script evaluation + parse, ms"] == 17
    assert got["longest task, ms"] == 120
    assert got["performance"] == 0.99 and got["total blocking time, ms"] == 70
