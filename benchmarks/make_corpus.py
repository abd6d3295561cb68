#!/usr/bin/env python3
# Vendored unchanged (below this header) from the team's shared bench folder
# (../shared/bench/make_corpus.py), so a fresh clone can benchmark and test
# without it; the same seed gives the same words as the figures quoted there.
"""Write a synthetic glossary of N terms as markdown with YAML front matter.

Usage: make_corpus.py N OUTDIR [--flavor plain|mkdocs|hugo] [--mix simple|realistic]

Every term has a title, a one-line summary, 3 related terms and ~350 words
of prose with headings, lists, emphasis, inline code and links to its related
terms. The same words go to every flavor so that peers build the same work.

--mix realistic (default simple) writes what real glossaries hold on top of
that: aliases with spaces, titles with colons or apostrophes, inline and
display maths, [[wiki links]] by title (plain flavor; links elsewhere),
tables, fenced code, footnotes, quotes and autolinks. A speed-up measured
only on the simple mix may not reach real content: measure both.
"""
import random
import sys
from pathlib import Path

WORDS = ("token draft target model verify accept reject prefix round depth cost "
         "latency batch memory bandwidth compute kernel cache sample logits "
         "distribution probability inference decode speculative greedy beam "
         "temperature entropy context window prompt output weight layer").split()


def slug(i: int) -> str:
    return f"term-{i:05d}"


def sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


MATHS = [r"$\alpha^{k}$", r"$\gamma c$", r"$E = \frac{1-\alpha^{\gamma+1}}{1-\alpha}$", r"$\sum_{i=0}^{n} x_i$",
         r"$p(x) \le q(x)$", r"$\sqrt{d_k}$", r"$O(n^2)$", r"$\operatorname{softmax}(z)_i$"]


def title_of(i: int, n: int) -> str:
    """The realistic mix's title of term i: fixed per index, so links by title resolve."""
    r = random.Random(i * 7919 + 17)
    w = r.choice(WORDS)
    return [f"Term {i:05d} {w}", f"Term {i:05d}: {w} rate", f"Term {i:05d} {w}'s bound"][i % 3]


def realistic(i: int, n: int, rng: random.Random, flavor: str) -> str:
    related = sorted({slug(rng.randrange(n)) for _ in range(3)} - {slug(i)})
    ref = lambda j: (f"[[{title_of(j, n)}]]" if flavor == "plain" else
                     f"[{title_of(j, n)}]({slug(j)}.md)" if flavor == "mkdocs" else
                     f"[{title_of(j, n)}]({{{{< ref \"{slug(j)}.md\" >}}}})")
    title = title_of(i, n)
    aliases = list(dict.fromkeys(f"{rng.choice(WORDS)} {rng.choice(WORDS)} {i}" for _ in range(rng.randint(0, 3))))
    summary = sentence(rng)
    esc = lambda t: t.replace('"', '\\"')
    fm = ["---", f'title: "{esc(title)}"', f'summary: "{summary}"']
    if aliases:
        fm.append("aliases: [" + ", ".join(aliases) + "]")
    fm += ["related: [" + ", ".join(related) + "]", "---", ""]
    body = [f"# {title}" if flavor == "mkdocs" else "", summary, ""]
    for h in range(3):
        body += [f"## Section {h + 1}", ""]
        para = [sentence(rng) for _ in range(4)]
        if rng.random() < 0.5:
            para[1] = para[1][:-1] + f" with {rng.choice(MATHS)} in it."
        if rng.random() < 0.4:
            para[2] = para[2][:-1] + f", see {ref(rng.randrange(n))}."
        if h == 0 and rng.random() < 0.15:
            para[3] = para[3][:-1] + "[^1]."
        body += [" ".join(para), ""]
        kind = rng.random()
        if kind < 0.25:
            body += ["| symbol | meaning | typical |", "|---|---|---:|"]
            body += [f"| `{rng.choice(WORDS)}` | {rng.choice(WORDS)} {rng.choice(WORDS)} | {rng.randint(1, 99)} |" for _ in range(3)]
        elif kind < 0.5:
            body += ["```python", f"def {rng.choice(WORDS)}(x):", f"    return x * {rng.randint(2, 9)}  # {rng.choice(WORDS)}", "```"]
        elif kind < 0.65:
            body += ["$$", r"S(\gamma) = \frac{1 - \alpha^{\gamma + 1}}{(1 - \alpha)(1 + \gamma c)}", "$$"]
        elif kind < 0.8:
            body += [f"> {sentence(rng)} See <https://example.org/{rng.choice(WORDS)}>."]
        else:
            body += [f"{k}. **{rng.choice(WORDS)}** then _{rng.choice(WORDS)}_" for k in (1, 2, 3)]
        body += [""]
    body += ["## Related", ""] + [f"- {ref(int(s[5:]))}" for s in related] + [""]
    if "[^1]" in "\n".join(body):
        body += ["[^1]: " + sentence(rng), ""]
    return "\n".join(fm + body)


