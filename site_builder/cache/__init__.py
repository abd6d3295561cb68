"""The build cache, kept apart from the stages it speeds up.

``store``: the content-addressed tables and blobs in ``.site_builder_cache/``
(keys hash every input, so an entry can be missing but never stale);
``incremental``: the fast path of a rebuild when only prose changed.
"""
