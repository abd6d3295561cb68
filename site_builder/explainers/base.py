"""The contract between the site generator and an explainer package.

An explainer is found through the entry-point group ``site_builder.explainers``
(``GROUP``): each entry point names an ``Explainer`` declaration, which says
what the build may know before importing anything heavy: its name, the ids
its markup gives elements, its version, and where its build step lives. The
build calls that step, ``build(ctx) -> ExplainerBuild``, for each term that
names the explainer, once per build, after every term is loaded and
validated and before anything is written. See docs/explainers.md.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Iterable, Iterator, Union

from ..errors import Problem
from ..load.schema import Field, Schema, check

GROUP = "site_builder.explainers"
"""The entry-point group explainers register in (``pyproject.toml``:
``[project.entry-points."site_builder.explainers"]``)."""

PREVIEW_SIZE = (1200, 630)
"""Width and height of every social preview image (``og:image``), an
explainer's own (``ExplainerBuild.preview_png``) or the composed card."""


@dataclass(frozen=True)
class ExplainerContext:
    """What an explainer may know about and ask of the build."""

    slug: str
    """The slug of the term page that embeds the explainer."""
    root: str
    """Relative prefix from the term page to the site root, e.g. ``"../"``."""
    add_asset: Callable[[str, bytes], str]
    """``add_asset(name, data)`` stores a file under ``assets/`` with a content
    hash in its name and returns its URL relative to the site root."""
    previews: bool = True
    """Whether the site makes social previews (``SiteConfig.makes_previews``:
    an absolute ``base_url``, or ``previews = true``). False: the build writes
    no preview image, so the explainer need not draw its ``preview_png``."""
    options: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    """The term's options for the explainer (``Explainer.options``), checked, every
    declared one present (at its default when the term sets none)."""


@dataclass
class ExplainerBuild:
    """What an explainer hands back to the build."""

    html: str
    """Markup placed in the prose: after its opening section, or at its marker
    (``markup.placement``). No inline scripts or styles (CSP)."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Extra files written beside the page, keyed by name relative to the page's folder."""
    scripts: list[str] = field(default_factory=list)
    """Root-relative URLs of classic scripts the page loads with ``defer``."""
    stylesheets: list[str] = field(default_factory=list)
    """Root-relative URLs of stylesheets the page links."""
    preview_png: bytes | None = None
    """Optional social preview image for the page, ``PREVIEW_SIZE`` pixels."""


BuildStep = Callable[[ExplainerContext], ExplainerBuild]
Release = Callable[..., None]
"""What a prepare step returns: ``release(failed=False)`` frees what it started."""
PrepareStep = Callable[[int], Union[Release, None]]


@dataclass(frozen=True)
class Explainer:
    """An explainer's declaration: the object its entry point names.

    Keep the module that holds it light (no altair, numpy, ...): the build
    imports every declaration to learn the ids they reserve, and imports
    ``build`` only when a term names the explainer."""

    name: str
    """The name terms write in front matter (``explainer: <name>``); it must
    equal the entry point's name."""
    element_ids: frozenset[str]
    """Every id the explainer's markup gives an element. A term body's
    headings never take one of these (``markup/render.py``)."""
    version: str
    """Part of every cache key (``cache.code_version``): change it whenever the
    output changes for a reason the build cannot see. For a package outside
    ``site_builder`` the bytes of its files count too."""
    build: Union[str, BuildStep]
    """The build step, or ``"module:function"`` naming it, imported when needed."""
    prepare: Union[str, PrepareStep, None] = None
    """Optional: ``prepare(jobs) -> release or None``, or ``"module:function"``
    naming it. The build calls it as soon as it knows the build step will run
    (a term names the explainer and its cache has no entry), before the
    validation and markup stages, with the number of cores it may use: time
    to start what the build step will wait on (worker processes, imports).
    The ``release()`` it returns runs after the explainers stage, or with
    ``failed=True`` when the build stops early."""

    options: tuple[Field, ...] = ()
    """The options a term may set (``explainer: {name: <name>, <option>: <value>}``),
    as ``site_builder.load.schema.Field``s: checked by the schema engine that
    checks site.toml and front matter (an unknown option or a wrong type is a
    ``path:line`` error), each at its default when not set; part of the
    explainer's cache key."""

    def option_schema(self) -> Schema:
        """The schema of the options, as ``validate`` and ``options_for`` check them."""
        return Schema(tuple(self.options), noun=f"option of explainer {self.name!r}", suggest=True, unknown="error")

    def options_for(self, given: Mapping[str, object], shown: str = "", lines: Mapping[str, int] | None = None,
                    line: int = 2) -> tuple[dict[str, object], list[Problem]]:
        """``given`` (a term's options) checked: (every declared option, at its
        default when not given; problems at ``lines[<option>]``, else ``line``)."""
        schema = self.option_schema()
        lines = dict(lines or {})
        values, problems = check(dict(given), Schema(schema.fields, schema.noun, line, schema.suggest, False, "error"),
                                 shown, lines)
        if not self.options and given:  # "known: " would list nothing
            problems = [Problem(shown, lines.get(str(key), line),
                                f"unknown option {str(key)!r}: explainer {self.name!r} takes no options")
                        for key in given]
        return values, problems

    def build_step(self) -> BuildStep:
        """The build step, importing its module first when given by name."""
        return _resolve(self.build, "build")

    def prepare_step(self) -> PrepareStep | None:
        """The prepare step, if any, importing its module first when given by name."""
        return None if self.prepare is None else _resolve(self.prepare, "prepare")


