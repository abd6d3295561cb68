"""Short import path for the Python-Markdown extension: see ``site_builder.linking.mdext``."""

from .linking.mdext import GlossaryLinkError, GlossaryLinkExtension, makeExtension

__all__ = ["GlossaryLinkError", "GlossaryLinkExtension", "makeExtension"]
