"""bot/'s shape: no import circles among its modules (package ``__init__`` files included),
no module too big to read, and one lifecycle for every platform (ruff's T20 keeps ``print``
in the CLI)."""

from __future__ import annotations

from pathlib import Path

import bot
from tests.arch_support import find_cycle, import_graph, oversized, package_modules

BOT = Path(bot.__file__).parent
MAX_LINES = 450
MODULES = package_modules(BOT)
GRAPH = import_graph(MODULES)


def test_the_graph_sees_every_package() -> None:
    for name in ("bot.telegram.app", "bot.discord.handlers", "bot.web.app", "bot.render"):
        assert name in MODULES, name
    assert "bot.render.markdown" in GRAPH["bot.render"]
    assert "bot.lifecycle" in GRAPH["bot.telegram.app"]
    assert "bot.memo" in GRAPH["bot.discord.handlers"]


def test_no_import_circles() -> None:
    # bot/render/__init__ re-exports its modules; they import bot.render.common, never it.
    cycle = find_cycle(GRAPH)
    assert cycle is None, " -> ".join(cycle or [])


def test_no_module_is_too_big() -> None:
    big = oversized(MODULES, MAX_LINES)
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
