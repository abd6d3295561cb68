"""Broken content never crashes, hangs or half-writes the build.

Every case, generated (hypothesis) or hand-made, must end in one of two ways:

- a correct site: exit status 0, a page for every term; or
- exit status 1 with ``path:line: message`` problems on stderr, and the
  previous output/ byte-identical to what it was.

Never a traceback, never a hang (each build runs under a time limit), never
a staging folder left behind. Hypothesis cases build in-process (fast); the
hand-made pathological ones also run through the real CLI in a subprocess.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import traceback
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from site_builder.cli import main
from site_builder.load.content import MAX_FILE_BYTES

from helpers import REPO, manifest, write_tree

BUILD_SECONDS = 30
"""No single case may take longer (the slowest hand-made ones take a few seconds)."""

PROBLEM_RE = re.compile(r"^.+:\d+: (warning: )?\S.*$")
SUMMARY_RE = re.compile(r"^error: \d+ problem\(s\); nothing was written$")

GOOD = "---\ntitle: Good\nsummary: A valid term.\n---\nA body with a [[Good]] link.\n"
CONFIG = "previews = false\n"

SCRATCH = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else None
"""Where the generated cases' sites are made: a memory file system when there is
one. A case is a copy, a two-term build and a removal; on ext4 the folders'
creation and removal took three quarters of its time (0.215 s a case against
0.06 s on tmpfs, ~700 cases). The contract checked is the same on both (the
staging folder, the swap and the old tree are all on the one file system)."""

FUZZ = settings(max_examples=100, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- running one case ------------------------------------------------------------

class Site:
    """A content folder with a good site already built, to break and rebuild."""

    _template: Path | None = None

    def __init__(self, root: Path):
        self.root = root
        self.content = root / "content"
        self.output = root / "site" / "output"
        shutil.copytree(self.template(), root, dirs_exist_ok=True, symlinks=True)
        self.before = manifest(self.output)

    @classmethod
    def template(cls) -> Path:
        """The good site, built once per session and copied for each case (fast)."""
        if cls._template is None:
            root = Path(tempfile.mkdtemp(prefix="hardening-template-", dir=SCRATCH))
            atexit.register(shutil.rmtree, root, True)  # in memory: not left behind
            write_tree(root / "content", {"site.toml": CONFIG, "terms/good.md": GOOD})
            status, _, err = build_in_process(root / "content", root / "site" / "output")
            assert status == 0, err
            cls._template = root
        return cls._template

    def replace_terms(self, files: dict[str, str | bytes]) -> None:
        shutil.rmtree(self.content / "terms")
        (self.content / "terms").mkdir()
        write_tree(self.content / "terms", files)


def build_in_process(content: Path, output: Path, *extra: str) -> tuple[int, str, str]:
    """Run ``main(["build", ...])`` in a thread with a time limit; fail on a hang or an exception."""
    result: dict = {}

    def run() -> None:
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                result["status"] = main(["build", "--quiet", "--content", str(content), "--output", str(output), *extra])
        except BaseException:  # noqa: BLE001 - any escape is the failure we look for
            result["crash"] = traceback.format_exc()
        result["out"], result["err"] = out.getvalue(), err.getvalue()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(BUILD_SECONDS)
    assert not worker.is_alive(), f"build still running after {BUILD_SECONDS} s: a hang"
    assert "crash" not in result, result["crash"]
    return result["status"], result["out"], result["err"]


def check_outcome(site: Site, status: int, err: str, slugs: set[str] | None = None) -> None:
    """The contract every case must meet."""
    assert "Traceback" not in err, err
    lines = [line for line in err.split("\n") if line]  # not splitlines(): names may hold \x1c-\x1e, U+2028
    if status == 0:
        assert all(PROBLEM_RE.match(line) and ": warning: " in line for line in lines), err
        assert (site.output / "index.html").is_file()
        for slug in slugs or ():
            assert (site.output / slug / "index.html").is_file(), slug
    else:
        assert status == 1, (status, err)
        assert lines and SUMMARY_RE.match(lines[-1]) or lines[-1].startswith("error: "), err
        problems = lines[:-1] if SUMMARY_RE.match(lines[-1]) else lines
        assert problems, err
        for line in problems:
            assert PROBLEM_RE.match(line) or line.startswith("error: ") or whole_path_problem(line), \
                f"not path:line: message: {line!r}"
        assert manifest(site.output) == site.before, "a failed build changed output/"
    assert not list(site.output.parent.glob(f".{site.output.name}.staging-*")), "staging folder left behind"


def whole_path_problem(line: str) -> bool:
    """``path: message`` without a line is right only for a path no line can be in:
    a folder, or a file that is missing or cannot be read as one (a FIFO, a device...)."""
    at = line.find(": ")
    while at > 0:
        path = Path(line[:at])
        if path.is_dir() or not path.exists() or not path.is_file():
            return bool(line[at + 2:].strip())
        at = line.find(": ", at + 1)
    return False


def run_case(files: dict[str, str | bytes], slugs: set[str] | None = None) -> tuple[int, str]:
    with tempfile.TemporaryDirectory(prefix="hardening-", dir=SCRATCH) as tmp:
        site = Site(Path(tmp))
        site.replace_terms(files)
        status, _, err = build_in_process(site.content, site.output)
        check_outcome(site, status, err, slugs)
        return status, err


def run_cli_case(tmp_path: Path, files: dict[str, str | bytes], timeout: float = BUILD_SECONDS) -> tuple[int, str]:
    """The same contract through the real command, in a subprocess."""
    site = Site(tmp_path)
    site.replace_terms(files)
    result = subprocess.run(
        [sys.executable, "-m", "site_builder", "build", "--quiet", "--content", str(site.content), "--output", str(site.output)],
        cwd=REPO, capture_output=True, text=True, timeout=timeout,
    )
    check_outcome(site, result.returncode, result.stderr)
    return result.returncode, result.stderr


def front(title: str = "T", summary: str = "S.", **extra) -> str:
    return yaml.safe_dump({"title": title, "summary": summary, **extra}, allow_unicode=True, sort_keys=False)


def term_file(front_matter: str, body: str) -> str:
    return f"---\n{front_matter}---\n{body}"


# --- generated cases ------------------------------------------------------------------

yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30) | st.dates(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
keys = st.sampled_from(["title", "summary", "aliases", "related", "explainer", "titel", "Title", ""]) | st.text(max_size=10)


@FUZZ
@given(st.dictionaries(keys, yaml_values, max_size=6))
def test_random_front_matter_values(meta):
    text = yaml.safe_dump(meta, allow_unicode=True) if meta else ""
    run_case({"good.md": GOOD, "fuzz.md": term_file(text, "Body.\n")})


@FUZZ
@given(st.text(max_size=300))
def test_random_front_matter_text(front_text):
    run_case({"good.md": GOOD, "fuzz.md": f"---\n{front_text}\n---\nBody.\n"})


MARKDOWN_TOKENS = [
    "[", "]", "(", ")", "[[", "]]", "[[Good]]", "[[Good|g]]", "[[nope]]", "[[Good#x]]", "good.md", "good.md#top",
    "![", "](", "<", ">", "> ", "- ", "* ", "1. ", "    ", "\t", "#", "## ", "**", "*", "_", "__", "`", "```", "~~~",
    "$", "$$", "\\", "\\[", "|", "| a | b |\n|---|---|\n", "---", "[^1]", "[^1]: ", "{: #id .c}", "{:", "&", "&amp;",
    "&#0;", "<div>", "</div>", "<script>", "</script>", "<!--", "-->", "]]>", "{{ x }}", "{% x %}", "\u2028", "\u2029",
    "\ufeff", "\u200b", "é", "日本", "🙂", "\r", "\n", "\n\n", " ", "word", "http://example.org", "<http://x>",
    "javascript:alert(1)", "[a](javascript:x)", "[a]: b", "\\frac{", "}", "{", "\\alpha", "x^2", "\\unknown", "_{",
]


@FUZZ
@given(st.lists(st.sampled_from(MARKDOWN_TOKENS) | st.text(max_size=5), max_size=80))
def test_random_markdown_body(tokens):
    run_case({"good.md": GOOD, "fuzz.md": term_file(front("Fuzz"), "".join(tokens) + "\n")})


LATEX_TOKENS = ["\\frac", "{", "}", "^", "_", "x", "2", "\\alpha", "\\sum", "\\left(", "\\right)", "\\begin{matrix}",
                "\\end{matrix}", "&", "\\\\", "\\sqrt", "[", "]", "\\text{", "\\mathbb{R}", "\\nope", "\\", " ", "$", "%", "#"]


@FUZZ
@given(st.lists(st.sampled_from(LATEX_TOKENS), min_size=1, max_size=30), st.booleans())
def test_random_latex(tokens, display):
    latex = "".join(tokens)
    body = f"$$\n{latex}\n$$\n" if display else f"Inline ${latex}$ maths.\n"
    run_case({"good.md": GOOD, "fuzz.md": term_file(front("Maths"), body)})


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes_as_a_whole_file(data):
    run_case({"good.md": GOOD, "fuzz.md": data})


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_in_the_body(data):
    run_case({"good.md": GOOD, "fuzz.md": term_file(front("Bytes"), "").encode() + data})


name_chars = st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",))


@FUZZ
@given(st.text(name_chars, min_size=1, max_size=40))
def test_odd_file_names(stem):
    name = f"{stem}.md"
    if len(os.fsencode(name)) > 255 or stem in (".", ".."):
        return
    status, err = run_case({"good.md": GOOD, name: term_file(front("Odd"), "Body.\n")})
    if status == 0:  # only a valid slug makes a page, and then it is the stem
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", stem)
    else:
        assert "not a valid slug" in err or "duplicate" in err, err


# --- hand-made pathological cases -------------------------------------------------------

def _nested_list(depth: int, indent: int = 2) -> str:
    return "".join(" " * (indent * i) + "- item\n" for i in range(depth))


PATHOLOGICAL = {
    "10,000 nested list items on one line": "- " * 10_000 + "x\n",
    "1,000 nested list items, indented": _nested_list(1000),
    "deep blockquote >>>>> x 10,000": ">" * 10_000 + " deep\n",
    "blockquote ramp to 300 deep": "".join(">" * i + " x\n" for i in range(1, 300)),
    "50,000 unclosed [": "[" * 50_000 + "\n",
    "25,000 nested [ ] around a link": "[" * 25_000 + "x" + "]" * 25_000 + "(good.md)\n",
    "20,000 unclosed link targets [x](": "[x](" * 20_000 + "\n",
    "100,000 [[": "[[" * 100_000 + "\n",
    "100 [ in a 400 KB paragraph": ("[" + "a b " * 1000) * 100 + "\n",
    "emphasis bomb": "*" * 50_000 + "x" + "*" * 50_000 + "\n",
    "underscore bomb": "_a" * 50_000 + "\n",
    "backtick bomb": "`" * 100_000 + "\n",
    "angle bracket bomb": "<" * 100_000 + "a\n",
    "10,000 nested <div>": "<div>" * 10_000 + "\n",
    "10,000 footnotes": "".join(f"x[^{i}] " for i in range(10_000)) + "\n\n" + "".join(f"[^{i}]: n\n" for i in range(10_000)),
    "deep LaTeX braces": "$" + "{" * 5_000 + "x" + "}" * 5_000 + "$\n",
    "deep LaTeX fractions": "$$" + "\\frac{1}{" * 2_000 + "x" + "}" * 2_000 + "$$\n",
    "unclosed display maths": "$$\n\\frac{1}{2}\n" + "x\n" * 1000,
    "200,000 dollar signs": "$ " * 200_000 + "\n",
    "table with 2,000 columns": "|" + "a|" * 2000 + "\n|" + "-|" * 2000 + "\n|" + "b|" * 2000 + "\n",
    "unterminated fence": "```\n" + "code\n" * 10_000,
    "2 MB of words, just under the limit": ("word " * 20 + "\n\n") * 19_900,
}


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_pathological_markdown(name):
    run_case({"good.md": GOOD, "bad.md": term_file(front("Bad"), PATHOLOGICAL[name])})


@pytest.mark.parametrize("name", ["10,000 nested list items on one line", "50,000 unclosed [", "25,000 nested [ ] around a link"])
def test_pathological_markdown_through_the_cli(tmp_path, name):
    status, err = run_cli_case(tmp_path, {"good.md": GOOD, "bad.md": term_file(front("Bad"), PATHOLOGICAL[name])})
    assert status == 1 and re.search(r"bad\.md:\d+: ", err), err


PATHOLOGICAL_FRONT = {
    "10,000 nested YAML lists": "title: T\nsummary: S\nextra: " + "[" * 10_000 + "]" * 10_000 + "\n",
    "5,000 nested YAML mappings": "title: T\nsummary: S\nextra: " + "{a: " * 5_000 + "1" + "}" * 5_000 + "\n",
    "indented YAML 2,000 deep": "title: T\nsummary: S\nextra:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 2000)),
    "billion laughs (anchors)": "title: T\nsummary: S\n" + "a0: &a0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 10)),
    "python object tag": "title: !!python/object/apply:os.system ['true']\nsummary: S\n",
    "title is a list": "title: [a, b]\nsummary: S\n",
    "title is a date": "title: 2024-01-01\nsummary: S\n",
    "summary 1 MB": "title: T\nsummary: " + "long " * 200_000 + "\n",
    "title 300 KB without spaces": "title: " + "x" * 300_000 + "\nsummary: S\n",
    "duplicate keys": "title: A\ntitle: B\nsummary: S\n",
    "unhashable key": "? [a]\n: b\ntitle: T\nsummary: S\n",
    "tabs": "title:\tT\nsummary: S\n",
    "unknown explainer": "title: T\nsummary: S\nexplainer: nope\n",
    "explainer is a list": "title: T\nsummary: S\nexplainer: [a]\n",
    "related to itself and to nothing": "title: T\nsummary: S\nrelated: [bad, nothing]\n",
    "alias clashes with another title": "title: T\nsummary: S\naliases: [Good]\n",
}


@pytest.mark.parametrize("name", list(PATHOLOGICAL_FRONT))
def test_pathological_front_matter(name):
    run_case({"good.md": GOOD, "bad.md": f"---\n{PATHOLOGICAL_FRONT[name]}---\nBody.\n"})


RAW_FILES = {
    "empty file": b"",
    "only a BOM": b"\xef\xbb\xbf",
    "no closing ---": b"---\ntitle: T\nsummary: S\nBody\n",
    "not UTF-8 (Latin-1)": "---\ntitle: Caf\xe9\nsummary: S\n---\n".encode("latin-1"),
    "UTF-16 with BOM": "---\ntitle: T\nsummary: S\n---\nx\n".encode("utf-16"),
    "NUL byte in the body": b"---\ntitle: T\nsummary: S\n---\nx\x00y\n",
    "lone surrogate bytes": b"---\ntitle: T\nsummary: S\n---\n\xed\xa0\x80\n",
    "CR line endings": b"---\rtitle: T\rsummary: S\r---\rBody\r",
    "over the size limit": b"---\ntitle: T\nsummary: S\n---\n" + b"x" * (MAX_FILE_BYTES + 1),
    "control characters": b"---\ntitle: T\x07\x1b[31m\nsummary: S\n---\nx\n",
}


@pytest.mark.parametrize("name", list(RAW_FILES))
def test_raw_files(name):
    run_case({"good.md": GOOD, "bad.md": RAW_FILES[name]})


def test_odd_names_are_clear_errors(tmp_path):
    names = ["Upper.md", "with space.md", ".hidden.md", "..md", "a..md", "-lead.md", "trail-.md", "double--hyphen.md",
             "café.md", "日本.md", "a_b.md", "a.b.md", "\u2028.md", "emoji🙂.md"]
    status, err = run_cli_case(tmp_path, {"good.md": GOOD, **{n: term_file(front("Odd " + n), "x\n") for n in names}})
    assert status == 1
    for name in names:
        assert f"{name!r} is not a valid slug" in err or f"'{name}' is not a valid slug" in err, (name, err)


def test_a_term_in_a_subfolder_and_a_folder_named_like_a_term(tmp_path):
    status, _ = run_cli_case(tmp_path, {"good.md": GOOD, "nested/deeper/other.md": term_file(front("Other"), "x\n")})
    assert status == 0
    (tmp_path / "content" / "terms" / "folder.md").mkdir()
    assert build_in_process(tmp_path / "content", tmp_path / "site" / "output")[0] == 0


def test_symlinks_out_of_content_are_refused(tmp_path):
    outside = tmp_path / "outside"
    write_tree(outside, {"secret.md": term_file(front("Secret", "SECRET-SUMMARY"), "SECRET-BODY\n")})
    site = Site(tmp_path / "case")
    terms = site.content / "terms"
    (terms / "leak.md").symlink_to(outside / "secret.md")
    (terms / "leakdir").symlink_to(outside)
    (terms / "zero.md").symlink_to("/dev/zero")
    (terms / "loop.md").symlink_to("loop.md")
    (terms / "dangling.md").symlink_to("nowhere.md")
    os.mkfifo(terms / "fifo.md")  # reading it would block forever
    status, _, err = build_in_process(site.content, site.output)
    check_outcome(site, status, err)
    assert status == 1
    assert re.search(r"leak\.md:1: points outside the content folder", err)
    assert re.search(r"leakdir:1: points outside the content folder", err)
    assert re.search(r"zero\.md:1: points outside the content folder", err)
    assert re.search(r"loop\.md:1: is a symlink loop", err)
    # Not skipped in silence: each is an error at its path (issue 31).
    assert re.search(r"fifo\.md: is a FIFO; only regular files are read", err)
    assert re.search(r"dangling\.md: is a symlink that leads nowhere", err)
    assert "SECRET" not in "".join(p.read_text(errors="replace") for p in site.output.rglob("*.html"))


def test_symlink_inside_content_is_followed(tmp_path):
    site = Site(tmp_path)
    write_tree(site.content, {"shared/other.md": term_file(front("Other"), "x\n")})
    (site.content / "terms" / "other.md").symlink_to(site.content / "shared" / "other.md")
    status, _, err = build_in_process(site.content, site.output)
    check_outcome(site, status, err, {"good", "other"})


@pytest.mark.parametrize("name,text", [
    ("a folder", None),
    ("not UTF-8", b'title = "\xff"\n'),
    ("bad TOML", b"title = \n"),
    ("wrong types", b'title = 5\npretty_urls = "yes"\n'),
    ("3 MB title", b'title = "' + b"x" * 3_000_000 + b'"\n'),
    ("unknown keys and tables", b'titel = "x"\n[section]\na = 1\n'),
])
def test_broken_site_toml(tmp_path, name, text):
    site = Site(tmp_path)
    config = site.content / "site.toml"
    config.unlink()
    if text is None:
        config.mkdir()
    else:
        config.write_bytes(text)
    status, _, err = build_in_process(site.content, site.output)
    check_outcome(site, status, err)
    assert "site.toml:" in err


def test_links_out_of_the_site_are_problems():
    status, err = run_case({"good.md": GOOD, "links.md": term_file(front("Links"), (
        "[up](../../etc/passwd) [abs](/etc/passwd.md) [file](file:///etc/passwd) [js](javascript:alert(1))\n"
        "[img](data:text/html,x) [dot](./good.md) ![pic](../../secret.png)\n"))})
    assert status == 1
    assert "javascript:alert(1)" in err and "file:///etc/passwd" in err


def test_missing_content_and_terms(tmp_path):
    site = Site(tmp_path)
    shutil.rmtree(site.content / "terms")
    (site.content / "terms").write_text("not a folder")
    status, _, err = build_in_process(site.content, site.output)
    check_outcome(site, status, err)
    status, _, err = build_in_process(tmp_path / "nowhere", site.output)
    check_outcome(site, status, err)


@pytest.mark.parametrize("kind", ["a file", "a foreign folder", "a symlink to a folder", "the content folder"])
def test_an_output_that_is_not_ours_is_never_replaced(tmp_path, kind):
    site = Site(tmp_path)
    foreign = tmp_path / "foreign"
    write_tree(foreign, {"keep.txt": "keep"})
    target = {
        "a file": write_tree(tmp_path, {"file": "keep"}) / "file",
        "a foreign folder": foreign,
        "a symlink to a folder": tmp_path / "link",
        "the content folder": site.content,
    }[kind]
    if kind == "a symlink to a folder":
        target.symlink_to(foreign)
    before = manifest(tmp_path)
    status, _, err = build_in_process(site.content, target)
    assert status == 1 and err.startswith("error: ") and "refusing to replace it" in err, err
    assert manifest(tmp_path) == before
