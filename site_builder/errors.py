"""Problems found in content, reported as ``path:line: message`` (``path: message``
when the problem is a whole file or folder, which has no line).

Every stage collects problems instead of raising on the first one, so a single
run reports everything that is wrong; the build stops before writing anything
when any error (or, under ``--strict``, any warning) was found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the content, located as precisely as we can.

    ``line`` is None for a problem with a path as a whole (a missing folder, a
    file that cannot be read): a line number there would point at nothing.
    """

    path: str
    line: int | None
    message: str
    severity: str = "error"  # "error" or "warning"

    @property
    def location(self) -> str:
        """``path:line``, or ``path`` alone when there is no line."""
        return self.path if self.line is None else f"{self.path}:{self.line}"

    def __str__(self) -> str:
        label = "warning: " if self.severity == "warning" else ""
        return f"{self.location}: {label}{self.message}"

    def _key(self) -> tuple:
        # By path, then line, a problem without a line first (it is about the
        # whole path); None cannot be compared with a number, so it sorts as 0.
        return (self.path, -1 if self.line is None else self.line, self.message, self.severity)

    def __lt__(self, other: "Problem") -> bool:
        return self._key() < other._key()

    def __le__(self, other: "Problem") -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: "Problem") -> bool:
        return self._key() > other._key()

    def __ge__(self, other: "Problem") -> bool:
        return self._key() >= other._key()


class BuildFailed(Exception):
    """Raised when a build cannot go on; carries every problem found so far."""

    def __init__(self, problems: list[Problem]):
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = sorted(set(problems))

    def __reduce__(self):  # raised in a forked page worker, it crosses back whole
        return (type(self), (self.problems,))


def display_path(path: Path, base: Path | None = None) -> str:
    """A short path for messages: relative to ``base`` (or the cwd) when possible."""
    for anchor in (base, Path.cwd()):
        if anchor is None:
            continue
        try:
            return str(path.resolve().relative_to(anchor.resolve()))
        except ValueError:
            continue
    return str(path)
