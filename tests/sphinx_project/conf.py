"""A tiny Sphinx project that links into the glossary through intersphinx.

tests/integrations/test_sphinx.py builds a glossary, points GLOSSARY_INVENTORY at
its objects.inv and runs ``sphinx-build -W`` here: any reference that does
not resolve is a warning, so an error.
"""

import os

project = "Glossary consumer"
extensions = ["sphinx.ext.intersphinx"]
intersphinx_mapping = {
    "glossary": ("https://example.org/glossary/", os.environ.get("GLOSSARY_INVENTORY", "objects.inv")),
}
intersphinx_disabled_reftypes = ["*"]  # a reference must name the glossary (glossary: or external+glossary:)
nitpicky = True
html_theme = "basic"
