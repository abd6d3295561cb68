"""Speed-ups for Python-Markdown that give the same HTML as its stock processors.

They mirror one Markdown release byte for byte and switch themselves off on
any other (``upstream``); the ``fast`` extra pins that release.

Why hand-written (issue 33): they earn their place on both corpus mixes.
Per page they take 0.27x the CPU of the stock processors on the simple mix
(prose, lists, links) and 0.55x on the realistic one (maths, tables, code,
footnotes, wiki links), with the same HTML on both:
``python benchmarks/bench_markdown.py 1000 5 --mix simple realistic``
(docs/performance.md, "Both corpus mixes and the hand-written code"). Why the realistic
mix gains less is for issue 40's profile of the markdown stage.
"""
