"""Images and linked files beside the prose (load/media.py, markup/images.py):
published under content hashes, sized, checked at their line."""

from __future__ import annotations

import io
import os
import random
import re
from pathlib import Path

import pytest
from PIL import Image

from site_builder.build import BuildOptions, build_site
from site_builder.errors import BuildFailed
from site_builder.load.media import published_name, read_published, svg_size
from site_builder.outputs.search_text import body_sections

from helpers import manifest, term, write_tree

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><rect width="200" height="100"/></svg>'
DARK_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><rect width="200" height="100" fill="#fff"/></svg>'


FRAME_SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" width="10" '
             b'height="10"><h:frame src="javascript:parent.document.title=\'X\'"/></svg>')
"""Confirmed in Chromium to run script when opened directly (the old deny-list passed it)."""


def png(width: int, height: int, noise: bool = False) -> bytes:
    image = Image.new("RGB", (width, height), (200, 40, 40))
    if noise:  # incompressible: a file over 100 KB
        image = Image.frombytes("RGB", (width, height), random.Random(7).randbytes(width * height * 3))
    data = io.BytesIO()
    image.save(data, "PNG")
    return data.getvalue()


def site(root: Path, extra: dict | None = None) -> Path:
    files = {
        "terms/api/index.md": term("API", "An interface.", "Intro.\n\n![Request flow](flow.svg)\n\n"
                                   "[The data](data.csv) and ![Shared logo](../images/logo.png)\n\n"
                                   "```\n![in code](nothere.png)\n```\n\n![A big photo](photo.png)\n"),
        "terms/api/flow.svg": SVG,
        "terms/api/flow.dark.svg": DARK_SVG,
        "terms/api/data.csv": "a,b\n1,2\n",
        "terms/api/photo.png": png(300, 300, noise=True),
        "terms/images/logo.png": png(40, 30),
        "terms/token.md": term("Token", "A piece of text.", "A [[API]] call.\n\n![Token logo](images/logo.png)\n"),
        **(extra or {}),
    }
    return write_tree(root / "content", files)


def build(content: Path, **options) -> Path:
    output = content.parent / "out"
    build_site(BuildOptions(content=content, output=output, jobs=1, **options))
    return output


def test_a_folder_term_and_a_file_term_show_their_images_published_by_hash_and_sized(tmp_path):
    output = build(site(tmp_path))
    api = (output / "api" / "index.html").read_text()
    logo = (output / "token" / "index.html").read_text()
    media = sorted(os.listdir(output / "media"))
    assert sorted(re.sub(r"\.[0-9a-f]{10}", ".H", name) for name in media) == [
        "data.H.csv", "flow.H-dark.svg", "flow.H.svg", "logo.H.png", "photo.H.png"]
    flow = next(n for n in media if n.startswith("flow.") and "-dark" not in n)
    assert (output / "media" / flow).read_bytes() == SVG
    dark = next(n for n in media if "-dark" in n)
    assert (f'<picture><source media="(prefers-color-scheme: dark)" srcset="../media/{dark}">'
            f'<img alt="Request flow" height="100" src="../media/{flow}" width="200"></picture>') in api
    csv = next(n for n in media if n.startswith("data."))
    assert f'<a href="../media/{csv}">The data</a>' in api
    shared = next(n for n in media if n.startswith("logo."))
    assert f'<img alt="Shared logo" height="30" src="../media/{shared}" width="40">' in api
    assert f'<img alt="Token logo" height="30" src="../media/{shared}" width="40">' in logo
    photo = re.search(r'<img alt="A big photo"[^>]*>', api).group()
    assert 'loading="lazy"' in photo and 'decoding="async"' in photo and 'width="300"' in photo
    assert "loading" not in re.search(r'<img alt="Shared logo"[^>]*>', api).group()  # 40x30: not lazy
    assert "nothere" in api and "nothere" not in " ".join(media)  # only written in code: shown, never looked for


def test_alt_text_is_searched_with_the_term(tmp_path):
    output = build(site(tmp_path))
    body = (output / "api" / "index.html").read_text()
    assert "Request flow" in " ".join(body_sections(body, []))
    shards = " ".join(p.read_text(errors="replace") for p in (output / "search").rglob("*") if p.is_file())
    assert "request" in shards.lower()


