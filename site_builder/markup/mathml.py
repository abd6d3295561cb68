"""LaTeX to MathML at build time, so no maths JavaScript ships.

latex2mathml is lenient (an unknown command becomes an identifier, an
unbalanced brace becomes a character), so we add the checks that turn such
slips into errors with a line number instead of wrong maths on the page.

It is also not a sanitiser: its string output copies ``\\text{...}`` verbatim
(``\\text{<script>...}`` is markup), and ``\\href``, ``\\style`` and ``\\class``
write a link, inline CSS and classes chosen by the author. So we never use
that string. We take its element tree (``convert_to_element``) and write the
MathML ourselves from an allowlist: presentation MathML elements only, a fixed
set of attributes whose values must look like lengths, colours or keywords,
and every text node and attribute value escaped. Whatever latex2mathml does
with a formula, what reaches the page is inert maths. The commands whose only
purpose is a link or raw styling are errors naming the command, not silently
dropped, so an author learns why the formula changed.
"""

from __future__ import annotations

import functools
import html
import importlib.util
import re
import sys
from xml.etree.ElementTree import Element

MATHML_NAMESPACE = "http://www.w3.org/1998/Math/MathML"

ELEMENTS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "merror", "mpadded", "mphantom", "mstyle",
    "mfrac", "msqrt", "mroot", "msub", "msup", "msubsup", "munder", "mover", "munderover",
    "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd", "mlabeledtr", "menclose",
})
"""Presentation MathML (MathML Core and the parts of MathML 3 browsers draw):
no ``semantics``/``annotation-xml`` (which can carry HTML), no ``maction``."""

TOKEN_ELEMENTS = frozenset({"mi", "mn", "mo", "ms", "mtext"})
"""Elements whose content is text only. In a page they are where HTML parsing
resumes (MathML text integration points): an element written inside one would
be parsed as an HTML element, so their content is written as text alone."""

_KEYWORD = re.compile(r"[A-Za-z0-9 .+\-%]*")
_COLOUR = re.compile(r"#[0-9A-Fa-f]{3,8}|[A-Za-z]{1,30}")

ATTRIBUTES = {
    **dict.fromkeys((
        "display", "displaystyle", "scriptlevel", "mathvariant", "mathsize", "fence", "form", "separator",
        "stretchy", "accent", "accentunder", "movablelimits", "largeop", "symmetric", "notation",
        "columnalign", "rowalign", "columnlines", "rowlines", "columnspacing", "rowspacing", "frame",
        "linebreak", "linethickness", "width", "height", "depth", "lspace", "rspace", "voffset",
        "minsize", "maxsize", "columnspan", "rowspan",
    ), _KEYWORD),
    "mathcolor": _COLOUR,
    "mathbackground": _COLOUR,
}
"""The attributes we write, each with the pattern its value must match in full:
lengths, numbers, colours and keywords. No ``href``, ``style``, ``class``, ``id``
or event handler can be written, whatever the formula."""

DROPPED_ATTRIBUTES = frozenset({"border-color"})
"""What latex2mathml writes that is no MathML attribute (``\\fcolorbox``'s frame
colour): left out, as a browser would ignore it."""

REFUSED_ATTRIBUTES = {
    "href": ("\\href", "it makes a link"),
    "style": ("\\style", "it sets inline CSS"),
    "class": ("\\class", "it sets HTML classes"),
}
"""Attributes only these commands write: the formula is an error naming the command."""

_UNKNOWN_COMMAND = re.compile(r"\\[A-Za-z]+")
_CHARACTER_REFERENCE = re.compile(r"&#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}));")


ENVIRONMENTS = frozenset({
    "matrix", "matrix*", "pmatrix", "pmatrix*", "bmatrix", "bmatrix*", "Bmatrix", "Bmatrix*",
    "vmatrix", "vmatrix*", "Vmatrix", "Vmatrix*", "smallmatrix", "array", "cases", "split", "align", "align*",
})
"""``\\begin{...}`` environments latex2mathml draws as tables; any other (``aligned``,
``script``...) it would silently turn into a row with its ``&`` as text: an error."""

_BEGIN = re.compile(r"\\(begin|end)\s*\{([^{}]*)\}")
_ARRAY = re.compile(r"\\begin\s*\{(?:array|subarray)\}\s*(?:\[[tcb]\]\s*)?")
_COLUMNS = re.compile(r"[lcr|: ]+")
_NOT_ASCII_COMMAND = re.compile(r"\\([^\x00-\x7f])")

LENGTH_LIMITS = {"width": (-1.0, 50.0), "lspace": (-1.0, 5.0), "rspace": (-1.0, 5.0),
                 "height": (-1.0, 3.0), "depth": (-1.0, 3.0), "voffset": (-1.0, 1.0)}
