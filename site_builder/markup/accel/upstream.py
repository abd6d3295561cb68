"""Is the installed Python-Markdown the very one the fast processors mirror?

``fast_inline``, ``fast_tree`` and ``fast_blocks`` copy or reason about
upstream code (a loop, a regex, how a name is cut out of a heading). A version
check alone would trust any 3.11.x patch release, or a distribution's patched
copy, to behave the same. So the fast processors also require every upstream
source file they depend on to be byte-identical to the one they were checked
against. When one differs, they are not installed and the stock processors
run: the output never changes with an upgrade, only the speed-up is lost
until the modules are checked against the new release and these digests are
updated (``python -m site_builder.markup.accel.upstream`` prints the current ones).
"""

from __future__ import annotations

import functools
import hashlib
import os

import markdown

CHECKED_RELEASE = "3.11.3"
"""The Python-Markdown release the fast processors were checked against; the
``fast`` extra in pyproject.toml pins it, and CI installs it (through the test
extra), so a mismatch there fails the suite instead of going unnoticed."""

SOURCE_DIGESTS = {
    # Python-Markdown 3.11.3: the first 16 hex digits of each file's sha256.
    "blockparser.py": "8f80902265698aae",
    "blockprocessors.py": "0522d16c4ddadc75",
    "core.py": "b8fdb3a9eb5b6f13",
    "inlinepatterns.py": "35f1c45afbc3e901",
    "postprocessors.py": "bd30e317d0b1e125",
    "preprocessors.py": "a6ae4d9c72a43925",
    "serializers.py": "7cef1af99da20252",
    "treeprocessors.py": "bf575e7cb994079e",
    "util.py": "908fb0650fbaf1d3",
    "extensions/toc.py": "180266be023aa581",
    "extensions/attr_list.py": "7049a49eb61bfce9",
    "extensions/fenced_code.py": "61a1d4e5b825530a",
    "extensions/footnotes.py": "6bf0b957333399c4",
    "extensions/tables.py": "fb23019f3a0f5afc",
    "extensions/sane_lists.py": "76d51863c957b4a9",
}


def current_digests() -> dict[str, str | None]:
    """The digest of each file of ``SOURCE_DIGESTS`` in the installed Markdown (None: unreadable)."""
    root = os.path.dirname(markdown.__file__)
    found: dict[str, str | None] = {}
    for relative in SOURCE_DIGESTS:
        try:
            with open(os.path.join(root, relative), "rb") as handle:
                found[relative] = hashlib.sha256(handle.read()).hexdigest()[:16]
        except OSError:
            found[relative] = None
    return found


@functools.lru_cache(maxsize=1)
def matches() -> bool:
    """True when every upstream file the fast processors rely on is the one they were checked against."""
    return current_digests() == SOURCE_DIGESTS


def mismatch_warning() -> str | None:
    """The build log's line when the fast processors are off (None when they are on)."""
    if matches():
        return None
    return (f"warning: Python-Markdown {markdown.__version__} is not the release the fast markdown processors "
            f"were checked against ({CHECKED_RELEASE}); pages are the same but render about 3x slower "
            f"(pip install 'site_builder[fast]' installs it)")


if __name__ == "__main__":
    print(f"markdown {markdown.__version__}")
    for name, digest in current_digests().items():
        print(f'    "{name}": "{digest}",')
