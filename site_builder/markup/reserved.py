"""The ids and classes a page's own markup, styles and scripts use, read from them.

A term body shares its page with the templates' elements (the search box, the
filter, the hover card) and with explainers' figures, whose scripts find
elements by id and class. A body that set one of those ids or classes could
stand in for the real element (``{: #search-input }``, ``{: .sd-explainer }``).
So what is reserved is derived from the files themselves, not kept as a list
beside them: a template or script that starts using a new id or class reserves
it the moment it is saved (``code_version`` hashes the same files, so no cached
body outlives the change).

Read once per process (``reserved()``, cached), from:

- templates (``templates/*.html``) and explainer markup (``explainers/**/*.html``):
  literal ``id="..."`` and ``class="..."`` values; a templated id with a literal
  start (``id="letter-{{ group.id }}"``) reserves that start as a prefix;
- style sheets: every ``#id`` and ``.class`` in a selector;
- scripts: ids passed to ``getElementById`` or assigned to ``.id`` (directly or
  through a string constant; ``"search-option-" + i`` reserves the prefix),
  ``classList``/``className`` values, ``#id``/``.class`` in selector strings
  (``querySelector``, ``closest``, ``matches``), and ``id=``/``class=`` inside
  markup strings.

The vendored Vega runtime (``explainers/vendor``, minified third-party code) is
not read: it runs only inside an explainer's figure, on elements it creates.
Explainers declare their ids (``Explainer.element_ids``); the build hands those
in, and their first word (``sd-`` of ``sd-explainer``) is a class prefix too.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

# The value runs to the quote that opened it (escaped too, for markup in a
# script's string), over whole Jinja tags: id="letter-{{ group['id'] }}" holds
# a quote of the other kind, where the value used to stop. Each tag ends at its
# first closer and a plain character is never a tag's start, so the three
# alternatives never overlap: an unclosed quote before many tags fails in
# linear time, where overlapping ones tried every split (exponential).
_ATTRIBUTE = re.compile(r"""\b(id|class)\s*=\s*\\?(["'])((?:\{\{(?:(?!\}\}).)*\}\}|\{%(?:(?!%\}).)*%\}"""
                        r"""|(?!\\?\2|\{\{|\{%).)*?)\\?\2""", re.S)
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_NAME = re.compile(r"(?<![\w-])[_a-zA-Z][\w-]*")
_COMMENTS = re.compile(r"<!--.*?-->|\{#.*?#\}", re.S)
_SELECTOR_NAMES = re.compile(r"([#.])(-?[_a-zA-Z][\w-]*)")
_STRING = r"""(?:"([^"\\\n]*)"|'([^'\\\n]*)')"""
# A boundary checked after the keyword (``var(?<=\bvar)``), not before it: the
# same matches as ``\b(?:var|let|const)``, but a pattern that starts with its
# words lets the engine skip to their first letters instead of trying \b at
# every character (3x faster on the package's scripts, read at every start).
_CONSTANT = re.compile(r"(?:var(?<=\bvar)|let(?<=\blet)|const(?<=\bconst))\s+([A-Za-z_$][\w$]*)\s*=\s*" + _STRING)
_BY_ID = re.compile(r"getElementById\(\s*(?:" + _STRING + r"|([A-Za-z_$][\w$]*))")
_ID_SET = re.compile(r"\.id\s*=\s*(?:" + _STRING + r"\s*(\+)?|([A-Za-z_$][\w$]*))")
_SET_ATTRIBUTE_ID = re.compile(r"setAttribute\(\s*[\"']id[\"']\s*,\s*" + _STRING)
_CLASS_LIST = re.compile(r"classList\.(?:add|remove|toggle|contains|replace)\(([^)]*)\)")
_CLASS_NAME = re.compile(r"className(?<=\bclassName)\s*(?:=|===|!==)\s*" + _STRING)  # as _CONSTANT
_SELECTOR_CALL = re.compile(r"(?:querySelector(?:All)?|closest|matches)\(\s*" + _STRING)
_MARKUP_STRING = re.compile(r"""(?:"([^"\\\n]*\b(?:id|class)\s*=[^"\\\n]*)"|'([^'\\\n]*\b(?:id|class)\s*=[^'\\\n]*)')""")
"""A script's string literal holding markup with an id or class (``'<p class="x">'``)."""
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_BRACES = re.compile(r"([{};])")
_CSS_STRING_OR_URL = re.compile(r"""url\([^)]*\)|"[^"]*"|'[^']*'""")


@dataclass(frozen=True)
class Reserved:
    """What a body may not set: exact ids and id prefixes; exact classes and class prefixes."""

    ids: frozenset[str]
    id_prefixes: frozenset[str]
    classes: frozenset[str]
    class_prefixes: frozenset[str]

    @functools.cached_property
    def _id_starts(self) -> tuple[str, ...]:
        return tuple(sorted(self.id_prefixes))

    def id_prefix(self, ident: str) -> str | None:
        """The reserved prefix ``ident`` starts with (None: none). Asked for every id of every body."""
        if not ident.startswith(self._id_starts):
            return None
        return next(p for p in self._id_starts if ident.startswith(p))

    def class_reason(self, name: str, extra_prefixes: frozenset[str] = frozenset()) -> str | None:
        """Why the class ``name`` is the site's (None: a body may set it)."""
        if name in self.classes:
            return "the site's templates, styles or scripts use it"
        for prefix in sorted(self.class_prefixes | extra_prefixes):
            if name.startswith(prefix):
                return f"classes starting {prefix!r} are the site's or an explainer's"
        return None


def _string(match: re.Match, first: int = 1) -> str | None:
    value = match.group(first)
    return value if value is not None else match.group(first + 1)


def _from_markup(text: str, ids: set, id_prefixes: set, classes: set) -> None:
    """Literal id and class values in HTML (a template, or markup inside a script's string)."""
    for kind, _quote, value in _ATTRIBUTE.findall(_COMMENTS.sub(" ", text)):
        if kind == "id":
            literal = _JINJA.split(value)
            if len(literal) == 1:
                if _NAME.fullmatch(value.strip()):
                    ids.add(value.strip())
            elif literal[0].strip():  # id="letter-{{ x }}": the literal start is the prefix
                id_prefixes.add(literal[0].strip())
        else:
            classes.update(n for n in _NAME.findall(_JINJA.sub(" ", value)) if not n.endswith("-"))


def _from_selectors(text: str, ids: set, classes: set) -> None:
    for mark, name in _SELECTOR_NAMES.findall(text):
        (ids if mark == "#" else classes).add(name)


def _from_css(text: str, ids: set, classes: set) -> None:
    text = _CSS_STRING_OR_URL.sub(" ", _CSS_COMMENT.sub(" ", text))
    for selector in _css_selectors(text):
        if not selector.lstrip().startswith("@"):  # @media (...): no names; its rules follow
            _from_selectors(selector, ids, classes)


def _css_selectors(text: str) -> list[str]:
    """What ``(?:^|(?<=[{};]))\\s*([^{};]*)\\{`` finds: each run of text between
    two of '{', '}', ';' (or the start) that a '{' ends, without its leading
    whitespace. Split at those three characters in one pass: the regex tried
    every character as a start (3x slower on the package's style sheets)."""
    parts = _CSS_BRACES.split(text)  # text, mark, text, mark, ..., text
    return [parts[i].lstrip() for i in range(0, len(parts) - 1, 2) if parts[i + 1] == "{"]


def _from_script(text: str, ids: set, id_prefixes: set, classes: set) -> None:
    constants = {m.group(1): _string(m, 2) for m in _CONSTANT.finditer(text)}
    for match in _BY_ID.finditer(text):
        value = _string(match) if match.group(3) is None else constants.get(match.group(3))
        if value:
            ids.add(value)
    for match in _ID_SET.finditer(text):
        value = _string(match) if match.group(4) is None else constants.get(match.group(4))
        if value:
            (id_prefixes if match.group(3) else ids).add(value)
    ids.update(_string(m) for m in _SET_ATTRIBUTE_ID.finditer(text))
    for match in _CLASS_LIST.finditer(text):
        for literal in re.finditer(_STRING, match.group(1)):
            classes.update(_NAME.findall(_string(literal)))
    for match in _CLASS_NAME.finditer(text):
        classes.update(_NAME.findall(_string(match)))
    for match in _SELECTOR_CALL.finditer(text):
        _from_selectors(_string(match), ids, classes)
    for literal in _MARKUP_STRING.finditer(text):
        _from_markup(_string(literal), ids, id_prefixes, classes)


def package_files(root: Path) -> list[Path]:
    """The files whose ids and classes are reserved: templates, static files, explainer markup."""
    found = [*root.glob("templates/*.html"), *root.glob("static/*.js"), *root.glob("static/*.css")]
    for folder, subfolders, names in os.walk(root / "explainers"):
        subfolders[:] = [name for name in subfolders if name != "vendor"]  # not walked at all
        found += [Path(folder, name) for name in names if os.path.splitext(name)[1] in (".html", ".js", ".css")]
    return sorted(found)


def read_reserved(files: list[Path]) -> Reserved:
    """The ids and classes ``files`` use (see the module's docstring for what is read)."""
    return read_sources([(path.suffix, path.read_text(encoding="utf-8")) for path in files])


def read_sources(sources: list[tuple[str, str]]) -> Reserved:
    """The ids and classes used by ``sources``: (suffix, text) of templates (.html),
    style sheets (.css) and scripts (.js)."""
    ids: set[str] = set()
    id_prefixes: set[str] = set()
    classes: set[str] = set()
    for suffix, text in sources:
        if suffix == ".html":
            _from_markup(text, ids, id_prefixes, classes)
        elif suffix == ".css":
            _from_css(text, ids, classes)
        else:
            _from_script(text, ids, id_prefixes, classes)
    ids.discard("")
    return Reserved(frozenset(ids), frozenset(id_prefixes), frozenset(classes), class_prefixes(classes))


def class_prefixes(names) -> frozenset[str]:
    """The first word of every hyphenated name, with its hyphen (``sd-`` of ``sd-stage``):
    scripts compose classes from such a start (``"sd-tok-" + kind``)."""
    return frozenset(name.split("-", 1)[0] + "-" for name in names
                     if "-" in name.strip("-") and not name.startswith("-"))


def theme_names(templates: dict[str, tuple[str, str]], assets: dict[str, bytes]) -> frozenset[str]:
    """The ids and classes a site's own templates (``content/templates/``) and its
    ``extra_css``/``extra_js`` use. The build reserves them as it does the ids
    explainers declare (``markup.stage.render_bodies``'s ``reserved_ids``): no
    body may set one as an id, and a hyphenated one's first word (``acme-``) is
    a class prefix no body may use. A theme's class without a hyphen is not
    reserved as a class (docs/theming.md says so)."""
    sources = [(".html", source) for source, _shown in templates.values()]
    sources += [(Path(name).suffix, data.decode("utf-8", "replace")) for name, data in assets.items()
                if name.endswith((".css", ".js"))]
    if not sources:
        return frozenset()
    found = read_sources(sources)
    return frozenset(found.ids | found.classes)


_known: Reserved | None = None


def reserved() -> Reserved:
    """What the installed package's templates, styles and scripts use: read once
    per process (~240 KB of scripts and styles, ~10-15 ms), unless handed in
    first (``take_reserved``)."""
    global _known
    if _known is None:
        _known = read_reserved(package_files(Path(str(resources.files("site_builder")))))
    return _known


def take_reserved(found: Reserved | None) -> None:
    """Hand in what ``reserved()`` reads (None: read it again when next asked).
    The cache layer keeps it with the code version's stamps, which cover these
    files (``cache/code.py``), so a one-body edit's process does not read them."""
    global _known
    _known = found


reserved.cache_clear = lambda: take_reserved(None)  # type: ignore[attr-defined]  # as functools.lru_cache's
