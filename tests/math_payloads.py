"""Hostile payloads for text in maths, and the latex2mathml commands that write
their argument as text.

Shared by tests/markup/test_math_sanitise.py and tests/browser/test_math_injection.py.
"""

from __future__ import annotations

import latex2mathml.commands as commands

PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "<img/src/onerror=alert(1)>",
    "<script>alert(2)</script>",
    "</mtext></math><img src=x onerror=alert(3)>",
    "<svg onload=alert(4)>",
    "<a href=javascript:alert(5)>x</a>",
    "\"><img src=x onerror=alert(6)>",
    "'><img src=x onerror=alert(6)>",
    "<style>*{display:none;}</style>".replace("{", "(").replace("}", ")"),
    "<iframe srcdoc=x></iframe>",
    "<!--<img src=x onerror=alert(7)>-->",
    "<![CDATA[<img src=x onerror=alert(8)>]]>",
    "&lt;img src=x onerror=alert(9)&gt;",
    "&#60;img src=x onerror=alert(9)&#62;",
    "<mglyph><style><img src=x onerror=alert(10)>",
    "<annotation-xml encoding=\"text/html\"><img src=x onerror=alert(11)>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(12)>",
    "a < b > c & d",
]
"""Ways out of MathML text: tags, attribute breaks, comments, CDATA, entity
references, and the namespace-confusion (mutation XSS) shapes."""


def _text_commands() -> list[str]:
    """Every command latex2mathml turns into <mtext>, and those that wrap their
    argument in one (boxes, overlaps)."""
    direct = {name for name, (tag, _) in commands.CONVERSION_MAP.items() if tag == "mtext"}
    wrapping = {commands.FBOX, commands.LLAP, commands.RLAP, commands.CLAP, commands.HBOX, commands.MBOX}
    return sorted(direct | wrapping | {commands.COLORBOX, commands.FCOLORBOX})


TEXT_COMMANDS = _text_commands()
MATH_MODE_ARGUMENTS = {commands.COLORBOX, commands.FCOLORBOX}
"""Boxes whose argument latex2mathml reads without its spaces."""


def formula(command: str, payload: str) -> str:
    """``payload`` as the text argument of ``command``."""
    if command == commands.VERB:
        return f"\\verb|{payload}|"
    if command == commands.COLORBOX:
        return f"\\colorbox{{yellow}}{{{payload}}}"
    if command == commands.FCOLORBOX:
        return f"\\fcolorbox{{red}}{{yellow}}{{{payload}}}"
    return f"{command}{{{payload}}}"
