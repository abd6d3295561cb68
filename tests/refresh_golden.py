"""Refresh the golden output: ``python tests/refresh_golden.py``.

Rebuilds tests/fixtures/golden/content into tests/fixtures/golden/expected
(the explainer's own files as names in explainer-files.txt: see tests/golden.py).
Refuses to run without the fonts the preview cards are drawn with, which
would record wrong cards. Review the diff (git diff tests/fixtures/golden)
before committing it.
"""

from pathlib import Path
import sys
import tempfile

HERE = Path(__file__).resolve().parent


def main() -> int:
    sys.path.insert(0, str(HERE.parent))
    sys.path.insert(0, str(HERE))
    import golden
    from site_builder.cli import main as cli

    missing = golden.missing_fonts()
    if missing:
        print(f"refusing to refresh: {golden.fonts_reason(missing)}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as folder:
        built = Path(folder) / "out"
        status = cli(["build", "--content", str(golden.CONTENT), "--output", str(built), "--quiet", "--no-cache"])
        if status != 0:
            print("build failed", file=sys.stderr)
            return status
        golden.record(built)
    print(f"refreshed {golden.EXPECTED}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
