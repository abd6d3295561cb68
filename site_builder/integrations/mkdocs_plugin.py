"""The MkDocs plugin: ``[[Term]]`` links, MkDocs warnings and hover cards.

::

    # mkdocs.yml
    plugins:
      - glossary:
          glossary: https://example.org/glossary/glossary.json

It drives the Python-Markdown extension (``mdext.py``: same link syntax, same
options: ``glossary``, ``base_url``, ``strict``, ``css_class``, ``autolink``,
``autolink_unit``, plus ``cards``) and adds what an extension cannot do inside MkDocs:

- an unknown term or anchor is a MkDocs warning naming the page and line
  (``WARNING -  glossary: guide.md:12: unknown glossary term [[X]] ...``), so
  ``mkdocs build --strict`` counts it and stops; ``strict: true`` stops the
  build even without ``--strict``, after every page has been read, as a
  MkDocs error (never a traceback);
- the hover cards: ``glossary-cards.js`` and ``.css`` are added to the site
  (``assets/glossary/``) and to every page through ``extra_javascript`` /
  ``extra_css``, so no theme override is needed, and each page that links to
  the glossary carries the card data of just those terms in a JSON data block
  (nothing fetched at view time, no CORS, works from ``file://`` and under a
  strict CSP). With cards on, links have no ``title`` attribute, so the
  browser's tooltip does not open on top of the card;
- the glossary is read once per build, in ``on_pre_build``, never from the
  per-process cache, so ``mkdocs serve`` picks up a new publish on its next
  rebuild; all per-build state is reset there too.
"""

from __future__ import annotations

import os
from collections import defaultdict
from importlib import resources

from mkdocs.config import base
from mkdocs.config import config_options as c
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File

from ..outputs import cards
from .linkcheck import wikilinks
from .mdext import GlossaryLinkExtension
from .published import GlossaryLoadError, PublishedGlossary, PublishedTerm, read_glossary

log = get_plugin_logger("glossary")

ASSETS = "assets/glossary"
"""Where the card script and stylesheet go in the built site."""
OWN_LINK_CLASS = "term-link"
"""The class glossary-cards.js looks for, with ``data-term``, when a page carries
its own card data (as the glossary's own pages do)."""


class GlossaryConfig(base.Config):
    """The plugin's options: the extension's (``mdext.py``), plus ``cards``."""

    glossary = c.Type(str)
    base_url = c.Type(str, default="")
    strict = c.Type(bool, default=False)
    css_class = c.Type(str, default="glossary-term")
    cards = c.Type(bool, default=True)
    autolink = c.Choice(("off", "first"), default="off")
    autolink_unit = c.Choice(("page", "section"), default="page")


class GlossaryPlugin(BasePlugin[GlossaryConfig]):
    """``plugins: [glossary]``: glossary links checked as MkDocs warnings, with hover cards."""

    def __init__(self):
        self._reset()

    def _reset(self) -> None:
        self._glossary: PublishedGlossary | None = None
        self._page_path = ""
        self._lines: dict[str, list[int]] = {}
        self._linked: dict[str, dict[str, PublishedTerm]] = defaultdict(dict)
        self._problems = 0

    def on_config(self, config):
        """Register the extension (once, even when MkDocs runs this again on a reload)
        and the card assets."""
        self._reset()
        if not hasattr(File, "generated"):
            raise PluginError("glossary: the plugin needs MkDocs 1.6 or later")
        css_class = self.config.css_class
        if self.config.cards:
            # The data-block lookup of glossary-cards.js recognises links by this class.
            css_class = " ".join(dict.fromkeys((css_class.split() + [OWN_LINK_CLASS])))
        extension = GlossaryLinkExtension(source=self._current_glossary, report=self._report, linked=self._remember,
                                          base_url=self.config.base_url, css_class=css_class,
                                          title=not self.config.cards, autolink=self.config.autolink,
                                          autolink_unit=self.config.autolink_unit)
        config.markdown_extensions[:] = [e for e in config.markdown_extensions
                                         if not isinstance(e, GlossaryLinkExtension)] + [extension]
        if self.config.cards:
            script, stylesheet = f"{ASSETS}/{cards.SCRIPT}", f"{ASSETS}/{cards.STYLESHEET}"
            if stylesheet not in config.extra_css:
                config.extra_css.append(stylesheet)
            if all(str(s) != script for s in config.extra_javascript):
                value = c.ExtraScriptValue(script)
                value.defer = True
                config.extra_javascript.append(value)
        return config

    def on_pre_build(self, config):
        """Read the glossary for this build; a glossary that cannot be read stops it with one message."""
        self._reset()
        location = self.config.glossary
        if not location:
            raise PluginError("glossary: the plugin needs the 'glossary' option (URL or path of glossary.json)")
        if "://" not in location and not os.path.isabs(location):
            # Like docs_dir: relative to mkdocs.yml, wherever mkdocs is run from.
            location = os.path.normpath(os.path.join(os.path.dirname(config.config_file_path or "."), location))
        try:
            self._glossary = read_glossary(location)
        except GlossaryLoadError as exc:
            raise PluginError(f"glossary: {exc}") from None

    def on_files(self, files, config):
        """Add the card script and stylesheet to the site."""
        if self.config.cards:
            static = resources.files("site_builder").joinpath("static")
            for name in (cards.SCRIPT, cards.STYLESHEET):
                files.append(File.generated(config, f"{ASSETS}/{name}", content=static.joinpath(name).read_bytes()))
        return files

    def on_page_markdown(self, markdown, page, config, files):
        """Note the page and the lines of its ``[[...]]`` links: the extension's
        problems arrive without a line, and are placed by their written text."""
        self._page_path = page.file.src_uri
        raw = page.file.content_string
        # MkDocs has cut the front matter off: count the lines it took.
        first = raw[:len(raw) - len(markdown)].count("\n") + 1 if raw.endswith(markdown) else 1
        self._lines = defaultdict(list)
        for number, match in wikilinks(markdown):
            self._lines[match.group(0)].append(number + first - 1)
        return markdown

    def on_post_page(self, output, page, config):
        """Give the page the card data of the terms it links to."""
        linked = self._linked.get(page.file.src_uri)
        if not self.config.cards or not linked:
            return output
        block = f'<script type="application/json" id="glossary-cards-data">{cards.data_json(linked.values())}</script>\n'
        at = output.rfind("</body>")
        return output[:at] + block + output[at:] if at >= 0 else output + block

    def on_env(self, env, config, files):
        """With ``strict: true``, stop once every page has been read and reported."""
        if self.config.strict and self._problems:
            raise PluginError(f"glossary: {self._problems} broken glossary link(s) (strict: true)")
        return env

    def _current_glossary(self) -> PublishedGlossary:
        if self._glossary is None:  # rendering outside a build (another plugin's call)
            raise PluginError("glossary: the glossary is read in on_pre_build; no build is running")
        return self._glossary

    def _report(self, message: str, written: str) -> None:
        self._problems += 1
        lines = self._lines.get(written)
        # Occurrences are handed out in source order; a line the parser saw twice keeps the last.
        line = (lines.pop(0) if len(lines) > 1 else lines[0]) if lines else None
        where = f"{self._page_path}:{line}" if line else self._page_path
        log.warning(f"{where}: {message}")

    def _remember(self, term: PublishedTerm) -> None:
        self._linked[self._page_path][term.slug] = term
