"""Validate stage: checks that need every term at once.

Per-file checks happen while loading; these are the ones across files:
duplicate names, related entries and explainers that do not exist, and (after
the markdown is rendered) links to terms and anchors that do not exist.
"""

from __future__ import annotations

from typing import Callable, Collection, Container, Iterable, Mapping

from ..load.content import SLUG_RE, Dropped, Term
from ..errors import Problem
from ..explainers.base import REGISTRY, ExplainerError
from ..markup.render import RenderedBody
from ..names import inventory_name_problem, normalise


def check_terms(terms: list[Term], dropped: Iterable[Dropped] = ()) -> list[Problem]:
    """Cross-term checks on front matter: names, related slugs, explainers.

    A related entry naming a ``dropped`` file is no problem here: the file's
    own is reported (``check_dropped``)."""
    dropped_slugs = {d.slug for d in dropped}
    problems: list[Problem] = []
    owners: dict[str, Term] = {}
    slugs: dict[str, Term] = {}
    for term in terms:
        if term.slug in slugs:
            other = slugs[term.slug]
            problems.append(Problem(term.path, 1, f"duplicate slug '{term.slug}' (also {other.path})"))
            continue
        slugs[term.slug] = term
    for term in slugs.values():
        names = [(term.slug, "slug", 1), (term.title, "title", term.field_lines.get("title", 2))]
        names += [(alias, "alias", term.field_lines.get("aliases", 2)) for alias in term.aliases]
        seen_here: set[str] = set()
        for name, kind, line in names:
            if not name:
                continue  # a title that failed its own check (reported on load)
            if kind == "slug":
                key = slug_key(name)
            else:
                key = normalise(name)
                found = inventory_name_problem(name)
                if found is not None and found[1]:
                    # Forging another entry is an error. A name Sphinx would merely skip
                    # ("Llama 3 70 B", the realistic corpus's "word word 123") is left
                    # out of objects.inv without a word: a warning would fail --strict
                    # on ordinary aliases, and the term stays reachable by its slug.
                    problems.append(Problem(term.path, line, f"{kind} {name!r} cannot be listed in objects.inv: {found[0]}"))
            if key in seen_here:
                continue
            seen_here.add(key)
            other = owners.get(key)
            if other is not None and other.slug != term.slug:
                problems.append(Problem(term.path, line, f"duplicate {kind} {name!r}: '{other.slug}' ({other.path}) already answers to that name"))
            else:
                owners[key] = term
    for term in slugs.values():
        line = term.field_lines.get("related", 2)
        for slug in term.related:
            if slug == term.slug:
                problems.append(Problem(term.path, line, f"related lists the term itself ('{slug}')"))
            elif slug not in slugs and slug not in dropped_slugs:
                problems.append(Problem(term.path, line, f"related entry '{slug}' is not a known term slug"))
        if term.explainer is not None and term.explainer not in REGISTRY:
            known = ", ".join(sorted(REGISTRY))
            problems.append(Problem(term.path, term.field_lines.get("explainer", 2), f"unknown explainer {term.explainer!r} (known: {known})"))
        elif term.explainer is not None:
            problems += _explainer_options(term)
    return problems


def slug_key(slug: str) -> str:
    """``normalise(slug)``: for a slug (lowercase letters and digits between single
    hyphens) that is its hyphens made spaces, found without the regular
    expression split ``normalise`` runs (10,000 slugs a build, both mixes)."""
    # (fullmatch: SLUG_RE's own "$" would also let a final line break through)
    return slug.replace("-", " ") if SLUG_RE.fullmatch(slug) else normalise(slug)


def _explainer_options(term) -> list[Problem]:
    """The term's explainer options checked against the ones its explainer declares
    (an unknown one or a wrong type is an error at its line)."""
    try:
        declared = REGISTRY[term.explainer]
    except (KeyError, ExplainerError):
        return []  # reported where the explainer is built
    lines = {key[len("explainer."):]: line for key, line in term.field_lines.items() if key.startswith("explainer.")}
    return declared.options_for(term.explainer_options, term.path, lines, term.field_lines.get("explainer", 2))[1]


class _Everything:
    """Holds every anchor: those of a term whose body was never read."""

    def __contains__(self, item: object) -> bool:
        return True


def check_dropped(terms: list[Term], bodies: Mapping[str, RenderedBody], dropped: Iterable[Dropped]) -> list[Problem]:
    """One note on each dropped term file that other terms link to or list as
    related: instead of an "unknown term" error on each of them."""
    dropped = list(dropped)
    if not dropped:
        return []
    sources: dict[str, set[str]] = {d.slug: set() for d in dropped}
    for term in terms:
        body = bodies.get(term.slug)
        targets = set(term.related) | ({link.slug for link in body.links if link.slug} if body is not None else set())
        for slug in targets & sources.keys():
            if slug != term.slug:
                sources[slug].add(term.path)
    problems = []
    for file in dropped:
        pages = sorted(sources[file.slug])
        if pages:
            shown = ", ".join(pages[:3]) + (f" and {len(pages) - 3} more" if len(pages) > 3 else "")
            count = f"{len(pages)} page{'s' if len(pages) > 1 else ''} link{'' if len(pages) > 1 else 's'}"
            problems.append(Problem(file.path, None, f"{count} here ({shown}); their links to it "
                                    "are checked once this file loads", "warning"))
    return problems