def test_an_edited_image_gets_a_new_name_and_the_old_one_goes(tmp_path):
    content = site(tmp_path)
    output = build(content)
    before = set(os.listdir(output / "media"))
    (content / "terms" / "images" / "logo.png").write_bytes(png(50, 30))
    build(content)
    after = set(os.listdir(output / "media"))
    assert len(before - after) == 1 and len(after - before) == 1
    assert 'width="50"' in (output / "token" / "index.html").read_text()


def test_two_folder_terms_are_named_after_their_folders(tmp_path):
    content = write_tree(tmp_path / "content", {
        "terms/alpha/index.md": term("Alpha", "First.", "See [[Beta]]."),
        "terms/beta/index.md": term("Beta", "Second."),
        "terms/index.md": term("Index", "A top-level index.md keeps its name."),
    })
    output = build(content)
    assert (output / "alpha" / "index.html").exists() and (output / "beta" / "index.html").exists()
    assert (output / "index" / "index.html").exists()


def test_a_folder_whose_name_is_not_a_slug_is_refused(tmp_path):
    content = write_tree(tmp_path / "content", {"terms/My Term/index.md": term("Mine", "Bad folder.")})
    with pytest.raises(BuildFailed) as failed:
        build(content)
    assert any("folder name 'My Term'" in p.message and p.line == 1 for p in failed.value.problems)


