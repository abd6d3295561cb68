"""Front matter read by PyYAML's safe loader (its C loader where libyaml is
there), with the load stage's short cuts around it: imported by
``front_matter.parse_front_matter`` when it first parses one, so that a process
whose terms all come from the cache or the loaders never imports PyYAML (~7 ms,
~3 of them compiling a pattern only its pure-Python reader uses).
"""

from __future__ import annotations

import yaml

try:  # the C loader is ~10x faster; fall back where libyaml is missing
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on the PyYAML build
    _Loader = yaml.SafeLoader

_STR_TAG = yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG
_IMPLICIT_STARTS = frozenset(_Loader.yaml_implicit_resolvers)
"""First characters of the plain scalars an implicit resolver may tag otherwise than as
text (a number, a bool, a null, a date); ``None`` among them: one for every scalar."""
_EVERY_SCALAR = None in _IMPLICIT_STARTS
_SCALAR, _SEQUENCE, _MAPPING = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode


class _FrontMatterLoader(_Loader):
    """The safe loader, told a scalar is text at once when it is quoted or its first
    character starts no implicit resolver, and a plain scalar's tag remembered
    (keys and slugs recur from file to file): libyaml asks ``resolve`` for every
    node, and PyYAML's answers after building and walking a list of resolvers.
    Without path resolvers its answer for a scalar depends on the value alone."""

    def resolve(self, kind, value, implicit):
        if self.yaml_path_resolvers:
            return super().resolve(kind, value, implicit)
        if kind is not _SCALAR:
            # PyYAML's answer for a list or mapping without path resolvers, without its call
            return _SEQ_TAG if kind is _SEQUENCE else _MAP_TAG if kind is _MAPPING else super().resolve(kind, value, implicit)
        if not implicit[0] or (value and value[0] not in _IMPLICIT_STARTS and not _EVERY_SCALAR):
            return _STR_TAG
        tag = _RESOLVED.get(value)
        if tag is None:
            tag = super().resolve(kind, value, implicit)
            if len(_RESOLVED) >= 4096:  # bounded: a long run of distinct values starts it afresh
                _RESOLVED.clear()
            _RESOLVED[value] = tag
        return tag


_RESOLVED: dict[str, str] = {}
"""Plain scalar -> the tag PyYAML's resolver gives it (``_FrontMatterLoader.resolve``)."""


def load_yaml(front: str, lines: dict[str, int]) -> tuple[object, dict[str, int], list[tuple[str, int, int]]]:
    """(data, key -> line, repeated keys) read by PyYAML's safe loader. Repeats are
    found on the nodes, so every spelling of a key counts (``title:``,
    ``"title":``, ``? title``, ``{title: ..., title: ...}``): PyYAML itself keeps
    the last one silently."""
    loader = _FrontMatterLoader(front)
    try:
        node = loader.get_single_node()
        found: dict[str, int] = {}
        repeated: list[tuple[str, int, int]] = []
        if isinstance(node, yaml.MappingNode):
            for key, _value in node.value:
                if not isinstance(key, yaml.ScalarNode) or key.tag == "tag:yaml.org,2002:merge":
                    continue
                name, line = str(key.value), key.start_mark.line + 2
                if name in found:
                    repeated.append((name, found[name], line))
                else:
                    found[name] = line
                if name == "explainer" and isinstance(_value, yaml.MappingNode):  # its options' lines
                    for option, _ in _value.value:
                        if isinstance(option, yaml.ScalarNode):
                            found.setdefault(f"explainer.{option.value}", option.start_mark.line + 2)
        data = _plain_data(node) if node is not None else None
        if data is _NOT_PLAIN:
            data = loader.construct_document(node)
    finally:
        loader.dispose()
    return data, {**found, **lines}, repeated


_SEQ_TAG, _MAP_TAG = yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG
_NOT_PLAIN = object()


def _plain_data(node: yaml.Node, depth: int = 0, seen: set[int] | None = None) -> object:
    """What PyYAML's safe constructor builds from ``node``, built here straight from
    the nodes when the document is plain: text (tagged ``str``), lists and mappings
    with text keys, three levels deep at most, no list or mapping used twice (an
    alias); ``_NOT_PLAIN`` for anything else (a number, a null, a tag, a merge key),
    which the constructor then builds. The constructor calls a dozen Python
    functions per value (~40% of loading a term); front matter is almost always
    plain, and a plain document gives the same values either way."""
    kind = type(node)
    if kind is yaml.ScalarNode:
        return node.value if node.tag == _STR_TAG else _NOT_PLAIN
    seen = set() if seen is None else seen
    if depth > 2 or id(node) in seen:  # (a shared node is one object there, built once: left to it)
        return _NOT_PLAIN
    seen.add(id(node))
    if kind is yaml.SequenceNode and node.tag == _SEQ_TAG:
        items = [_plain_data(item, depth + 1, seen) for item in node.value]
        return _NOT_PLAIN if _NOT_PLAIN in items else items
    if kind is not yaml.MappingNode or node.tag != _MAP_TAG:
        return _NOT_PLAIN
    data = {}
    for key, value in node.value:
        if type(key) is not yaml.ScalarNode or key.tag != _STR_TAG:
            return _NOT_PLAIN
        data[key.value] = value = _plain_data(value, depth + 1, seen)
        if value is _NOT_PLAIN:
            return _NOT_PLAIN
    return data