def _resolve(step, default: str):
    if callable(step):
        return step
    module, _, attribute = step.partition(":")
    return getattr(importlib.import_module(module), attribute or default)


class ExplainerError(Exception):
    """An installed explainer that cannot be used (a broken entry point, two
    packages claiming one name, a declaration that does not fit the contract)."""


@dataclass(frozen=True)
class Found:
    """One entry point of the group, as discovered."""

    name: str
    value: str
    """``module:attribute`` of the declaration."""
    distribution: str
    """The name of the distribution that registers it."""
    entry_point: object


class Registry(Mapping):
    """name -> ``Explainer``, for every installed explainer, discovered on
    first use (scanning the installed distributions costs a few ms) and loaded
    one declaration at a time."""

    def __init__(self, group: str = GROUP):
        self.group = group
        self._found: dict[str, list[Found]] | None = None
        self._loaded: dict[str, Explainer] = {}

    def found(self) -> dict[str, list[Found]]:
        """name -> the entry points that claim it (more than one is an error when used)."""
        if self._found is None:
            from importlib import metadata

            found: dict[str, list[Found]] = {}
            for entry in metadata.entry_points(group=self.group):
                dist = getattr(entry, "dist", None)
                dist_name = dist.metadata["Name"] if dist is not None else "?"
                claims = found.setdefault(entry.name, [])
                if all(f.distribution != dist_name or f.value != entry.value for f in claims):
                    claims.append(Found(entry.name, entry.value, dist_name, entry))
            self._found = found
        return self._found

    def __getitem__(self, name: str) -> Explainer:
        if name in self._loaded:
            return self._loaded[name]
        claims = self.found()[name]  # KeyError: no such explainer
        if len(claims) > 1:
            owners = ", ".join(f"{f.distribution} ({f.value})" for f in claims)
            raise ExplainerError(f"explainer {name!r} is registered by more than one package: {owners}")
        claim = claims[0]
        try:
            declared = claim.entry_point.load()
        except Exception as error:  # an outside package's import may fail any way it likes
            raise ExplainerError(f"explainer {name!r} ({claim.value}, from {claim.distribution}) "
                                 f"could not be imported: {error}") from error
        if not isinstance(declared, Explainer):
            raise ExplainerError(f"explainer {name!r}: {claim.value} is not a site_builder.explainers.Explainer")
        if declared.name != name:
            raise ExplainerError(f"explainer {name!r}: {claim.value} declares the name {declared.name!r}")
        self._loaded[name] = declared
        return declared

    def __contains__(self, name: object) -> bool:
        return name in self.found()

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.found()))

    def __len__(self) -> int:
        return len(self.found())

    def usable(self) -> Iterator[Explainer]:
        """Every declaration that loads; a broken one is reported only where a term names it."""
        for name in self:
            try:
                yield self[name]
            except ExplainerError:
                pass

    def module_of(self, name: str) -> str:
        """The module that holds ``name``'s declaration (its package's files are its code)."""
        return self.found()[name][0].value.partition(":")[0]


class _ElementIds(Mapping):
    """explainer name -> the ids it declares, read from the declarations when first asked."""

    def __init__(self, registry: Registry):
        self._registry = registry

    def _all(self) -> dict[str, frozenset[str]]:
        return {e.name: frozenset(e.element_ids) for e in self._registry.usable()}

    def __getitem__(self, name: str) -> frozenset[str]:
        return frozenset(self._registry[name].element_ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def values(self):
        return self._all().values()


REGISTRY = Registry()
"""Every installed explainer, by name (discovered on first use)."""

ELEMENT_IDS: Mapping[str, frozenset[str]] = _ElementIds(REGISTRY)
"""explainer name -> every id its markup gives an element; a term body's
headings never take one of these (see ``markup/render.py``), and a test
checks the built page against this list."""


def reserved_ids() -> frozenset[str]:
    """Every id any installed explainer's markup gives an element: the markdown
    stage keeps term bodies' headings off them on every page, so a page's
    anchors do not move when an explainer is added to it."""
    return frozenset().union(*ELEMENT_IDS.values())


_RELEASE: list[Release] = []
"""What the prepare steps of the running build returned, for ``release``."""
_PREPARED: set[str] = set()
"""The explainers prepared and not yet released: prepared once per build, when
the command line did it before the build's own prepare stage (``cli``)."""


def prepare(names: Iterable[str], jobs: int) -> None:
    """Run the prepare step of each explainer in ``names`` that has one (see
    ``Explainer.prepare``), once until ``release`` undoes them. A name that is
    not installed is skipped: validation reports it."""
    for name in sorted(set(names) - _PREPARED):
        try:
            step = REGISTRY[name].prepare_step()
        except (KeyError, ExplainerError):
            continue
        _PREPARED.add(name)
        if step is not None:
            release = step(jobs)
            if release is not None:
                _RELEASE.append(release)


def release(failed: bool = False) -> None:
    """Free what ``prepare`` started (``failed``: the build stopped early); safe to call twice."""
    _PREPARED.clear()
    while _RELEASE:
        _RELEASE.pop()(failed=failed)


def build(name: str, ctx: ExplainerContext) -> ExplainerBuild:
    """Import the explainer ``name``'s build step (lazily: heavy imports live there) and run it."""
    return REGISTRY[name].build_step()(ctx)