def term(i: int, n: int, rng: random.Random, flavor: str) -> str:
    related = sorted({slug(rng.randrange(n)) for _ in range(3)} - {slug(i)})
    if flavor == "mkdocs":
        link = lambda s: f"[{s.replace('-', ' ')}]({s}.md)"
    elif flavor == "hugo":
        link = lambda s: f"[{s.replace('-', ' ')}]({{{{< ref \"{s}.md\" >}}}})"
    else:
        link = lambda s: f"[{s.replace('-', ' ')}]({s}.md)"
    title = f"Term {i:05d} {rng.choice(WORDS)}"
    summary = sentence(rng)
    fm = ["---", f'title: "{title}"', f'summary: "{summary}"',
          "related: [" + ", ".join(related) + "]", "---", ""]
    body = [f"# {title}" if flavor == "mkdocs" else "", summary, ""]
    for h in range(3):
        body += [f"## Section {h + 1}", ""]
        body += [" ".join(sentence(rng) for _ in range(4)), ""]
        body += [f"- `{rng.choice(WORDS)}` is *{rng.choice(WORDS)}*" for _ in range(3)]
        body += [""]
    body += ["## Related", ""] + [f"- {link(s)}" for s in related] + [""]
    return "\n".join(fm + body)


def main() -> None:
    n, out = int(sys.argv[1]), Path(sys.argv[2])
    args = sys.argv[3:]
    opt = lambda name, default: args[args.index(name) + 1] if name in args[:-1] else default
    flavor, mix = opt("--flavor", "plain"), opt("--mix", "simple")
    make = realistic if mix == "realistic" else term
    rng = random.Random(413)
    if flavor == "mkdocs":
        docs = out / "docs"
        docs.mkdir(parents=True, exist_ok=True)
        (out / "mkdocs.yml").write_text("site_name: Glossary\nuse_directory_urls: true\n")
        (docs / "index.md").write_text("# Glossary\n")
        target = docs
    elif flavor == "hugo":
        target = out / "content" / "terms"
        target.mkdir(parents=True, exist_ok=True)
        (out / "hugo.toml").write_text('baseURL = "/"\ntitle = "Glossary"\ndisableKinds = ["taxonomy", "term", "RSS"]\n')
        lay = out / "layouts" / "_default"
        lay.mkdir(parents=True, exist_ok=True)
        (lay / "single.html").write_text("<!doctype html><html><head><title>{{ .Title }}</title></head><body><main>{{ .Content }}</main></body></html>\n")
        (lay / "list.html").write_text("<!doctype html><html><body><ul>{{ range .Pages }}<li><a href=\"{{ .RelPermalink }}\">{{ .Title }}</a></li>{{ end }}</ul></body></html>\n")
        (out / "layouts" / "index.html").write_text("<!doctype html><html><body>{{ range .Site.RegularPages }}<a href=\"{{ .RelPermalink }}\">{{ .Title }}</a> {{ end }}</body></html>\n")
    else:
        target = out
        target.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (target / f"{slug(i)}.md").write_text(make(i, n, rng, flavor))


if __name__ == "__main__":
    main()
