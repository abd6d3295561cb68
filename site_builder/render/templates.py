"""Where templates come from: the package's, or a site's overrides over them.

A site's ``content/templates/`` holds templates that replace the package's of
the same name (``load.theme``), as MkDocs' ``theme.custom_dir``. The lookup is
a Jinja ``ChoiceLoader``: the site's overrides, then the package's templates
also under the prefix ``site_builder/`` (a ``PrefixLoader``), then the
package's under their own names. So a package template that extends
``base.html`` gets the site's ``base.html`` when there is one, and any
template reaches a package original as ``site_builder/<name>``.

One rule more, in ``Environment.join_path`` (Jinja's hook for resolving a
name relative to the template that asks): an override that extends or
includes its *own* name (``base.html`` saying ``{% extends "base.html" %}``)
means the package's original, the way ``custom_dir`` overrides extend the
theme's. Anything else would be a loop.

Overrides render in Jinja's sandbox (``_ThemeEnvironment``). A template
error is a ``Problem`` at the template's ``path:line``
(``template_problem``): for a syntax error from the exception, for an error
while rendering from the traceback frame Jinja maps back to the template.
"""

from __future__ import annotations

import functools
import traceback
from typing import Callable, Mapping

import jinja2
import jinja2.compiler
import jinja2.sandbox

from ..errors import BuildFailed, Problem
from ..urls import url_scheme

PACKAGE_PREFIX = "site_builder"
"""``{% extends "site_builder/base.html" %}`` is always the package's ``base.html``."""

TEMPLATES = ("term.html", "base.html", "index.html", "404.html")
"""The templates the render stage renders or extends."""

try:
    from markupsafe._speedups import _escape_inner as _escape_text  # what markupsafe.escape runs on a str
except ImportError:  # markupsafe without its C extension
    from markupsafe._native import _escape_inner as _escape_text


def output_escape(value) -> str:
    """``markupsafe.escape(value)`` as a plain string: what a template's
    ``{{ value }}`` writes. ``escape`` wraps every result in a ``Markup``
    (a Python-level ``__new__``): ~90 of them a term page, a third of its
    rendering. What a template writes is only joined (``"".join``), never
    escaped again, so the wrapper bought nothing; the text is the same."""
    if type(value) is str:
        return _escape_text(value)
    if hasattr(value, "__html__"):
        return value.__html__()
    return _escape_text(str(value))


class _Template(jinja2.Template):
    """A template whose output expressions escape with ``output_escape``.

    Jinja compiles ``{{ x }}`` under autoescaping to ``escape(x)``, ``escape``
    being a name of the compiled module; the module's namespace passes here
    (``Template.from_code`` and ``from_module_dict``) before any code of it runs."""

    @classmethod
    def _from_namespace(cls, environment, namespace, globals):
        namespace["escape"] = output_escape
        return super()._from_namespace(environment, namespace, globals)

    @functools.cached_property
    def plain_globals(self) -> dict:
        """The template's globals (``range``, ``namespace``...) as a plain dict.

        ``Template.globals`` is a ``ChainMap`` over the environment's, whose
        iteration is Python code: going over it for each page (to add them to
        the page's values, and Jinja's ``set(globals)`` in every new context)
        was ~3.5 us of a term page's ~40 in Jinja. Nothing changes a
        template's globals after it is loaded here."""
        return dict(self.globals)


class _CodeGenerator(jinja2.compiler.CodeGenerator):
    """Jinja's code generator, but a block or a parent template is written out
    joined (``yield concat(block(context))``), not value by value (``yield from``).

    Every value a template writes passes up through each generator between it
    and the one the render joins: a term page's ~200 values pass through three
    or four (the page's template, ``base.html``'s root, ``main``, ``related``...),
    a frame resumed per value per level. Joined where each block ends, a value
    passes through one; the text is the same, only cut into other pieces.
    Matched on the two lines Jinja writes for them (3.1): were they written
    otherwise, nothing matches and the code is Jinja's as it was."""

    _DELEGATIONS = ("yield from context.blocks[", "yield from parent_template.root_render_func(context)")

    def writeline(self, x: str, node=None, extra: int = 0) -> None:
        if x.startswith(self._DELEGATIONS):
            x = f"yield concat({x[len('yield from '):]})"
        super().writeline(x, node, extra)


_OPTIONS = dict(autoescape=True, auto_reload=False, trim_blocks=False, keep_trailing_newline=True,
                undefined=jinja2.StrictUndefined, cache_size=-1)
"""``cache_size=-1``: the loaded templates in a plain dict, not Jinja's locked
LRU cache (a dozen templates at most; ``term.html`` asks for ``base.html``
on every page)."""


