"""Charts for every explainer: the Vega runtime asset, Vega-Lite compiled for
the live views, and the static SVGs drawn before any script runs.

One module owns vl-convert, so two explainers on one site share one runtime
file (``assets/vega-runtime.<hash>.js``) and render their SVGs alike. Import
it only from a build step or an explainer's ``prepare``.

vl-convert holds the GIL while it converts and runs one conversion at a time
per process (one V8 runtime behind a lock), and starting that runtime costs
~0.5 s of CPU. So threads gain nothing; ``start_workers`` forks worker
processes (``parallel.pool``: they die with the build) that start their
runtimes at once, while the build goes on importing and building specs, and
``submit`` hands them each conversion as soon as its spec exists. Without
workers (one core, no fork, or this process already started a runtime, which
a forked child could not use) ``submit`` converts in this process. Either way
the bytes are the same: SVG ids are renumbered after rendering (``stable_svg``).
A chart whose light and dark specs differ only in plain colours is rendered
once, with placeholder colours, and recoloured (``one_for_both``); one built
with placeholder strings for its themed colours is compiled once for every
theme (``themed``).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import vl_convert as vlc

from .. import parallel
from .base import ExplainerContext

RUNTIME_ASSET = "vega-runtime.js"
VENDOR = Path(__file__).with_name("vendor")
RUNTIME_FILES = ("vega.min.js", "vega-interpreter.js", "vega-tooltip.js")
"""The vendored files joined into the runtime asset, in load order (see ``vendor/``)."""


@functools.lru_cache(maxsize=1)
def runtime() -> bytes:
    """The Vega runtime the live charts run on, one classic script: Vega itself
    (``self.vega``), its expression interpreter (``self.vegaInterpreter``: views
    evaluate expressions without eval, so a strict CSP holds) and the tooltip
    handler (``self.vegaTooltip``), vendored from npm and pinned by digest.

    Only what runs is shipped: Vega-Lite is compiled to Vega at build time
    (``to_vega``), so neither its compiler nor vega-embed reaches the browser.
    """
    return b"\n".join((VENDOR / name).read_bytes() for name in RUNTIME_FILES)


def add_runtime(ctx: ExplainerContext, bundle: bytes | None = None) -> str:
    """Store the runtime as an asset (once per site, whichever explainer asks); its root-relative URL."""
    return ctx.add_asset(RUNTIME_ASSET, runtime() if bundle is None else bundle)


_STARTED = False
"""Whether this process has called vl-convert: its runtime's threads then exist
only here, so a process forked from here could not convert."""
_WORKERS = None
"""The running pool of ``start_workers``, or None."""
_WARM_UP = {"data": {"values": [{"x": 0}]}, "mark": "point", "encoding": {"x": {"field": "x", "type": "quantitative"}}}


def _vlc():
    """vl-convert, noting that this process has started (or is starting) its runtime."""
    global _STARTED
    _STARTED = True
    return vlc


def _warm() -> None:
    """In a fresh worker: start vl-convert's runtime now, before any spec is ready."""
    _vlc().vegalite_to_vega(_WARM_UP)


def start_workers(jobs: int) -> bool:
    """Fork ``jobs - 1`` converter workers (at least one, at most 3), each
    starting its vl-convert runtime at once; False when conversions will run
    in this process instead (one core, no fork, or a runtime already started
    here). ``stop_workers`` ends them; they die with the build in any case."""
    global _WORKERS
    if _WORKERS is not None:
        return True
    if jobs <= 1 or _STARTED or not parallel.can_pool():
        return False
    _WORKERS = parallel.pool(max(1, min(jobs - 1, 3)), _warm)
    _WORKERS.submit(int)  # a fork-context pool forks its workers at the first submit: now
    return True


def stop_workers(kill: bool = False) -> None:
    """End the converter workers, if any: wait for them, or (``kill``, a failed
    build) kill them first, mid-conversion or not."""
    global _WORKERS
    workers, _WORKERS = _WORKERS, None
    if workers is None:
        return
    if kill:
        parallel.kill(workers)
    else:
        workers.shutdown(wait=True, cancel_futures=True)


class _Done:
    """A conversion made in this process: a finished future."""

    def __init__(self, value):
        self._value = value

    def result(self):
        """The converted value."""
        return self._value


def convert(kind: str, payload):
    """One conversion: ``"vega"`` (Vega-Lite dict to Vega dict), ``"svg"``
    (Vega-Lite dict to SVG text, stable ids), ``"png"`` (SVG text to PNG bytes)
    or ``"themed"`` (``themed(*payload)``: one chart's Vega and SVGs)."""
    if kind == "vega":
        return _vlc().vegalite_to_vega(payload)
    if kind == "svg":
        return stable_svg(_vlc().vegalite_to_svg(payload))
    if kind == "png":
        return _vlc().svg_to_png(payload)
    if kind == "themed":
        return themed(*payload)
    raise ValueError(f"unknown conversion {kind!r}")


