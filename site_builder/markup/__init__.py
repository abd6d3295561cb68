"""Markdown stage: term bodies to HTML.

``source`` is a line-aware pass over the raw markdown (maths to MathML through
``mathml``, ``[[wikilinks]]``, link lines); ``render`` runs Python-Markdown
with the glossary's extensions; ``stage`` renders every body of a build,
spread over the cores. ``accel/`` holds the checked drop-in speed-ups.
"""
