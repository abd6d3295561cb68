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
    monkeypatch.setattr(snapshot, "_last_folders", None)
    monkeypatch.setattr(snapshot, "_last_children", None)
    first = snapshot._folders_of(_paths(2000))
    again = snapshot._folders_of(set(_paths(2000)))  # another set, equal
    assert again == first == real(_paths(2000)) and len(made) == 1
    again.add("changed by a caller")
    assert "changed by a caller" not in snapshot._folders_of(_paths(2000))  # callers get sets of their own
    other = snapshot._folders_of(_paths(2000, "new/folder/page.html"))
    assert {"new", "new/folder"} <= other and len(made) == 2
    children = snapshot._children(_paths(2000), {""})
    assert snapshot._children(set(_paths(2000)), {""}) == children
    assert snapshot._last_children is not None and snapshot._last_children[0] == _paths(2000)
    changed = snapshot._children(_paths(2000, "extra.html"), {""})
    assert "extra.html" in changed[""][1] and "extra.html" not in children[""][1]
