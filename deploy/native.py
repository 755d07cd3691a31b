"""Build the engine's hot modules to C with mypyc (it ships with mypy), or remove that build.

    .venv/bin/python deploy/native.py          # build: engine/**/*.so next to the sources
    .venv/bin/python deploy/native.py --clean  # back to plain Python

The image's builder stage runs it (deploy/Dockerfile, NATIVE=1); elsewhere it is optional,
and without it the same sources run as plain Python. A warm answer costs about a third fewer
instructions compiled (docs/BENCHMARKS.md); the answers are the same (the test suite passes
against either, and the image test compares the image's answers with the plain engine's).
It needs a C compiler and Python's headers.

The build is in place (``build_ext --inplace``): each compiled module is a small ``.so`` next
to its ``.py``, and all of them load one shared library, ``engine/_native__mypyc*.so``.
``engine/_native.txt`` lists what was compiled; ``engine/native_guard.py`` reads it on import of ``engine`` and,
when a listed source is newer than the build, warns once and imports the sources instead, so
an edit is never shadowed by an old build.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
STAMP = ENGINE / "_native.txt"
GROUP = "engine._native"

# Left as Python, each for a reason mypyc cannot follow:
PLAIN = {
    "engine/__init__.py": "packages stay Python",
    "engine/native_guard.py": "it decides whether the compiled build is used",
    "engine/frozen.py": "builds each type's __init__ at run time and stores fields by __dict__",
    "engine/models.py": "Frozen types",
    "engine/answer_types.py": "Frozen types",
    "engine/datafiles.py": "Frozen types, and pydantic validation",
    "engine/lazyre.py": "a pattern replaces its own methods with the compiled pattern's",
    "engine/catalog.py": "loading: run once per process, and replaced in tests",
    "engine/catalog_cache.py": "loading: run once per process (@per_catalog is catalog_memo's)",
    "engine/kinds/serving.py": "ServingRow subclasses a Frozen type",
}


def modules() -> list[str]:
    out = []
    for path in sorted(ENGINE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if path.name != "__init__.py" and rel not in PLAIN:
            out.append(rel)
    return out


def clean() -> int:
    """Remove every compiled module and the stamp; the sources run as they are."""
    gone = [p for p in ENGINE.rglob("*.so")]
    for p in gone:
        p.unlink()
    STAMP.unlink(missing_ok=True)
    print(f"removed {len(gone)} compiled files")
    return 0


def build(opt_level: str) -> int:
    try:
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as e:
        print(f"cannot build: {e} (install the test requirements: make .venv/.installed-test)")
        return 2
    clean()
    os.chdir(ROOT)  # mypy reads the sources by their paths from the root, with its settings
    paths = modules()
    with tempfile.TemporaryDirectory() as tmp:
        # One C file per module rather than one for the group: gcc takes about a third of the
        # time (80 s against 220 s on two cores here), at the same instructions per answer.
        ext = mypycify(
            paths, opt_level=opt_level, group_name=GROUP, target_dir=tmp + "/c", multi_file=True
        )
        for e in ext:  # mypyc writes the group's headers under the package's folder
            e.include_dirs.append(tmp + "/c/" + GROUP.split(".")[0])
        setup(
            name="vramchat-native",
            ext_modules=ext,
            script_args=["-q", "build_ext", "--inplace", "--build-temp", tmp + "/o"],
        )
    names = [p[: -len(".py")].replace("/", ".") for p in paths]
    STAMP.write_text("".join(n + "\n" for n in names), encoding="utf-8")
    plain = sum(1 for p in ENGINE.rglob("*.py")) - len(names)
    print(f"compiled {len(names)} modules; {plain} left as Python (the packages and PLAIN)")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clean", action="store_true", help="remove the compiled build")
    ap.add_argument("--opt-level", default="3", help="the C compiler's -O level")
    args = ap.parse_args()
    if args.clean:
        return clean()
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        print("cannot build: no C compiler (cc or gcc) on PATH; the engine runs as Python")
        return 2
    return build(args.opt_level)


if __name__ == "__main__":
    sys.exit(main())
