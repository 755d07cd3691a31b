"""``vram cards`` and ``vram models``: the fleet and the known models as aligned tables."""

from __future__ import annotations

import argparse
import json

from bot.cli_common import catalog_for, format_answer, t
from bot.tables import human_tokens, table

__all__ = ["cmd_cards", "cmd_models"]


def cmd_cards(args: argparse.Namespace) -> int:
    """The fleet as an aligned table (the engine's own rows and header), filtered by VRAM."""
    cat = catalog_for(args)
    from engine import ask

    answer = ask("gpus", args.lang, catalog=cat)
    lang = answer.lang
    if args.format != "text":
        print(format_answer(answer, cat, args.format))
        return 0
    section = answer.sections[0]
    rows = [
        (info, line.split(" · "))
        for info, line in zip(answer.cards, section.lines, strict=True)
        if args.min_vram is None or info.vram_gb >= args.min_vram
    ]
    if not rows:
        print(t(cat, lang, "cli.cards.none", gb=f"{args.min_vram:g}"))
        return 1
    header = section.title.split(" · ")
    print(answer.headline)
    print()
    print(table(header, [cells for _, cells in rows], set(range(1, len(header) - 1))))
    print()
    print(t(cat, lang, "render.prices_as_of", date=answer.prices_as_of))
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    """Known models as a table: a name filter, and size or context bounds."""
    cat = catalog_for(args)
    lang = args.lang or "en"
    needle = " ".join(args.search).lower()
    rows = [
        m
        for m in cat.models
        if (not needle or needle in m.name.lower() or any(needle in a.lower() for a in m.aliases))
        and (args.min_params is None or m.params_b >= args.min_params)
        and (args.max_params is None or m.params_b <= args.max_params)
        and (args.min_context is None or m.max_context_tokens >= args.min_context)
    ]
    if args.format == "json":
        print(json.dumps([m.model_dump(mode="json") for m in rows], indent=2))
        return 0 if rows else 1
    if not rows:
        print(t(cat, lang, "cli.models.none"))
        return 1
    header = t(cat, lang, "cli.models.columns").split("|")
    body = [
        [
            m.name,
            f"{m.params_b:g}B",
            f"{m.active_params_b:g}B" if m.active_params_b else "-",
            str(m.layers),
            str(m.attention_heads),
            str(m.kv_heads),
            str(m.head_dim),
            human_tokens(m.max_context_tokens),
        ]
        for m in rows
    ]
    print(table(header, body, set(range(1, len(header)))))
    return 0