def submit(kind: str, payload):
    """``convert(kind, payload)`` on a converter worker when they run (a future),
    else here and now (an object whose ``result()`` is the value)."""
    if _WORKERS is not None:
        return _WORKERS.submit(convert, kind, payload)
    return _Done(convert(kind, payload))


def to_vega(spec: dict) -> dict:
    """A Vega-Lite spec compiled to Vega, for ``new vega.View(vega.parse(spec))`` in the page."""
    return submit("vega", spec).result()


_SVG_IDS = re.compile(r"\b(gradient_|clip)(\d+)\b")


def stable_svg(svg: str) -> str:
    """Renumber Vega's process-global gradient and clip ids in order of appearance,
    so the same chart renders to the same bytes in every build."""
    seen: dict[str, str] = {}

    def sub(m: re.Match) -> str:
        key = m.group(0)
        if key not in seen:
            seen[key] = f"{m.group(1)}{sum(1 for k in seen if k.startswith(m.group(1)))}"
        return seen[key]

    return _SVG_IDS.sub(sub, svg)


def to_svg(spec: dict) -> str:
    """A Vega-Lite spec drawn as SVG, with stable ids."""
    return submit("svg", spec).result()


def svg_size(svg: str) -> tuple[int, int]:
    """The width and height an SVG declares, rounded to pixels."""
    head = svg[: svg.index(">")]
    w = head.split(' width="', 1)[1].split('"', 1)[0]
    h = head.split(' height="', 1)[1].split('"', 1)[0]
    return round(float(w)), round(float(h))


def svg_to_png(svg: str) -> bytes:
    """An SVG rasterised (a social preview, ``base.PREVIEW_SIZE``)."""
    return submit("png", svg).result()


def static_charts(specs: dict[str, dict[str, dict]]) -> tuple[dict[str, bytes], dict[str, tuple[int, int]]]:
    """name -> {"light": spec, "dark": spec, ...} drawn as the files a chart panel
    shows before the runtime loads (``<name>.svg``, ``<name>-dark.svg``), and each
    chart's size."""
    return static_charts_from(submit_static(specs))


_HEX = re.compile(r"#[0-9a-fA-F]{3,8}")
_INTERPOLATED = frozenset({"scale", "range", "scheme", "gradient", "stops", "interpolate"})
"""Keys under which a colour may be blended into others (a scale's range, a
gradient): a colour there is not copied verbatim into the SVG."""
_FAIL = object()


def _merge(light, dark, swaps: dict[tuple[str, str], str], taken: str, inside: bool = False):
    """``light`` with every leaf where ``dark`` differs replaced by a placeholder
    colour (``swaps``: (light, dark) -> placeholder), or ``_FAIL`` when they differ
    otherwise than by a hex colour outside ``_INTERPOLATED``."""
    if isinstance(light, dict) and isinstance(dark, dict):
        if light.keys() != dark.keys():
            return _FAIL
        out = {}
        for key, value in light.items():
            out[key] = _merge(value, dark[key], swaps, taken, inside or key in _INTERPOLATED)
            if out[key] is _FAIL:
                return _FAIL
        return out
    if isinstance(light, list) and isinstance(dark, list):
        out = [_merge(a, b, swaps, taken, inside) for a, b in zip(light, dark)]
        return _FAIL if len(light) != len(dark) or any(v is _FAIL for v in out) else out
    if type(light) is type(dark) and light == dark:
        return light
    if inside or not (isinstance(light, str) and isinstance(dark, str) and _HEX.fullmatch(light) and _HEX.fullmatch(dark)):
        return _FAIL
    if (light, dark) not in swaps:
        n = len(swaps)
        while f"#fe{n:04x}" in taken:  # a colour neither spec uses: every one in the SVG is a placeholder
            n += 1
        swaps[(light, dark)] = f"#fe{n:04x}"
    return swaps[(light, dark)]


def one_for_both(light: dict, dark: dict) -> tuple[dict, dict[tuple[str, str], str]] | None:
    """One spec drawing both themes when they differ only in plain colours
    (``_merge``), and its placeholders; else None.

    Vega copies such a colour verbatim into the SVG (fill, stroke, text), and
    lays out the same marks whatever their colours, so the light and dark SVGs
    are the placeholder SVG with the placeholders replaced: one render instead
    of two, the same bytes (``test_vega_workers`` compares them with two renders)."""
    swaps: dict[tuple[str, str], str] = {}
    taken = (json.dumps(light) + json.dumps(dark)).lower()
    merged = _merge(light, dark, swaps, taken)
    return None if merged is _FAIL else (merged, swaps)


class _Recoloured:
    """The light (0) or dark (1) SVG of a placeholder render."""

    def __init__(self, job, swaps: dict[tuple[str, str], str], side: int):
        self._job, self._swaps, self._side = job, swaps, side

    def result(self) -> str:
        """The SVG with its placeholders replaced by this side's colours."""
        return _replace(self._job.result(), self._swaps, self._side)


