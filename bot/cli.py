"""``vram``: the command line. Each subcommand imports its adapter only when it runs, so
``vram ask`` starts without loading discord, telegram or aiohttp."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import uuid
from collections.abc import Sequence

from engine import Answer, Catalog, CatalogError, Context, ask, context_of, load_catalog
from engine.i18n import t

log = logging.getLogger("vramchat.cli")

FORMATS = ("text", "markdown", "json")


def _catalog(data_dir: str | None, price_book: str = "monthly") -> Catalog:
    return load_catalog(data_dir or _env_data_dir(), price_book)


def _env_data_dir() -> str | None:
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


def _ask(text: str, lang: str | None, cat: Catalog, previous: Context | None = None) -> Answer:
    """One question, with the same log line the bots write (shown at VRAMCHAT_LOG_LEVEL=INFO)."""
    start = time.perf_counter()
    answer = ask(text, lang, catalog=cat, previous=previous)
    log.info(
        "rid=%s platform=cli kind=%s lang=%s latency_ms=%.2f",
        uuid.uuid4().hex[:8],
        answer.kind,
        answer.lang,
        (time.perf_counter() - start) * 1000,
    )
    return answer


def cmd_ask(args: argparse.Namespace) -> int:
    cat = _catalog(args.data_dir, args.price_book)
    answer = _ask(" ".join(args.query), args.lang, cat)
    print(format_answer(answer, cat, args.format, args.explain))
    return 0


def cmd_chat(args: argparse.Namespace) -> int:
    """Interactive session: the assistant with no platform, follow-ups included."""
    cat = _catalog(args.data_dir, args.price_book)
    prev: Context | None = None
    interactive = sys.stdin.isatty()
    if interactive:
        print(t(cat, args.lang or "en", "cli.welcome"))
    while True:
        try:
            line = input("> " if interactive else "")
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if not line.strip():
            continue
        if line.strip() in ("/quit", "/exit", "quit", "exit"):
            return 0
        answer = _ask(line, args.lang, cat, prev)
        prev = context_of(answer) or prev
        print(format_answer(answer, cat, args.format, args.explain))
        print()


def cmd_cards(args: argparse.Namespace) -> int:
    cat = _catalog(args.data_dir, args.price_book)
    answer = ask("gpus", args.lang, catalog=cat)
    print(format_answer(answer, cat, args.format))
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    cat = _catalog(args.data_dir, args.price_book)
    needle = " ".join(args.search).lower()
    rows = [
        m
        for m in cat.models
        if not needle or needle in m.name.lower() or any(needle in a.lower() for a in m.aliases)
    ]
    if args.format == "json":
        print(json.dumps([m.model_dump(mode="json") for m in rows], indent=2))
        return 0
    for m in rows:
        moe = f" ({m.active_params_b:g}B active)" if m.active_params_b else ""
        print(
            f"{m.name:32} {m.params_b:>8g}B{moe:16} layers {m.layers:>3}  heads {m.attention_heads:>3}"
            f"  kv {m.kv_heads:>3}  head_dim {m.head_dim:>3}  ctx {m.max_context_tokens:>8}"
        )
    return 0


def cmd_check_data(args: argparse.Namespace) -> int:
    cat = load_catalog(args.data_dir or _env_data_dir())
    for book in cat.price_books:
        cat.with_price_book(book)
    print(
        f"data ok: {len(cat.cards)} cards, {len(cat.models)} models, {len(cat.precisions)} "
        f"precisions, {len(cat.faq)} FAQ topics, prices as of {cat.prices_as_of}"
    )
    return 0


def _settings():  # type: ignore[no-untyped-def]
    from bot.settings import load_settings

    return load_settings()


def cmd_telegram(args: argparse.Namespace) -> int:
    from bot.telegram_app import main

    return main(_settings())


def cmd_discord(args: argparse.Namespace) -> int:
    from bot.discord_app import main

    return main(_settings(), sync=args.sync)


def cmd_serve(args: argparse.Namespace) -> int:
    from bot.web import run

    settings = _settings()
    if args.host:
        settings.vramchat_host = args.host
    if args.port:
        settings.vramchat_port = args.port
    return run(settings)


def cmd_healthcheck(args: argparse.Namespace) -> int:
    from bot.health import check

    return check(args.service, max_age=args.max_age, port=args.port)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="vram", description="How much VRAM, which card, what it costs."
    )
    p.add_argument("--data-dir", default=None, help="folder with cards.yaml, models.yaml, ...")
    p.add_argument(
        "--price-book",
        default=os.environ.get("VRAMCHAT_PRICE_BOOK") or "monthly",
        choices=["monthly", "hourly"],
        help="price list to use (default: VRAMCHAT_PRICE_BOOK or monthly)",
    )
    sub = p.add_subparsers(dest="command")

    def common(sp: argparse.ArgumentParser, fmt: bool = True) -> None:
        sp.add_argument("--lang", choices=["en", "pl", "th"], default=None)
        if fmt:
            sp.add_argument("--format", choices=FORMATS, default="text")
            sp.add_argument("--explain", action="store_true", help="show the math")

    a = sub.add_parser("ask", help="answer one question")
    a.add_argument("query", nargs="+")
    common(a)
    a.set_defaults(func=cmd_ask)
    c = sub.add_parser("chat", help="interactive session in the terminal")
    common(c)
    c.set_defaults(func=cmd_chat)
    cards = sub.add_parser("cards", help="the fleet with prices and economics")
    common(cards)
    cards.set_defaults(func=cmd_cards)
    m = sub.add_parser("models", help="list known models")
    m.add_argument("search", nargs="*")
    m.add_argument("--format", choices=["text", "json"], default="text")
    m.set_defaults(func=cmd_models)
    sub.add_parser("check-data", help="validate every data file").set_defaults(func=cmd_check_data)
    sub.add_parser("telegram", help="run the Telegram bot").set_defaults(func=cmd_telegram)
    d = sub.add_parser("discord", help="run the Discord bot")
    d.add_argument("--sync", action="store_true", help="sync slash commands, then run")
    d.set_defaults(func=cmd_discord)
    s = sub.add_parser("serve", help="run the staff web desk and HTTP API")
    s.add_argument("--host", default=None)
    s.add_argument("--port", type=int, default=None)
    s.set_defaults(func=cmd_serve)
    h = sub.add_parser("healthcheck", help="exit 0 only while the service really works")
    h.add_argument("service", choices=["web", "telegram", "discord"])
    h.add_argument(
        "--max-age", type=float, default=None, help="seconds a bot heartbeat stays valid"
    )
    h.add_argument("--port", type=int, default=None, help="the desk's port (default VRAMCHAT_PORT)")
    h.set_defaults(func=cmd_healthcheck)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    level = os.environ.get("VRAMCHAT_LOG_LEVEL")
    logging.basicConfig(
        level=getattr(logging, (level or "WARNING").upper(), logging.WARNING),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        args = parser.parse_args(["chat", *(argv or [])])
    try:
        return int(args.func(args))
    except BrokenPipeError:  # `vram ask ... | head`: the reader left, which is fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except CatalogError as exc:
        print(f"vram: data error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # settings errors and the like: one line, no traceback
        from bot.settings import SettingsError

        if isinstance(exc, SettingsError):
            print(f"vram: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
