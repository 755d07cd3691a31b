"""The engine stays pure: no platform libraries, no network, no environment, a pinned API."""

from __future__ import annotations

import ast
from pathlib import Path

import engine

ENGINE = Path(engine.__file__).parent
FORBIDDEN = {
    "bot",
    "discord",
    "telegram",
    "aiohttp",
    "httpx",
    "requests",
    "socket",
    "redis",
    "prometheus_client",
    "subprocess",
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_engine_imports_no_platform_or_network_library() -> None:
    for path in sorted(ENGINE.rglob("*.py")):
        bad = imported_roots(path) & FORBIDDEN
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_engine_reads_no_environment() -> None:
    for path in sorted(ENGINE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "os.environ" not in text and "getenv" not in text, path.name


def test_engine_never_configures_logging() -> None:
    for path in sorted(ENGINE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for call in ("basicConfig", "addHandler", "setLevel", "dictConfig"):
            assert call not in text, f"{path.name} calls {call}"


def test_yaml_is_read_only_by_the_data_reader() -> None:
    users = {p.name for p in ENGINE.rglob("*.py") if "yaml" in imported_roots(p)}
    assert users == {"datafile_read.py"}


def test_public_api_is_pinned() -> None:
    assert sorted(engine.__all__) == [
        "Answer",
        "BudgetOption",
        "Candidate",
        "Card",
        "CardInfo",
        "Catalog",
        "CatalogError",
        "Context",
        "Conversations",
        "DEFAULT_BATCH",
        "DEFAULT_CONTEXT",
        "Fit",
        "FitChange",
        "LANGS",
        "Lang",
        "Limit",
        "MAX_BATCH",
        "MAX_CHOICE_CHARS",
        "MAX_CONTEXT_TOKENS",
        "MAX_QUERY_CHARS",
        "ModelRef",
        "ModelSpec",
        "Note",
        "Pick",
        "QueryError",
        "Request",
        "RequestOptions",
        "Section",
        "Task",
        "VramchatError",
        "ask",
        "card_info",
        "compare",
        "context_of",
        "ctx_label",
        "default_catalog",
        "fleet_shrink",
        "fmt_gb",
        "fmt_num",
        "fmt_usd",
        "is_context_value",
        "load_catalog",
        "parse_token_count",
        "pick_lang",
        "render_text",
        "search_models",
        "suggest_cards",
        "suggest_models",
        "t",
        "warm_up",
    ]
    for name in engine.__all__:
        assert getattr(engine, name) is not None, name
