"""A compiled build (deploy/native.py) older than a source it compiled would answer with the
old code: on import of ``engine``, every compiled module is then imported from its source.

:data:`ACTIVE` names the build that runs, for the catalog cache's key: an object pickled from
a compiled class does not load into its plain class, nor back."""

from __future__ import annotations

import os
import sys
from importlib.machinery import ModuleSpec

STAMP = "_native.txt"  # what deploy/native.py compiled, one module a line
LIB = "_native__mypyc"  # the shared library every compiled module loads
ACTIVE = ""  # the compiled build in use (its module list and library), "" when the sources run


def _build(here: str) -> tuple[list[str], os.stat_result | None] | None:
    """The build in ``here``: the modules it compiled and its library's stat (None when the
    library is missing); None when there is no build."""
    try:
        with open(os.path.join(here, STAMP), encoding="utf-8") as f:
            names = f.read().split()
        lib = sorted(n for n in os.listdir(here) if n.startswith(LIB) and n.endswith(".so"))
        return names, os.stat(os.path.join(here, lib[0])) if lib else None
    except OSError:
        return None


def stale_sources(here: str) -> dict[str, str] | None:
    """The compiled modules' sources (name -> path) when the build in ``here`` is older than
    any of them or incomplete; ``None`` when there is no build or it is up to date."""
    build = _build(here)
    if build is None:
        return None  # no compiled build: the sources are what runs
    names, lib = build
    root = os.path.dirname(here)
    built = lib.st_mtime if lib is not None else 0.0
    sources = {n: os.path.join(root, *n.split(".")) + ".py" for n in names}
    if all(os.path.exists(p) and os.stat(p).st_mtime <= built for p in sources.values()):
        return None
    return sources


class SourcesFirst:
    """Finds each compiled module's source ahead of its ``.so`` (put first on sys.meta_path)."""

    def __init__(self, sources: dict[str, str]) -> None:
        self.sources = sources

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        from importlib.util import spec_from_file_location

        file = self.sources.get(name)
        if file is None or not os.path.exists(file):
            return None
        return spec_from_file_location(name, file)


def build_id(here: str) -> str:
    """The compiled build in ``here``: what it compiled and its library's size and time."""
    names, lib = _build(here) or ([], None)
    return f"{' '.join(names)}|{lib.st_size}:{lib.st_mtime_ns}" if lib is not None else ""


def check() -> None:
    global ACTIVE
    here = os.path.dirname(os.path.abspath(__file__))
    sources = stale_sources(here)
    if sources is None:
        ACTIVE = build_id(here)
        return
    # Imported before the finder is in place: imported through it, it would recurse forever.
    import importlib.util  # noqa: F401

    sys.meta_path.insert(0, SourcesFirst(sources))
    sys.stderr.write(
        "vramchat: the compiled engine is older than its sources; running the sources "
        "(rebuild: python deploy/native.py, or remove it: --clean)\n"
    )


check()
