"""The cache and the fast path know a term's images: editing, adding or deleting
one renders again exactly the pages using it, and any sequence of edits gives
the bytes of a clean build."""

from __future__ import annotations

import io
import random
import shutil
from pathlib import Path

import pytest
from PIL import Image

from site_builder.build import BuildOptions, build_site
from site_builder.cache import bodies as body_cache
from site_builder.cache import pages as page_cache
from site_builder.errors import BuildFailed

from helpers import manifest, term, write_tree


def png(colour: tuple[int, int, int], width: int = 20, height: int = 10) -> bytes:
    data = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(data, "PNG")
    return data.getvalue()


def svg(fill: str, width: int = 100) -> bytes:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} 50">'
            f'<rect width="{width}" height="50" fill="{fill}"/></svg>').encode()


def make_site(root: Path) -> Path:
    return write_tree(root, {
        "terms/alpha.md": term("Alpha", "Uses the shared logo.", "Alpha text.\n\n![The logo](images/logo.png)\n"),
        "terms/beta/index.md": term("Beta", "A folder term.", "Beta text.\n\n![A flow](flow.svg)\n\n"
                                    "![The logo again](../images/logo.png)\n"),
        "terms/beta/flow.svg": svg("#eee"),
        "terms/gamma.md": term("Gamma", "No images.", "Gamma links to [[Alpha]] and [[Beta]].\n"),
        "terms/images/logo.png": png((200, 0, 0)),
    })


class Renders:
    """Which bodies and term pages a build rendered (not reused from the cache)."""

    def __init__(self, monkeypatch):
        self.bodies: set[str] = set()
        self.pages: set[str] = set()
        render_bodies, write_pages = body_cache.render_bodies, page_cache.write_pages

        def counting_bodies(terms, *args, **kwargs):
            self.bodies.update(t.slug for t in terms)
            return render_bodies(terms, *args, **kwargs)

        def counting_pages(*args, **kwargs):
            result = write_pages(*args, **kwargs)
            keys, kept = result[0], result[1]  # (page keys, reused paths, search entries)
            self.pages.update(p.split("/")[0] for p in keys if p.endswith("/index.html") and p not in kept)
            return result

        monkeypatch.setattr(body_cache, "render_bodies", counting_bodies)
        monkeypatch.setattr(page_cache, "write_pages", counting_pages)

    def build(self, content: Path, output: Path, **options) -> tuple[set[str], set[str]]:
        self.bodies, self.pages = set(), set()
        build_site(BuildOptions(content=content, output=output, jobs=1, **options))
        return self.bodies, self.pages


def clean_manifest(content: Path, tmp_path: Path) -> dict[str, str]:
    clean = tmp_path / "clean" / "out"
    shutil.rmtree(clean.parent, ignore_errors=True)
    build_site(BuildOptions(content=content, output=clean, cache=False, jobs=1))
    return manifest(clean)


def test_an_image_edit_renders_again_exactly_the_pages_using_it(tmp_path, monkeypatch):
    content = make_site(tmp_path / "content")
    output = tmp_path / "site" / "out"
    renders = Renders(monkeypatch)
    renders.build(content, output)
    assert renders.build(content, output) == (set(), set())
    (content / "terms/images/logo.png").write_bytes(png((0, 0, 200)))
    assert renders.build(content, output) == ({"alpha", "beta"}, {"alpha", "beta"})
    (content / "terms/beta/flow.svg").write_bytes(svg("#ddd", 120))
    assert renders.build(content, output) == ({"beta"}, {"beta"})
    (content / "terms/beta/flow.dark.svg").write_bytes(svg("#111"))  # a dark variant appears
    assert renders.build(content, output) == ({"beta"}, {"beta"})
    assert "-dark.svg" in (output / "beta/index.html").read_text()
    # serve's watcher reports the image alone: the term file is not in the set
    (content / "terms/beta/flow.dark.svg").unlink()
    changed = frozenset({str((content / "terms/beta/flow.dark.svg").absolute())})
    assert renders.build(content, output, changed=changed) == ({"beta"}, {"beta"})
    assert "<picture>" not in (output / "beta/index.html").read_text()
    assert manifest(output) == clean_manifest(content, tmp_path)


def test_deleting_a_used_image_fails_at_its_line_and_keeps_the_output(tmp_path):
    content = make_site(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build_site(BuildOptions(content=content, output=output, jobs=1))
    before = manifest(output)
    (content / "terms/images/logo.png").unlink()
    with pytest.raises(BuildFailed) as failed:
        build_site(BuildOptions(content=content, output=output, jobs=1))
    assert sorted((p.path.rsplit("terms/", 1)[1], p.line) for p in failed.value.problems) == [
        ("alpha.md", 7), ("beta/index.md", 9)]
    assert manifest(output) == before


def _recolour(content: Path, rng: random.Random) -> None:
    colour = tuple(rng.randrange(256) for _ in range(3))
    target = rng.choice(["logo", "flow", "extra"])
    if target == "logo":
        (content / "terms/images/logo.png").write_bytes(png(colour, rng.choice([20, 30])))
    elif target == "flow":
        (content / "terms/beta/flow.svg").write_bytes(svg("#%02x%02x%02x" % colour, rng.choice([100, 90])))
    else:
        (content / "terms/images/extra.png").write_bytes(png(colour))


def _toggle_dark(content: Path, rng: random.Random) -> None:
    dark = content / "terms/images/logo.dark.png" if rng.random() < 0.5 else content / "terms/beta/flow.dark.svg"
    if dark.exists():
        dark.unlink()
    else:
        dark.write_bytes(png((10, 10, 10)) if dark.suffix == ".png" else svg("#000"))


def _reference(content: Path, rng: random.Random) -> None:
    """Add or take away a reference to the extra image (which may be missing), or edit prose only."""
    path = content / rng.choice(["terms/alpha.md", "terms/gamma.md"])
    text = path.read_text()
    line = "\n![An extra picture](images/extra.png)\n"
    if line not in text:
        path.write_text(text + line)
    elif rng.random() < 0.5:
        path.write_text(text.replace(line, ""))
    else:
        path.write_text(text + f"\nMore prose {rng.randrange(1000)}.\n")


def _delete_extra(content: Path, rng: random.Random) -> None:
    (content / "terms/images/extra.png").unlink(missing_ok=True)


EDITS = [_recolour, _toggle_dark, _reference, _delete_extra]


def test_random_image_edits_give_the_bytes_of_a_clean_build(tmp_path):
    rng = random.Random(1)  # fixed: a failure replays
    content = make_site(tmp_path / "content")
    output = tmp_path / "site" / "out"
    build_site(BuildOptions(content=content, output=output, jobs=1))
    done, refused = [], 0
    for _step in range(14):
        edit = rng.choice(EDITS)
        edit(content, rng)
        done.append(edit.__name__)
        before = manifest(output)
        try:
            build_site(BuildOptions(content=content, output=output, jobs=1))
        except BuildFailed as failed:  # a deleted image still used: refused, nothing written
            assert all("no such file" in p.message for p in failed.problems), (done, failed.problems)
            assert manifest(output) == before
            refused += 1
            (content / "terms/images/extra.png").write_bytes(png((1, 2, 3)))
            build_site(BuildOptions(content=content, output=output, jobs=1))
        assert manifest(output) == clean_manifest(content, tmp_path), done
    assert refused and set(done) == {edit.__name__ for edit in EDITS}  # the seed exercises every kind of edit
