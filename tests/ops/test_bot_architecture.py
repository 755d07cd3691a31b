"""bot/'s shape: no import circles among its modules (package ``__init__`` files included),
no module too big to read, and the CLI the only place that prints."""

from __future__ import annotations

import ast
from pathlib import Path

import bot

BOT = Path(bot.__file__).parent
MAX_LINES = 450


def _module_name(path: Path) -> str:
    rel = path.relative_to(BOT.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(BOT.rglob("*.py"))}


def _imports(name: str, path: Path) -> set[str]:
    """bot modules this one imports at any depth (a function-level import counts too)."""
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
            out.update(subs or {base})  # "from bot import metrics" imports the module only
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle() -> list[str] | None:
    state: dict[str, int] = {}
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


def test_the_graph_sees_every_package() -> None:
    for name in ("bot.telegram.app", "bot.discord.handlers", "bot.web.app", "bot.render"):
        assert name in MODULES, name
    assert "bot.render.markdown" in GRAPH["bot.render"]
    assert "bot.lifecycle" in GRAPH["bot.telegram.app"]
    assert "bot.memo" in GRAPH["bot.discord.handlers"]


def test_no_import_circles() -> None:
    # bot/render/__init__ re-exports its modules; they import bot.render.common, never it.
    assert _cycle() is None, " -> ".join(_cycle() or [])


def test_no_module_is_too_big() -> None:
    sizes = {n: len(p.read_text(encoding="utf-8").splitlines()) for n, p in MODULES.items()}
    big = {n: lines for n, lines in sizes.items() if lines > MAX_LINES}
    assert not big, big


def test_every_platform_shares_one_lifecycle() -> None:
    """Boot, reload off the loop and store close come from bot.lifecycle, not per platform."""
    for name in ("bot.telegram.app", "bot.discord.app", "bot.web.app"):
        assert "bot.lifecycle" in GRAPH[name], name
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if name != "bot.lifecycle":
            assert "desk.reload)" not in text.replace("self.desk.reload)", ""), name
            assert "run_in_executor(None, self.desk.reload" not in text, name
