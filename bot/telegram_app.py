"""Telegram adapter (python-telegram-bot 22): every handler registered in one place.

Handlers translate and nothing else: a Telegram update becomes ``Desk.answer(...)``, the
answer becomes HTML through :mod:`bot.render.telegram`, and one ``sendMessage`` carries it
with its buttons. Button presses edit that same message. Replying to one of the bot's answers
refines it: the answer's engine ``Context`` is kept in ``desk.store`` under
``telegram:msg:<chat>:<message>``; what the buttons need (the question, its language, the
answers shown) lives in a bounded in-process map keyed by a short reference in callback_data.

``main(settings)`` is what ``vram telegram`` calls.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import signal
import sys
from collections import OrderedDict
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from telegram import (
    Bot,
    BotCommand,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    MessageEntity,
    Update,
    User,
)
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, InvalidToken, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot import health, metrics
from bot.desk import Desk, Limited, desk_for, error_reference
from bot.logs import REQUEST_ID, redact, setup_logging
from bot.render.telegram import (
    MAX_ALT_BUTTONS,
    alt_label,
    format_faq_topics,
    format_help,
    format_html,
    format_notice,
    keyboard,
    parse_callback,
    pick_summary,
    shorten,
)
from bot.settings import Settings, SettingsError
from engine import Answer, Catalog, CatalogError, Context, context_of, load_catalog
from engine.i18n import pick_lang, t
from engine.models import Pick

__all__ = [
    "ALLOWED_UPDATES",
    "COMMANDS",
    "QuietInvalidToken",
    "Shown",
    "ShownAnswers",
    "TelegramHandlers",
    "build_application",
    "file_url_for",
    "install_reload_signal",
    "main",
    "message_key",
    "quiet_library_logs",
    "run",
    "set_commands",
]

TgApp: TypeAlias = Application[Any, Any, Any, Any, Any, Any]
Ctx: TypeAlias = ContextTypes.DEFAULT_TYPE

PLATFORM: Final = "telegram"
ALLOWED_UPDATES: Final = ["message", "callback_query", "inline_query"]
COMMANDS: Final = ("start", "help", "vram", "gpus", "card", "faq")  # /reload stays unlisted
COMMAND_LANGS: Final = ("", "pl", "th")  # "" is the default menu, in English
MAX_RETRIES: Final = 2
INLINE_CACHE_S: Final = 30

log = logging.getLogger("vramchat.telegram")


# --------------------------------------------------------------------------- state


@dataclass
class Shown:
    """What one bot message shows, so its buttons can redraw or re-ask without a database."""

    question: str
    lang: str
    previous: Context | None
    original: Answer
    current: Answer
    math: bool = False


class ShownAnswers:
    """Bounded map ``ref -> Shown``; the oldest answers lose their buttons first."""

    def __init__(self, max_items: int = 5000) -> None:
        self.max_items = max_items
        self._items: OrderedDict[str, Shown] = OrderedDict()

    def add(self, shown: Shown) -> str:
        ref = secrets.token_hex(4)
        while ref in self._items:
            ref = secrets.token_hex(4)
        self._items[ref] = shown
        while len(self._items) > self.max_items:
            self._items.popitem(last=False)
        return ref

    def get(self, ref: str) -> Shown | None:
        shown = self._items.get(ref)
        if shown is not None:
            self._items.move_to_end(ref)
        return shown

    def __len__(self) -> int:
        return len(self._items)


def message_key(chat_id: int, message_id: int) -> str:
    """desk.store key for the Context behind one bot message (reply-to refinement)."""
    return f"{PLATFORM}:msg:{chat_id}:{message_id}"


def _lang(user: User | None) -> str:
    return pick_lang(user.language_code if user else None) or "en"


def _argument(text: str | None) -> str:
    """Everything after '/command' (or '/command@bot'), spacing kept."""
    parts = (text or "").split(maxsplit=1)
    return parts[1].strip() if len(parts) > 1 else ""


def _alt_question(pick: Pick) -> str:
    """A follow-up the engine reads against the original request: that card, that count."""
    where = f"on {pick.count}x {pick.card}"
    return f"{pick.precision} {where}" if pick.precision else where


def _article(
    result_id: str, title: str, body_html: str, description: str | None = None
) -> InlineQueryResultArticle:
    return InlineQueryResultArticle(
        id=result_id,
        title=shorten(title, 100) or "…",
        input_message_content=InputTextMessageContent(body_html, parse_mode=ParseMode.HTML),
        description=shorten(description, 200) if description else None,
    )


# --------------------------------------------------------------------------- handlers


class TelegramHandlers:
    """The bot's behaviour: one instance per application, holding the desk and button state."""

    def __init__(self, desk: Desk, shown: ShownAnswers | None = None) -> None:
        self.desk = desk
        self.shown = shown or ShownAnswers()

    @property
    def catalog(self) -> Catalog:
        return self.desk.catalog  # read each time: SIGHUP may swap it

    def _limited(self, limited: Limited) -> str:
        return t(self.catalog, limited.lang, "render.rate_limited", seconds=limited.seconds)

    async def _reply(
        self, message: Message, html_text: str, markup: InlineKeyboardMarkup | None = None
    ) -> Message:
        return await message.reply_text(html_text, parse_mode=ParseMode.HTML, reply_markup=markup)

    async def _remember(self, chat_id: int, message_id: int, answer: Answer) -> None:
        ctx = context_of(answer)
        if ctx is not None:
            await self.desk.store.put_context(message_key(chat_id, message_id), ctx)

    async def _ask(self, update: Update, text: str, previous: Context | None = None) -> None:
        """One question -> exactly one sendMessage (the answer, or the rate-limit notice)."""
        message, user = update.effective_message, update.effective_user
        if message is None:
            return
        chat_id = message.chat_id
        result = await self.desk.answer(
            text,
            platform=PLATFORM,
            chat_key=f"{chat_id}:{user.id if user else 0}",
            user_key=str(user.id) if user else None,
            locale=user.language_code if user else None,
            previous=previous,
        )
        if isinstance(result, Limited):
            await self._reply(message, format_notice(self._limited(result)))
            return
        cat = self.catalog
        ref = self.shown.add(Shown(text, result.lang, previous, result, result))
        sent = await self._reply(message, format_html(result, cat), keyboard(result, cat, ref))
        await self._remember(chat_id, sent.message_id, result)

    async def trace(self, update: Update, context: Ctx) -> None:
        """Runs first for every update: log lines (errors included) carry ``tg-<update_id>``."""
        REQUEST_ID.set(f"tg-{update.update_id}")

    # -- commands

    async def help(self, update: Update, context: Ctx) -> None:
        """/start and /help: a short intro with three examples in the user's language."""
        if update.effective_message is None:
            return
        lang = _lang(update.effective_user)
        text = format_help(self.catalog, lang, context.bot.username)
        await self._reply(update.effective_message, text)

    async def vram(self, update: Update, context: Ctx) -> None:
        """/vram <query>: the question after the command."""
        message = update.effective_message
        if message is None:
            return
        query = _argument(message.text)
        if not query:
            lang = _lang(update.effective_user)
            await self._reply(message, format_notice(t(self.catalog, lang, "tg.vram.usage")))
            return
        await self._ask(update, query)

    async def gpus(self, update: Update, context: Ctx) -> None:
        """/gpus: the fleet and its monthly prices."""
        await self._ask(update, "gpus")

    async def card(self, update: Update, context: Ctx) -> None:
        """/card <name>: one card in detail."""
        message = update.effective_message
        if message is None:
            return
        name = _argument(message.text)
        if not name:
            lang = _lang(update.effective_user)
            await self._reply(message, format_notice(t(self.catalog, lang, "tg.card.usage")))
            return
        await self._ask(update, f"card {name}")

    async def faq(self, update: Update, context: Ctx) -> None:
        """/faq [topic]: one answer, or the list of topics when none (or an unknown one) is given."""
        message = update.effective_message
        if message is None:
            return
        words = _argument(message.text).split()
        topic = words[0].lower() if words else ""
        if topic and topic in {entry.id for entry in self.catalog.faq}:
            await self._ask(update, f"faq {topic}")
            return
        lang = _lang(update.effective_user)
        await self._reply(message, format_faq_topics(self.catalog, lang))

    async def reload(self, update: Update, context: Ctx) -> None:
        """/reload (staff only): re-read data/ and say whether it worked."""
        message, user = update.effective_message, update.effective_user
        if message is None or user is None:
            return
        lang = _lang(user)
        if not self.desk.is_staff(PLATFORM, user.id):
            log.info("reload refused for non-staff user_id=%s", user.id)
            await self._reply(message, format_notice(t(self.catalog, lang, "tg.reload.denied")))
            return
        reason = await asyncio.to_thread(self.desk.reload)
        if reason is None:
            text = t(self.catalog, lang, "tg.reload.ok", date=self.catalog.prices_as_of)
        else:
            text = t(self.catalog, lang, "tg.reload.refused", reason=reason)
        await self._reply(message, format_notice(text))

    # -- plain text

    async def text(self, update: Update, context: Ctx) -> None:
        """DMs: any text is a question. Groups: only mentions of the bot and replies to it."""
        message = update.effective_message
        if message is None or message.text is None:
            return
        replied = message.reply_to_message
        to_bot = bool(replied and replied.from_user and replied.from_user.id == context.bot.id)
        text = message.text
        if message.chat.type != ChatType.PRIVATE:
            mention = f"@{context.bot.username}".lower()
            mentions = [
                found
                for found in message.parse_entities([MessageEntity.MENTION]).values()
                if found.lower() == mention
            ]
            if not mentions and not to_bot:
                return
            for found in mentions:
                text = text.replace(found, " ")
        previous = None
        if to_bot and replied is not None:
            key = message_key(message.chat_id, replied.message_id)
            previous = await self.desk.store.get_context(key)
        await self._ask(update, " ".join(text.split()), previous)

    # -- buttons

    async def button(self, update: Update, context: Ctx) -> None:
        """Inline buttons: toggle the math, show an alternative card, pick a candidate, go back."""
        query = update.callback_query
        if query is None:
            return
        parsed = parse_callback(query.data or "")
        shown = self.shown.get(parsed[1]) if parsed else None
        message = query.message
        if parsed is None or shown is None or not isinstance(message, Message):
            await query.answer(t(self.catalog, _lang(query.from_user), "tg.expired"))
            return
        action, ref, n = parsed
        if action in ("m", "h"):
            shown.math = action == "m"
        elif action == "b":
            shown.current, shown.math = shown.original, False
        else:
            question, previous = self._button_question(shown, action, n)
            if question is None:
                await query.answer(t(self.catalog, _lang(query.from_user), "tg.expired"))
                return
            result = await self.desk.answer(
                question,
                platform=PLATFORM,
                chat_key=f"{message.chat_id}:{query.from_user.id}",
                user_key=str(query.from_user.id),
                lang=shown.lang,
                previous=previous,
                remember=action == "c",
            )
            if isinstance(result, Limited):
                await query.answer(shorten(self._limited(result), 200), show_alert=True)
                return
            if action == "c":
                shown.question, shown.original = question, result
            shown.current, shown.math = result, False
            await self._remember(message.chat_id, message.message_id, result)
        await query.answer()
        cat = self.catalog
        markup = keyboard(
            shown.current,
            cat,
            ref,
            math_shown=shown.math,
            back=shown.current is not shown.original,
        )
        try:
            await query.edit_message_text(
                format_html(shown.current, cat, math=shown.math),
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
            )
        except BadRequest as exc:
            if "not modified" not in exc.message.lower():  # a double tap is not an error
                raise

    def _button_question(
        self, shown: Shown, action: str, n: int | None
    ) -> tuple[str | None, Context | None]:
        """The text to ask for an alternative card or a clarify candidate, and its context."""
        current = shown.current
        if action == "a" and n is not None and n < len(current.alternatives):
            return _alt_question(current.alternatives[n]), context_of(current)
        if action == "c" and n is not None and n < len(current.candidates):
            return f"{current.candidates[n].name} {shown.question}", shown.previous
        return None, None

    # -- inline mode

    async def inline(self, update: Update, context: Ctx) -> None:
        """``@bot 70b int4 128k`` in any chat: the answer plus up to two alternatives."""
        query = update.inline_query
        if query is None:
            return
        text = " ".join(query.query.split())
        if not text:
            await query.answer([], cache_time=INLINE_CACHE_S)
            return
        user = query.from_user
        result = await self.desk.answer(
            text,
            platform=PLATFORM,
            user_key=str(user.id),
            locale=user.language_code,
            remember=False,
        )
        if isinstance(result, Limited):
            notice = self._limited(result)
            await query.answer(
                [_article("limited", notice, format_notice(notice))], cache_time=0, is_personal=True
            )
            return
        cat = self.catalog
        articles = [
            _article(
                "answer",
                result.headline or text,
                format_html(result, cat),
                pick_summary(result, cat),
            )
        ]
        ctx = context_of(result)
        for n, pick in enumerate(result.alternatives[:MAX_ALT_BUTTONS] if ctx else []):
            fit = await self.desk.answer(
                _alt_question(pick),
                platform=PLATFORM,
                lang=result.lang,
                previous=ctx,
                remember=False,
            )
            if isinstance(fit, Answer):
                label = alt_label(pick, cat, result.lang)
                articles.append(_article(f"alt{n}", label, format_html(fit, cat), fit.headline))
        await query.answer(articles, cache_time=INLINE_CACHE_S, is_personal=True)

    # -- errors

    async def on_error(self, update: object, context: Ctx) -> None:
        """Log a reference id with the traceback, then apologise with the same id; never raise."""
        ref = error_reference()
        metrics.ERRORS.labels(PLATFORM).inc()
        log.error("ref=%s telegram update failed", ref, exc_info=context.error)
        if not isinstance(update, Update):
            return
        try:
            if update.callback_query is not None:
                with suppress(TelegramError):
                    await update.callback_query.answer()
            chat = update.effective_chat
            if update.inline_query is None and chat is not None:
                text = t(self.catalog, _lang(update.effective_user), "render.apology", ref=ref)
                await context.bot.send_message(
                    chat.id, format_notice(text), parse_mode=ParseMode.HTML
                )
        except Exception:
            log.warning("ref=%s the apology could not be sent either", ref, exc_info=True)


