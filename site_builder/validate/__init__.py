"""Validate stage: the checks that need every term at once.

Per-file checks happen while loading (``load.content``); these look across
files (``checks``: duplicate names, unknown related terms and explainers, and
after the markup stage, links to missing terms and anchors, and orphan terms) and at aliases,
which become public addresses (``check_aliases``).
"""

from .aliases import check_aliases
from .checks import backlinks, check_dropped, check_links, check_orphans, check_terms

__all__ = ["backlinks", "check_aliases", "check_dropped", "check_links", "check_orphans", "check_terms"]
