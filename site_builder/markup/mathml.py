"""LaTeX to MathML at build time, so no maths JavaScript ships.

latex2mathml is lenient (an unknown command becomes an identifier, an
unbalanced brace becomes a character), so we add the checks that turn such
slips into errors with a line number instead of wrong maths on the page.
"""

from __future__ import annotations

import html
import re

_UNKNOWN_COMMAND = re.compile(r"<m[io][^>]*>(\\[A-Za-z]+)</m[io]>")


class LatexError(ValueError):
    """LaTeX that does not parse or uses a command we cannot render."""


def latex_to_mathml(latex: str, display: bool) -> str:
    """Convert one formula; raise ``LatexError`` with a reader-facing reason."""
    source = latex.strip()
    if not source:
        raise LatexError("empty formula")
    _check_braces(source)
    from latex2mathml.converter import convert  # here: a rebuild without maths never pays its 60 ms import

    try:
        mathml = convert(source, display="block" if display else "inline")
    except RecursionError:
        raise LatexError("formula is nested too deeply") from None
    except Exception as exc:  # latex2mathml raises many unrelated types
        reason = str(exc) or type(exc).__name__
        raise LatexError(f"LaTeX does not parse: {reason}") from None
    unknown = _UNKNOWN_COMMAND.search(mathml)
    if unknown:
        raise LatexError(f"unknown LaTeX command {unknown.group(1)}")
    # alttext lets screen readers without MathML support read the source.
    alt = html.escape(" ".join(source.split()), quote=True)
    return mathml.replace("<math ", f'<math alttext="{alt}" ', 1)


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
