"""Telegram adapter (python-telegram-bot 22): every handler registered in one place.

Handlers (:mod:`bot.telegram.handlers`) translate and nothing else: an update becomes
``Desk.answer(...)``, the answer becomes HTML through :mod:`bot.render.telegram`, and one
``sendMessage`` carries it with its buttons. Delivery (patient sends, polling that confirms
only what was answered) is :mod:`bot.telegram.delivery`; the webhook server, which confirms
an update only after answering it too, is :mod:`bot.telegram.webhook`; start-up, SIGHUP
reload off the event loop and the error reference are :mod:`bot.lifecycle`.

``main(settings)`` is what ``vram telegram`` calls.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Final

from telegram import Bot, BotCommand, Update
from telegram.error import InvalidToken, TelegramError
from telegram.ext import (
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import health, metrics
from bot.desk import Desk
from bot.lifecycle import Signals, boot, close_store, fatal
from bot.logs import redact
from bot.memo import ButtonMemo, Memos
from bot.render.common import Links
from bot.settings import Settings
from bot.telegram.base import ALLOWED_UPDATES, PLATFORM, TgApp, message_key
from bot.telegram.delivery import (
    HandledUpdates,
    PatientRateLimiter,
    Poller,
    handled_updates,
    serve_polling,
    state_file,
)
from bot.telegram.handlers import TelegramHandlers
from bot.telegram.webhook import serve_webhook
from engine import Catalog, t

__all__ = [
    "ALLOWED_UPDATES",
    "COMMANDS",
    "PLATFORM",
    "ButtonMemo",
    "HandledUpdates",
    "Memos",
    "PatientRateLimiter",
    "Poller",
    "QuietInvalidToken",
    "TelegramHandlers",
    "TgApp",
    "build_application",
    "file_url_for",
    "handled_updates",
    "install_reload_signal",
    "main",
    "message_key",
    "quiet_library_logs",
    "run",
    "set_commands",
    "state_file",
]

COMMANDS: Final = ("start", "help", "vram", "gpus", "card", "faq")  # /reload stays unlisted
COMMAND_LANGS: Final = ("", "pl", "th")  # "" is the default menu, in English

log = logging.getLogger("vramchat.telegram")


# --------------------------------------------------------------------------- application


async def set_commands(bot: Bot, catalog: Catalog) -> None:
    """The command menu in English (Telegram's default), Polish and Thai."""
    for code in COMMAND_LANGS:
        lang = code or "en"
        commands = [BotCommand(name, t(catalog, lang, f"tg.cmd.{name}")) for name in COMMANDS]
        await bot.set_my_commands(commands, language_code=code or None)


def install_reload_signal(desk: Desk) -> bool:
    """SIGHUP -> a data reload in a worker thread; False where signals are unavailable."""
    return Signals(desk).install()


def file_url_for(base_url: str) -> str:
    """Bot API file URL from the method URL: ``https://host/bot`` -> ``https://host/file/bot``."""
    head, _, tail = base_url.rstrip("/").rpartition("/")
    return f"{head}/file/{tail}" if head else f"{base_url}/file"


def build_application(settings: Settings, desk: Desk) -> TgApp:
    """The PTB application with every handler; no network until it is started."""
    token = settings.require_telegram()
    quiet_library_logs()
    links = Links(settings.vramchat_rent_url, settings.vramchat_sales_url)
    handlers = TelegramHandlers(desk, links=links)

    async def post_init(app: TgApp) -> None:
        try:
            await set_commands(app.bot, desk.catalog)
        except TelegramError as exc:  # a missing menu must not stop the bot
            log.warning("setMyCommands failed, the command menu is unchanged: %s", exc)
        install_reload_signal(desk)
        health.watch_telegram(app)  # heartbeat for `vram healthcheck telegram`

    async def post_stop(app: TgApp) -> None:
        await health.stop_telegram(app)
        await close_store(desk)

    app: TgApp = (
        ApplicationBuilder()
        .token(token)
        .base_url(settings.telegram_base_url)
        .base_file_url(file_url_for(settings.telegram_base_url))
        .rate_limiter(PatientRateLimiter())
        .post_init(post_init)
        .post_stop(post_stop)
        .build()
    )
    fresh = filters.UpdateType.MESSAGE  # edits of old messages are not new questions
    app.add_handler(TypeHandler(Update, handlers.trace), group=-1)
    app.add_handler(CommandHandler(("start", "help"), handlers.help, filters=fresh))
    app.add_handler(CommandHandler("vram", handlers.vram, filters=fresh))
    app.add_handler(CommandHandler("gpus", handlers.gpus, filters=fresh))
    app.add_handler(CommandHandler("card", handlers.card, filters=fresh))
    app.add_handler(CommandHandler("faq", handlers.faq, filters=fresh))
    app.add_handler(CommandHandler("reload", handlers.reload, filters=fresh))
    app.add_handler(MessageHandler(fresh & filters.TEXT & ~filters.COMMAND, handlers.text))
    app.add_handler(CallbackQueryHandler(handlers.button))
    app.add_handler(InlineQueryHandler(handlers.inline))
    app.add_error_handler(handlers.on_error)
    return app


def run(app: TgApp, settings: Settings, desk: Desk) -> None:
    """Serve until SIGINT/SIGTERM: webhook when TELEGRAM_WEBHOOK_URL is set, else polling."""
    serve = serve_webhook if settings.telegram_webhook_url else serve_polling
    asyncio.get_event_loop().run_until_complete(serve(app, settings, desk))


def main(settings: Settings) -> int:
    """``vram telegram``: 0 after a clean stop, 2 for a bad token or data, 1 if unreachable.

    Settings and data are checked before logging is set up or anything connects, so a bad
    start-up is one line on stderr; the token is never printed or logged.
    """
    desk = boot(settings, "vram telegram", settings.require_telegram)
    if isinstance(desk, int):
        return desk
    app = build_application(settings, desk)
    if settings.vramchat_metrics_port:
        metrics.start_server(settings.vramchat_metrics_port, settings.vramchat_metrics_host)
    # PTB 22 warns on every RetryAfter unless periods are timedeltas; opt in (AIORateLimiter
    # handles both forms).
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    asyncio.set_event_loop(asyncio.new_event_loop())  # run_* expects a current loop
    try:
        run(app, settings, desk)
    except InvalidToken:
        fatal("vram telegram", "Telegram rejected TELEGRAM_TOKEN; copy it again from @BotFather.")
        return 2
    except TelegramError as exc:
        fatal("vram telegram", redact(str(exc), settings.secrets()))
        return 1
    return 0


# --------------------------------------------------------------------------- log hygiene


class QuietInvalidToken(logging.Filter):
    """Drop the traceback from PTB's "Invalid token" log line: main() says it in one line.

    (The token itself is masked by bot.logs' redacting filter on the root handlers.)
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], InvalidToken):
            record.exc_info, record.exc_text = None, None
        return True


_QUIET = QuietInvalidToken()
_PTB_RETRY_LOGGERS = ("telegram.ext", "telegram.ext.Updater", "telegram.ext.Application")


def quiet_library_logs() -> None:
    """httpx to WARNING (its INFO lines are URLs, and PTB's URLs carry the token)."""
    logging.getLogger("httpx").setLevel(logging.WARNING)
    for name in _PTB_RETRY_LOGGERS:
        target = logging.getLogger(name)
        if _QUIET not in target.filters:
            target.addFilter(_QUIET)
