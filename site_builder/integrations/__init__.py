"""What other sites use to link to a published glossary.

``mdext``: the Python-Markdown extension (``[[Term]]`` links, hover cards) for
MkDocs and any Markdown site; ``linkcheck``: ``check --links-in``;
``published``: loading a published ``glossary.json`` (file or URL).
"""
