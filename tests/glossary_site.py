"""The small glossary site the linking tests build: four terms, one of them with a
hostile title and summary, built through the CLI.

Shared by tests/outputs/test_linking_outputs.py, tests/integrations/ (mdext,
linkcheck, sphinx) and tests/browser/test_cards.py.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from site_builder.cli import main

BASE = "https://example.org/glossary/"
EVIL_TITLE = 'Evil </script><b>"quoted"</b> ]]> {{ x }}'
EVIL_SUMMARY = 'Says <img src=x onerror=alert(1)> & "hi" </script> ]]> {{ x }} done.'


def term(title: str, summary: str, body: str = "", **lists: list[str]) -> str:
    """A term file. (Not conftest's helper: tests/browser has a conftest module of its own.)"""
    front = [f"title: {title}", f"summary: {summary}"] + [f"{key}: [{', '.join(v)}]" for key, v in lists.items()]
    return "---\n" + "\n".join(front) + "\n---\n" + textwrap.dedent(body).lstrip("\n")


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return root


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


CONTENT = {
    "terms/speculative-decoding.md": term("Speculative decoding", "A draft model guesses tokens; the target model checks them.", """
        Each round runs [[inference]] once on the target model.

        ## How a round works

        Draft, then verify.
        """, aliases=["speculative sampling"], related=["inference"]),
    "terms/inference.md": term("Inference", "Running a trained model on new input.", """
        See [[Speculative decoding]] and [[evil]].

        ## Two phases: prefill and decode

        Prefill, then decode.
        """, aliases=["LLM inference"]),
    "terms/model.md": term("Model", "The trained artifact, a set of learned parameters.", """
        Models run [[inference]].
        """, aliases=["LLM", "language model"]),
    "terms/evil.md": "---\n" + f"title: {_quoted(EVIL_TITLE)}\nsummary: {_quoted(EVIL_SUMMARY)}\naliases: [Old evil name]\n---\nBody of [[model]].\n",
}


def build_glossary(root: Path, base_url: str | None = BASE, extra: dict | None = None, site_toml: str = 'title = "Test Glossary"\n') -> Path:
    """Build CONTENT (plus ``extra`` files) into ``root/out``; return the output folder."""
    content = write_tree(root / "content", {**CONTENT, "site.toml": site_toml, **(extra or {})})
    out = root / "out"
    args = ["build", "--content", str(content), "--output", str(out), "--quiet"]
    if base_url:
        args += ["--base-url", base_url]
    assert main(args) == 0
    return out
