"""A glossary and a page with the tricky cases of autolinks (docs/linking.md#autolinks),
shared by the tests of the three places that link first mentions: the glossary's
own bodies, the Markdown extension and the MkDocs plugin."""

from __future__ import annotations

from glossary_site import term

GLOSSARY = {
    "site.toml": 'title = "Autolink glossary"\n',
    "terms/model.md": term("Model", "The trained artifact.", """
        A model is trained once. Models run at inference; see [[decoding]].
        """, aliases=["LLM"], related=["decoding"]),
    "terms/speculative-decoding.md": term("Speculative decoding", "Draft, then verify.", """
        A faster kind of decoding, by a model and a draft.
        """, related=["decoding"]),
    "terms/decoding.md": term("Decoding", "Picking tokens.", """
        Speculative decoding is one way; a policy picks.
        """, related=["policy", "model"]),
    "terms/policy.md": term("Policy", "How tokens are picked.", """
        Greedy or sampled.
        """, related=["decoding", "box"]),
    "terms/box.md": term("Box", "A container.", """
        Holds a policy.
        """, related=["policy", "speculative-decoding"]),
}

BOX_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"></svg>\n'
"""The image ``PAGE`` shows (beside it: a site makes no outside request)."""

PAGE = """\
### Decoding models

LLMish, remodel and model-based hold no mention. The first: models.
A model again, then an LLM.
Speculative decoding beats plain decoding.
Policies matter. Not here: `box` in code, $box$ maths, ![box](box.svg), [a box](https://example.com/box).
The marker: <!--no-autolink-->box stays text, and this box is linked.

~~~
box in a fence
~~~

## Second

A model and a policy here; decoding.
"""
"""No link in the heading, the longer word, the hyphenated one, code, maths, alt
text, an existing link, a fence or after the marker; plurals; longest first."""

FIRST_IN_PAGE = [("model", "models"), ("speculative-decoding", "Speculative decoding"), ("decoding", "decoding"),
                 ("policy", "Policies"), ("box", "box")]
FIRST_IN_SECTION = FIRST_IN_PAGE + [("model", "model"), ("policy", "policy"), ("decoding", "decoding")]
