"""Load stage: read ``content/`` into data.

``config`` reads ``site.toml``; ``content`` reads the term files (front matter
through PyYAML) into ``Term``
records with per-file checks; ``preload`` starts loading them in forked
workers before the heavy imports. Nothing here renders or writes.
"""
