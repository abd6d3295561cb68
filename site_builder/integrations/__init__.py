"""What other sites use to link to a published glossary.

``mdext``: the Python-Markdown extension (``[[Term]]`` links) for any Markdown
site; ``mkdocs_plugin``: the MkDocs plugin around it (MkDocs warnings, hover
cards); ``linkcheck``: ``check --links-in``, with ``roles`` for Sphinx and MyST
cross-references; ``published``: loading a published ``glossary.json`` (file or URL).
"""
