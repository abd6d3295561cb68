"""What search costs, on the synthetic corpus (10,000 terms by default), as ratios.

    python benchmarks/bench_search.py                  # 10,000 terms, 3 cold runs, 15 edits
    python benchmarks/bench_search.py --terms 1000 --runs 1 --edits 3 --no-browser
    python benchmarks/bench_search.py --mix realistic        # one mix (default: simple and realistic)
    python benchmarks/bench_search.py --runs 2 --edits 3 --no-browser --pagefind /path/to/pagefind

Makes the corpus with benchmarks/make_corpus.py (as bench_build.py does, previews
off), twice: as it is and with ``search = false``. Then, each the median of
--runs, builds alternated between the two:

- cold build (``--no-cache``): the ``search`` stage's time as a fraction of the
  rest of the build (from the build log), and the cold build's CPU time (user +
  system of the build and its workers, from ``resource.getrusage``: steadier
  than wall time on a shared machine) with search on over off;
- peak memory of the whole process tree, on and off: resident (RSS, summed over
  the processes: pages a forked worker shares with the build count in each) and
  proportional (PSS: a shared page counts once, split between its sharers);
- the one-body edit rebuild (warm cache: the fast path), --edits pairs of
  builds, on and off alternated: on over off of the medians, wall and CPU, and
  the spread of the pairs' ratios (lowest, quartiles, highest);
- in headless Chromium (skipped with --no-browser), over HTTP from 127.0.0.1:
  the bytes a first query and a second one fetch (each file gzipped at level 6,
  as a host would send it; the search script, loaded with the page, counted
  apart), and the time from a keystroke to its results painted once the
  fragments are cached (the median of several).

With ``--pagefind BIN`` (pip install pagefind-bin), Pagefind also indexes each
search-off cold build's output, timed the same way: what a well-kept library
would cost in CPU and bytes, against what search adds to our build.

All of it once per ``--mix`` (default both), each mix's figures under its own heading.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import bench_build  # noqa: E402  (MAKE_CORPUS, run)

STAGE = re.compile(r"^\s+(\w+)\s+([\d.]+) ms$", re.M)


def corpus(n: int, work: Path, search: bool, mix: str = "simple") -> Path:
    """The ``mix`` corpus of ``n`` terms under ``work``, search on or off in its site.toml."""
    folder = work / ("on" if search else "off")
    subprocess.run(bench_build.corpus_command(n, folder / "terms", mix), check=True, stdout=subprocess.DEVNULL)
    (folder / "site.toml").write_text('title = "Benchmark"\npreviews = false\n' + ("" if search else "search = false\n"))
    return folder


def build(content: Path, output: Path, *flags: str, sample: bool = True) -> tuple[float, float, int, dict[str, float], int]:
    """(wall s, CPU s, peak RSS MiB, stage -> ms, peak PSS MiB) of one build."""
    log = output.parent / "log.txt"
    output.parent.mkdir(parents=True, exist_ok=True)
    command = ["sh", "-c", f'"{sys.executable}" -m site_builder build --content "{content}" --output "{output}" '
               + " ".join(flags) + f' > "{log}" 2>&1']
    seconds, rss = bench_build.run(command, cwd=ROOT, sample=sample, pss=True)  # sample=False: the edits, a second or so
    cpu, pss = bench_build.run.cpu, bench_build.run.pss
    stages = {name: float(ms) for name, ms in STAGE.findall(log.read_text())}
    return seconds, cpu, rss, stages, pss


def spread(ratios: list[float]) -> str:
    """Lowest, quartiles and highest of ``ratios``."""
    ordered = sorted(ratios)
    q = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else ordered * 3
    return f"{ordered[0]:.3f} [{q[0]:.3f} {q[1]:.3f} {q[2]:.3f}] {ordered[-1]:.3f}"


def measure_builds(n: int, runs: int, edit_runs: int, work: Path, mix: str = "simple",
                   pagefind: str | None = None) -> Path:
    """Print the cold, memory and edit figures of search on against off on the ``mix`` corpus
    (and Pagefind's, with ``pagefind``); return the built site."""
    contents = {True: corpus(n, work, True, mix), False: corpus(n, work, False, mix)}
    cold: dict[bool, list] = {True: [], False: []}
    indexed: list[tuple[float, float, int]] = []  # Pagefind: wall s, CPU s, bytes
    count = 0
    for _ in range(runs):
        for on in (True, False):
            count += 1
            cold[on].append(build(contents[on], work / f"cold-{count}" / "output", "--no-cache"))
            if pagefind and not on:
                index = work / f"cold-{count}" / "pagefind"
                seconds, _ = bench_build.run([pagefind, "--site", str(work / f"cold-{count}" / "output"),
                                              "--output-path", str(index)], sample=False)
                indexed.append((seconds, bench_build.run.cpu, sum(f.stat().st_size for f in index.rglob("*") if f.is_file())))
    shares = [r[3]["search"] / (sum(r[3].values()) - r[3]["search"]) for r in cold[True]]
    cpu_on = statistics.median(r[1] for r in cold[True])
    cpu_off = statistics.median(r[1] for r in cold[False])
    wall_on = statistics.median(r[0] for r in cold[True])
    wall_off = statistics.median(r[0] for r in cold[False])
    print(f"\n## {n:,} terms, {mix} mix, {runs} run(s) each, alternated (median; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    print(f"cold build, search stage / rest of the build (build log)   {statistics.median(shares):6.3f}   (target <= 0.25)")
    print(f"cold build, wall s: on {wall_on:6.2f}  off {wall_off:6.2f}   on/off {wall_on / wall_off:6.3f}")
    print(f"cold build, CPU s:  on {cpu_on:6.2f}  off {cpu_off:6.2f}   on/off {cpu_on / cpu_off:6.3f}"
          f"   (added: {cpu_on / cpu_off - 1:+.3f} of the rest)")
    if indexed:
        ours = sum(f.stat().st_size for f in (work / "cold-1" / "output" / "search").rglob("*") if f.is_file())
        pf_cpu = statistics.median(i[1] for i in indexed)
        print(f"Pagefind over the search-off output: wall {statistics.median(i[0] for i in indexed):6.2f} s, "
              f"CPU {pf_cpu:6.2f} s = {pf_cpu / (cpu_on - cpu_off):.2f}x the CPU search adds to our build; "
              f"index {indexed[-1][2] / 1e6:.1f} MB against our search/ {ours / 1e6:.1f} MB")
    for name, at in (("RSS", 2), ("PSS", 4)):
        peak_on, peak_off = max(r[at] for r in cold[True]), max(r[at] for r in cold[False])
        print(f"peak memory ({name}), MiB: on {peak_on:6d}  off {peak_off:6d}   on/off {peak_on / peak_off:6.3f}")

    sites = {on: work / f"edit-{'on' if on else 'off'}" / "output" for on in (True, False)}
    for on in (True, False):
        build(contents[on], sites[on])           # fill the cache
        build(contents[on], sites[on])           # lay down the spare
    edits: dict[bool, list] = {True: [], False: []}
    for i in range(edit_runs):
        for on in ((True, False) if i % 2 == 0 else (False, True)):  # each side goes first half the time
            with open(contents[on] / "terms" / "term-00042.md", "a") as handle:
                handle.write(f"\nAn edited line {i}.\n")  # bench_build.py's edit
            result = build(contents[on], sites[on], sample=False)
            assert "update" in result[3], f"the edit did not take the fast path: {result[3]}"
            edits[on].append(result)
    print(f"one-body edit, {edit_runs} pairs: on/off of the medians; the pairs' ratios: lowest [quartiles] highest")
    for name, at in (("wall", 0), ("CPU", 1)):
        on = statistics.median(r[at] for r in edits[True])
        off = statistics.median(r[at] for r in edits[False])
        ratios = [a[at] / b[at] for a, b in zip(edits[True], edits[False])]
        print(f"  {name:4s} s: on {on:6.3f}  off {off:6.3f}   on/off {on / off:6.3f}   pairs {spread(ratios)}"
              + ("   (target <= 1.10)" if name == "wall" else ""))
    return sites[True]


def measure_browser(site: Path) -> None:
    from conftest_explainer import CSP, Server, launch
    from playwright.sync_api import sync_playwright

    server = Server(site, csp=CSP)
    fetched: list[str] = []

    def gz(paths: list[str]) -> int:
        return sum(len(gzip.compress((site / p).read_bytes(), 6)) for p in paths)

    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page()
            page.on("request", lambda r: fetched.append(r.url[len(server.url) + 1:]))
            page.goto(server.url + "/term-00042/index.html", wait_until="networkidle")
            page.wait_for_function("() => !document.querySelector('.site-search').hidden")
            script = [p for p in fetched if p.startswith("assets/search.")]  # with the page, or lazily (below)
            fetched.clear()

            def query(text: str) -> list[str]:
                page.fill("#search-input", "")
                page.fill("#search-input", text)
                page.wait_for_function("q => document.querySelector('.site-search').getAttribute('data-answered') === q",
                                       arg=text, timeout=30_000)
                done = [p for p in fetched if not p.startswith("assets/search.")]
                script.extend(p for p in fetched if p.startswith("assets/search.") and p not in script)
                fetched.clear()
                return done

            first = query("draft")
            second = query("memory batch")
            # Right answers on the big site too: a title word, a body-only word under its heading, a prefix.
            checks = {"00042": "Term 00042", "speculat": None, "late": None}
            for text in checks:
                query(text)
                titles = page.locator("#search-results [role=option] .search-title").all_inner_texts()
                assert titles and (checks[text] is None or titles[0].startswith(checks[text])), (text, titles)
            query("edited")
            assert page.locator("#search-results [role=option] .search-title").first.inner_text().startswith(
                "Term 00042"), "the edited body's new word finds its page"
            fetched.clear()
            print(f"first query ('draft'):         {gz(first) / 1024:7.1f} KB gzip in {len(first)} files"
                  f"   (target <= 150 KB; + the search script, {gz(script) / 1024:.1f} KB)")
            print(f"second query ('memory batch'):  {gz(second) / 1024:7.1f} KB gzip in {len(second)} files   (target <= 50 KB)")
            # Keystroke -> results painted, fragments cached: the input event's timestamp to the
            # frame after the answer's results are in the list.
            page.evaluate("""() => {
              window.__lat = [];
              const form = document.querySelector('.site-search'), input = document.getElementById('search-input');
              // Capture on the document: before search.js's own listener, whose cached answer
              // can be painted in the microtasks that follow it.
              document.addEventListener('input', (e) => { window.__t0 = e.timeStamp; window.__q = input.value; }, true);
              new MutationObserver(() => {
                if (form.getAttribute('data-answered') === window.__q && window.__t0 !== null) {
                  const t0 = window.__t0; window.__t0 = null;
                  requestAnimationFrame(() => setTimeout(() => window.__lat.push(performance.now() - t0), 0));
                }
              }).observe(form, { attributes: true, attributeFilter: ['data-answered'] });
            }""")
            words = ["draft", "memory batch", "token", "draft model", "speculat", "latency"]
            for round_ in range(2):  # the first round fetches the fragments; the second is timed
                page.evaluate("window.__lat = []")
                for word in words:
                    query(word[:-1])
                    page.focus("#search-input")
                    page.keyboard.press(word[-1])
                    page.wait_for_function("q => document.querySelector('.site-search').getAttribute('data-answered') === q",
                                           arg=word, timeout=30_000)
                    page.wait_for_timeout(50)
            latencies = page.evaluate("window.__lat")
            print(f"keystroke to results painted (cached fragments): median {statistics.median(latencies):6.1f} ms, "
                  f"max {max(latencies):6.1f} ms over {len(latencies)} last keystrokes of {len(words)} queries   (target <= 50 ms)")
            browser.close()
    finally:
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--terms", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3, help="cold builds, on and off each")
    parser.add_argument("--edits", type=int, default=15, help="one-body edits, on and off each")
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--pagefind", metavar="BIN", help="also time Pagefind indexing each search-off output")
    bench_build.add_mix_argument(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-search-") as folder:
        for mix in args.mix:
            site = measure_builds(args.terms, args.runs, args.edits, Path(folder) / mix, mix, args.pagefind)
            if not args.no_browser:
                measure_browser(site)


if __name__ == "__main__":
    main()
