"""``serve``: build, serve ``output/`` locally, rebuild on change, reload the browser.

Three parts, each on its own thread or process::

    main thread      watch loop: watchfiles (or polling) ─change> ask the worker to build
                         │                                   ok: new token ──┐
                         │                            failed: problems ──────┤
    build worker     a warm ``python`` process that runs ``build_site``      │
    (own session)    (killed and replaced on Ctrl-C or a package change;     │
                      dies with ``serve``, even a SIGKILLed one)             │
                                                                             v
    HTTP threads     GET files from output/ (+ live-reload script)   /__livereload (SSE)
                                                                     sends "reload", "problems", "ok"

Builds run in a separate process so that Ctrl-C can stop one at once (the
publish stage is atomic, so killing it leaves the old site or the new one),
so that the markup stage's worker pool never forks a threaded process, and
so that an edit to the package (code, templates, static files) is picked up
on the next build: the watcher replaces the worker, whose imported modules,
compiled templates and ``cache.code_version`` all describe the old package.

The live-reload script is added to HTML responses only, never to the files
in ``output/``; it is an external script, so pages keep working under the CSP
``script-src 'self'`` that this server also sends.

One module per part: ``loop.py`` (the command and its watch loop),
``watch.py`` (the file watcher), ``worker.py`` (the build worker and its
protocol), ``http.py`` (the server, its handler and the event stream).
"""

from .http import SECURITY_HEADERS
from .loop import serve

__all__ = ["SECURITY_HEADERS", "serve"]
