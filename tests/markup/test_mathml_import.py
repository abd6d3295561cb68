"""latex2mathml is imported without its ``__init__``'s version scan (``mathml._converter``)."""

import os
import subprocess
import sys

from helpers import REPO


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_a_formula_converts_without_importlib_metadata():
    # The package's __init__ only reads its version from importlib.metadata
    # (~10 ms of an edit with maths): skipped, and the formula is the same.
    out = _run("import sys\nfrom site_builder.markup import mathml\n"
               "print('metadata-before', 'importlib.metadata' in sys.modules)\n"
               "html = mathml._convert('x^2', False)\n"
               "print('metadata-after', 'importlib.metadata' in sys.modules)\n"
               "print('mi', '<mi>x</mi>' in html)\n")
    assert out == ["metadata-before", "False", "metadata-after", "False", "mi", "True"]


def test_the_package_still_gives_its_version_and_refuses_other_names():
    out = _run("import importlib.metadata as m\nfrom site_builder.markup import mathml\nmathml._converter()\n"
               "import latex2mathml\nprint(latex2mathml.__version__ == m.version('latex2mathml'))\n"
               "try:\n    latex2mathml.missing\nexcept AttributeError:\n    print('refused')\n")
    assert out == ["True", "refused"]


def test_another_init_is_run_as_usual(tmp_path):
    # A latex2mathml whose __init__ is not the known one: imported normally.
    package = tmp_path / "latex2mathml"
    package.mkdir()
    (package / "__init__.py").write_text("MARK = 'ran'\n")
    (package / "converter.py").write_text("def convert_to_element(source, display):\n    return source\n")
    code = (f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nfrom site_builder.markup import mathml\n"
            "f = mathml._converter()\nimport latex2mathml\nprint(latex2mathml.MARK, f('a', 'inline'))\n")
    assert _run(code) == ["ran", "a"]
