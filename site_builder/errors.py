"""Problems found in content, reported as ``path:line: message``.

Every stage collects problems instead of raising on the first one, so a single
run reports everything that is wrong; the build stops before writing anything
when any error (or, under ``--strict``, any warning) was found.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with the content, located as precisely as we can."""

    path: str
    line: int
    message: str
    severity: str = "error"  # "error" or "warning"

    def __str__(self) -> str:
        label = "warning: " if self.severity == "warning" else ""
        return f"{self.path}:{self.line}: {label}{self.message}"


class BuildFailed(Exception):
    """Raised when a build cannot go on; carries every problem found so far."""

    def __init__(self, problems: list[Problem]):
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = sorted(set(problems))


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
