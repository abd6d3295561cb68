"""Refresh the golden output: ``python tests/refresh_golden.py``.

Rebuilds tests/fixtures/golden/content into tests/fixtures/golden/expected.
Review the diff (git diff tests/fixtures/golden) before committing it.
"""

from pathlib import Path
import shutil
import sys

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "fixtures" / "golden"


def main() -> int:
    sys.path.insert(0, str(HERE.parent))
    from site_builder.cli import main as cli

    expected = GOLDEN / "expected"
    if expected.exists():
        shutil.rmtree(expected)
    status = cli(["build", "--content", str(GOLDEN / "content"), "--output", str(expected), "--quiet", "--no-cache"])
    print(f"refreshed {expected}" if status == 0 else "build failed")
    return status


if __name__ == "__main__":
    sys.exit(main())