# --------------------------------------------------------------------------- application


async def set_commands(bot: Bot, catalog: Catalog) -> None:
    """The command menu in English (Telegram's default), Polish and Thai."""
    for code in COMMAND_LANGS:
        lang = code or "en"
        commands = [BotCommand(name, t(catalog, lang, f"tg.cmd.{name}")) for name in COMMANDS]
        await bot.set_my_commands(commands, language_code=code or None)


def install_reload_signal(desk: Desk) -> bool:
    """SIGHUP -> desk.reload() on the running loop; False where signals are unavailable."""
    sighup = getattr(signal, "SIGHUP", None)
    if sighup is None:
        return False
    try:
        asyncio.get_running_loop().add_signal_handler(sighup, desk.reload)
    except (NotImplementedError, RuntimeError, ValueError):
        log.info("SIGHUP reload is not available here (not the main thread?)")
        return False
    return True


def file_url_for(base_url: str) -> str:
    """Bot API file URL from the method URL: ``https://host/bot`` -> ``https://host/file/bot``."""
    head, _, tail = base_url.rstrip("/").rpartition("/")
    return f"{head}/file/{tail}" if head else f"{base_url}/file"


def build_application(settings: Settings, desk: Desk) -> TgApp:
    """The PTB application with every handler; no network until it is started."""
    token = settings.require_telegram()
    quiet_library_logs()
    handlers = TelegramHandlers(desk)

    async def post_init(app: TgApp) -> None:
        try:
            await set_commands(app.bot, desk.catalog)
        except TelegramError as exc:  # a missing menu must not stop the bot
            log.warning("setMyCommands failed, the command menu is unchanged: %s", exc)
        install_reload_signal(desk)
        health.watch_telegram(app)  # heartbeat for `vram healthcheck telegram`

    app: TgApp = (
        ApplicationBuilder()
        .token(token)
        .base_url(settings.telegram_base_url)
        .base_file_url(file_url_for(settings.telegram_base_url))
        .rate_limiter(AIORateLimiter(max_retries=MAX_RETRIES))
        .post_init(post_init)
        .post_shutdown(health.stop_telegram)
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


def run(app: TgApp, settings: Settings) -> None:
    """Serve until SIGINT/SIGTERM: webhook when TELEGRAM_WEBHOOK_URL is set, else polling."""
    if settings.telegram_webhook_url:
        secret = settings.telegram_webhook_secret
        app.run_webhook(
            listen=settings.telegram_webhook_listen,
            port=settings.telegram_webhook_port,
            url_path=settings.telegram_webhook_path,
            secret_token=secret.get_secret_value() if secret else None,
            webhook_url=settings.telegram_webhook_url,
            allowed_updates=ALLOWED_UPDATES,
        )
    else:
        app.run_polling(allowed_updates=ALLOWED_UPDATES)


def main(settings: Settings) -> int:
    """``vram telegram``: 0 after a clean stop, 2 for a bad token or data, 1 if unreachable.

    Settings and data are checked before logging is set up or anything connects, so a bad
    start-up is one line on stderr; the token is never printed or logged.
    """
    try:
        settings.require_telegram()
        catalog = load_catalog(settings.vramchat_data_dir, settings.vramchat_price_book)
    except (SettingsError, CatalogError) as exc:
        print(f"vram telegram: {exc}", file=sys.stderr)
        return 2
    setup_logging(settings)
    desk = desk_for(settings, catalog)
    app = build_application(settings, desk)
    if settings.vramchat_metrics_port:
        metrics.start_server(settings.vramchat_metrics_port)
    # PTB 22 warns on every RetryAfter unless periods are timedeltas; opt in (AIORateLimiter
    # handles both forms).
    os.environ.setdefault("PTB_TIMEDELTA", "1")
    asyncio.set_event_loop(asyncio.new_event_loop())  # run_* expects a current loop
    try:
        run(app, settings)
    except InvalidToken:
        print(
            "vram telegram: Telegram rejected TELEGRAM_TOKEN; copy it again from @BotFather.",
            file=sys.stderr,
        )
        return 2
    except TelegramError as exc:
        print(f"vram telegram: {redact(str(exc), settings.secrets())}", file=sys.stderr)
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