"""(least, most) em each length attribute may take: a formula can push the text
beside it away, but not draw over it (``\\kern{-9999em}``, a ``\\rule`` 999em
tall). Values outside are clamped, in em."""
_UNITS = {"em": 1.0, "ex": 0.5, "mu": 1 / 18, "pt": 0.1, "bp": 0.1, "dd": 0.107, "pc": 1.2, "px": 1 / 16,
          "mm": 0.237, "cm": 2.37, "in": 6.02, "sp": 0.1 / 65536}
"""Each TeX/CSS unit in em, roughly (1em = 10pt): enough to clamp."""
_LENGTH = re.compile(r"([+-]?)\s*(\d+\.?\d*|\.\d+)\s*([a-z]{2})")


def latex_to_mathml(latex: str, display: bool) -> str:
    """Convert one formula to sanitised MathML; raise ``LatexError`` with a reader-facing reason.

    Remembered per process (``FORMULA_MEMO_SIZE``, least recently used out)."""
    return _convert(latex, bool(display))


class LatexError(ValueError):
    """LaTeX that does not parse or uses a command we cannot render."""


FORMULA_MEMO_SIZE = 4096
"""How many converted formulas each process keeps (a few MiB at most).

A glossary repeats its formulas (``$O(n)$``, ``$\\alpha$``, the display every
speed-up term quotes), and each conversion costs ~0.3 ms of pure Python: on
the realistic benchmark mix, a third of the markdown stage. The conversion
is a function of the source and the display mode alone, and its result an
immutable string, so a memo changes no byte. Each forked markdown worker fills
its own: warming one in the build process before the fork would hold every
worker back for what each does in ~0.3 ms per distinct formula. Formulas that
fail are not kept (their error is raised again, with its line, wherever they
occur)."""


@functools.lru_cache(maxsize=FORMULA_MEMO_SIZE)
def _convert(latex: str, display: bool) -> str:
    source = latex.strip()
    if not source:
        raise LatexError("empty formula")
    _check_braces(source)
    _check_commands(source)
    convert_to_element = _converter()  # here: a rebuild without maths never pays its import

    try:
        tree = convert_to_element(source, display="block" if display else "inline")
    except RecursionError:
        raise LatexError("formula is nested too deeply") from None
    except Exception as exc:  # latex2mathml raises many unrelated types
        reason = str(exc) or type(exc).__name__
        raise LatexError(f"LaTeX does not parse: {reason}") from None
    # alttext lets screen readers without MathML support read the source.
    return serialise(tree, alttext=" ".join(source.split()))


_PACKAGE_INIT = 'from importlib import metadata\n\n__version__ = metadata.version("latex2mathml")\n'
"""latex2mathml's whole ``__init__.py`` (at least up to 3.81): it only reads its version."""


def _converter():
    """latex2mathml's ``convert_to_element``, imported without running its package's
    ``__init__`` when that is ``_PACKAGE_INIT``: it imports ``importlib.metadata``
    and scans the installed distributions for a version nothing here reads,
    ~10 ms of a one-body edit with maths (docs/performance.md, "One-body edit
    (issue 40, eighth round)"). The package is made from its spec as the import
    system would, its ``__version__`` read from the metadata when first asked
    for (PEP 562), so a caller of latex2mathml sees the same package. Any other
    ``__init__`` (another version of latex2mathml) is run as usual."""
    if "latex2mathml" not in sys.modules:
        try:
            spec = importlib.util.find_spec("latex2mathml")
            origin = spec.origin if spec is not None and spec.submodule_search_locations is not None else None
            with open(origin, encoding="utf-8") as handle:
                skip = handle.read() == _PACKAGE_INIT
        except (OSError, ImportError, ValueError, TypeError):  # no such file: the import below says what is wrong
            skip = False
        if skip:
            package = importlib.util.module_from_spec(spec)
            package.__getattr__ = _package_version  # PEP 562: only for a name the package lacks
            sys.modules["latex2mathml"] = package
    from latex2mathml.converter import convert_to_element

    return convert_to_element


def _package_version(name: str) -> str:
    """``latex2mathml.__version__``, as its ``__init__`` would have set it (see ``_converter``)."""
    if name != "__version__":
        raise AttributeError(f"module 'latex2mathml' has no attribute {name!r}")
    from importlib import metadata

    version = sys.modules["latex2mathml"].__version__ = metadata.version("latex2mathml")
    return version


def serialise(tree: Element, alttext: str) -> str:
    """Write latex2mathml's element tree as MathML, keeping only the allowlist.

    Raises ``LatexError`` for anything outside it (see ``REFUSED_ATTRIBUTES``)."""
    if tree.tag != "math" or tree.get("xmlns") != MATHML_NAMESPACE:
        raise LatexError("formula did not convert to a MathML <math> element")
    parts: list[str] = []
    _write(tree, parts, root=True, alttext=alttext)
    return "".join(parts)


