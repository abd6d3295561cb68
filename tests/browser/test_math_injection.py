"""Hostile maths in real Chromium: every text-like command latex2mathml knows,
with every payload of tests/math_payloads.py (those tests/markup/test_math_sanitise.py
checks), built into one page and opened from file:// (no CSP there) and over
HTTP under the strict CSP.

Nothing may run (no dialog), nothing may be injected (every element inside a
<math> is MathML from the allowlist, no element anywhere carries an event
handler), no CSP violation is reported, and each payload reads back as text.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest_explainer import CSP, REPO, Server
from helpers import term, write_tree
from math_payloads import MATH_MODE_ARGUMENTS, PAYLOADS, TEXT_COMMANDS, formula
from site_builder.markup.mathml import ELEMENTS

pytestmark = pytest.mark.browser

CASES = [(command, payload) for command in TEXT_COMMANDS for payload in PAYLOADS]

RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
"""

INSPECT = """(allowed) => {
  const MATHML = 'http://www.w3.org/1998/Math/MathML';
  const foreign = [], handlers = [];
  for (const el of document.querySelectorAll('math *')) {
    if (el.namespaceURI !== MATHML || !allowed.includes(el.localName)) foreign.push(el.outerHTML.slice(0, 120));
  }
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) if (/^on/i.test(attr.name)) handlers.push(el.localName + ' ' + attr.name);
  }
  const texts = [...document.querySelectorAll('p[id^="case-"]')].map(
    p => [p.id.slice(5), p.querySelector('math') ? p.querySelector('math').textContent : null]);
  return {foreign, handlers, texts, violations: window.__violations};
}"""


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("math-injection")
    paragraphs = [f'Case {index}: ${formula(command, payload)}$ end.\n{{: #case-{index} }}'
                  for index, (command, payload) in enumerate(CASES)]
    content = write_tree(root / "content", {
        "site.toml": 'title = "Maths"\n',
        "terms/hostile-maths.md": term("Hostile maths", "Formulas with markup in them.", "\n\n".join(paragraphs)),
    })
    result = subprocess.run([sys.executable, "-m", "site_builder", "build", "--content", str(content),
                             "--output", str(root / "out"), "--quiet"],
                            cwd=REPO, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    return root / "out"


@pytest.fixture(scope="module")
def csp_hostile(hostile_site):
    server = Server(hostile_site, csp=CSP)
    yield server
    server.close()


@pytest.mark.parametrize("scheme", ["file", "http-csp"])
def test_hostile_maths_runs_nothing_and_injects_nothing(browser, hostile_site, csp_hostile, scheme):
    page = browser.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.add_init_script(RECORD_VIOLATIONS)
    if scheme == "file":
        url = (hostile_site / "hostile-maths" / "index.html").as_uri()
    else:
        url = f"{csp_hostile.url}/hostile-maths/index.html"
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)  # an onerror on a broken image fires after load
    found = page.evaluate(INSPECT, sorted(ELEMENTS))
    page.close()

    assert dialogs == []
    assert found["foreign"] == []
    assert found["handlers"] == []
    assert found["violations"] == []
    assert len(found["texts"]) == len(CASES)
    for case, text in found["texts"]:
        command, payload = CASES[int(case)]
        assert text is not None, f"case {case} ({command}) has no <math>"
        text = text.replace("\xa0", " ")
        if command in MATH_MODE_ARGUMENTS:
            text, payload = text.replace(" ", ""), payload.replace(" ", "").replace("'", "^")
        if "&#" in payload:
            continue  # a character reference reads back as its character: checked in test_math_sanitise
        assert payload in text, (command, payload, text)
