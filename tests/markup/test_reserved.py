"""Reserved ids and classes come from the templates, styles and scripts themselves (issue 30)."""

from __future__ import annotations

import random
import re
import shutil
from importlib import resources
from pathlib import Path

from site_builder.markup.render import PAGE_IDS, BodyRenderer
from site_builder.markup import reserved as reserved_module
from site_builder.markup.reserved import package_files, read_reserved, reserved
from site_builder.names import NameIndex

PACKAGE = Path(str(resources.files("site_builder")))


def test_every_literal_id_in_the_templates_and_scripts_is_reserved():
    """Read here with plain patterns of their own: every ``id="..."`` a template writes
    and every id a site script looks up is in PAGE_IDS."""
    written = set()
    for template in (PACKAGE / "templates").glob("*.html"):
        written |= {v for v in re.findall(r'\bid="([^"{}]+)"', template.read_text()) if "<" not in v}
    for script in (PACKAGE / "static").glob("*.js"):
        written |= set(re.findall(r'getElementById\("([^"]+)"\)', script.read_text()))
    assert written and written <= PAGE_IDS, sorted(written - PAGE_IDS)


def test_a_new_template_id_class_or_script_lookup_is_reserved_without_touching_a_list(tmp_path: Path):
    """Copy the package's files, add what a future template and script would: it is reserved."""
    root = tmp_path / "site_builder"
    for path in package_files(PACKAGE):
        target = root / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    before = read_reserved(package_files(root))
    (root / "templates" / "new.html").write_text('<nav id="brand-new-nav" class="crumbs {{ extra }}">'
                                                 '<ol id="step-{{ n }}"></ol></nav>\n')
    (root / "static" / "new.js").write_text('var PANEL = "late-panel";\n'
                                            'document.getElementById(PANEL).classList.add("is-open");\n'
                                            'item.id = "hit-" + i; box.querySelector(".wobble #jiggle");\n')
    (root / "static" / "new.css").write_text('.glow > #halo, .ring:hover { color: #fff; }\n@media (x) { .tiny { } }\n')
    after = read_reserved(package_files(root))
    assert {"brand-new-nav", "late-panel", "jiggle", "halo"} <= after.ids - before.ids
    assert {"step-", "hit-"} <= after.id_prefixes - before.id_prefixes
    assert {"crumbs", "is-open", "wobble", "glow", "ring", "tiny"} <= after.classes - before.classes
    assert "fff" not in after.ids  # a colour, not a selector
    assert "is-" in after.class_prefixes


def test_a_jinja_tag_holding_the_other_quote_does_not_end_the_attribute():
    """``id="letter-{{ group['id'] }}"`` (a template subscripting a dict) reserves
    ``letter-`` as the dotted form does; the value used to stop at the inner quote,
    and the prefix went unreserved. Both quote kinds, escaped too (markup in a script's string)."""
    for markup, prefix, classes in (
            ('<h2 id="dot-{{ group.id }}">', "dot-", set()),
            ('<h2 id="sub-{{ group[\'id\'] }}" class="one {{ item[\'c\'] }} two">', "sub-", {"one", "two"}),
            ("<h2 id='alt-{{ group[\"id\"] }}'>", "alt-", set()),
            ('el.innerHTML = "<p id=\\"esc-{{ g[\'i\'] }}\\" class=\\"kept\\">";', "esc-", {"kept"}),
            ('<p id="x-{% if a == \'b\' %}b{% endif %}">', "x-", set())):
        ids, id_prefixes, found = set(), set(), set()
        reserved_module._from_markup(markup, ids, id_prefixes, found)
        assert (ids, id_prefixes, found) == (set(), {prefix}, classes), markup


def test_an_unclosed_quote_before_many_jinja_tags_is_read_in_linear_time():
    """A theme template with a typo (a quote never closed) and tags after it: the
    value's alternatives must not overlap, or the engine tries every way of
    splitting the tags (exponential: 20 tags took 72 s). Sixty here: with
    overlapping alternatives this never returns (the suite's timeout fails it);
    without, it takes milliseconds. The page's own reservations still come out."""
    template = "<h2 id='broken-" + "{{ a }}" * 60 + '\n<p id="after-{{ x }}" class="kept">'
    names = reserved_module.theme_names({"t.html": (template, "t.html")}, {})
    assert {"kept"} <= names
    ids, id_prefixes, classes = set(), set(), set()
    reserved_module._from_markup("<div class='" + "{{x}}" * 60 + "{% y %}" * 60, ids, id_prefixes, classes)
    assert (ids, id_prefixes, classes) == (set(), set(), set())


