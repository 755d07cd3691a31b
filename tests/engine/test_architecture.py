"""The engine's shape: no import circles among its modules, no module too big to read."""

from __future__ import annotations

import ast
from pathlib import Path

import engine

ENGINE = Path(engine.__file__).parent
MAX_LINES = 450


def _module_name(path: Path) -> str:
    rel = path.relative_to(ENGINE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def _imports(name: str, path: Path) -> set[str]:
    """Engine modules this one imports, at any depth in the file (a function-level import
    is still a dependency), each resolved to a module ("from engine import faq" too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            subs = {f"{base}.{a.name}" for a in node.names} & MODULES.keys()
            out.update(subs or {base})  # "from engine import faq" imports the module only
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle() -> list[str] | None:
    """One import cycle among the engine's modules, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(GRAPH[node]):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep) :], dep]
            if dep not in state and (found := visit(dep)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for name in sorted(GRAPH):
        if name not in state and (found := visit(name)):
            return found
    return None


def test_the_graph_sees_the_engine() -> None:
    assert "engine.understand.pipeline" in MODULES
    assert "engine.understand.model_index" in GRAPH["engine.understand.model_match"]
    assert "engine.faq" in GRAPH["engine.kinds.talk"]


def test_no_import_circles() -> None:
    # A package's __init__ re-exports its modules; the modules must not import it back.
    assert _cycle() is None, " -> ".join(_cycle() or [])


def test_no_module_is_too_big() -> None:
    sizes = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in MODULES.items()}
    big = {n: lines for n, lines in sizes.items() if lines > MAX_LINES}
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
