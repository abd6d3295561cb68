"""Speed-ups for Python-Markdown that give the same HTML as its stock processors.

They mirror one Markdown release byte for byte and switch themselves off on
any other (``upstream``); the ``fast`` extra pins that release.
"""
