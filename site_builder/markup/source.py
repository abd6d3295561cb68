"""A line-aware pass over the raw markdown, before Python-Markdown sees it.

Python-Markdown loses line numbers early, so this pass, which still has them,
does the work whose errors must point at a line: it converts ``$...$`` and
``$$...$$`` to MathML, rewrites ``[[Term]]`` / ``[[term|text]]`` into ordinary
links to ``slug.md``, and remembers the line of every link target. Fenced code
and inline code spans are left untouched.

Most bodies have no display maths and no fence, and most lines no ']' or '$': cheap
substring tests route those around the per-line regexes (``_rewrite_links``
instead of ``_rewrite_all``; ``_may_pass_limits`` before ``_enforce_limits``).
Each test is a necessary condition for the skipped code to change anything,
and tests/markup/accel/test_fast_tree.py compares both routes on generated input.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Callable, Iterator

from .mathml import LatexError, latex_to_mathml

FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")
CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1")
DISPLAY_IN_LINE_RE = re.compile(r"\$\$(.+?)\$\$")
WIKILINK_RE = re.compile(r"\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]+?))?\]\]")
# The '$' first, then "no '\\' or '$' before it" (a look-behind over both): the
# same matches as ``(?<![\\$])\$...``, but the engine can jump from '$' to '$'
# instead of trying the look-behind at every position of the line.
INLINE_MATH_RE = re.compile(r"\$(?<![\\$]\$)(?![\s$])((?:\\\$|[^$\n])+?)(?<![\s\\])\$(?!\d)")
LINK_TARGET_RE = re.compile(r"\]\(\s*<?([^)\s>]+)|^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
# Its first alternative alone: past the start of a text, the only one that can
# match (the second starts with ``^``). Alone it starts with a bare literal, so
# the engine skips from one ']' to the next instead of trying both at every
# position (``_link_targets``).
_INLINE_TARGET_RE = re.compile(r"\]\(\s*<?([^)\s>]+)")
QUOTE_RE = re.compile(r"^ {0,3}((?:> ?)+)")
BRACKET_RE = re.compile(r"(?<!\\)[][()]")

MAX_QUOTE_DEPTH = 50
"""Deeper blockquotes make the renderer's time grow with the square of the depth."""
MAX_INDENT = 400
"""Columns; deeper list nesting makes the renderer's time grow with its square."""
MAX_FOOTNOTES = 1000
"""Footnote marks per term; each one costs the renderer time proportional to their number."""
MAX_BRACKET_SCAN = 2_000_000
"""Python-Markdown rescans the rest of a paragraph for every '[' that is never
closed, so its time grows with (unclosed brackets x paragraph length). This many
characters rescanned is about a second; past it a single term could stall the
build for minutes, so such paragraphs are reported instead of rendered."""


def outside_fences(lines: list[str]) -> Iterator[tuple[int, str]]:
    """(offset, line) of each line outside fenced code blocks, fence lines excluded:
    what a line scanner for headings or links may look at."""
    fence: str | None = None
    for offset, line in enumerate(lines):
        match = FENCE_RE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        yield offset, line


# Necessary conditions for a line to pass MAX_QUOTE_DEPTH or MAX_INDENT, searched
# in the whole body at once (its lines never hold a "\n": they were split on it).
# Expanding a tab gives at most 4 columns, any other whitespace character one,
# and ``\s`` is exactly ``str.isspace`` (tests/markup/accel/test_fast_tree.py checks it).

