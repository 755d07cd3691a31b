"""One import-graph reader for the shape tests of engine/ and bot/: module names of a
package's files, the package-internal imports of each, one import cycle, oversized files."""

from __future__ import annotations

import ast
from pathlib import Path


def package_modules(package: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` below ``package`` (``__init__`` files
    are named after their package)."""

    def name(path: Path) -> str:
        rel = path.relative_to(package.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        return ".".join(parts)

    return {name(p): p for p in sorted(package.rglob("*.py"))}


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Modules of ``modules`` this one imports, at any depth in the file (a function-level
    import is still a dependency), each resolved to a module ("from engine import faq" too)."""
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
            subs = {f"{base}.{a.name}" for a in node.names} & modules.keys()
            out.update(subs or {base})  # "from engine import faq" imports the module only
    return {m for m in out if m in modules and m != name}


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module -> the modules of the same set it imports."""
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle in ``graph`` (first module repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                return [*stack[stack.index(dep) :], dep]
            if dep not in state and (found := visit(dep)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name)):
            return found
    return None


def oversized(modules: dict[str, Path], max_lines: int) -> dict[str, int]:
    """Modules longer than ``max_lines`` lines, with their length."""
    sizes = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in modules.items()}
    return {n: lines for n, lines in sizes.items() if lines > max_lines}
