"""Refresh the vendored Vega runtime from the npm registry (maintainers only).

    python tools/refresh_vendor.py           # download the pinned releases, write the files
    python tools/refresh_vendor.py --check   # download again and compare with what is committed

The explainers' live charts need the Vega runtime and nothing more: Vega-Lite
is compiled to Vega at build time (vl-convert), so the browser gets only
``vega.min.js`` (BSD-3-Clause, a self-contained UMD build), the CSP-safe
expression interpreter ``vega-interpreter`` and the tooltip handler
``vega-tooltip`` (both BSD-3-Clause). The last two are published as ES modules
only; this script turns each into a classic script (so pages keep working
from ``file://``) by replacing its one import from ``vega-util`` with the same
names read from ``self.vega`` and its export list with one global. Anything
else in their import or export lines is an error: a release that changes
shape must be looked at, not wrapped blindly.

Each tarball is checked against the registry's published sha512 integrity;
the files written are recorded with their sha256 in ``VENDORED.json``, which
a test checks against the files (no network in tests). Users never run this:
the files are committed.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import re
import sys
import tarfile
import urllib.request
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "site_builder" / "explainers" / "vendor"
REGISTRY = "https://registry.npmjs.org"

PACKAGES = {
    # package: (version, file in the tarball, file written, global an ES module is exposed as)
    "vega": ("6.4.0", "package/build/vega.min.js", "vega.min.js", None),
    "vega-interpreter": ("2.3.2", "package/build/vega-interpreter.js", "vega-interpreter.js", "vegaInterpreter"),
    "vega-tooltip": ("1.1.0", "package/build/index.js", "vega-tooltip.js", "vegaTooltip"),
}

_IMPORT = re.compile(r"^import \{ ([\w, ]+) \} from 'vega-util';\n", re.M)
_EXPORT = re.compile(r"^export \{ ([\w, ]+) \};\n?", re.M)


def fetch(package: str, version: str) -> tuple[bytes, str]:
    """The release tarball of ``package`` at ``version``, checked against its
    published integrity; and that integrity string."""
    with urllib.request.urlopen(f"{REGISTRY}/{package}/{version}", timeout=60) as response:
        meta = json.load(response)
    integrity = meta["dist"]["integrity"]
    with urllib.request.urlopen(meta["dist"]["tarball"], timeout=120) as response:
        tarball = response.read()
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512" or base64.b64encode(hashlib.sha512(tarball).digest()).decode() != expected:
        raise SystemExit(f"{package}@{version}: the tarball does not match its published integrity")
    return tarball, integrity


def classic(module: str, name: str, global_name: str) -> str:
    """An ES module that imports only from vega-util, as a classic script setting ``self.<global_name>``."""
    imports = _IMPORT.findall(module)
    exports = _EXPORT.findall(module)
    # The source map is not shipped: a reference to it would only be a request that fails.
    body = re.sub(r"^//# sourceMappingURL=.*\n?", "", _EXPORT.sub("", _IMPORT.sub("", module)), flags=re.M)
    if len(imports) != 1 or len(exports) != 1 or re.search(r"^\s*(import|export)\b", body, re.M):
        raise SystemExit(f"{name}: not the one vega-util import and one export list this script wraps")
    names = [n.strip() for n in imports[0].split(",")]
    pairs = []
    for item in exports[0].split(","):
        local, _, exported = item.strip().partition(" as ")
        pairs.append(f"{json.dumps(exported or local)}: {local}")
    head = "".join(f"  var {n} = vega.{n};\n" for n in names)
    return (f"/* {name}: wrapped as a classic script by tools/refresh_vendor.py */\n"
            f"(function (vega) {{\n\"use strict\";\n{head}{body}"
            f"self.{global_name} = {{ {', '.join(pairs)} }};\n}})(self.vega);\n")


def vendored() -> dict[str, bytes]:
    """Every file to write: name -> bytes, plus VENDORED.json."""
    files: dict[str, bytes] = {}
    record = {}
    for package, (version, member, target, global_name) in PACKAGES.items():
        tarball, integrity = fetch(package, version)
        with tarfile.open(fileobj=io.BytesIO(tarball)) as archive:
            source = archive.extractfile(member).read()
            licence = archive.extractfile("package/LICENSE").read()
        if global_name:
            source = classic(source.decode("utf-8"), f"{package}@{version}", global_name).encode("utf-8")
        files[target] = source
        files[f"LICENSE-{package}.txt"] = licence
        record[package] = {
            "version": version,
            "integrity": integrity,
            "files": {name: hashlib.sha256(files[name]).hexdigest() for name in (target, f"LICENSE-{package}.txt")},
        }
    files["VENDORED.json"] = (json.dumps(record, indent=2, sort_keys=True) + "\n").encode("utf-8")
    return files


def main() -> int:
    """Write (or with --check, compare) the vendored files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files; write nothing")
    args = parser.parse_args()
    files = vendored()
    if args.check:
        differing = [name for name, data in files.items()
                     if not (VENDOR / name).is_file() or (VENDOR / name).read_bytes() != data]
        print("vendored files match the registry" if not differing else f"differ: {', '.join(differing)}")
        return 1 if differing else 0
    for name, data in files.items():
        (VENDOR / name).write_bytes(data)
    print(f"wrote {len(files)} files to {VENDOR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