def check_placement(term: Term, body: RenderedBody) -> list[Problem]:
    """An explainer marker (``markup.placement``) only in a term that names an explainer."""
    if body.marker_line is None or term.explainer:
        return []
    return [Problem(term.path, body.marker_line, "an explainer marker, but this term names no explainer "
                    "(front matter 'explainer: <name>'): remove the marker or name one")]


def check_links(terms: list[Term], bodies: Mapping[str, RenderedBody],
                dropped: Iterable[Dropped] = ()) -> list[Problem]:
    """Every internal link must reach an existing term and, when it names one, an
    anchor; the body's own problems, and an explainer marker only where an explainer is.
    A link to a ``dropped`` file's anchor is not checked: its body was not read."""
    unread = {d.slug for d in dropped if d.slug not in bodies}
    anchors: dict[str, set[str]] = {}  # slug -> its body's anchors, made when a link asks for them

    def anchors_of(slug: str) -> Collection[str]:
        if slug in unread:
            return _Everything()
        found = anchors.get(slug)
        if found is None:
            body = bodies.get(slug)
            found = anchors[slug] = set(body.anchors) if body is not None else set()
        return found

    # Runs between the markdown workers and the page workers, with a core idle
    # (~30 ms at 10,000 terms): most bodies have no problem, no marker and no
    # link to an anchor, so nothing of ``check_body`` applies to them.
    problems: list[Problem] = []
    for term in terms:
        body = bodies.get(term.slug)
        if body is not None and (body.problems or body.marker_line is not None or _has_anchor(body.links)):
            problems.extend(check_body(term, body, anchors_of))
    return problems


def _has_anchor(links: list) -> bool:
    for link in links:
        if link.anchor:
            return True
    return False


def check_body(term: Term, body: RenderedBody, anchors_of: Callable[[str], Collection[str]]) -> list[Problem]:
    """``check_links`` for one term: its body's own problems, its explainer marker,
    and its links to anchors that do not exist (``anchors_of(slug)``: the anchors
    of that term's body, empty for no such term)."""
    problems = [Problem(term.path, line, message, *severity) for line, message, *severity in body.problems]
    problems.extend(check_placement(term, body))
    for link in body.links:
        target = link.slug or term.slug
        if link.anchor and link.anchor not in anchors_of(target):
            where = "this page" if link.slug is None else f"'{target}'"
            problems.append(Problem(term.path, link.line, f"link to missing anchor '#{link.anchor}' in {where}"))
    return problems


def backlinks(terms: list[Term], bodies: Mapping[str, RenderedBody]) -> dict[str, list[str]]:
    """slug -> sorted slugs of the other terms whose bodies link to it.

    The terms come sorted by slug (``gather_terms``): each term's slug then
    joins its targets' lists in order, once, and no list needs a set or a sort
    (~55 ms at 10,000 terms, between the markdown and the page workers, with a
    core idle). Other orders are sorted as before."""
    result: dict[str, list[str]] = {term.slug: [] for term in terms}
    ordered = all(earlier.slug <= later.slug for earlier, later in zip(terms, terms[1:]))
    for term in terms:
        body = bodies.get(term.slug)
        if body is None:
            continue
        slug = term.slug
        for link in body.links:
            target = link.slug
            if target and target != slug:
                sources = result.get(target)
                if sources is not None and (not sources or sources[-1] != slug):
                    sources.append(slug)
    return result if ordered else {slug: sorted(set(sources)) for slug, sources in result.items()}


def links_from(term: Term, body: RenderedBody, slugs: Container[str]) -> set[str]:
    """The other terms (of ``slugs``) that ``term``'s body links to: where it
    shows in their backlinks."""
    return {link.slug for link in body.links if link.slug and link.slug != term.slug and link.slug in slugs}


def check_orphans(terms: list[Term], backlinks: Mapping[str, list[str]]) -> list[Problem]:
    """A warning for each term no other term links to or lists as related: a
    reader can reach it only from the index or search. None for a glossary of one term."""
    if len(terms) < 2:
        return []
    listed = {slug for term in terms for slug in term.related if slug != term.slug}
    return [Problem(term.path, term.field_lines.get("title", 1),
                    f"orphan term '{term.title}': no other term links to it or lists it as related", "warning")
            for term in terms if not backlinks.get(term.slug) and term.slug not in listed]
