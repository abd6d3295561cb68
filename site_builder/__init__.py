"""site_builder: a static site generator for interactive glossaries."""

__version__ = "0.1.0"

CACHE_FOLDER = ".site_builder_cache"
"""The build cache's folder name, beside the output folder (see ``cache.py``).
Defined here, not in ``cache.py``, because the command line checks for it
before its heavy imports (see ``preload.py``)."""
