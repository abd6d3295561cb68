"""A site's own look (issue 37): template overrides from ``content/templates/``
that extend the package's originals, ``extra_css``/``extra_js``/``logo`` from
``assets/``, header and footer links, template errors at ``path:line`` with
the previous output untouched, the theme in every cache key it touches, and
right-to-left pages."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from helpers import FIXTURES, manifest, term, write_tree
from site_builder.build import BuildOptions, build_site
from site_builder.errors import BuildFailed
from site_builder.load.config import load_config
from site_builder.render.templates import right_to_left

THEMED = FIXTURES / "themed"


def test_overrides_extend_the_originals_and_every_page_links_the_theme(themed_site: Path):
    for page, root in (("index.html", ""), ("alpha/index.html", "../"), ("404.html", "")):
        html = (themed_site / page).read_text(encoding="utf-8")
        # base.html's override extends the package's base.html: its block is added to, the rest kept
        assert '<p class="acme-banner" id="acme-banner">Part of the Acme docs</p>' in html, page
        assert '<div class="acme-footer"><footer class="site-footer">' in html and '<p>Acme Inc.</p>' in html
        assert re.search(r'<nav class="header-links" aria-label="Related sites"><a href="https://docs.example.org/">'
                         rf'Acme docs</a><a href="{re.escape(root)}guide/">Guide</a></nav>', html), page
        assert '<li><a href="https://example.org/privacy">Privacy</a></li>' in html
        css = re.search(rf'<link rel="stylesheet" href="{re.escape(root)}(assets/acme\.[0-9a-f]{{10}}\.css)">', html)
        js = re.search(rf'<script defer src="{re.escape(root)}(assets/acme\.[0-9a-f]{{10}}\.js)"></script>', html)
        logo = re.search(rf'<img class="site-logo" src="{re.escape(root)}(assets/logo\.[0-9a-f]{{10}}\.svg)" alt="">', html)
        assert css and js and logo, page
        for match, source in ((js, "acme.js"), (logo, "logo.svg")):
            assert (themed_site / match.group(1)).read_bytes() == (THEMED / "assets" / "brand" / source).read_bytes()
        mark = next((themed_site / "assets").glob("mark.*.svg")).name  # its url() names the hashed copy
        assert (themed_site / css.group(1)).read_text(encoding="utf-8") == \
            (THEMED / "assets" / "brand" / "acme.css").read_text(encoding="utf-8").replace('url("mark.svg")', f'url("{mark}")')
        # after the site's own style sheet, so the theme's variables win
        assert html.index("assets/site.") < css.start()
        assert "<style" not in html and "style=" not in html and not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/(ld\+)?json)", html)
    term_page = (themed_site / "alpha/index.html").read_text(encoding="utf-8")
    # term.html's override extends the package's term.html (its own name) and adds to one block
    assert term_page.index('<aside class="acme-note"') < term_page.index('<section class="related"')
    assert '<article class="term" data-slug="alpha">' in term_page
    assert "acme-note" not in (themed_site / "index.html").read_text(encoding="utf-8")


def _copy(tmp_path: Path) -> Path:
    content = tmp_path / "content"
    shutil.copytree(THEMED, content)
    return content


@pytest.mark.parametrize("name, source, line, words", [
    ("base.html", '{% extends "base.html" %}\n{% block footer %}\n{% if x %}oops\n{% endblock %}\n', 4, "syntax error"),
    ("term.html", '{% extends "term.html" %}\n{% block related %}\n{{ term.nope.deeper }}{% endblock %}\n', 3,
     "UndefinedError"),
    ("index.html", '\n{% extends "missing.html" %}\n', 2, "template not found: 'missing.html'"),
    # an override is content: Jinja's sandbox keeps it from Python's internals
    ("404.html", '{% extends "404.html" %}{% block main %}\n{{ site.with_base_url.__globals__ }}{% endblock %}\n', 2,
     "SecurityError"),
])
def test_a_template_error_is_a_path_line_error_and_the_output_is_kept(tmp_path: Path, cli, name, source, line, words):
    content = _copy(tmp_path)
    out = tmp_path / "out"
    assert cli("build", "--content", content, "--output", out, "--quiet")[0] == 0
    before = manifest(out)
    (content / "templates" / name).write_text(source, encoding="utf-8")
    status, _out, err = cli("build", "--content", content, "--output", out, "--quiet")
    assert status == 1 and "Traceback" not in err
    assert re.search(rf"templates/{re.escape(name)}:{line}: .*{re.escape(words)}", err), err
    assert manifest(out) == before


def test_a_missing_or_unsafe_asset_or_link_is_an_error_at_its_key(tmp_path: Path):
    content = write_tree(tmp_path / "content", {
        "site.toml": 'title = "T"\nextra_css = ["brand.css"]\nlogo = "../../etc/logo.svg"\n'
                     'header_links = [{ text = "x", url = "javascript:alert(1)" }]\nextra_js = "x.txt"\n',
        "terms/a.md": term("A", "S."),
    })
    config, problems = load_config(content)
    found = sorted((p.line, p.message.split(":")[0]) for p in problems)
    assert found == [(3, "'logo'"), (4, "'header_links' entry 1"), (5, "'extra_js'")]
    with pytest.raises(BuildFailed) as failed:
        build_site(BuildOptions(content=content, output=tmp_path / "out", cache=False))
    messages = [str(p) for p in failed.value.problems]
    assert any(m.startswith(f"{content / 'site.toml'}:2: 'extra_css' names 'brand.css'") or ":2: 'extra_css' names" in m
               for m in messages), messages


def _page(out: Path, slug: str = "alpha") -> str:
    return (out / slug / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("edit_body", [False, True], ids=["theme only", "theme and a body (fast path refused)"])
def test_an_edited_override_or_asset_is_never_served_from_the_cache(tmp_path: Path, edit_body: bool):
    content = _copy(tmp_path)
    out = tmp_path / "out"
    options = BuildOptions(content=content, output=out, jobs=1)
    build_site(options)
    build_site(options)  # a spare with its record: the fast path could run
    css_before = re.search(r"assets/acme\.\w+\.css", _page(out)).group()

    (content / "templates" / "term.html").write_text(
        (THEMED / "templates" / "term.html").read_text().replace("Reviewed by", "Checked by"), encoding="utf-8")
    (content / "assets" / "brand" / "acme.css").write_text(":root { --accent: #004d40; }\n", encoding="utf-8")
    if edit_body:
        alpha = content / "terms" / "alpha.md"
        alpha.write_text(alpha.read_text().replace("comes before", "precedes"), encoding="utf-8")
    build_site(options)
    page = _page(out)
    assert "Checked by the Acme docs team." in page and "Reviewed by" not in page
    css_after = re.search(r"assets/acme\.\w+\.css", page).group()
    assert css_after != css_before and (out / css_after).read_text() == ":root { --accent: #004d40; }\n"
    assert css_after in _page(out, "beta") and css_after in (out / "index.html").read_text(encoding="utf-8")
    assert ("precedes" in page) is edit_body
    clean = tmp_path / "clean"
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert manifest(out) == manifest(clean)

    # Removing the override brings the package's template back.
    (content / "templates" / "term.html").unlink()
    build_site(options)
    assert "acme-note" not in _page(out) and "acme-banner" in _page(out)


def test_the_fast_path_still_serves_a_body_edit_with_a_theme(tmp_path: Path):
    content = _copy(tmp_path)
    out = tmp_path / "out"
    lines: list[str] = []
    options = BuildOptions(content=content, output=out, jobs=1)
    build_site(options)
    build_site(options)  # now there is a spare with its record (the fast path needs one)
    alpha = content / "terms" / "alpha.md"
    alpha.write_text(alpha.read_text().replace("comes before", "precedes"), encoding="utf-8")
    build_site(options, log=lines.append)
    assert any("fast path" in line for line in lines), lines
    assert "precedes" in _page(out) and "acme-note" in _page(out) and "acme-banner" in _page(out)
    clean = tmp_path / "clean"
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    assert manifest(out) == manifest(clean)


@pytest.mark.parametrize("language, rtl", [
    ("ar", True), ("he", True), ("he-IL", True), ("fa", True), ("ur", True), ("ku-Arab", True),
    ("en", False), ("en-GB", False), ("az-Latn", False), ("ar-Latn", False), ("de", False),
])
def test_right_to_left_languages(language: str, rtl: bool):
    assert right_to_left(language) is rtl


def test_an_arabic_site_runs_right_to_left(tmp_path: Path, cli):
    content = write_tree(tmp_path / "content", {
        "site.toml": 'title = "مسرد"\nlanguage = "ar"\n',
        "terms/alpha.md": term("ألفا", "الأول."),
    })
    assert cli("build", "--content", content, "--output", tmp_path / "out", "--quiet")[0] == 0
    for page in ("index.html", "alpha/index.html", "404.html"):
        assert (tmp_path / "out" / page).read_text(encoding="utf-8").startswith('<!DOCTYPE html>\n<html lang="ar" dir="rtl">')


def test_a_body_cannot_take_the_ids_or_classes_of_the_sites_own_templates(tmp_path: Path, cli):
    """The overrides' ids and classes are reserved as the package's are (markup.reserved.theme_names):
    a body setting one would stand in for the theme's element, which its scripts may look up."""
    content = _copy(tmp_path)
    (content / "terms" / "gamma.md").write_text(term("Gamma", "G.", "A paragraph.\n{: #acme-banner .acme-fake }\n\n"
                                                     "## Acme note\n"), encoding="utf-8")
    status, _out, err = cli("build", "--content", content, "--output", tmp_path / "out", "--quiet")
    assert status == 1
    assert "gamma.md:6: id 'acme-banner' is already used by the page around the body" in err
    assert "gamma.md:6: class 'acme-fake' is not allowed in markdown: classes starting 'acme-'" in err
    (content / "terms" / "gamma.md").write_text(term("Gamma", "G.", "## Acme note\n"), encoding="utf-8")
    assert cli("build", "--content", content, "--output", tmp_path / "out", "--quiet")[0] == 0
    page = (tmp_path / "out" / "gamma" / "index.html").read_text(encoding="utf-8")
    # the heading's anchor steps aside: the override's <aside> has the id
    assert page.count('id="acme-note"') == 1 and '<h2 id="acme-note_1">' in page


