"""Shared fixtures: small content folders built from a dict of files."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

import pytest

from site_builder.cli import main

ROOT = Path(__file__).resolve().parent.parent


def term(title: str, summary: str, body: str = "", **extra) -> str:
    """The text of a term file with YAML front matter."""
    lines = ["---", f"title: {title}", f"summary: {summary}"]
    for key, value in extra.items():
        if isinstance(value, list):
            value = "[" + ", ".join(value) + "]"
        lines.append(f"{key}: {value}")
    lines.append("---")
    return "\n".join(lines) + "\n" + textwrap.dedent(body).lstrip("\n")


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``root``."""
    for relative, data in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


def manifest(folder: Path) -> dict[str, str]:
    """relative path -> sha256 of every file under ``folder``."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.fixture
def small_site(tmp_path: Path) -> Path:
    """A valid three-term content folder."""
    return write_tree(tmp_path / "content", {
        "terms/alpha.md": term("Alpha", "The first term.", """
            Alpha links to [[Beta]] and [the gamma section](gamma.md#details).

            ## Why it matters

            Inline maths $a^2 + b^2$ and display:

            $$
            \\frac{1}{1 - \\alpha}
            $$
            """, related=["beta"], aliases=["first letter"]),
        "terms/beta.md": term("Beta", "The second term.", """
            Back to [[first letter|the first]].
            """),
        "terms/gamma.md": term("Gamma", "The third term.", """
            ## Details

            Nothing links here but alpha.
            """, related=["alpha", "beta"]),
    })


@pytest.fixture
def cli(capsys):
    """Run the CLI in-process; returns (status, stdout, stderr)."""
    def run(*args: str):
        status = main([str(a) for a in args])
        captured = capsys.readouterr()
        return status, captured.out, captured.err
    return run