def submit_static(specs: dict[str, dict[str, dict]]) -> dict[str, tuple]:
    """Start drawing ``static_charts``' SVGs (on the workers when they run):
    name -> (light, dark) futures, for ``static_charts_from``. A chart whose
    themes differ only in colours is rendered once (``one_for_both``)."""
    pending = {}
    for name, by_theme in specs.items():
        both = one_for_both(by_theme["light"], by_theme["dark"])
        if both is None:
            pending[name] = (submit("svg", by_theme["light"]), submit("svg", by_theme["dark"]))
        else:
            job = submit("svg", both[0])
            pending[name] = (_Recoloured(job, both[1], 0), _Recoloured(job, both[1], 1))
    return pending


def static_charts_from(pending: dict[str, tuple]) -> tuple[dict[str, bytes], dict[str, tuple[int, int]]]:
    """The files and sizes of ``static_charts`` from what ``submit_static`` started."""
    files: dict[str, bytes] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for name, (light_job, dark_job) in pending.items():
        light = light_job.result()
        files[f"{name}.svg"] = light.encode("utf-8")
        files[f"{name}-dark.svg"] = dark_job.result().encode("utf-8")
        sizes[name] = svg_size(light)
    return files, sizes


def recolour(spec, values: dict[str, str]):
    """A copy of ``spec`` with every string leaf that is a key of ``values``
    replaced by its value (a placeholder colour by a theme's)."""
    if isinstance(spec, dict):
        return {key: recolour(value, values) for key, value in spec.items()}
    if isinstance(spec, list):
        return [recolour(value, values) for value in spec]
    if isinstance(spec, str):
        return values.get(spec, spec)
    return spec


def themed(spec: dict, palettes: dict[str, dict[str, str]], live: str) -> tuple[dict, str, str]:
    """One Vega-Lite spec whose themed colours are placeholder strings, compiled
    once: (the Vega spec recoloured with ``palettes[live]``, the light SVG, the
    dark SVG), the static SVGs drawn from the compiled spec recoloured with
    ``palettes["light"]`` and ``palettes["dark"]`` (once for both when
    ``one_for_both`` can).

    Vega-Lite copies a colour as it is, wherever it goes, so compiling
    placeholders and recolouring gives the specs compiling each theme would;
    ``test_vega_workers`` holds every chart of the built-in explainer to that
    (the Vega spec and both SVGs byte for byte). A spec where a colour would
    steer the compile (a placeholder in an expression, say) is not for this:
    compile it per theme (``submit_static``, ``to_vega``)."""
    compiled = _vlc().vegalite_to_vega(spec)
    light, dark = recolour(compiled, palettes["light"]), recolour(compiled, palettes["dark"])
    both = one_for_both(light, dark)
    if both is None:
        svgs = stable_svg(_vlc().vega_to_svg(light)), stable_svg(_vlc().vega_to_svg(dark))
    else:
        svg = stable_svg(_vlc().vega_to_svg(both[0]))
        svgs = tuple(_replace(svg, both[1], side) for side in (0, 1))
    return recolour(compiled, palettes[live]), svgs[0], svgs[1]


def _replace(svg: str, swaps: dict[tuple[str, str], str], side: int) -> str:
    """A placeholder render (``one_for_both``) with light (0) or dark (1) colours."""
    for pair, placeholder in swaps.items():
        svg = svg.replace(placeholder, pair[side])
    return svg


class _Part:
    """One item of a pending conversion's result (a future-like ``result()``)."""

    def __init__(self, job, index: int):
        self._job, self._index = job, index

    def result(self):
        """That item, once the conversion is done."""
        return self._job.result()[self._index]


def submit_themed(spec: dict, palettes: dict[str, dict[str, str]], live: str = "live") -> tuple:
    """Start ``themed(spec, palettes, live)`` (on a worker when they run): one
    conversion per chart, one Vega-Lite compile. Returns (live Vega, light SVG,
    dark SVG) futures; the two SVG ones fit ``static_charts_from``."""
    job = submit("themed", (spec, palettes, live))
    return _Part(job, 0), _Part(job, 1), _Part(job, 2)


def js_namespace(namespace: str) -> str:
    """A JavaScript expression for ``window.<namespace>``, made first if need be.

    Own properties only: an element with ``id="<namespace>"`` makes the name a
    property of ``window`` too (named access), and a script that took that
    element for its namespace would read what content wrote. An own property
    is always the script's."""
    ns = json.dumps(namespace)
    return f"(Object.prototype.hasOwnProperty.call(self, {ns}) ? self.{namespace} : (self.{namespace} = {{}}))"


def js_data(namespace: str, key: str, value, comment: str, entry: str | None = None) -> bytes:
    """A classic script setting ``window.<namespace>.<key>`` to ``value`` (JSON), or
    with ``entry`` its member ``<key>.<entry>`` (the others kept: one script per
    chart's spec, each loaded when its view is built): how data reaches a page
    from ``file://``, where a script cannot fetch."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    target = f"{js_namespace(namespace)}.{key}"
    if entry is not None:
        target = f"({target} = {target} || {{}})[{json.dumps(entry)}]"
    return (f"/* generated by site_builder: {comment} */\n{target} = {text};\n").encode("ascii")
