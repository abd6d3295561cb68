#!/usr/bin/env python3
# Vendored unchanged (below this header) from the team's shared bench folder
# (../shared/bench/make_corpus.py), so a fresh clone can benchmark and test
# without it; the same seed gives the same words as the figures quoted there.
"""Write a synthetic glossary of N terms as markdown with YAML front matter.

Usage: make_corpus.py N OUTDIR [--flavor plain|mkdocs|hugo]

Every term has a title, a one-line summary, 3 related terms and ~350 words
of prose with headings, lists, emphasis, inline code and links to its related
terms. The same words go to every flavor so that peers build the same work.
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
    flavor = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--flavor" else "plain"
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
        (target / f"{slug(i)}.md").write_text(term(i, n, rng, flavor))


if __name__ == "__main__":
    main()