class _ThemeEnvironment(jinja2.sandbox.SandboxedEnvironment):
    """An environment whose overrides reach the originals they replace.

    Sandboxed: an override is content, so it may not reach Python's internals
    through the values it is given (``{{ site.__class__.__init__.__globals__ }}``
    is an error, not a way to run code in the build)."""

    overrides: frozenset[str] = frozenset()

    def join_path(self, template: str, parent: str) -> str:
        """``template`` as asked for by ``parent``: an override asking for its own
        name means the package's original (see the module docstring)."""
        if template == parent and parent in self.overrides:
            return f"{PACKAGE_PREFIX}/{template}"
        return template


@functools.lru_cache(maxsize=1)
def package_environment() -> jinja2.Environment:
    """The Jinja environment for the packaged templates (autoescaping on).

    One per process, compiled once: templates are code, like the modules
    (``cache.code_version`` hashes them), so a process renders the templates
    it started with. ``serve`` restarts its build process when one changes.
    Without auto-reload Jinja does not stat ``base.html`` for every page."""
    environment = jinja2.Environment(loader=jinja2.PackageLoader("site_builder", "templates"), **_OPTIONS)
    environment.template_class = _Template
    environment.code_generator_class = _CodeGenerator
    return environment


_themed: dict[str, jinja2.Environment] = {}


def theme_environment(overrides: Mapping[str, tuple[str, str]], digest: str) -> jinja2.Environment:
    """The environment for a site with template ``overrides`` (name -> (source,
    path shown in errors)); one per distinct set (``digest``) in a process."""
    if not overrides:
        return package_environment()
    if digest not in _themed:
        sources = dict(overrides)

        def load(name: str):
            found = sources.get(name)
            return None if found is None else (found[0], found[1], lambda: True)

        package = jinja2.PackageLoader("site_builder", "templates")
        environment = _ThemeEnvironment(loader=jinja2.ChoiceLoader([
            jinja2.FunctionLoader(load),
            jinja2.PrefixLoader({PACKAGE_PREFIX: package}),
            package,
        ]), **_OPTIONS)
        environment.overrides = frozenset(sources)
        environment.template_class = _Template
        environment.code_generator_class = _CodeGenerator
        _themed.clear()  # one site per process at a time (serve rebuilds in the same one)
        _themed[digest] = environment
    return _themed[digest]


def check_templates(environment: jinja2.Environment, overrides: Mapping[str, tuple[str, str]]) -> list[Problem]:
    """Compile every override and every template the pages use; the syntax errors
    (and templates extended but missing, where Jinja can tell) as problems."""
    problems = []
    for name in sorted({*overrides, *TEMPLATES}):
        try:
            environment.get_template(name)
        except jinja2.TemplateSyntaxError as error:
            problems.append(Problem(error.filename or overrides.get(name, (None, name))[1], error.lineno,
                                    f"template syntax error: {error.message}"))
        except jinja2.TemplateError as error:
            problems.append(template_problem(error, overrides))
    return problems


def template_problem(error: Exception, overrides: Mapping[str, tuple[str, str]] = {}) -> Problem:
    """``error`` raised while compiling or rendering a template, as a Problem at
    the template line it came from (the deepest template frame of its traceback)."""
    if isinstance(error, jinja2.TemplateSyntaxError) and error.lineno:
        return Problem(error.filename or "templates", error.lineno, f"template syntax error: {error.message}")
    shown = {path for _source, path in overrides.values()}
    where: tuple[str, int | None] | None = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename in shown or frame.filename.endswith(".html"):
            where = (frame.filename, frame.lineno)
    if isinstance(error, jinja2.TemplateNotFound):
        message = f"template not found: {error.name!r} (a package template is site_builder/<name>)"
    else:
        message = f"template error: {type(error).__name__}: {error}"
    if where is None:
        return Problem("templates", None, message)
    return Problem(where[0], where[1], message)


def render(template: jinja2.Template, context: dict, overrides: Mapping[str, tuple[str, str]],
           fixed: Mapping[str, Callable] | None = None) -> str:
    """``template`` rendered with ``context``; an error in a site's override
    (or one it causes in a package template) raises ``BuildFailed`` at its line.

    ``context`` is the caller's to give away: the template's globals (``range``,
    ``namespace``...) are added to it where it has no value of that name, and
    Jinja renders from it as it is (``new_context(shared=True)``). What
    ``template.render(context)`` does, less its two copies of the context, one
    into a dict and one with the globals (~4 us of a term page's ~60 in Jinja):
    the same values, the same lookups, and the same traceback handling.

    ``fixed``: block name -> a block function writing its output, rendered
    once already (``fixed_blocks``), instead of rendering that block again."""
    try:
        values = template.plain_globals
        for name, value in values.items():
            context.setdefault(name, value)
        environment = template.environment
        try:
            # Template.new_context(context, shared=True), given the plain globals.
            jinja_context = environment.context_class(environment, context, template.name, template.blocks, values)
            if fixed:
                # Jinja looks a block up as context.blocks[name][0] and appends the
                # parents' blocks to the list as a child extends them: ours comes first.
                blocks = jinja_context.blocks
                for name, function in fixed.items():
                    blocks.setdefault(name, []).insert(0, function)
            return environment.concat(template.root_render_func(jinja_context))
        except Exception:
            environment.handle_exception()
    except Exception as error:
        if not overrides:
            raise  # the package's own templates: a bug, with its traceback
        raise BuildFailed([template_problem(error, overrides)]) from None


