"""Write stage: put the finished site in place atomically.

The new site is written into a staging folder beside ``output/`` and then
swapped in with one ``renameat2(RENAME_EXCHANGE)`` (Linux), so at every moment
``output/`` holds either the whole old site or the whole new one, even if the
process is killed. Files whose bytes did not change are hard-linked from the
old site, keeping their timestamps, so syncing to a host uploads only what
changed. Leftovers of killed builds are removed by the next build.

``staging``: ``Staging``, the new tree (in the spare) that ``build`` swaps in;
``in_place``: ``InPlace``, ``serve``'s writes straight into the live site;
``writer``: what both share (``WriteStats``, the set of paths written);
``records``: the tree and spare records that let a rebuild skip unchanged
files, and ``snapshot``: the folder ctimes and listings they hold;
``ahead``: the trees' checks against those records, made in a forked child
while a build loads;
``trees``: listing, writing and cleaning trees without following links;
``swap``: the atomic exchange; ``removal``: deleting replaced trees in the
background, and the leftovers of killed builds; ``guard``: which folders may
be replaced (``MARKER``); ``lock``: one writer at a time.
"""

from .guard import MARKER, MARKER_TEXT, PublishError, check_output
from .in_place import InPlace
from .removal import ACTIVE_DELETION_SECONDS, BACKGROUND_REMOVAL, clean_leftovers, remove_tree
from .staging import Staging
from .writer import WriteStats

__all__ = ["ACTIVE_DELETION_SECONDS", "BACKGROUND_REMOVAL", "MARKER", "MARKER_TEXT", "InPlace", "PublishError",
           "Staging", "WriteStats", "check_output", "clean_leftovers", "remove_tree"]