def test_every_reserved_id_is_refused_in_a_body_and_kept_off_headings():
    renderer = BodyRenderer(NameIndex([]))
    for ident in sorted(reserved().ids):
        title = ident.replace("-", " ")
        result = renderer.render(f"## {title}\n\npara\n{{: #{ident} }}\n", 1)
        assert result.problems == [(4, f"id {ident!r} is already used by the page around the body")], ident
        assert f'id="{ident}"' not in result.html and ident + "_1" in result.anchors, (ident, result.html)


# The patterns as they were before they were rewritten for speed (issue 40): the
# rewrites must find exactly what these find.
_STRING = r"""(?:"([^"\\\n]*)"|'([^'\\\n]*)')"""
_BEFORE = {
    "_CONSTANT": re.compile(r"\b(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*" + _STRING),
    "_CLASS_NAME": re.compile(r"\bclassName\s*(?:=|===|!==)\s*" + _STRING),
}
_CSS_SELECTOR_BEFORE = re.compile(r"(?:^|(?<=[{};]))\s*([^{};]*)\{")
_PIECES = ["var", "let", "const", "className", "myvar", "xlet", "_const", "$var", "var$", "classNames", "aclassName",
           " ", "\n", "\t", "\u00a0", "=", "===", "!==", "==", '"a b"', "'c'", '"x\\"', "x", "é", "-", ".", "(", ";",
           "{", "}", "@media", "#id", ".cls", "/* c */", "url(a{b)", "\u2003", 'var x = "a"', "const y='b'",
           'className = "c d"', "className!=='e'", "let\tz=\"q\"", "a.className === 'f'"]
_GENERATED = ["".join(random.Random(seed).choices(_PIECES, k=random.Random(-seed).randint(0, 40)))
              for seed in range(3000)]


def _sources() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in package_files(PACKAGE)] + _GENERATED


def test_rewritten_script_patterns_find_what_the_plain_ones_found():
    for name, before in _BEFORE.items():
        after = getattr(reserved_module, name)
        found = 0
        for text in _sources():
            expected = [(m.span(), m.groups()) for m in before.finditer(text)]
            assert [(m.span(), m.groups()) for m in after.finditer(text)] == expected, (name, text)
            found += len(expected)
        assert found > 10, name  # the comparison is not vacuous


def test_css_selectors_are_what_the_selector_regex_found():
    found = 0
    for text in _sources():
        expected = _CSS_SELECTOR_BEFORE.findall(text)
        assert reserved_module._css_selectors(text) == expected, text
        found += len(expected)
    assert found > 100


def test_package_files_are_the_recursive_glob_without_vendor():
    """The walk that skips vendor folders lists what rglob and a filter over every path listed."""
    expected = [*PACKAGE.glob("templates/*.html"), *PACKAGE.glob("static/*.js"), *PACKAGE.glob("static/*.css")]
    expected += [path for path in (PACKAGE / "explainers").rglob("*")
                 if path.suffix in (".html", ".js", ".css") and "vendor" not in path.relative_to(PACKAGE).parts]
    assert package_files(PACKAGE) == sorted(expected)
    assert any("vendor" in path.parts for path in (PACKAGE / "explainers").rglob("*.js"))  # something was skipped


def test_page_ids_are_not_read_at_import():
    """``markup.render`` does not read the package's scripts and styles when imported:
    the cache layer may hand in what they reserve first (``take_reserved``)."""
    import subprocess
    import sys

    script = ("import site_builder.markup.render as render, site_builder.markup.reserved as reserved\n"
              "assert reserved._known is None, 'read at import'\n"
              "assert render.PAGE_IDS == reserved.reserved().ids and 'search-input' in render.PAGE_IDS\n")
    subprocess.run([sys.executable, "-c", script], check=True)