def _constant(output: str) -> Callable:
    """A block function that writes ``output`` (``yield from`` takes any iterable)."""
    written = (output,)
    return lambda context: written


class _Shared(dict):
    """The values a block rendered once is given (``fixed_blocks``), noting every
    name looked up in them: Jinja's context asks ``name in parent`` then
    ``parent[name]`` for each name a block (or a block, include or ``with
    context`` import it renders) reads, found or not. Going over them whole
    (``get_all`` copying them for an include) is noted as ``whole``: what is
    then looked up in the copy is not seen here."""

    def __init__(self, values: dict):
        super().__init__(values)
        self.read: set[str] = set()
        self.whole = False

    def __contains__(self, name) -> bool:
        self.read.add(name)
        return dict.__contains__(self, name)

    def __getitem__(self, name):
        self.read.add(name)
        return dict.__getitem__(self, name)

    def get(self, name, default=None):
        self.read.add(name)
        return dict.get(self, name, default)

    def __iter__(self):
        self.whole = True
        return dict.__iter__(self)

    def keys(self):
        self.whole = True
        return dict.keys(self)

    def items(self):
        self.whole = True
        return dict.items(self)

    def values(self):
        self.whole = True
        return dict.values(self)

    def copy(self):
        self.whole = True
        return dict(dict.items(self))


def fixed_blocks(chain: list[jinja2.Template], names: tuple[str, ...],
                 values: dict) -> tuple[dict[str, Callable], frozenset[str]]:
    """The blocks ``names`` of a page template that render from ``values``
    alone, each rendered once, for ``render(fixed=...)``; and the names those
    blocks read (of ``values`` and the template's globals).

    ``values`` hold only what every page rendered with the blocks shares
    (the site's settings, links, ``root``), none of a page's own. A block that
    reads any other name (a page's value, or one no page has: ``is defined``
    too), that goes over the values whole, or that fails here, is left out:
    each page renders it as ever, from its own values. So a block never
    carries one page's value to another; the caller still must not give a page
    the blocks when the page's own values name any of the names read.

    ``chain``: the page's template, then the template it extends, and so on
    (each block is the first of them that has it, as Jinja resolves it).
    Whoever passes the blocks on to ``render`` knows that the page's template
    extends exactly ``chain``."""
    blocks: dict[str, list] = {}
    for template in chain:
        for name, function in template.blocks.items():
            blocks.setdefault(name, []).append(function)
    page = chain[0]
    environment = page.environment
    shared = {**page.plain_globals, **values}
    fixed: dict[str, Callable] = {}
    read: set[str] = set()
    for name in names:
        given = _Shared(shared)
        context = environment.context_class(environment, given, page.name, {}, page.plain_globals)
        context.blocks = {block: list(functions) for block, functions in blocks.items()}
        try:
            output = environment.concat(blocks[name][0](context))
        except Exception:  # (a page rendering it shows the error where it is)
            continue
        if given.whole or not given.read <= shared.keys():
            continue
        fixed[name] = _constant(output)
        read |= given.read
    return fixed, frozenset(read)


def link_href(url: str, root: str) -> str:
    """A ``header_links``/``footer_links`` URL as a page at ``root`` writes it: a
    relative one is relative to the glossary's root, like the site's own links."""
    if url_scheme(url) is not None or url.startswith(("/", "#")):
        return url
    return root + url


def theme_asset(name: str) -> str:
    """The asset store's name for ``assets/<name>`` of the content folder (apart
    from the package's own: a site's ``site.css`` does not replace the site's)."""
    return f"theme/{name}"


RIGHT_TO_LEFT = frozenset({"ar", "arc", "ckb", "dv", "fa", "he", "iw", "ps", "sd", "ug", "ur", "yi"})
"""Primary language subtags written right to left (a script subtag such as ``ku-Arab`` decides too)."""


def right_to_left(language: str) -> bool:
    """Whether pages in ``language`` (a BCP 47 tag) run right to left."""
    parts = language.lower().replace("_", "-").split("-")
    if len(parts) > 1 and parts[1] in ("arab", "hebr", "thaa", "syrc", "nkoo", "adlm", "rohg"):
        return True
    if len(parts) > 1 and len(parts[1]) == 4:
        return False  # another script named: e.g. az-Latn
    return parts[0] in RIGHT_TO_LEFT
