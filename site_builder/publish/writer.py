"""What both ways of writing a site share: ``Staging`` (a new tree swapped in
whole, for ``build``) and ``InPlace`` (``serve``'s writes into the live site).

The set of paths written, the counts, and the hand-over of files that forked
page workers wrote into the same tree.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class WriteStats:
    """What the write stage did."""

    written: int = 0
    unchanged: int = 0


class _Tree:
    """What both ways of writing a site share: the set of paths and the counts."""

    _paths: set[str]
    _written: set[str]
    stats: WriteStats

    @property
    def paths(self) -> set[str]:
        """Every relative path added or reused so far."""
        return self._paths

    def checkpoint(self) -> tuple[set[str], set[str], int]:
        """The state ``worker_report`` measures from."""
        return set(self._paths), set(self._written), self.stats.unchanged

    def worker_report(self, since: tuple[set[str], set[str], int]) -> tuple[list[str], list[str], int]:
        """In a forked worker: (paths, written paths, unchanged count) added since ``checkpoint()``."""
        paths, written, unchanged = since
        return sorted(self._paths - paths), sorted(self._written - written), self.stats.unchanged - unchanged

    def merge(self, paths: list[str], written: list[str], unchanged: int) -> None:
        """Take over files a forked worker wrote into this same tree (its ``worker_report``)."""
        overlap = self._paths.intersection(paths)
        if overlap:
            raise ValueError(f"{sorted(overlap)[0]} written twice in one build")
        self._paths.update(paths)
        self._written.update(written)
        self.stats.written += len(written)
        self.stats.unchanged += unchanged