def test_a_style_sheets_relative_urls_are_copied_hashed_and_rewritten(themed_site: Path, tmp_path: Path, cli):
    css = next((themed_site / "assets").glob("acme.*.css")).read_text(encoding="utf-8")
    mark = re.search(r'url\("(mark\.[0-9a-f]{10}\.svg)"\)', css)
    assert mark and (themed_site / "assets" / mark.group(1)).read_bytes() == \
        (THEMED / "assets" / "brand" / "mark.svg").read_bytes()
    content = _copy(tmp_path)
    sheet = content / "assets" / "brand" / "acme.css"
    sheet.write_text(sheet.read_text() + '.x { background: url(../../site.toml); }\n.y { background: url("gone.png"); }\n'
                     '/* url(in-a-comment.png) */ .z { background: url(data:image/png;base64,AAAA); }\n', encoding="utf-8")
    status, _out, err = cli("build", "--content", content, "--output", tmp_path / "out", "--quiet")
    assert status == 1
    lines = sheet.read_text().count("\n")
    assert f"acme.css:{lines - 2}: url(../../site.toml) leads outside assets/" in err
    assert re.search(rf"acme.css:{lines - 1}: url\(gone.png\) names .*gone.png, which is not there", err)
    assert "in-a-comment" not in err and "data:" not in err


