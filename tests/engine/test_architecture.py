"""The engine's shape: no import circles among its modules, no module too big to read."""

from __future__ import annotations

import ast
from pathlib import Path

import engine
from tests.arch_support import find_cycle, import_graph, oversized, package_modules

ENGINE = Path(engine.__file__).parent
MAX_LINES = 450
MODULES = package_modules(ENGINE)
GRAPH = import_graph(MODULES)


def test_the_graph_sees_the_engine() -> None:
    assert "engine.understand.pipeline" in MODULES
    assert "engine.understand.model_index" in GRAPH["engine.understand.model_match"]
    assert "engine.faq" in GRAPH["engine.kinds.talk"]


def test_no_import_circles() -> None:
    # A package's __init__ re-exports its modules; the modules must not import it back.
    cycle = find_cycle(GRAPH)
    assert cycle is None, " -> ".join(cycle or [])


def test_no_module_is_too_big() -> None:
    big = oversized(MODULES, MAX_LINES)
    assert not big, big


def test_bot_imports_only_the_engines_public_names() -> None:
    """Every bot/ module, at any depth in the file, imports the engine only as
    ``from engine import <name in engine.__all__>``: no ``from engine.x import``, no
    ``import engine.x``, so the engine can move its insides without touching an adapter."""
    used: set[str] = set()
    deep: list[str] = []
    for path in sorted((ENGINE.parent / "bot").rglob("*.py")):
        rel = path.relative_to(ENGINE.parent)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                module = node.module or ""
                if module == "engine":
                    used.update(a.name for a in node.names)
                elif module.startswith("engine."):
                    deep.append(f"{rel}:{node.lineno} from {module}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "engine" or alias.name.startswith("engine."):
                        deep.append(f"{rel}:{node.lineno} import {alias.name}")
    assert used, "bot/ imports nothing from the engine?"
    assert not deep, deep
    assert used <= set(engine.__all__), sorted(used - set(engine.__all__))