def _write(element: Element, parts: list[str], root: bool = False, alttext: str = "") -> None:
    tag = element.tag
    if not isinstance(tag, str) or tag not in ELEMENTS or (tag == "math") != root:
        raise LatexError(f"formula produced <{tag}>, which is not allowed in maths")
    parts.append(f"<{tag}")
    if root:
        parts.append(f' alttext="{_escape_attribute(alttext)}" xmlns="{MATHML_NAMESPACE}"')
    for name, value in element.attrib.items():
        if root and name == "xmlns":
            continue
        parts.append(_attribute(name, value))
    if tag in TOKEN_ELEMENTS and len(element):
        # latex2mathml nests rows in some tokens (\\mathrel{...}, \\mathop{...}): keep their text.
        text = "".join(element.itertext())
        parts.append(f">{_escape_text(text, tag)}</{tag}>" if text else " />")
    elif element.text is None and not len(element):
        parts.append(" />")  # as latex2mathml writes empty elements; foreign content in HTML allows it
    else:
        parts.append(">")
        if element.text:
            parts.append(_escape_text(element.text, tag))
        for child in element:
            _write(child, parts)
            if child.tail:
                parts.append(_escape_text(child.tail, tag))
        parts.append(f"</{tag}>")


def _attribute(name: str, value: str) -> str:
    if name in DROPPED_ATTRIBUTES:
        return ""
    if name in REFUSED_ATTRIBUTES:
        command, why = REFUSED_ATTRIBUTES[name]
        raise LatexError(f"{command} is not allowed in maths: {why}")
    pattern = ATTRIBUTES.get(name)
    if pattern is None:
        raise LatexError(f"formula sets the attribute {name!r}, which is not allowed in maths")
    if not pattern.fullmatch(value):
        raise LatexError(f"invalid value {value!r} for {name} in formula")
    if name in LENGTH_LIMITS:
        value = _clamped(value, *LENGTH_LIMITS[name])
    return f' {name}="{_escape_attribute(value)}"'


def _clamped(value: str, least: float, most: float) -> str:
    """A length kept within [least, most] em; as written when it is (or is no number with a unit)."""
    match = _LENGTH.fullmatch(value.strip())
    if match is None or match.group(3) not in _UNITS:
        return value
    sign, number, unit = match.groups()
    ems = float(number) * _UNITS[unit] * (-1 if sign == "-" else 1)
    if least <= ems <= most:
        return value
    return f"{least:g}em" if ems < least else f"{most:g}em"


def _check_commands(source: str) -> None:
    """Refuse what latex2mathml would draw as something else, silently: a command
    spelled with a lookalike (``\\һref``, Cyrillic), an environment it does not
    know, an array column spec that is not columns."""
    lookalike = _NOT_ASCII_COMMAND.search(source)
    if lookalike:
        char = lookalike.group(1)
        raise LatexError(f"\\{char}: LaTeX commands are ASCII letters; {char!r} (U+{ord(char):04X}) is not one")
    for kind, name in _BEGIN.findall(source):
        if name not in ENVIRONMENTS:
            raise LatexError(f"unknown environment {name.strip()!r} in \\{kind}: "
                             f"use one of {', '.join(sorted(ENVIRONMENTS))}")
    for array in _ARRAY.finditer(source):
        spec = _group(source, array.end())
        if spec is None or not _COLUMNS.fullmatch(spec):
            shown = f"{{{spec}}}" if spec is not None else "missing"
            raise LatexError(f"array column spec {shown}: use only l, c, r, | and :")


def _group(source: str, start: int) -> str | None:
    """The text of the brace group opening at ``start`` (None when none opens there)."""
    if not source.startswith("{", start):
        return None
    depth = 0
    for index in range(start, len(source)):
        depth += {"{": 1, "}": -1}.get(source[index], 0)
        if depth == 0:
            return source[start + 1:index]
    return None


def _escape_text(text: str, tag: str) -> str:
    """Escape a text node, keeping the numeric character references latex2mathml
    writes for symbols (``&#x003B1;``): a reference is always text, never markup."""
    if tag in ("mi", "mo") and _UNKNOWN_COMMAND.fullmatch(text):
        # latex2mathml turns an unknown command into an identifier named after it.
        raise LatexError(f"unknown LaTeX command {text}")
    parts = []
    position = 0
    for reference in _CHARACTER_REFERENCE.finditer(text):
        parts.append(html.escape(text[position:reference.start()], quote=False))
        code = int(reference.group(1), 16) if reference.group(1) else int(reference.group(2))
        # A reference to no character (or to a surrogate) is written as text.
        valid = 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF
        parts.append(reference.group(0) if valid else html.escape(reference.group(0), quote=False))
        position = reference.end()
    parts.append(html.escape(text[position:], quote=False))
    return "".join(parts)


def _escape_attribute(value: str) -> str:
    return html.escape(value, quote=True)


def _check_braces(source: str) -> None:
    depth = 0
    escaped = False
    for char in source:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                raise LatexError("unbalanced braces: '}' without '{'")
    if depth:
        raise LatexError("unbalanced braces: '{' without '}'")