def test_templates_escape_what_markupsafe_escapes_overrides_and_package_alike():
    # The compiled templates escape with output_escape (markupsafe's text, no Markup wrapper):
    # the same text for plain and safe strings, subclasses, numbers and objects with __html__.
    import markupsafe

    from site_builder.render.templates import output_escape, package_environment, theme_environment

    class Html:
        def __html__(self):
            return "<b>kept</b>"

    class Text(str):
        pass

    values = ["Tom & Jerry's \"<tag>\"", markupsafe.Markup("<i>safe</i>"), Text("a<b"), 3, None, Html(), ""]
    assert [output_escape(v) for v in values] == [str(markupsafe.escape(v)) for v in values]
    source = "{{ a }}|{{ b }}|{{ c | safe }}|{% set d %}<{{ a }}>{% endset %}{{ d }}"
    themed = theme_environment({"x.html": (source, "templates/x.html")}, "digest-of-this-test")
    for environment, template in ((package_environment(), package_environment().from_string(source)),
                                  (themed, themed.get_template("x.html"))):
        assert template.render(a="<&>", b=markupsafe.Markup("<em>"), c="<br>") == \
            "&lt;&amp;&gt;|<em>|<br>|<&lt;&amp;&gt;>", environment
        assert template.root_render_func.__globals__["escape"] is output_escape


