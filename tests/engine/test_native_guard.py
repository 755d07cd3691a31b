"""The optional compiled engine (deploy/native.py) is never used older than its sources."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from engine.native_guard import SourcesFirst, stale_sources


def _build(tmp_path: Path, *, lib_age: float, src_age: float) -> Path:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    src = pkg / "sub" / "mod.py"
    src.write_text("WHERE = 'source'\n")
    lib = pkg / "_native__mypyc.cpython-311-x86_64-linux-gnu.so"
    lib.write_bytes(b"")
    (pkg / "_native.txt").write_text("pkg.sub.mod\n")
    now = 1_700_000_000.0
    os.utime(lib, (now - lib_age, now - lib_age))
    os.utime(src, (now - src_age, now - src_age))
    return pkg


def test_no_build_means_the_sources(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    assert stale_sources(str(tmp_path / "pkg")) is None


def test_a_build_newer_than_its_sources_is_used(tmp_path: Path) -> None:
    pkg = _build(tmp_path, lib_age=10, src_age=100)
    assert stale_sources(str(pkg)) is None


def test_an_edit_after_the_build_runs_the_sources(tmp_path: Path) -> None:
    pkg = _build(tmp_path, lib_age=100, src_age=10)
    sources = stale_sources(str(pkg))
    assert sources == {"pkg.sub.mod": str(pkg / "sub" / "mod.py")}
    spec = SourcesFirst(sources).find_spec("pkg.sub.mod")
    assert spec is not None and spec.origin == str(pkg / "sub" / "mod.py")
    assert SourcesFirst(sources).find_spec("pkg.other") is None


def test_a_build_without_its_library_runs_the_sources(tmp_path: Path) -> None:
    pkg = _build(tmp_path, lib_age=10, src_age=100)
    next(pkg.glob("_native__mypyc*.so")).unlink()
    assert stale_sources(str(pkg)) is not None


def test_the_finder_imports_the_source(tmp_path: Path) -> None:
    pkg = _build(tmp_path, lib_age=100, src_age=10)
    sources = stale_sources(str(pkg))
    assert sources is not None
    finder = SourcesFirst(sources)
    sys.path.insert(0, str(tmp_path))
    sys.meta_path.insert(0, finder)
    try:
        import pkg.sub.mod as mod  # type: ignore[import-not-found]

        assert mod.WHERE == "source"
    finally:
        sys.meta_path.remove(finder)
        sys.path.remove(str(tmp_path))
        for name in ("pkg.sub.mod", "pkg.sub", "pkg"):
            sys.modules.pop(name, None)


def test_a_fresh_build_is_what_runs() -> None:
    """With `make native` done and no edit since, every module it lists runs compiled."""
    import importlib

    import engine

    here = os.path.dirname(os.path.abspath(engine.__file__))
    stamp = Path(here) / "_native.txt"
    if not stamp.exists() or stale_sources(here) is not None:
        pytest.skip("no compiled build, or one older than its sources")
    names = stamp.read_text(encoding="utf-8").split()
    assert names
    for name in names:
        assert str(importlib.import_module(name).__file__).endswith(".so"), name


def test_a_stale_build_in_a_bare_process_imports_its_sources(tmp_path: Path) -> None:
    """The guard's own finder needs importlib.util: in a process that has not loaded it yet
    (no site, no import hook of an editable install) it must not find it through itself."""
    import subprocess

    pkg = _build(tmp_path, lib_age=100, src_age=10)
    guard = Path(__file__).resolve().parents[2] / "engine" / "native_guard.py"
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "assert 'importlib.util' not in sys.modules\n"
        f"ns = {{'__file__': {str(pkg / 'native_guard.py')!r}, '__name__': 'guard'}}\n"
        f"exec(compile(open({str(guard)!r}).read(), 'native_guard.py', 'exec'), ns)\n"
        "import pkg.sub.mod\n"
        "print(pkg.sub.mod.WHERE)\n"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "source"
    assert "older than its sources" in out.stderr
