"""The build cache, kept apart from the stages it speeds up.

The stages (``markup.stage``, ``render.pages``) are plain functions from data
to data and import nothing from here; this package wraps them:

``store``: the content-addressed tables and blobs in ``.site_builder_cache/``
(keys hash every input, so an entry can be missing but never stale);
``bodies``: the markdown stage memoised (body keys, cached bodies, their HTML);
``pages``: page keys and the page manifest, which decide the pages the render
stage is handed and those kept from the last build;
``incremental``: the fast path of a rebuild when only prose changed.
"""
