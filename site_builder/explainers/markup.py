"""Render an explainer's figure from a Jinja template and the shared macros.

``render(package, "figure.html", **values)`` renders ``figure.html`` from the
explainer's own package folder; there ``{% import "site_builder/macros.html"
as ui %}`` gives the shared macros (controls, readouts, chart panels, see
``macros.html``), so an explainer writes only what is its own.

Every ``{{ value }}`` is escaped (``html.escape``, quotes included) unless it
is ``markupsafe.Markup``: a macro's output, a ``{% set %}`` block, or text
the explainer marked as HTML on purpose.
"""

from __future__ import annotations

import functools
import html
from importlib import resources
from pathlib import Path

import jinja2
from markupsafe import Markup

HERE = Path(__file__).resolve().parent


def _escape(value) -> Markup:
    return value if isinstance(value, Markup) else Markup(html.escape(str(value), quote=True))


@functools.lru_cache(maxsize=None)
def environment(package: str) -> jinja2.Environment:
    """The Jinja environment for one explainer package: its own folder, and the
    shared macros under ``site_builder/``."""
    own = Path(str(resources.files(package)))
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader([
            jinja2.PrefixLoader({"site_builder": jinja2.FileSystemLoader(HERE)}, delimiter="/"),
            jinja2.FileSystemLoader(own),
        ]),
        autoescape=True,
        finalize=_escape,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
        undefined=jinja2.StrictUndefined,
    )


def render(package: str, template: str, **values) -> str:
    """``template`` (a file in ``package``'s folder) rendered with ``values``."""
    return environment(package).get_template(template).render(**values)


def compile_now(package: str, template: str) -> None:
    """Compile ``template`` and the shared macros now (~60 ms, once per process),
    so a later ``render`` of it only renders: time a build step spends
    waiting on something else."""
    env = environment(package)
    env.get_template(template)
    env.get_template("site_builder/macros.html")
