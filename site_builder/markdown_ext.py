"""Short import path for the Python-Markdown extension: see ``site_builder.integrations.mdext``."""

from .integrations.mdext import GlossaryLinkError, GlossaryLinkExtension, makeExtension

__all__ = ["GlossaryLinkError", "GlossaryLinkExtension", "makeExtension"]
