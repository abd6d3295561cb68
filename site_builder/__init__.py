"""site_builder: a static site generator for interactive glossaries."""

__version__ = "0.1.0"
