"""``snapshot._folders_of`` and ``_children`` keep their last answer for a large set
of paths: an edit asks about the same 25,000 paths several times. An equal set
gets the same answer without making it again; any other set, its own."""

from __future__ import annotations

from site_builder.publish import snapshot


def _paths(count: int, extra: str | None = None) -> set[str]:
    paths = {f"term-{i:05d}/index.html" for i in range(count)} | {"index.html", "assets/site.css"}
    return paths | {extra} if extra else paths


def test_an_equal_set_of_paths_is_answered_from_the_last_answer(monkeypatch):
    made = []
    real = snapshot._make_folders_of
    monkeypatch.setattr(snapshot, "_make_folders_of", lambda paths: made.append(len(paths)) or real(paths))
    monkeypatch.setattr(snapshot, "_recent", [])
    first = snapshot._folders_of(_paths(2000))
    again = snapshot._folders_of(set(_paths(2000)))  # another set, equal
    assert again == first == real(_paths(2000)) and len(made) == 1
    again.add("changed by a caller")
    assert "changed by a caller" not in snapshot._folders_of(_paths(2000))  # callers get sets of their own
    other = snapshot._folders_of(_paths(2000, "new/folder/page.html"))
    assert {"new", "new/folder"} <= other and len(made) == 2 and made[1] == 1, "not made from the known subset"
    assert other == real(_paths(2000, "new/folder/page.html"))
    children = snapshot._children(_paths(2000), {""})
    assert snapshot._children(set(_paths(2000)), {""}) == children
    changed = snapshot._children(_paths(2000, "extra.html"), {""})
    assert "extra.html" in changed[""][1] and "extra.html" not in children[""][1]


def test_a_set_with_a_few_more_paths_starts_from_the_known_one(monkeypatch):
    """An edit's three sets (the spare's, the new site's, the old site's) are each
    the one before plus a new word's search shard: worked out from the known set,
    only the added paths are gone over, and the answers are a full make's."""
    monkeypatch.setattr(snapshot, "_recent", [])
    spare = _paths(3000)
    snapshot._folders_of(spare), snapshot._children(spare, {""})
    gone_over = []
    real_folders, real_entries = snapshot._make_folders_of, snapshot._root_entries
    monkeypatch.setattr(snapshot, "_make_folders_of", lambda paths: gone_over.append(len(paths)) or real_folders(paths))
    monkeypatch.setattr(snapshot, "_root_entries", lambda paths: gone_over.append(len(paths)) or real_entries(paths))
    for extra in ("search/q/quark.json", "new-page.html", "term-99999/index.html"):
        bigger = spare | {extra}
        assert snapshot._folders_of(bigger) == real_folders(bigger)
        tops, files = real_entries(bigger)
        assert snapshot._children(bigger, {""}) == {"": (set(tops - files), set(files))}
    assert gone_over and max(gone_over) == 1, gone_over
    fewer = set(spare) - {"index.html"}  # a file removed: made again, whole
    assert snapshot._folders_of(fewer) == real_folders(fewer) and max(gone_over) == len(fewer)