@functools.lru_cache(maxsize=None)
def _deep_line_res(quote_depth: int, indent: int) -> tuple[re.Pattern, re.Pattern]:
    """(a line quoted deeper than ``quote_depth``, a line that may be indented past ``indent``),
    each starting at a '\n': searched in "\n" + text, they find what ``^`` with MULTILINE
    would in text, but the regex engine skips from one '\n' to the next instead of trying
    every position (7x faster on a typical body)."""
    return (re.compile(r"\n {0,3}(?:> ?){%d}" % (quote_depth + 1)),
            re.compile(r"\n[^\S\n]{%d}" % (indent // 4 + 1)))


@dataclass
class SourceScan:
    """What the pass found: problems (line, message) and link target -> the lines
    it is written on, in order (a target written twice is found on both)."""

    problems: list[tuple[int, str]] = field(default_factory=list)
    link_lines: dict[str, list[int]] = field(default_factory=dict)


def prepare_source(
    lines: list[str],
    first_line: int,
    stash: Callable[[str], str],
    resolve: Callable[[str], str | None],
) -> tuple[list[str], SourceScan]:
    """Rewrite ``lines`` (the body, whose first line is ``first_line`` in the file).

    ``stash(html)`` hides finished HTML from markdown and returns a placeholder;
    ``resolve(name)`` turns a wikilink name into a slug (None when unknown).
    """
    scan = SourceScan()
    text = "\n".join(lines)
    if "$$" not in text and "```" not in text and "~~~" not in text:
        out = _rewrite_links(lines, first_line, stash, resolve, scan)
    else:
        out = _rewrite_all(lines, first_line, stash, resolve, scan)
    _guard_complexity(out, first_line, scan)
    return out, scan


def _rewrite_links(lines, first_line, stash, resolve, scan) -> list[str]:
    """``_rewrite_all`` for a body with no fence and no '$$', which only rewrites lines with '$' or ']'.

    Without a fence or '$$' its loop only calls ``_rewrite_line`` on lines
    with '$' or ']' (tests/markup/accel/test_fast_tree.py compares the two).
    """
    out = list(lines)
    for offset, line in enumerate(out):
        if "]" in line or "$" in line:
            out[offset] = _rewrite_line(line, first_line + offset, stash, resolve, scan)
    return out


def _rewrite_all(lines, first_line, stash, resolve, scan) -> list[str]:
    """The lines with maths, wikilinks and link targets handled outside code (the general case)."""
    out = []
    fence: str | None = None
    display: list[str] | None = None
    display_start = 0
    display_prefix = ""
    for offset, line in enumerate(lines):
        number = first_line + offset
        if display is not None:
            if "$$" in line:
                head, _, tail = line.partition("$$")
                display.append(head)
                out.append(display_prefix + _display(" ".join(display), display_start, stash, scan, True))
                out.append(tail) if tail.strip() else out.append("")
                display = None
            else:
                display.append(line)
                out.append("")  # keep later line numbers aligned
            continue
        # FENCE_RE needs three backticks or tildes in a row.
        match = FENCE_RE.match(line) if "```" in line or "~~~" in line else None
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            out.append(line)
            continue
        if match:
            fence = match.group(1)
            out.append(line)
            continue
        if "$" not in line and "]" not in line:
            out.append(line)  # no display maths, nothing to rewrite (most prose lines)
            continue
        stripped = line.strip()
        if stripped.startswith("$$") and stripped.endswith("$$") and stripped.count("$$") == 2 and len(stripped) > 4:
            out.append(line[: len(line) - len(line.lstrip())] + _display(stripped[2:-2], number, stash, scan))
            continue
        if stripped.startswith("$$") and stripped.count("$$") == 1:
            display = [stripped[2:]]
            display_start = number
            display_prefix = line[: len(line) - len(line.lstrip())]
            out.append("")
            continue
        # Code spans only matter as places not to rewrite.
        out.append(_rewrite_line(line, number, stash, resolve, scan))
    if fence is None and display is not None:
        scan.problems.append((display_start, "display maths opened with '$$' is never closed"))
    return out


def _guard_complexity(out: list[str], first_line: int, scan: SourceScan) -> None:
    """Blank out (and report) blocks that would take the renderer minutes: see the limits above."""
    if _may_pass_limits(out):
        _enforce_limits(out, first_line, scan)


def _may_pass_limits(out: list[str]) -> bool:
    """False when no limit can be passed, so ``_enforce_limits`` would change nothing.

    Each test here is implied by its counterpart there (which also skips
    code and what it already blanked): more footnote marks than the limit in
    all; a line starting with more quote marks than allowed, or with the 101
    whitespace characters an indent of more than 400 columns needs; a
    bracket cost over the budget, when every '[', or '(' after ']', costs at
    most the length of its block.
    """
    text = "\n" + "\n".join(out)  # each line after a '\n' (see _deep_line_res)
    deep_quote, deep_indent = _deep_line_res(MAX_QUOTE_DEPTH, MAX_INDENT)
    return (text.count("[^") > MAX_FOOTNOTES or (">" in text and deep_quote.search(text) is not None)
            or deep_indent.search(text) is not None
            or (text.count("[") + text.count("](")) * (len(text) - 1) > MAX_BRACKET_SCAN)


def _enforce_limits(out: list[str], first_line: int, scan: SourceScan) -> None:
    """Blank out (and report) the blocks that pass a limit."""
    budget = MAX_BRACKET_SCAN
    footnotes = 0
    reported: dict[str, bool] = {}
    start = None
    fence: str | None = None
    for index in range(len(out) + 1):
        line = out[index] if index < len(out) else ""
        match = FENCE_RE.match(line)
        if fence is not None or match:  # code is not parsed as markdown: leave it alone
            if fence is None:
                fence = match.group(1)
            elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            line = ""
        quote = QUOTE_RE.match(line)
        if quote and quote.group(1).count(">") > MAX_QUOTE_DEPTH:
            depth = quote.group(1).count(">")
            scan.problems.append((first_line + index, f"blockquote nested {depth} levels deep; the limit is {MAX_QUOTE_DEPTH}"))
            out[index] = line = ""
        if line[:1].isspace() and line.strip() and _indent(line) > MAX_INDENT:
            if not reported.get("indent"):
                reported["indent"] = True
                scan.problems.append((first_line + index, f"line indented more than {MAX_INDENT} columns (lists nested this deep make markdown stall)"))
            out[index] = line = ""
        if "[^" in line:
            footnotes += line.count("[^")
            if footnotes > MAX_FOOTNOTES:
                if not reported.get("footnotes"):
                    reported["footnotes"] = True
                    scan.problems.append((first_line + index, f"more than {MAX_FOOTNOTES:,} footnote marks ('[^'): markdown's time grows with their square"))
                out[index] = line = ""
        if line.strip() and start is None:
            start = index
        elif not line.strip() and start is not None:
            block = "\n".join(out[start:index])
            cost, unclosed = _bracket_scan_cost(block)
            budget -= cost
            if budget < 0:
                what = f"{unclosed:,} brackets never closed" if unclosed else "brackets nested too deeply"
                scan.problems.append((first_line + start, f"{what} in a paragraph of {len(block):,} characters: markdown would "
                                      "rescan it for each bracket, stalling the build; close them or escape them ('\\[')"))
                out[start:index] = [""] * (index - start)
                budget += cost
            start = None


def _indent(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip())


def _bracket_scan_cost(text: str) -> tuple[int, int]:
    """(characters the renderer scans for closing brackets, brackets never closed).

    For every '[', and every '(' right after ']', Python-Markdown scans ahead to
    the matching bracket, or to the end of the paragraph when there is none; so
    unclosed or deeply nested brackets cost the square of the paragraph's length.
    """
    if "[" not in text:
        return 0, 0
    cost = unclosed = 0
    for opener, closer in (("[", "]"), ("(", ")")):
        open_at: list[int] = []
        for match in BRACKET_RE.finditer(text):
            char, at = match.group(), match.start()
            if char == opener:
                open_at.append(at)
            elif char == closer and open_at:
                start = open_at.pop()
                if opener == "[" or text[start - 1:start] == "]":
                    cost += at - start
        ends = [at for at in open_at if opener == "[" or text[at - 1:at] == "]"]
        cost += sum(len(text) - at for at in ends)
        unclosed += len(ends)
    return cost, unclosed


def _rewrite_line(line, number, stash, resolve, scan) -> str:
    if "`" not in line:
        return _rewrite_text(line, number, stash, resolve, scan)  # no code span (CODE_SPAN_RE needs '`')
    parts = []
    position = 0
    for code in CODE_SPAN_RE.finditer(line):
        parts.append(_rewrite_text(line[position:code.start()], number, stash, resolve, scan))
        parts.append(code.group(0))
        position = code.end()
    parts.append(_rewrite_text(line[position:], number, stash, resolve, scan))
    return "".join(parts)


def _rewrite_text(text, number, stash, resolve, scan) -> str:
    if not text:
        return text
    if "$" in text:
        if "$$" in text:
            text = DISPLAY_IN_LINE_RE.sub(lambda m: _display(m.group(1), number, stash, scan, standalone=False), text)
        text = INLINE_MATH_RE.sub(lambda m: _inline(m.group(1), number, stash, scan), text)
    if "[[" in text:
        text = WIKILINK_RE.sub(lambda m: _wikilink(m, number, resolve, scan), text)
    if "]" not in text:
        return text  # both forms of LINK_TARGET_RE need one
    for target in _link_targets(text):
        scan.link_lines.setdefault(target, []).append(number)
    return text


def _link_targets(text: str) -> Iterator[str]:
    """The target of each match of ``LINK_TARGET_RE.finditer(text)``, in order.

    ``finditer`` first tries both alternatives at the start; if neither matches
    there, or after the first match, only the first alternative can (the
    second starts with ``^``), from where the last match ended.
    """
    first = LINK_TARGET_RE.match(text)
    if first is not None:
        yield first.group(1) or first.group(2)
    for match in _INLINE_TARGET_RE.finditer(text, first.end() if first is not None else 0):
        yield match.group(1)


def _inline(latex, number, stash, scan) -> str:
    try:
        return stash(latex_to_mathml(latex.replace("\\$", "$"), display=False))
    except LatexError as exc:
        scan.problems.append((number, f"{exc} in ${_clip(latex)}$"))
        return ""


def _display(latex, number, stash, scan, standalone=True) -> str:
    try:
        mathml = latex_to_mathml(latex, display=True)
    except LatexError as exc:
        scan.problems.append((number, f"{exc} in $${_clip(latex)}$$"))
        return ""
    tag = "div" if standalone else "span"
    return stash(f'<{tag} class="math-display">{mathml}</{tag}>')


def _clip(latex: str, limit: int = 80) -> str:
    """A formula as quoted in a message: one line, and short."""
    text = " ".join(latex.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _wikilink(match, number, resolve, scan) -> str:
    name, text = match.group(1).strip(), (match.group(2) or match.group(1)).strip()
    anchor = ""
    if "#" in name:
        name, anchor = name.split("#", 1)
        anchor = "#" + anchor.strip()
    slug = resolve(name)
    if slug is None:
        scan.problems.append((number, f"link to unknown term [[{match.group(1)}]]"))
        return match.group(0)
    target = f"{slug}.md{anchor}"
    scan.link_lines.setdefault(target, []).append(number)
    return f"[{text}]({target})"