def test_render_gives_what_jinja_gives_with_the_globals_and_an_overrides_line_on_error():
    # templates.render renders from the caller's context (no copies): the globals
    # are there unless the context names its own, and an error is still at its line.
    from site_builder.render.templates import render, theme_environment

    source = ("{% set n = namespace(total=0) %}{% for i in range(3) %}{% set n.total = n.total + i %}{% endfor %}"
              "{{ n.total }}|{{ cycler }}|{{ title }}\n{{ missing.deeper }}")
    themed = theme_environment({"x.html": (source, "templates/x.html")}, "digest-of-the-globals-test")
    template = themed.get_template("x.html")
    context = {"title": "<T>", "cycler": "mine", "missing": {"deeper": "ok"}}
    assert render(template, dict(context), {"x.html": (source, "templates/x.html")}) == \
        template.render(context) == "3|mine|&lt;T&gt;\nok"
    with pytest.raises(BuildFailed) as failed:
        render(template, {"title": "t", "cycler": "c"}, {"x.html": (source, "templates/x.html")})
    problem = failed.value.problems[0]
    assert (problem.path, problem.line) == ("templates/x.html", 2) and "UndefinedError" in problem.message


def test_blocks_written_joined_give_what_jinja_gives_and_errors_keep_their_lines():
    # templates._CodeGenerator joins each block's and each parent's output where
    # it ends instead of passing every value up: the same text as Jinja's own
    # code, for inheritance, super(), nested, scoped and looped blocks, and an
    # error inside a nested block still reported at its override's line.
    import jinja2

    from site_builder.render.templates import render, theme_environment

    sources = {
        "base.html": "<b>{% block outer %}[{% block inner %}i{% endblock %}]{% endblock %}"
                     "{% for x in xs %}{% block looped scoped %}({{ x }}){% endblock %}{% endfor %}</b>\n",
        "page.html": '{% extends "base.html" %}{% block inner %}<{{ super() }}{{ title }}>{% endblock %}'
                     "{% block looped %}{{ super() }}!{% endblock %}",
        "macro.html": '{% macro m() %}{% block mb %}in-macro{% endblock %}{% endmacro %}{{ m() }}|{% block tail %}t{% endblock %}',
        "broken.html": '{% extends "page.html" %}{% block inner %}ok\n{{ nope.deeper }}{% endblock %}',
    }
    overrides = {name: (source, f"templates/{name}") for name, source in sources.items()}
    ours = theme_environment(overrides, "digest-of-the-joined-blocks-test")
    plain = jinja2.Environment(loader=jinja2.DictLoader(sources), autoescape=True, undefined=jinja2.StrictUndefined,
                               keep_trailing_newline=True)
    for name in ("page.html", "macro.html"):
        values = {"title": "<T>", "xs": [1, 2]}
        assert render(ours.get_template(name), dict(values), overrides) == plain.get_template(name).render(values)
    assert "yield concat(context.blocks[" in ours.compile(sources["base.html"], "base.html", raw=True)
    assert "yield concat(parent_template.root_render_func(" in ours.compile(sources["page.html"], "page.html", raw=True)
    with pytest.raises(BuildFailed) as failed:
        render(ours.get_template("broken.html"), {"title": "t", "xs": []}, overrides)
    problem = failed.value.problems[0]
    assert (problem.path, problem.line) == ("templates/broken.html", 2) and "UndefinedError" in problem.message
