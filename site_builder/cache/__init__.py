"""The build cache, kept apart from the stages it speeds up.

The stages (``markup.stage``, ``render.pages``) are plain functions from data
to data and import nothing from here; this package wraps them:

``store``: the content-addressed tables and blobs in ``.site_builder_cache/``
(keys hash every input, so an entry can be missing but never stale);
``terms``: the load stage memoised (unchanged files are not parsed again)
and what changed since the last finished build;
``bodies``: the markup stage memoised (body keys, cached bodies, their HTML);
``explainers``: the explainers stage memoised (an explainer's build by code version);
``pages``: page keys and the page manifest, which decide the pages the render
stage is handed and those kept from the last build;
``outputs``: glossary.json, objects.inv, redirects and previews memoised;
``incremental``: the fast path of a rebuild when only prose changed: it
chooses the pages, and the same markdown and render stages make them.
"""