HOSTILE = {
    "missing": ("![Gone](gone.png)", "no such file"),
    "escapes": ("![Secret](../../../etc/passwd.png)", "leaves the content folder"),
    "absolute": ("![Root](/images/logo.png)", "is absolute"),
    "symlink": ("![Linked](outside.png)", "leads outside the content folder"),
    "script": ("![Scripted](script.svg)", "SVG holds <script>"),
    "handler": ("![Handled](handler.svg)", "event handler (onload=)"),
    "external": ("![External](external.svg)", "refers outside itself"),
    "entity": ("![Entity](entity.svg)", "DOCTYPE"),
    "xhtml frame": ("![Frame](frame.svg)", "SVG holds <frame> from namespace 'http://www.w3.org/1999/xhtml'"),
    "stylesheet pi": ("![Styled](styled.svg)", "processing instruction"),
    "utf-16 entity": ("![Wide](wide.svg)", "DOCTYPE"),
    "unicode width": ('![Flow](flow.svg){: width="\u00b2"}', "image flow.svg: width='\u00b2' must be a whole number"),
    "huge width": ("![Flow](flow.svg){: width=" + "9" * 350 + "}", "must be a whole number of pixels"),
    "too big": ("![Huge](huge.png)", "huge.png: 0.19 MB is over the limit of 0.1 MB (media_max_mb"),
    "remote": ("![Remote](https://example.org/cat.png)", "remote image https://example.org/cat.png: the site makes "
               "no outside requests; download it beside the term (curl -o cat.png"),
    "page type": ("[A page](page.html)", "a file that is not a term"),
    "not an image": ("![Data](data.csv)", "data.csv is not an image"),
    "broken": ("![Broken](broken.png)", "not a readable PNG image"),
    "nul": ("![Nul](a%00b.png)", "no such file beside the term"),
    "unsized": ("![Unsized](unsized.svg)", "SVG has no width and height or viewBox"),
    "dark script": ("![Dark](moon.svg)", "its dark variant"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_files_are_refused_at_their_line_and_the_output_is_untouched(tmp_path, case):
    written, message = HOSTILE[case]
    outside = tmp_path / "secret.png"
    outside.write_bytes(png(4, 4))
    content = site(tmp_path)
    output = build(content)
    before = manifest(output)
    if case == "too big":
        (content / "site.toml").write_text("media_max_mb = 0.1\n")  # the 270 KB photo is over it too
    folder = content / "terms" / "api"
    files = {
        "script.svg": SVG.replace(b"<rect", b"<script>alert(1)</script><rect"),
        "handler.svg": SVG.replace(b"<svg ", b'<svg onload="alert(1)" '),
        "external.svg": SVG.replace(b"<rect", b'<use href="https://example.org/x.svg#a"/><rect'),
        "entity.svg": b'<!DOCTYPE svg [<!ENTITY x "y">]>' + SVG,
        "frame.svg": FRAME_SVG,
        "styled.svg": b'<?xml-stylesheet href="https://example.org/x.css"?>' + SVG,
        "wide.svg": ('<!DOCTYPE svg [<!ENTITY x "y">]>' + SVG.decode()).encode("utf-16"),
        "huge.png": png(10, 10) + b"\0" * 200_000,
        "page.html": "<script>alert(1)</script>",
        "broken.png": b"not a png",
        "unsized.svg": b'<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>',
    }
    for name, data in files.items():
        (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    (folder / "moon.svg").write_bytes(SVG)
    (folder / "moon.dark.svg").write_bytes(files["script.svg"])
    os.symlink(outside, folder / "outside.png")
    path = folder / "index.md"
    text = path.read_text()
    path.write_text(text + "\nMore prose.\n\n" + written + "\n")
    line = text.count("\n") + 4
    with pytest.raises(BuildFailed) as failed:
        build(content)
    problems = [p for p in failed.value.problems if message in p.message]
    assert [(p.path.endswith("terms/api/index.md"), p.line) for p in problems] == [(True, line)], failed.value.problems
    assert manifest(output) == before


def test_missing_alt_text_is_a_warning_and_an_error_under_strict(tmp_path):
    content = site(tmp_path, {"terms/alt.md": term("Alt", "No alt.", "Text.\n\n![](images/logo.png)\n")})
    log: list[str] = []
    report = build_site(BuildOptions(content=content, output=tmp_path / "out", jobs=1), log.append)
    assert [(p.line, p.severity) for p in report.warnings if "no alt text" in p.message] == [(7, "warning")]
    with pytest.raises(BuildFailed):
        build(content, strict=True)


@pytest.mark.parametrize("svg, size", [
    (b'<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"/>', (120, 40)),
    (b'<svg xmlns="http://www.w3.org/2000/svg" width="1in" height="72pt"/>', (96, 96)),
    (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30.4 10"/>', (30, 10)),
    (b'<svg xmlns="http://www.w3.org/2000/svg" width="60" viewBox="0,0,30,10"/>', (60, 20)),
    (b'<svg xmlns="http://www.w3.org/2000/svg" width="100%" height="100%" viewBox="0 0 8 4"/>', (8, 4)),
])
def test_an_svg_is_sized_by_its_width_and_height_else_its_viewbox(svg, size):
    assert svg_size(svg) == (*size, "")


@pytest.mark.parametrize("svg", [
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><a href="javascript:alert(1)"/></svg>',
    b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:x="http://www.w3.org/1999/xlink" viewBox="0 0 1 1">'
    b'<use x:href="other.svg#a"/></svg>',
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect fill="url(https://x.org/a#b)"/></svg>',
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><style>@import "x.css";</style></svg>',
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><foreignObject/></svg>',
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><set attributeName="href" to="javascript:x"/></svg>',
])
def test_an_svg_that_could_run_or_fetch_anything_is_refused(svg):
    assert svg_size(svg)[2]


def _svg(inner: str, attributes: str = "") -> bytes:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" '
            f'xmlns:x="http://www.w3.org/1999/xlink" viewBox="0 0 1 1"{attributes}>{inner}</svg>').encode()


OFF_THE_ALLOW_LIST = {
    "xhtml frame": (FRAME_SVG, "<frame>"),
    "xhtml img": (_svg('<h:img src="http://evil.example/x.png"/>'), "<img>"),
    "xhtml meta refresh": (_svg('<h:meta http-equiv="refresh" content="0;url=http://evil.example"/>'), "<meta>"),
    "svg image": (_svg('<image href="#a"/>'), "<image>"),
    "feImage": (_svg('<filter><feImage href="#a"/></filter>'), "<feImage>"),
    "no namespace element": (_svg('<g xmlns=""><frame/></g>'), "<g>"),
    "script in metadata": (_svg('<metadata><h:script>alert(1)</h:script></metadata>'), "<script>"),
    "svg script in inkscape element": (
        _svg('<i:x xmlns:i="http://www.inkscape.org/namespaces/inkscape"><script>alert(1)</script></i:x>'),
        "<script>"),
    "srcset": (_svg('<rect srcset="http://evil.example/x.png"/>'), "srcset="),
    "poster": (_svg('<rect poster="http://evil.example/x.png"/>'), "poster="),
    "data": (_svg('<rect data="http://evil.example/x"/>'), "data="),
    "background": (_svg('<rect background="http://evil.example/x.png"/>'), "background="),
    "formaction": (_svg('<a formaction="javascript:x"/>'), "formaction="),
    "action": (_svg('<g action="http://evil.example/"/>'), "action="),
    "target": (_svg('<a href="#a" target="_top"/>'), "target="),
    "xml:base": (_svg('<g xml:base="http://evil.example/"/>'), "xml:base"),
    "xlink:show": (_svg('<a x:href="#a" x:show="new"/>'), "xlink:show"),
    "xlink href outside": (_svg('<use x:href="other.svg#a"/>'), "refers outside itself"),
    "handler in any case": (_svg('<rect ONCLICK="alert(1)"/>'), "event handler"),
    "animated href": (_svg('<a href="#a"><set attributeName="x:href" to="javascript:x"/></a>'), "animates"),
    "animated unknown": (_svg('<set attributeName="formaction" to="javascript:x"/>'), "animates"),
    "root outside the svg namespace": (b'<svg viewBox="0 0 1 1"/>', "SVG namespace"),
    "xml-stylesheet": (b'<?xml-stylesheet type="text/css" href="https://evil.example/x.css"?>' + _svg(""),
                       "processing instruction"),
    "pi inside": (_svg('<?xml-stylesheet href="x.css"?>'), "processing instruction"),
    "utf-16 doctype": (('<!DOCTYPE svg [<!ENTITY e SYSTEM "http://evil.example/">]>' + _svg("").decode())
                       .encode("utf-16"), "DOCTYPE"),
    "utf-16 plain doctype": (("<!DOCTYPE svg>" + _svg("").decode()).encode("utf-16-le").join([b"\xff\xfe", b""]),
                             "DOCTYPE"),
    "uppercase URL(": (_svg('<rect fill="URL(https://evil.example/a#b)"/>'), "url()"),
    "unclosed url(": (_svg('<rect fill="url(https://evil.example/a"/>'), "url()"),
    "src(": (_svg('<rect fill="src(\'https://evil.example/a\')"/>'), "url()"),
    "css escape": (_svg('<rect style="fill:\\75rl(https://evil.example/a)"/>'), "backslash"),
    "css escape in style sheet": (_svg('<style>rect { fill: \\75rl(https://evil.example/a) }</style>'), "backslash"),
    "image-set": (_svg('<rect style="fill: image-set(\'https://evil.example/a\' 1x)"/>'), "image-set"),
    "uppercase @IMPORT": (_svg('<style>@IMPORT "https://evil.example/x.css";</style>'), "@import"),
    "url in style sheet": (_svg('<style>rect { fill: url( "https://evil.example/a" ) }</style>'), "url()"),
    "url split by a child": (_svg('<style>rect { fill: u<tspan/>rl(https://evil.example/a) }</style>'), "url()"),
}


@pytest.mark.parametrize("case", list(OFF_THE_ALLOW_LIST))
def test_an_svg_off_the_allow_list_is_refused(case):
    svg, message = OFF_THE_ALLOW_LIST[case]
    width, height, problem = svg_size(svg)
    assert message.lower() in problem.lower(), problem
    assert (width, height) == (0, 0)


def test_an_editors_svg_with_metadata_and_inert_namespaces_is_accepted():
    svg = (b'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!-- made by hand -->\n'
           b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
           b'xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" '
           b'xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" '
           b'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/" '
           b'xmlns:cc="http://creativecommons.org/ns#" width="40" height="20" xml:space="preserve" '
           b'sodipodi:docname="d.svg" inkscape:version="1.2">'
           b'<sodipodi:namedview id="nv" pagecolor="#ffffff" inkscape:zoom="1"/>'
           b'<metadata><rdf:RDF><cc:Work rdf:about=""><dc:title>D</dc:title>'
           b'<cc:license rdf:resource="http://creativecommons.org/licenses/by/4.0/"/></cc:Work></rdf:RDF></metadata>'
           b'<defs><linearGradient id="g"><stop offset="0" stop-color="#000"/></linearGradient>'
           b'<filter id="f"><feGaussianBlur stdDeviation="1"/></filter></defs>'
           b'<style>.a { fill: url(#g); stroke: url( \'#g\' ) }</style>'
           b'<g inkscape:label="Layer" inkscape:groupmode="layer" class="a" aria-label="x">'
           b'<rect width="10" height="10" fill="url(#g)" filter="url(#f)" style="stroke-width:2"/>'
           b'<use x:href="#g" xmlns:x="http://www.w3.org/1999/xlink"/><a href="#g"><text>t</text></a>'
           b'<animate attributeName="opacity" from="0" to="1" dur="1s"/></g></svg>')
    assert svg_size(svg) == (40, 20, "")
    assert svg_size(svg.replace(b"UTF-8", b"UTF-16").decode().encode("utf-16")) == (40, 20, "")


def test_an_svg_referring_only_inside_itself_is_accepted():
    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><defs><linearGradient id="g"/></defs>'
           b'<rect fill="url(#g)"/><use href="#g"/></svg>')
    assert svg_size(svg) == (1, 1, "")


def test_a_term_may_name_an_image_as_its_social_preview(tmp_path):
    chosen = png(1200, 630)
    content = site(tmp_path, {
        "terms/token.md": term("Token", "A piece of text.", "Text.\n", preview_image="card.png"),
        "terms/card.png": chosen,
        "site.toml": 'base_url = "https://example.org/glossary/"\n',
    })
    output = build(content)
    assert (output / "token" / "preview.png").read_bytes() == chosen
    assert (output / "api" / "preview.png").read_bytes() != chosen  # the drawn card
    assert 'content="https://example.org/glossary/token/preview.png"' in (output / "token" / "index.html").read_text()
    (content / "terms" / "card.png").write_bytes(png(600, 315))
    with pytest.raises(BuildFailed) as failed:
        build(content)
    assert [(p.line, p.message) for p in failed.value.problems] == [
        (4, "preview_image 'card.png' is 600x315: a social preview must be 1200x630 (the size its og:image tags announce)")]


def test_a_width_set_by_hand_keeps_the_files_proportions(tmp_path):
    content = site(tmp_path, {"terms/token.md": term("Token", "Text.", "![A flow](api/flow.svg){: width=100 }\n")})
    html = (build(content) / "token" / "index.html").read_text()
    assert re.search(r'<img alt="A flow" height="50" src="../media/flow\.[0-9a-f]{10}\.svg" width="100">', html), html


def test_a_folder_term_and_a_file_term_of_one_name_are_a_duplicate_slug(tmp_path):
    content = write_tree(tmp_path / "content", {"terms/api.md": term("A", "File."),
                                                "terms/api/index.md": term("B", "Folder.")})
    with pytest.raises(BuildFailed) as failed:
        build(content)
    [problem] = failed.value.problems
    assert problem.path.endswith("terms/api/index.md") and problem.message.startswith("duplicate slug 'api'")


def test_a_published_file_is_read_only_under_its_exact_hash(tmp_path):
    path = tmp_path / "flow.svg"
    path.write_bytes(SVG)
    name = published_name("flow.svg", SVG)
    digest = name.split(".")[1]
    assert read_published(str(path), name) == SVG
    assert read_published(str(path), published_name("flow.svg", SVG, "-dark")) == SVG
    for wrong in (f"{digest}.0000000000.svg", f"flow.{digest}0.svg", f"flow.x{digest}.svg"):  # the hash as a substring
        with pytest.raises(BuildFailed):
            read_published(str(path), wrong)
