"""The commonest inline markup, turned into elements without the pattern machinery.

Most text that holds any inline markup at all holds only the simplest kinds:
`` `code` ``, ``*em*``, ``**strong**``, ``_em_``, ``__strong__``, ``[text](target)`` and
``<https://...>`` with plain words
around and inside them. For such a string Python-Markdown's inline stage runs
every candidate pattern over it, stashes each element it builds behind a
placeholder, re-scans for the next one, and for emphasis runs its delimiter
algorithm, which walks the text one character at a time in Python. ``spans``
recognises these strings with one regex scan and builds the very elements,
texts and tails the stock stage would leave, in the same order; anything else
(``None``) goes the stock way. Every condition below is there because the
stock patterns would do something else without it:

* Nothing at all that another pattern keys on, outside code spans: no ``\\``
  (escape; also the code span regex's look-behind), ``<`` (autolink, automail,
  raw HTML), ``&`` (entity), ``_`` outside the emphasis below (the
  underscore delimiter, with its intra-word rules), two spaces before a newline (line break), ``![`` (image)
  and ``[^`` (footnote). No inline placeholder anywhere, code spans
  included: the stock stage expands stashed text even there.
* Code spans: every backtick is a single one (no runs, so ``find_code_spans``
  pairs the first with the second, the third with the fourth...) and there is
  an even number of them. Code spans go first in the stock order too, so what
  is inside them (``*``, ``[``, ``<``...) never reaches another pattern; their
  text is ``code_escape(content.strip())`` as an ``AtomicString``, as upstream.
* Links: ``[text](target)`` with ``text`` free of ``[ ] * _ < & \\``, not
  starting with ``^``, and ``target`` free of whitespace, parentheses, square brackets
  (the reference and footnote patterns run before links, over the target
  too), quotes, backticks, ``< > \\`` and placeholders. The reference pattern (tried first) needs
  ``[`` or a space after ``]`` and gives up; the link pattern takes the
  whole target as the href; the text is left with no key for the patterns
  after it. Every ``[`` must open such a link.
* Emphasis: a run of one or two ``*`` not touching another ``*``, followed by
  a non-space and closed by a run of the same length right after a non-space,
  with no ``*`` or ``_`` between. The delimiter processor classes the opener
  as a start (or ambiguous) and the closer as an end (or ambiguous), pairs
  them (equal lengths: no "rule of 3"), finds its stacks empty and stops: one
  ``em`` (one star) or ``strong`` (two) holding the text between. Every ``*``
  must belong to such a pair, and the processor's state must be clear before
  (see ``delimiters_clear``); upstream leaves it clear after each pair.
* Underscore emphasis: the same shape with ``_`` or ``__``, and no word
  character (``\\w``) or ``_`` right before the opener or right after the
  closer. The underscore delimiter is "smart": its opener must not follow a
  word character and its closer must not precede one (else no match, and the
  string would keep its ``_``), so with these conditions it classes them as
  a start and an end as above. Every ``_`` must belong to such a pair. A code
  span's placeholder or a link's, which the stock stage puts beside them, is
  no word character either, like the backtick or ')' seen here.

* Autolinks: ``<scheme://...>`` as upstream's ``AUTOLINK_RE``, but without
  whitespace, ``[ ] \\ &`` or placeholders inside; upstream's pattern runs
  after the links and before emphasis (and the registry must hold it there), so
  a ``*`` or ``_`` inside is the URL's. Its ``a`` gets the URL as ``href`` and
  as an ``AtomicString`` text, as upstream's ``handleMatch``. Every ``<`` must
  open one.

Upstream stashes every element it builds under the next free id, and those
ids can show: an image whose alt text holds a link prints the link's
placeholder, id included. So ``stash`` files the elements built here as
upstream would have, in the order its patterns ran: code spans, then links,
then autolinks, then emphasis, each left to right. ``tests/markup/accel/test_direct_inline.py`` compares
this with the stock stage on generated strings, tree, stash and HTML.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown import inlinepatterns, util
from markdown.extensions.footnotes import FootnoteInlineProcessor

_AtomicString = util.AtomicString
_PLACEHOLDER_PREFIX = util.INLINE_PLACEHOLDER_PREFIX
_code_escape = util.code_escape

# One scan over the whole string, code spans included. Each alternative starts
# with the bare character it consumes first (the engine then skips from one of
# `` ` [ * _ < & `` to the next instead of trying a match at every position).
# Where no construct follows its character, one of the last alternatives takes
# the character alone, with no group set (``lastgroup`` None), and the string
# goes the stock way, since that character is some pattern's business ('&',
# which starts no construct here, only so). So the scan finds, left to right,
# every construct and every stray character the former per-piece test looked
# for (``[\\<&_[*]``, and a backtick left unpaired). No construct but a code
# span holds a backtick, so none reaches across one, as when the string was cut
# at its backticks first; look-behinds and look-aheads that meet a backtick
# where a cut piece ended see no word character, '!', '*' or '_' either way.
# Inside a construct: no '[', '*', '_', '\\', '<', '&' or '`'.
_INNER_CHAR = r"[^\s*_\[\\<&`]"
_SCAN = re.compile(
    # `code`: single backticks only ("``" anywhere sends the string the stock way first)
    r"`(?P<code>[^`]+)`"
    # [text](target): no '!' before (an image), text without '^' first (a footnote)
    r"|\[(?<!!\[)(?P<text>[^\[\]\\*_<&^`][^\[\]\\*_<&`]*)\]\((?P<href>[^\s()\[\]<>'\"\\\x02\x03`]+)\)"
    # *em* or **strong**: the run touches no other '*', the text starts and ends with a non-space;
    # the run's group holds what follows its first character ('' em, '*' strong)
    rf"|\*(?<!\*\*)(?P<run>\*?)(?P<inner>{_INNER_CHAR}(?:[^*_\[\\<&`]*{_INNER_CHAR})?)\*(?P=run)(?!\*)"
    # _em_ or __strong__: the same, and (smart underscores) no word character before or after
    rf"|_(?<![\w_]_)(?P<urun>_?)(?P<uinner>{_INNER_CHAR}(?:[^*_\[\\<&`]*{_INNER_CHAR})?)_(?P=urun)(?![\w_])"
    # <scheme://...>: upstream's AUTOLINK_RE, without whitespace, brackets, '\\', '&', '`' or placeholders in it
    r"|<(?P<auto>[A-Za-z][A-Za-z0-9+.-]*://[^<>\s\[\]\\&\x02\x03`]*)>"
    # a character alone: the string is not simple
    r"|`|\[|\*|_|<|&"
)

# The stock patterns (class, regex) this reasoning is about. Any other pattern in
# the registry, or one of these with other settings, and nothing is built here.
_KNOWN = {
    (inlinepatterns.BacktickInlineProcessor, inlinepatterns.BACKTICK_RE),
    (inlinepatterns.EscapeInlineProcessor, inlinepatterns.ESCAPE_RE),
    (FootnoteInlineProcessor, r"\[\^([^\]]*)\]"),
    (inlinepatterns.ReferenceInlineProcessor, inlinepatterns.REFERENCE_RE),
    (inlinepatterns.LinkInlineProcessor, inlinepatterns.LINK_RE),
    (inlinepatterns.ImageInlineProcessor, inlinepatterns.IMAGE_LINK_RE),
    (inlinepatterns.ImageReferenceInlineProcessor, inlinepatterns.IMAGE_REFERENCE_RE),
    (inlinepatterns.ShortReferenceInlineProcessor, inlinepatterns.REFERENCE_RE),
    (inlinepatterns.ShortImageReferenceInlineProcessor, inlinepatterns.IMAGE_REFERENCE_RE),
    (inlinepatterns.AutolinkInlineProcessor, inlinepatterns.AUTOLINK_RE),
    (inlinepatterns.AutomailInlineProcessor, inlinepatterns.AUTOMAIL_RE),
    (inlinepatterns.SubstituteTagInlineProcessor, inlinepatterns.LINE_BREAK_RE),
    (inlinepatterns.HtmlInlineProcessor, inlinepatterns.HTML_RE),
    (inlinepatterns.HtmlInlineProcessor, inlinepatterns.ENTITY_RE),
    (inlinepatterns.DelimiterProcessor, r"\*|_"),
}
_LINKS = (inlinepatterns.ReferenceInlineProcessor, inlinepatterns.LinkInlineProcessor,
          inlinepatterns.ShortReferenceInlineProcessor)


def _stock_delimiters(processor: inlinepatterns.DelimiterProcessor) -> bool:
    """Whether ``processor`` handles '*' (plain) and '_' (smart), both strong/em, as stock does."""
    if processor.tokens != ["*", "_"]:
        return False
    for token, smart in (("*", False), ("_", True)):
        ours = processor.delimiters[token]
        stock = inlinepatterns.Delimiter(token, "strong,em", smart, False)
        if (type(ours) is not inlinepatterns.Delimiter or ours.tags != stock.tags or ours.double or ours.single
                or ours.max_size != stock.max_size or ours.tag_count != stock.tag_count
                or ours.boundary.pattern != stock.boundary.pattern):
            return False
    return True


def delimiter_processor(patterns: list) -> inlinepatterns.DelimiterProcessor | None:
    """The registry's delimiter processor when ``spans`` may stand in for ``patterns``, else None.

    Only stock patterns with stock regexes and no ancestor exclusions, code
    spans before links, links before emphasis, emphasis as stock configures it.
    """
    order = []
    delimiters = None
    for pattern in patterns:
        compiled = getattr(pattern, "compiled_re", None)
        if (not isinstance(compiled, re.Pattern) or (type(pattern), compiled.pattern) not in _KNOWN
                or pattern.ANCESTOR_EXCLUDES or type(pattern).getCompiledRegExp
                is not inlinepatterns.Pattern.getCompiledRegExp or "getCompiledRegExp" in vars(pattern)):
            return None
        if type(pattern) is inlinepatterns.DelimiterProcessor:
            if delimiters is not None or not _stock_delimiters(pattern):
                return None
            delimiters = pattern
        order.append(type(pattern))
    kinds = [kind for kind in order if kind is inlinepatterns.BacktickInlineProcessor or kind in _LINKS
             or kind is inlinepatterns.AutolinkInlineProcessor or kind is inlinepatterns.DelimiterProcessor]
    expected = [inlinepatterns.BacktickInlineProcessor, *_LINKS, inlinepatterns.AutolinkInlineProcessor,
                inlinepatterns.DelimiterProcessor]
    return delimiters if kinds == expected else None


def delimiters_clear(processor: inlinepatterns.DelimiterProcessor) -> bool:
    """Whether the delimiter processor holds no regions or open delimiters from earlier text."""
    if processor.regions or processor.stack:
        return False
    for delimiter in processor.delimiters.values():
        if delimiter.stack:
            return False
    return True


def spans(data: str) -> tuple[str | None, list[etree.Element]] | None:
    """(leading text, elements with their tails) the stock inline stage makes of ``data``; None: not simple.

    ``data`` is a plain ``str``. The leading text is None when empty, as upstream
    leaves it; the caller places both where the stock stage would.
    """
    if "\\" in data or _PLACEHOLDER_PREFIX in data or "``" in data:
        # The placeholder prefix stands for stashed inline text, which the stock
        # stage expands even inside a code span's text. (The source pass removes
        # STX, so only a tree built by hand can hold one.) Two backticks in a row:
        # a longer run, which the stock code span pattern pairs otherwise.
        return None
    breaks = "  \n" in data  # a line break, unless it is inside a code span: look in each piece
    lead: str | None = None
    elements: list[etree.Element] = []
    last = None  # the element the next piece of text is the tail of
    position = 0
    for match in _SCAN.finditer(data):
        kind = match.lastgroup  # the last group of the alternative that matched; None: a stray character
        if kind is None:
            return None
        start = match.start()
        if start > position:
            piece = data[position:start]
            if breaks and "  \n" in piece:
                return None
            if last is None:
                lead = piece
            else:
                last.tail = piece
        if kind == "code":
            element = etree.Element("code")
            element.text = _AtomicString(_code_escape(match.group("code").strip()))
        elif kind == "auto":
            # AutolinkInlineProcessor.handleMatch: its unescape() only expands
            # inline placeholders, and there are none here.
            url = match.group("auto")
            element = etree.Element("a")
            element.set("href", url)
            element.text = _AtomicString(url)
        elif kind == "href":
            words = match.group("text")
            if breaks and "  \n" in words:
                return None
            element = etree.Element("a")
            element.text = words
            element.set("href", match.group("href"))
        else:
            star = kind == "inner"
            inner = match.group(kind)
            if breaks and "  \n" in inner:
                return None
            element = etree.Element("strong" if match.group("run" if star else "urun") else "em")
            element.text = inner
        elements.append(element)
        last = element
        position = match.end()
    if position < len(data):
        piece = data[position:]
        if breaks and "  \n" in piece:
            return None
        if last is None:
            lead = piece
        else:
            last.tail = piece
    return lead, elements


_STASH_ORDER = {"code": 0, "a": 1, "em": 3, "strong": 3}


def _stash_rank(element: etree.Element) -> int:
    # An autolink's text is an AtomicString, a link's a str: the autolink pattern runs after the links.
    rank = _STASH_ORDER[element.tag]
    return 2 if rank == 1 and type(element.text) is _AtomicString else rank


def stash(stashed: dict, elements: list[etree.Element]) -> None:
    """File ``elements`` in the inline stash under the ids upstream would have given them."""
    if len(elements) > 1:  # sorted only when not already in that order (most are: `code` is *em*)
        order, previous = _STASH_ORDER, -1
        for element in elements:
            rank = order[element.tag]
            if rank == 1 and type(element.text) is _AtomicString:
                rank = 2
            if rank < previous:
                elements = sorted(elements, key=_stash_rank)  # stable: left to right
                break
            previous = rank
    for element in elements:
        stashed["%04d" % len(stashed)] = element
