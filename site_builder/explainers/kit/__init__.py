"""The explainer kit: what every explainer's widget needs, shared by all of them.

The browser side is one classic script, ``assets/explainer-kit.<hash>.js``
(``add_script``): the parts under ``static/`` in ``SCRIPTS`` order, each
registering itself in ``window.ExplainerKit``:

- ``kit-frames.js`` (``.frames``): lazy Vega views (the runtime loaded on the
  first use of a control or when a chart nears the viewport, views built in
  small tasks, swapped for their pictures without a shift), the frame scheduler;
- ``kit-state.js`` (``.state``): a store whose values are clamped, snapped or
  refused per key, its limits read from the sliders' own ``min``/``max``/``step``
  (``limitsFrom``), mirrored into the URL;
- ``kit-charts.js`` (``.charts``): the chart lifecycle (static picture, loading,
  live; the page's colours on a scheme change) and the scripts the build
  named, found beside the kit's own script.

Its bytes depend on nothing but these files, so every explainer on every page
of a site links the same file (``add_asset`` names it by its content hash):
one download, cached, however many explainers a site has. The stylesheet
(``add_stylesheet``, ``kit.css``) styles what the shared macros write, under
the ``kit-`` class names they give. ``shipped``, ``joined`` and
``shipped_css`` are the minification and joining explainers use for their
own scripts and styles too; ``theme``
the light and dark chart colours, one compile per chart.

Docs: docs/explainers.md ("The client kit").
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Iterable

import rjsmin

STATIC = Path(__file__).with_name("static")
SCRIPTS = ["kit-frames.js", "kit-state.js", "kit-charts.js"]
"""The kit's parts, in the order they are joined (each registers in ``window.ExplainerKit``)."""
SCRIPT = "explainer-kit.js"
STYLESHEET = "explainer-kit.css"
NAMESPACE = "ExplainerKit"


def shipped(js: str) -> str:
    """A part as the page gets it: minified by rjsmin (comments and needless
    whitespace gone, strings, regular expressions and template literals kept as
    they are), well under half its gzip bytes; the sources keep their comments.
    ``/*! ... */`` comments would be kept (none ships today). Each part ends its
    statement, so parts join with a newline."""
    return rjsmin.jsmin(js, keep_bang_comments=True).rstrip() + "\n"


_CSS_TOKEN = re.compile(r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|(/\*.*?\*/)|(\s+)""", re.S)
_CSS_TIGHT = re.compile(r" *([{};,]) *|(:) +| {2,}")


def shipped_css(css: str) -> str:
    """A stylesheet as the page gets it: comments gone, each run of whitespace
    one space, none around ``{ } ; ,`` nor after ``:`` (a space never follows a
    pseudo-class's colon), no ``;`` before ``}``; strings kept as
    they are (``content: "Text: "``). Nothing else is rewritten (a space may be
    a descendant combinator or part of ``calc(a - b)``), so the rules are the
    source's, byte for byte in what they say (the explainers' browser tests
    compare computed styles)."""
    out = []
    plain = []

    def flush():
        text = _CSS_TIGHT.sub(lambda m: m.group(1) or m.group(2) or " ", "".join(plain)).replace(";}", "}")
        out.append(text)
        plain.clear()

    at = 0
    for match in _CSS_TOKEN.finditer(css):
        plain.append(css[at:match.start()])
        at = match.end()
        if match.group(1):  # a string: as written
            flush()
            out.append(match.group(1))
        else:  # a comment or whitespace: one space
            plain.append(" ")
    plain.append(css[at:])
    flush()
    return "".join(out).strip() + "\n"


def joined(folder: Path, names: Iterable[str], head: str = "") -> bytes:
    """One classic script: ``head`` (page data, say), then each part of
    ``folder`` in ``names`` order, ``shipped``."""
    return (head + "".join(shipped((folder / name).read_text(encoding="utf-8")) for name in names)).encode("utf-8")


@functools.lru_cache(maxsize=1)
def script() -> bytes:
    """The kit's one script: a comment naming its parts, then the parts. The same
    bytes for every explainer and page (nothing of theirs is in it)."""
    return joined(STATIC, SCRIPTS, f"/* explainer kit: static/{', '.join(SCRIPTS)} */\n")


def stylesheet() -> bytes:
    """The styles of everything the shared macros write (``kit.css``, ``shipped_css``)."""
    return shipped_css((STATIC / "kit.css").read_text(encoding="utf-8")).encode("utf-8")


def add_script(ctx) -> str:
    """Store the kit's script as an asset (one file per site: the same bytes
    whichever explainer asks); its root-relative URL. Link it before the
    explainer's own scripts (``ExplainerBuild.scripts`` keeps their order)."""
    return ctx.add_asset(SCRIPT, script())


def add_stylesheet(ctx) -> str:
    """Store the kit's stylesheet as an asset (one per site); its root-relative URL."""
    return ctx.add_asset(STYLESHEET, stylesheet())


def asset_names(folder: str, urls: dict[str, str]) -> dict[str, str]:
    """name -> the file name of each root-relative URL in ``urls``, all of which
    must be in ``folder`` (beside the kit's script, which resolves them against
    its own URL: never a URL read from the page, where content could write one)."""
    out = {}
    for name, url in sorted(urls.items()):
        where, _, file = url.rpartition("/")
        if where != folder or not file:
            raise ValueError(f"{url!r} is not in {folder!r}, beside the kit's script")
        out[name] = file
    return out


__all__ = ["SCRIPTS", "SCRIPT", "STYLESHEET", "STATIC", "add_script", "add_stylesheet", "asset_names", "joined",
           "script", "shipped", "shipped_css", "stylesheet"]
