"""Term records as the load cache (``cache.terms``) keeps them: packed, so an
edit unpacks only the terms it looks into, and their bodies kept apart
(``BODIES``), read only by a build that asks a term for its body."""

from __future__ import annotations

import hashlib
import marshal
from pathlib import Path

from ..errors import BuildFailed, Problem
from ..load import content, media as media_files
from ..load.content import RECORD_FIELDS, Term
from . import store as cache

BODIES = "terms-bodies"
"""Cache table: {"base": the ``TABLE`` tag it was saved with, "bodies": shown
path -> body}. Kept apart from ``TABLE`` (~90 % of its bytes: ~19 MB at 10,000
realistic terms) and read only when a build asks a term made from ``TABLE``
for its body (a full build over a warm cache); an edit on the fast path never
does, so it no longer unmarshals every body (``_KeptTerm``)."""

_BODY_AT = RECORD_FIELDS.index("body")
_MEDIA_AT = RECORD_FIELDS.index("media")
_EXPLAINER_AT = RECORD_FIELDS.index("explainer")
_FIELDS = len(RECORD_FIELDS)
_PACKED = 4
"""The length of a packed record (``_pack``): a whole one has ``_FIELDS``."""


def _pack(record: tuple) -> tuple:
    """A ``TABLE`` record (its body a digest) as (slug, explainer, media or None, the
    whole record marshalled): unmarshalling ``TABLE`` then makes ~10 objects a term
    instead of ~30, and an edit reads no more of an unchanged term than its slug,
    file and explainer (~10 ms of a 10,000-term edit). The media are kept apart too:
    a record that refers to files is current only while they are (``_current``)."""
    return record[0], record[_EXPLAINER_AT], record[_MEDIA_AT] or None, marshal.dumps(record)


def _unpacked(record: tuple | None) -> tuple | None:
    """The whole record of a packed one (``_pack``); any other as it is."""
    return marshal.loads(record[3]) if record is not None and len(record) == _PACKED else record


def _no_media(record: tuple | None) -> bool:
    """True for a term record that refers to no file (most): it is current without a look."""
    if record is not None and len(record) == _PACKED:
        return record[2] is None
    return record is not None and len(record) == _FIELDS and not record[_MEDIA_AT]


def _current(record: tuple | None) -> bool:
    """``content.record_is_current`` of a record, packed or whole."""
    if record is not None and len(record) == _PACKED:
        return record[2] is None or media_files.current(record[2])
    return content.record_is_current(record)


def _digest(body: str) -> bytes:
    """What ``TABLE`` keeps of a body: enough to tell it from any other."""
    return hashlib.blake2b(body.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class _KeptBodies:
    """The bodies ``TABLE``'s records keep apart (``BODIES``), read on the first
    request: once per build, and only by a build that asks for one."""

    def __init__(self, store: cache.BuildCache, base: str | None):
        self._store = store
        self._base = base
        self._bodies: dict | None = None
        self._same_base = False

    def stored(self, shown: str, digest: bytes) -> str | None:
        """The body of ``shown`` with this digest, from ``BODIES``; None when it is not there."""
        if self._bodies is None:
            table = self._store.table(BODIES)
            bodies = table.get("bodies")
            self._bodies = bodies if isinstance(bodies, dict) else {}
            self._same_base = self._base is not None and table.get("base") == self._base
        body = self._bodies.get(shown)
        if not isinstance(body, str):
            return None
        # Saved with this TABLE (one tag, one save): that body. Else (a BODIES
        # lost, damaged, or newer than its TABLE) only when it is the same text.
        return body if self._same_base or _digest(body) == digest else None

    def body(self, shown: str, path: str, digest: bytes) -> str:
        """The body of ``shown``: from ``BODIES``, else read from its file again, when
        it is still the same text. Never another: the rest of its term came from
        the same record. A file changed since this build stamped it, when the
        cache lost its body too, fails the build (it cannot be built as it was)."""
        body = self.stored(shown, digest)
        if body is None:
            term, _problems, _names = content.read_term_file(Path(path), shown)
            body = term.body if term is not None else None
            if body is None or _digest(body) != digest:
                raise BuildFailed([Problem(shown, None, "changed while the build was running (and the build "
                                                        "cache lost its copy): build again")])
        return body


class _KeptTerm(Term):
    """A ``Term`` made from a ``TABLE`` record whose body is kept apart: the body
    is read (``_KeptBodies.body``) when first asked for, so a build that needs
    none of the unchanged bodies (an edit on the fast path) reads none.
    Everything else about it is a ``Term``'s: equal to one with the same
    fields, pickled as one."""

    @classmethod
    def made(cls, record: tuple, kept: _KeptBodies, path: str) -> "_KeptTerm":
        """The term of ``record`` (its body a digest), read from ``path`` if need be."""
        term = cls(*record)  # (a Term's own __init__: ~2x quicker than filling its fields here)
        fields = term.__dict__
        fields["_kept"] = (kept, path, fields.pop("body"))  # the digest, out of ``body``: read on first use
        return term

    @classmethod
    def packed(cls, record: tuple, kept: _KeptBodies, path: str, shown: str) -> "_KeptTerm":
        """The term of a packed ``record`` (``_pack``) of the file ``shown`` (its ``path``
        field: a term's path is the file as shown), its other fields unpacked when first
        asked for: an edit asks every term for its slug, path and explainer only."""
        term = cls.__new__(cls)
        term.__dict__.update(slug=record[0], path=shown, explainer=record[1], _packed=(record[3], kept, path))
        return term

    def __getattr__(self, name: str):
        fields = self.__dict__
        packed = fields.pop("_packed", None)
        if packed is not None:  # every field but those set already, the body out of it as ``made`` keeps it
            data, kept, path = packed
            had_body = "body" in fields
            for field, value in zip(RECORD_FIELDS, marshal.loads(data)):
                fields.setdefault(field, value)
            if not had_body:
                fields["_kept"] = (kept, path, fields.pop("body"))
            if name in fields:
                return fields[name]
        if name != "body" or "_kept" not in fields:
            raise AttributeError(name)
        kept, path, digest = fields["_kept"]
        fields["body"] = body = kept.body(self.path, path, digest)
        del fields["_kept"]
        return body

    def __eq__(self, other: object) -> bool:
        return self.to_record() == other.to_record() if isinstance(other, Term) else NotImplemented

    __hash__ = None  # type: ignore[assignment]  (as a Term's: mutable)

    def __reduce__(self):
        return Term.from_record, (self.to_record(),)


class _KeptBody:
    """A body kept apart, as its digest, in the last build's record of an edited
    term (``Change.previous``): equal to the body it was made from and to no
    other, so ``incremental.body_only`` still tells a changed body from a file
    saved unchanged."""

    __slots__ = ("digest",)

    def __init__(self, digest: bytes):
        self.digest = digest

    def __eq__(self, other: object) -> bool:
        return _digest(other) == self.digest if isinstance(other, str) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return _digest(other) != self.digest if isinstance(other, str) else NotImplemented

    __hash__ = None  # type: ignore[assignment]


def _comparable(record: tuple | None) -> tuple | None:
    """``record`` with a body kept apart as a ``_KeptBody``, which compares with a body."""
    if record is None or len(record) != len(RECORD_FIELDS) or not isinstance(record[_BODY_AT], bytes):
        return record
    return (*record[:_BODY_AT], _KeptBody(record[_BODY_AT]), *record[_BODY_AT + 1:])
