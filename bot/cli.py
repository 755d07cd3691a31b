"""``vram``: the command line. Each subcommand imports its adapter only when it runs, so
``vram ask`` starts without loading discord, telegram or aiohttp, and ``vram --help`` without
loading the engine at all."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from bot.cli_common import FORMATS, cache_dir, catalog_for, env_data_dir, format_answer, t
from bot.listings import cmd_cards, cmd_models
from bot.tables import parse_tokens
from bot.terminal import present, setup_readline

if TYPE_CHECKING:  # the engine and the settings stack load only for the commands that need them
    from bot.settings import Settings
    from engine import Answer, Catalog, Context

NOT_UNDERSTOOD = ("help", "clarify", "error")  # `vram ask` exits 1 for these


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vramchat")
    except PackageNotFoundError:  # run from a source tree without installing
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked (importlib.metadata costs ~15 ms to load)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show program's version number and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"vram {_version()}")
        parser.exit()


def _ask(text: str, lang: str | None, cat: Catalog, previous: Context | None = None) -> Answer:
    """One question, with the same log line the bots write (shown at VRAMCHAT_LOG_LEVEL=INFO)."""
    from engine import ask

    start = time.perf_counter()
    answer = ask(text, lang, catalog=cat, previous=previous)
    if not os.environ.get("VRAMCHAT_LOG_LEVEL"):
        return answer  # nothing below WARNING is shown: `vram ask` need not load logging
    import logging

    logging.getLogger("vramchat.cli").info(
        "rid=%s platform=cli kind=%s lang=%s latency_ms=%.2f",
        os.urandom(4).hex(),  # a request id, as the bots log (uuid costs ~2 ms to import)
        answer.kind,
        answer.lang,
        (time.perf_counter() - start) * 1000,
    )
    return answer


def cmd_ask(args: argparse.Namespace) -> int:
    """One answer; exit status 1 when the question was not understood (help/clarify/error)."""
    cat = catalog_for(args)
    answer = _ask(" ".join(args.query), args.lang, cat)
    print(present(format_answer(answer, cat, args.format, args.explain), args.format))
    return 1 if answer.kind in NOT_UNDERSTOOD else 0


def cmd_chat(args: argparse.Namespace) -> int:
    """Interactive session: the assistant with no platform, follow-ups included."""
    from engine import context_of

    cat = catalog_for(args)
    prev: Context | None = None
    interactive = sys.stdin.isatty()
    save = setup_readline() if interactive else (lambda: None)
    if interactive:
        print(present(t(cat, args.lang or "en", "cli.welcome"), "plain"))
    try:
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
            print(present(format_answer(answer, cat, args.format, args.explain), args.format))
            print()
    finally:
        save()


def cmd_check_data(args: argparse.Namespace) -> int:
    """Always the full validation with pydantic: never read from (or written to) the cache."""
    from engine import load_catalog

    cat = load_catalog(args.data_dir or env_data_dir())
    for book in cat.price_books:
        cat.with_price_book(book)
    print(
        f"data ok: {len(cat.cards)} cards, {len(cat.models)} models, {len(cat.precisions)} "
        f"precisions, {len(cat.faq)} FAQ topics, prices as of {cat.prices_as_of}"
    )
    return 0


def cmd_cache_build(args: argparse.Namespace) -> int:
    """Validate in full, then write the cache for every price book (the image runs this at
    build time so a container starts from it); exit 1 when nothing could be written."""
    from engine import load_catalog

    where = cache_dir(args)
    if where is None:
        print("vram: cache-build needs a cache folder (not --no-cache)", file=sys.stderr)
        return 1
    data_dir = args.data_dir or env_data_dir()
    full = load_catalog(data_dir)  # the full validation first, with its precise messages
    for book in dict.fromkeys([full.price_book, *full.price_books]):
        load_catalog(data_dir, book, cache_dir=where)
    written = sorted(where.glob("catalog-*.pickle")) if where.is_dir() else []
    if not written or not os.access(where, os.W_OK):
        print(f"vram: cannot write the catalog cache in {where}", file=sys.stderr)
        return 1
    print(f"cache ok: {len(written)} catalog file(s) in {where}")
    return 0


def _settings(args: argparse.Namespace | None = None) -> Settings:
    """The services' settings; ``--cache-dir``/``--no-cache`` given on the command line win."""
    from bot.paths import OFF
    from bot.settings import load_settings

    settings = load_settings()
    if args is not None and getattr(args, "no_cache", False):
        settings.vramchat_cache_dir = OFF
    elif args is not None and getattr(args, "cache_dir", None):
        settings.vramchat_cache_dir = args.cache_dir
    return settings


