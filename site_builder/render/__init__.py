"""Render stage: pages from validated terms, rendered bodies and explainers.

``pages`` renders the term pages, the index and the 404 page with the
packaged Jinja templates; ``assets`` gives static files content-hashed names.
"""
