"""What every ``vram`` subcommand shares: the catalog as the options ask for it, message
lookup and the answer formats. Nothing here loads the engine until it is called."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine import Answer, Catalog

__all__ = ["FORMATS", "cache_dir", "catalog_for", "env_data_dir", "format_answer", "t"]

FORMATS = ("text", "markdown", "json")


def t(catalog: Catalog, lang: str, key: str, **params: Any) -> str:
    from engine import t as lookup

    return lookup(catalog, lang, key, **params)


def cache_dir(args: argparse.Namespace | None = None) -> Path | None:
    """Where the validated catalog is cached: ``--cache-dir``, else VRAMCHAT_CACHE_DIR, else
    $XDG_CACHE_HOME/vramchat or ~/.cache/vramchat (:func:`bot.paths.cache_dir`);
    ``--no-cache`` turns it off (every start then validates the data files in full)."""
    from bot.paths import cache_dir as resolve

    if args is not None and getattr(args, "no_cache", False):
        return None
    return resolve(getattr(args, "cache_dir", None) if args is not None else None)


def catalog_for(args: argparse.Namespace) -> Catalog:
    from engine import load_catalog

    data_dir = args.data_dir or env_data_dir()
    return load_catalog(data_dir, args.price_book, cache_dir=cache_dir(args))


def env_data_dir() -> str | None:
    """VRAMCHAT_DATA_DIR, read without loading the settings stack (keeps ``vram ask`` quick)."""
    return os.environ.get("VRAMCHAT_DATA_DIR") or None


def format_answer(answer: Answer, catalog: Catalog, fmt: str, explain: bool = False) -> str:
    if fmt == "json":
        return json.dumps(answer.to_json(), ensure_ascii=False, indent=2)
    if fmt == "markdown":
        from bot.render.markdown import format_markdown

        return format_markdown(answer, catalog, math=explain)
    from bot.render.text import format_text

    return format_text(answer, catalog, math=explain)