def cmd_telegram(args: argparse.Namespace) -> int:
    from bot.telegram.app import main

    return main(_settings(args))


def cmd_discord(args: argparse.Namespace) -> int:
    from bot.discord.app import main

    return main(_settings(args), sync=args.sync)


def cmd_serve(args: argparse.Namespace) -> int:
    from bot.web.app import run

    settings = _settings(args)
    if args.host:
        settings.vramchat_host = args.host
    if args.port:
        settings.vramchat_port = args.port
    return run(settings)


def cmd_healthcheck(args: argparse.Namespace) -> int:
    from bot.health import check

    return check(args.service, max_age=args.max_age, port=args.port)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` just that subcommand under the same top level
    (the one ``main`` is about to run: building all of them costs ~4 ms of a 70 ms start)."""
    p = argparse.ArgumentParser(
        prog="vram", description="How much VRAM, which card, what it costs."
    )
    p.add_argument("--version", action=_VersionAction)
    _data_options(p, top=True)
    shared = argparse.ArgumentParser(add_help=False)
    _data_options(shared, top=False)
    sub = p.add_subparsers(dest="command")
    for name, (help_, inherit, define) in _COMMANDS.items():
        if only is None or name == only:
            sp = sub.add_parser(name, help=help_, parents=[shared] if inherit else [])
            define(sp)
    return p


def _data_options(sp: argparse.ArgumentParser, top: bool) -> None:
    """Accepted before and after the subcommand; the later one wins."""
    book = os.environ.get("VRAMCHAT_PRICE_BOOK") or "monthly"
    sp.add_argument(
        "--data-dir",
        default=None if top else argparse.SUPPRESS,
        help="folder with cards.yaml, models.yaml, ...",
    )
    sp.add_argument(
        "--cache-dir",
        default=None if top else argparse.SUPPRESS,
        metavar="DIR",
        help="where the validated data is cached (default: VRAMCHAT_CACHE_DIR, else "
        "$XDG_CACHE_HOME/vramchat or ~/.cache/vramchat)",
    )
    sp.add_argument(
        "--no-cache",
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help="validate the data files on every start; write no cache",
    )
    sp.add_argument(
        "--price-book",
        default=book if top else argparse.SUPPRESS,
        choices=["monthly", "hourly"],
        help="price list to use (default: VRAMCHAT_PRICE_BOOK or monthly)",
    )


def _common(sp: argparse.ArgumentParser, fmt: bool = True) -> None:
    sp.add_argument("--lang", choices=["en", "pl", "th"], default=None)
    if fmt:
        sp.add_argument("--format", choices=FORMATS, default="text")
        sp.add_argument("--explain", action="store_true", help="show the math")


def _ask_args(a: argparse.ArgumentParser) -> None:
    a.add_argument("query", nargs="+")
    _common(a)
    a.set_defaults(func=cmd_ask)


def _chat_args(c: argparse.ArgumentParser) -> None:
    _common(c)
    c.set_defaults(func=cmd_chat)


def _cards_args(cards: argparse.ArgumentParser) -> None:
    _common(cards)
    cards.add_argument(
        "--min-vram",
        type=float,
        default=None,
        metavar="GB",
        help="only cards with at least this much memory",
    )
    cards.set_defaults(func=cmd_cards)


def _models_args(m: argparse.ArgumentParser) -> None:
    m.add_argument("search", nargs="*")
    m.add_argument("--format", choices=["text", "json"], default="text")
    m.add_argument("--lang", choices=["en", "pl", "th"], default=None)
    m.add_argument(
        "--min-params",
        type=float,
        default=None,
        metavar="B",
        help="at least this many billion parameters",
    )
    m.add_argument(
        "--max-params",
        type=float,
        default=None,
        metavar="B",
        help="at most this many billion parameters",
    )
    m.add_argument(
        "--min-context",
        type=parse_tokens,
        default=None,
        metavar="TOKENS",
        help="trained context of at least this (32k, 128k, 1M)",
    )
    m.set_defaults(func=cmd_models)


def _discord_args(d: argparse.ArgumentParser) -> None:
    d.add_argument("--sync", action="store_true", help="sync slash commands, then run")
    d.set_defaults(func=cmd_discord)


def _serve_args(s: argparse.ArgumentParser) -> None:
    s.add_argument("--host", default=None)
    s.add_argument("--port", type=int, default=None)
    s.set_defaults(func=cmd_serve)


def _healthcheck_args(h: argparse.ArgumentParser) -> None:
    h.add_argument("service", choices=["web", "telegram", "discord"])
    h.add_argument(
        "--max-age", type=float, default=None, help="seconds a bot heartbeat stays valid"
    )
    h.add_argument("--port", type=int, default=None, help="the desk's port (default VRAMCHAT_PORT)")
    h.set_defaults(func=cmd_healthcheck)


def _runs(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.ArgumentParser], None]:
    return lambda sp: sp.set_defaults(func=func)


# name -> (help, takes the data options, adds its own arguments); in `vram --help` order
_COMMANDS: dict[str, tuple[str, bool, Callable[[argparse.ArgumentParser], None]]] = {
    "ask": ("answer one question", True, _ask_args),
    "chat": ("interactive session in the terminal", True, _chat_args),
    "cards": ("the fleet with prices and economics", True, _cards_args),
    "models": ("list known models", True, _models_args),
    "check-data": ("validate every data file", True, _runs(cmd_check_data)),
    "cache-build": (
        "validate the data, then write the catalog cache",
        True,
        _runs(cmd_cache_build),
    ),
    "telegram": ("run the Telegram bot", True, _runs(cmd_telegram)),
    "discord": ("run the Discord bot", True, _discord_args),
    "serve": ("run the staff web desk and HTTP API", True, _serve_args),
    "healthcheck": ("exit 0 only while the service really works", False, _healthcheck_args),
}


def entry() -> int:
    """The ``vram`` executable. A one-answer process allocates a catalog of some 20,000 objects
    and exits: with the cyclic collector off until then, and the heap frozen before the
    interpreter's final collection, ``vram ask`` starts about 15 ms sooner (docs/BENCHMARKS.md).
    Long-running commands turn the collector back on in :func:`main`."""
    gc.disable()
    try:
        return main()
    finally:
        gc.freeze()


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words[0] if words and words[0] in _COMMANDS else None)
    args = parser.parse_args(words)
    if not getattr(args, "func", None):
        args = build_parser().parse_args(["chat", *words])
    if args.func not in ONE_SHOT:  # sessions and servers: the collector as usual
        gc.enable()
    level = os.environ.get("VRAMCHAT_LOG_LEVEL")
    if level or args.func is not cmd_ask:  # one answer logs nothing unless a level is set
        import logging

        logging.basicConfig(
            level=getattr(logging, (level or "WARNING").upper(), logging.WARNING),
            format="%(asctime)s %(levelname)s %(name)s %(message)s",
        )
    try:
        return int(args.func(args))
    except BrokenPipeError:  # `vram ask ... | head`: the reader left, which is fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # data and settings errors and the like: one line, no traceback
        from engine import CatalogError

        if isinstance(exc, CatalogError):
            print(f"vram: data error: {exc}", file=sys.stderr)
            return 2
        from bot.settings import SettingsError

        if isinstance(exc, SettingsError):
            print(f"vram: {exc}", file=sys.stderr)
            return 2
        raise


# Commands that answer once and exit: :func:`entry` keeps the cyclic collector off for them.
ONE_SHOT = frozenset({cmd_ask, cmd_cards, cmd_models})

if __name__ == "__main__":
    sys.exit(entry())
