"""Command line: ``site-builder build | serve | check | new`` (also ``python -m site_builder``)."""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from . import CACHE_FOLDER, __version__
from .load import preload

if TYPE_CHECKING:
    from .build import BuildOptions


def _add_content_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--content", type=Path, default=None, metavar="DIR",
                        help="content folder holding terms/ and optionally site.toml (default: content)")
    parser.add_argument("--config", type=Path, default=None, metavar="FILE",
                        help="the site.toml to read, anywhere (default: site.toml in the content folder, if any)")
    parser.add_argument("--base-url", metavar="URL", default=None,
                        help="absolute URL the site is published at; overrides base_url in site.toml")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument("--quiet", action="store_true", help="print only problems")


def _positive(text: str) -> int:
    """An integer of at least 1 (``--jobs``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def make_parser() -> argparse.ArgumentParser:
    """The argument parser for every sub-command."""
    parser = argparse.ArgumentParser(
        prog="site-builder",
        description="Build an interactive glossary from markdown into a static site.",
    )
    parser.add_argument("--version", action="version", version=f"site_builder {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    build = commands.add_parser("build", help="build content/ into output/",
                                description="Build the content folder into a static site, atomically.")
    _add_content_options(build)
    build.add_argument("-o", "--output", type=Path, default=Path("output"), metavar="DIR",
                       help="folder to write the site to; replaced whole (default: output)")
    build.add_argument("--jobs", type=_positive, default=None, metavar="N",
                       help="worker processes for markdown and pages (default: one per core)")
    build.add_argument("--no-cache", action="store_true",
                       help=f"ignore the build cache ({CACHE_FOLDER}/ beside the output) and build from scratch")

    serve = commands.add_parser("serve", help="build, serve on 127.0.0.1 and rebuild on change",
                                description="Build, serve output/ locally, rebuild when content or templates change, and reload the browser.")
    _add_content_options(serve)
    serve.add_argument("-o", "--output", type=Path, default=Path("output"), metavar="DIR",
                       help="folder to build into and serve (default: output)")
    serve.add_argument("-p", "--port", type=int, default=8000, help="port to listen on (default: 8000; 0 picks a free one)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")

    check = commands.add_parser("check", help="validate content and every internal link; write nothing",
                                description="Validate every term and every internal link and anchor without writing anything.")
    _add_content_options(check)
    check.add_argument("--links-in", type=Path, default=None, metavar="DOCS",
                       help="instead: check the glossary links in DOCS' markdown (.md: [[Term]], MyST {term}`glossary:Term`) "
                            "and reStructuredText (.rst: :term:`glossary:Term`) files, and URLs under the glossary")
    check.add_argument("--glossary", default=None, metavar="PATH_OR_URL",
                       help="with --links-in: the glossary.json (or its folder or URL) to check against")
    check.add_argument("--inventory-name", default=None, metavar="NAME",
                       help="with --links-in: the glossary's name in DOCS' intersphinx_mapping (default: glossary)")
    check.add_argument("--unlinked", choices=("page", "section"), default=None,
                       help="with --links-in: also warn where a term's first mention in each page (or ## section) "
                            "is not linked, and about terms no file links to (errors with --strict)")
    check.add_argument("--usage-file", type=Path, default=None, metavar="FILE",
                       help="with --links-in: write which pages link to which term, for the glossary's usage_files")
    check.add_argument("--site-url", default=None, metavar="URL",
                       help="with --usage-file: the URL DOCS are published at (default: site_url in mkdocs.yml beside DOCS)")

    new = commands.add_parser(
        "new", help="create a new glossary folder, ready to build and publish",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Create DIR (missing or empty; anything else is refused) holding a glossary that builds:\n"
                    "  content/site.toml          every setting, commented out at its default\n"
                    "  content/terms/*.md         two example terms that link each other\n"
                    "  requirements.txt           which site_builder the workflows install\n"
                    "  .gitignore                 what a build writes: output/, .output.*, .site_builder_cache/\n"
                    "  .github/workflows/         tests.yml (the deploy's strict build, on pull requests),\n"
                    "                             pages.yml (runs tests.yml on every push, publishes main)\n"
                    "Then: cd DIR && python -m site_builder build")
    new.add_argument("folder", type=Path, metavar="DIR", help="the folder to create")
    new.add_argument("--install", default=None, metavar="SPEC",
                     help="the pip requirement requirements.txt names, e.g. 'site_builder @ git+https://...@v0.1.0' "
                          "(default: where this site_builder came from, a git clone's origin at its pushed commit "
                          "or the URL pip installed; new stops if no CI runner could install that). "
                          "A local path or file: URL is refused: no runner has it")
    return parser


def run() -> int:
    """The command line as a process runs it (``site-builder``, ``python -m
    site_builder``): ``main``, then ``gc.freeze()`` as the process is about to
    exit, so the interpreter's last collection skips every object still alive.
    That collection walked all of them for nothing: ~0.2 s after a build that
    imported the explainer's libraries (Altair's schema classes), ~0.06 s after
    others. Not in ``main``: a caller in a long-lived process keeps its collector."""
    try:
        status = main()
    except KeyboardInterrupt:
        # Ctrl-C: one line, not a traceback. The write stage is atomic, so
        # output/ holds the previous site or the new one, whole; workers die with us.
        print("interrupted (Ctrl-C); output/ holds the previous site or the new one, whole", file=sys.stderr)
        return 130
    gc.freeze()
    return status


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    args = make_parser().parse_args(argv)
    if args.command == "new":
        from .scaffold import run as scaffold

        return scaffold(args.folder, args.install, lambda line: print(line, flush=True))
    # None until here, so that "check --links-in" can tell "--content content" from no --content.
    given_content, args.content = args.content, args.content or Path("content")
    log = (lambda line: None) if args.quiet else (lambda line: print(line, flush=True))
    if args.command == "serve":
        _import_markdown_without_pygments()
        from .serve import serve

        return serve(args, log)
    if args.command == "check" and args.links_in is not None:
        from .integrations.linkcheck import run

        if not args.glossary:
            make_parser().error("check --links-in needs --glossary PATH_OR_URL")
        if args.base_url is not None or given_content is not None or args.config is not None:
            make_parser().error("check --links-in checks DOCS against --glossary only: "
                                "--content, --config and --base-url do not apply")
        if args.site_url is not None and args.usage_file is None:
            make_parser().error("--site-url goes with --usage-file")
        return run(args.links_in, args.glossary, log, args.inventory_name or "glossary", args.unlinked, args.strict,
                   args.usage_file, args.site_url)
    if any(getattr(args, name, None) is not None for name in ("glossary", "inventory_name", "unlinked", "usage_file", "site_url")):
        make_parser().error("--glossary, --inventory-name, --unlinked, --usage-file and --site-url go with --links-in DOCS")
    # Before the heavy imports below, so that the terms load meanwhile (see preload.py).
    # Not when a build cache exists: the build would load from it instead.
    cached = args.command == "build" and not args.no_cache and \
        (args.output.absolute().parent / CACHE_FOLDER).exists()
    preloaded = None if cached else preload.start(args.content, getattr(args, "jobs", None))
    caller_froze = gc.get_freeze_count() > 0
    early = args.command == "build" and not cached  # released below whatever happens (a no-op if none was)
    try:
        early = early and _prepare_early(args.content, getattr(args, "jobs", None))
        if cached:
            _check_early(args.output, args.jobs)
        _import_build(freeze=not caller_froze)
        from .build import BuildOptions

        options = BuildOptions(
            content=args.content,
            output=getattr(args, "output", Path("output")),
            config=args.config,
            base_url=args.base_url,
            strict=args.strict,
            write=args.command == "build",
            jobs=getattr(args, "jobs", None),
            cache=not getattr(args, "no_cache", False),
        )
        return run_build(options, log, verb="Checked" if args.command == "check" else "Built", preloaded=preloaded)
    finally:
        if cached:
            from .publish import ahead

            ahead.stop()  # a no-op once the build ended it, or when none was forked
        if preloaded is not None:
            preloaded.discard()  # a no-op once the build took its result
        if early:
            from .explainers import base

            base.release(failed=True)  # a no-op once the build released them
        if not caller_froze:
            gc.unfreeze()  # what was frozen here (if anything): a library caller gets its collector back


def _prepare_early(content: Path, jobs: int | None) -> bool:
    """On a first build (no cache, so every explainer's build step will run),
    run the prepare steps of the explainers its terms name now, before the
    site's own imports: the speculative decoding explainer's converter worker
    then starts its runtime (~0.45 s) and gets the charts ~0.3 s earlier,
    while this process imports the rest. The build's prepare stage skips what
    is prepared (``explainers.prepare``); ``main`` releases it whatever happens.
    True when something was prepared. Read from the term files' heads
    (``preload.explainers_named``); an invalid term is still the build's to report."""
    names = preload.explainers_named(content)
    if not names:
        return False
    from .cache.store import collector_paused
    from .explainers import base
    from .parallel import default_jobs

    names = {name for name in names if name in base.REGISTRY}
    if not names:
        return False
    with collector_paused():  # as the build's prepare stage (build.py)
        base.prepare(names, jobs or default_jobs())
        gc.freeze()
    return True


def _check_early(output: Path, jobs: int | None) -> bool:
    """On a build with a cache, when a core is likely free: fork the trees'
    checker now (``publish.ahead.start_early``), before the build's imports.
    Forked by the build, it started after them (~70 ms) and, ~125 ms of
    ``stat`` calls later on a 10,000-term site, ended after the build needed
    its last answer; it now has that head start, and the build process does
    not fork a large process (2,500-6,500 pages fewer copied on write). The build hands
    it the look for pages changed by hand once it has read the page manifest
    (``cache.pages.check_ahead``). True when forked."""
    from .cache import pages as page_cache  # (light: the stages it wraps are imported when used)
    from .publish import ahead

    return page_cache._idle_core(jobs) and ahead.start_early(output)


def run_build(options: BuildOptions, log, verb: str = "Built", preloaded: preload.Preload | None = None) -> int:
    """Build (or check), print the log and problems; return 0 on success, 1 on failure."""
    from .build import build_site
    from .errors import BuildFailed
    from .files import RefusedPath
    from .publish import PublishError

    log(f"{'Checking' if not options.write else 'Building'} {options.content} -> {options.output if options.write else '(nothing written)'}")
    try:
        # (``main`` froze the imports, or its caller froze: ``main`` unfreezes what it froze.)
        report = build_site(options, log, preloaded=preloaded, caller_froze=True)
    except BuildFailed as failure:
        for problem in failure.problems:
            print(problem, file=sys.stderr)
        errors = sum(1 for p in failure.problems if p.severity == "error" or options.strict)
        print(f"error: {errors} error(s); nothing was written", file=sys.stderr)
        return 1
    except (PublishError, RefusedPath) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the disk, not the content: the swap is atomic, so output/ is the old site or the new
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for warning in report.warnings:
        print(warning, file=sys.stderr)
    if report.cache_failure:
        print(f"warning: the build cache in {options.cache_folder()} could not be saved "
              f"({report.cache_failure}); the next build starts from nothing", file=sys.stderr)
    from .markup.accel.upstream import mismatch_warning
    slow_markdown = mismatch_warning()
    if slow_markdown:
        print(slow_markdown, file=sys.stderr)
    pages = report.written + report.unchanged
    if options.write:
        log(f"{verb} {report.terms} terms: {pages} files ({report.written} written, {report.unchanged} unchanged) in {report.seconds:.2f} s")
    else:
        log(f"{verb} {report.terms} terms: no problems in {report.seconds:.2f} s")
    return 0


def _import_build(freeze: bool = True) -> None:
    """Import the build's modules (~70 ms) with the collector paused, then
    freeze what they made (``freeze``; not for a caller that froze objects of
    its own: ``main`` could not tell them apart to unfreeze): modules, classes
    and functions live until the process ends and hold no garbage, but the
    ~30,000 containers they make set off ~40 young collections meanwhile, and
    every later full collection would walk them all again (4-5 ms of a
    one-body edit: docs/performance.md, "Start-up and imports (issue 40,
    ninth round)"). Frozen before the build forks its workers too. A caller
    that paused the collector keeps it as it is."""
    paused = gc.isenabled()
    gc.disable()
    try:
        _import_markdown_without_pygments()
        from . import build  # noqa: F401
    finally:
        if paused:
            gc.enable()
    if paused and freeze:
        gc.freeze()


def _import_markdown_without_pygments() -> None:
    """Import Python-Markdown's ``fenced_code`` without importing Pygments.

    ``fenced_code`` imports ``codehilite``, which imports Pygments when it is
    installed (and Pygments ``importlib.metadata`` for its plugins): about
    20 ms of every start, for nothing, since ``codehilite`` is not among the
    extensions a build uses, and ``fenced_code`` highlights only through it.
    Done only here, in a process the command line owns: ``codehilite`` is
    left believing Pygments is missing, which a library user of this
    package (a Python-Markdown extension in someone's MkDocs) must not see.
    """
    if "markdown.extensions.codehilite" in sys.modules:
        return
    absent = object()
    before = sys.modules.get("pygments", absent)
    sys.modules["pygments"] = None  # type: ignore[assignment]  # "import pygments" now raises ImportError
    try:
        import markdown.extensions.fenced_code  # noqa: F401
    finally:
        if before is absent:
            del sys.modules["pygments"]
        else:
            sys.modules["pygments"] = before
