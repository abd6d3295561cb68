"""Write stage: put the finished site in place atomically (see ``staging``)."""

from .staging import (
    ACTIVE_DELETION_SECONDS, BACKGROUND_REMOVAL, MARKER, MARKER_TEXT, InPlace, PublishError, Staging,
    WriteStats, check_output, clean_leftovers, remove_tree,
)

__all__ = ["ACTIVE_DELETION_SECONDS", "BACKGROUND_REMOVAL", "MARKER", "MARKER_TEXT", "InPlace", "PublishError",
           "Staging", "WriteStats", "check_output", "clean_leftovers", "remove_tree"]
