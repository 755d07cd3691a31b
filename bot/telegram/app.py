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
import json
import logging
import os
import random
import re
import secrets
import signal
import sys
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
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
from telegram.error import (
    BadRequest,
    Conflict,
    InvalidToken,
    NetworkError,
    RetryAfter,
    TelegramError,
)
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

from bot import metrics
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
from bot.store import MemoryStore, StateStore, context_from_json, context_to_json
from engine import Answer, Catalog, CatalogError, Context, context_of, load_catalog
from engine.i18n import pick_lang, t
from engine.models import Pick

__all__ = [
    "ALLOWED_UPDATES",
    "COMMANDS",
    "HandledUpdates",
    "PatientRateLimiter",
    "Poller",
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
INLINE_CACHE_S: Final = 30
#: How long one Bot API call keeps retrying 5xx, network errors and 429s before giving up.
SEND_BUDGET_S: Final = 60.0
#: Button memos and answered-update ids outlive any reasonable use of an old message.
MEMO_TTL_S: Final = 7 * 24 * 3600.0
HANDLED_TTL_S: Final = 24 * 3600.0  # Telegram keeps an unconfirmed update for 24 hours

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
    """Bounded map ``ref -> Shown``; the oldest answers lose their buttons first.

    With a shared store (Redis) each entry is also written as a memo, so a button pressed on
    a message another replica sent (or this process before a restart) still works.
    """

    def __init__(self, max_items: int = 5000, store: StateStore | None = None) -> None:
        self.max_items = max_items
        self._items: OrderedDict[str, Shown] = OrderedDict()
        self.store = None if isinstance(store, MemoryStore) else store

    def add(self, shown: Shown) -> str:
        ref = secrets.token_hex(4)
        while ref in self._items:
            ref = secrets.token_hex(4)
        self._put(ref, shown)
        return ref

    def _put(self, ref: str, shown: Shown) -> None:
        self._items[ref] = shown
        self._items.move_to_end(ref)
        while len(self._items) > self.max_items:
            self._items.popitem(last=False)

    def get(self, ref: str) -> Shown | None:
        shown = self._items.get(ref)
        if shown is not None:
            self._items.move_to_end(ref)
        return shown

    async def save(self, ref: str) -> None:
        """Write the entry's current state to the shared store (no-op in-process)."""
        shown = self._items.get(ref)
        if self.store is not None and shown is not None:
            await self.store.put_memo(_memo_key(ref), _shown_to_json(shown), MEMO_TTL_S)

    async def load(self, ref: str) -> Shown | None:
        """This process's entry, else the shared store's; None when neither knows ``ref``."""
        shown = self.get(ref)
        if shown is not None or self.store is None or not _REF.fullmatch(ref):
            return shown
        raw = await self.store.get_memo(_memo_key(ref))
        if raw is None:
            return None
        try:
            shown = _shown_from_json(raw)
        except (ValueError, KeyError, TypeError) as exc:  # an older release wrote it
            log.warning("dropping unreadable button memo %s: %s", ref, exc)
            return None
        self._put(ref, shown)
        return shown

    def __len__(self) -> int:
        return len(self._items)


_REF = re.compile(r"[0-9a-f]{8}")


def _memo_key(ref: str) -> str:
    return f"{PLATFORM}:btn:{ref}"


def _shown_to_json(shown: Shown) -> str:
    same = shown.current is shown.original
    return json.dumps(
        {
            "question": shown.question,
            "lang": shown.lang,
            "previous": context_to_json(shown.previous) if shown.previous else None,
            "original": shown.original.model_dump(mode="json"),
            "current": None if same else shown.current.model_dump(mode="json"),
            "math": shown.math,
        }
    )


def _shown_from_json(text: str) -> Shown:
    raw = json.loads(text)
    original = Answer.model_validate(raw["original"])
    current = original if raw["current"] is None else Answer.model_validate(raw["current"])
    previous = context_from_json(raw["previous"]) if raw["previous"] else None
    return Shown(
        str(raw["question"]), str(raw["lang"]), previous, original, current, bool(raw["math"])
    )


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
        self.shown = shown or ShownAnswers(store=desk.store)

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
        await self.shown.save(ref)
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
        shown = await self.shown.load(parsed[1]) if parsed else None
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
        await self.shown.save(ref)
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


# --------------------------------------------------------------------------- delivery


class PatientRateLimiter(AIORateLimiter):
    """PTB's throttling, plus retries: every ``retry_after`` of a 429 is honoured, and 5xx
    or network errors are retried with jittered exponential backoff, for up to
    :data:`SEND_BUDGET_S` per call. Errors that a retry cannot fix (400, 403, 401) raise at
    once. A read timeout is retried too, so in that rare case Telegram may have delivered the
    first copy: one duplicate is preferred to a lost answer.
    """

    def __init__(self, budget_s: float = SEND_BUDGET_S, first_backoff_s: float = 0.5) -> None:
        super().__init__(max_retries=0)
        self.budget_s = budget_s
        self.first_backoff_s = first_backoff_s

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.budget_s
        backoff = self.first_backoff_s
        chat_id = data.get("chat_id")
        chat = chat_id is not None
        with suppress(ValueError, TypeError):
            chat_id = int(chat_id)  # type: ignore[arg-type]
        group: int | str | bool = (
            chat_id
            if (isinstance(chat_id, int) and chat_id < 0) or isinstance(chat_id, str)
            else False
        )
        paid = bool(data.get("allow_paid_broadcast", False))
        attempt = 0
        while True:
            attempt += 1
            try:
                return await self._run_request(
                    chat=chat,
                    group=group,
                    allow_paid_broadcast=paid,
                    callback=callback,
                    args=args,
                    kwargs=kwargs,
                )
            except RetryAfter as exc:
                wait = exc._retry_after.total_seconds() + 0.1
                reason = f"429, retry after {wait:.1f}s"
            except BadRequest:
                raise
            except NetworkError as exc:
                wait = backoff * random.uniform(0.8, 1.2)
                backoff = min(backoff * 2, 8.0)
                reason = f"{type(exc).__name__}: {exc}"
            if loop.time() + wait > deadline:
                log.warning("%s gave up after %d attempts (%s)", endpoint, attempt, reason)
                raise
            log.info("%s attempt %d failed (%s); retrying", endpoint, attempt, reason)
            await asyncio.sleep(wait)


class HandledUpdates:
    """The update ids already answered, so a redelivered update is not answered twice.

    Telegram redelivers every update the bot has not confirmed (by asking for a later
    offset); the poller confirms only after a reply was sent or given up on, so after a kill
    some answered updates come back. Their ids are kept as store memos (shared through Redis
    when it is configured) and, for a single process, appended to a small file:
    one id per line, written before the next update starts, so it survives SIGKILL (the
    kernel has the bytes); it is rewritten with the newest ids when it grows past twice
    :attr:`keep`. ``vram telegram`` keeps that file at :func:`state_file`.
    """

    def __init__(
        self, store: StateStore, bot_id: int | str, path: Path | None = None, keep: int = 2000
    ) -> None:
        self.store = store
        self.bot_id = bot_id
        self.path = path
        self.keep = keep
        self._ids: OrderedDict[int, None] = OrderedDict()
        self._lines = 0
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            text = path.read_text(encoding="ascii", errors="replace")
        except FileNotFoundError:
            return
        except OSError as exc:
            log.warning("%s cannot be read (%s); starting without it", path, exc)
            self.path = None
            return
        for line in text.split():
            if line.isascii() and line.isdigit():
                self._remember(int(line))
        self._lines = len(self._ids)

    def _remember(self, update_id: int) -> None:
        self._ids[update_id] = None
        self._ids.move_to_end(update_id)
        while len(self._ids) > self.keep:
            self._ids.popitem(last=False)

    def _key(self, update_id: int) -> str:
        return f"{PLATFORM}:update:{self.bot_id}:{update_id}"

    async def done(self, update_id: int) -> bool:
        if update_id in self._ids:
            return True
        return await self.store.get_memo(self._key(update_id)) is not None

    async def mark(self, update_id: int) -> None:
        self._remember(update_id)
        await self.store.put_memo(self._key(update_id), "1", HANDLED_TTL_S)
        if self.path is not None:
            try:
                await asyncio.to_thread(self._append, self.path, update_id)
            except OSError as exc:
                log.warning(
                    "TELEGRAM_STATE_FILE cannot be written (%s); keeping ids in memory", exc
                )
                self.path = None

    def _append(self, path: Path, update_id: int) -> None:
        self._lines += 1
        path.parent.mkdir(parents=True, exist_ok=True)
        if self._lines > 2 * self.keep:
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text("".join(f"{i}\n" for i in self._ids), encoding="ascii")
            os.replace(tmp, path)
            self._lines = len(self._ids)
            return
        with path.open("a", encoding="ascii") as f:
            f.write(f"{update_id}\n")


def _lane(update: Update) -> str:
    """Updates of one chat are answered in order; different chats run side by side."""
    chat = update.effective_chat
    if chat is not None:
        return f"c{chat.id}"
    user = update.effective_user
    return f"u{user.id}" if user is not None else f"n{update.update_id}"


class Poller:
    """Long polling that confirms an update only after it was answered (or given up on).

    PTB's own poller confirms a batch as soon as it is fetched, so a kill loses whatever was
    fetched but not yet answered. Here a batch is fetched, answered (one chat in order, chats
    concurrently), each answered id recorded in :class:`HandledUpdates`, and only then is the
    next offset asked for. On SIGTERM the current batch is finished and confirmed.
    """

    def __init__(
        self, app: TgApp, handled: HandledUpdates, *, timeout: int = 30, limit: int = 100
    ) -> None:
        self.app = app
        self.handled = handled
        self.timeout = timeout
        self.limit = limit
        self.offset: int | None = None
        self.stopping = asyncio.Event()
        self._quiet = False

    async def run(self) -> None:
        """Poll until :meth:`stop`; returns after the last batch is answered and confirmed."""
        bot = self.app.bot
        backoff = 1.0
        while not self.stopping.is_set():
            fetch = asyncio.ensure_future(
                bot.get_updates(
                    offset=self.offset,
                    timeout=self.timeout,
                    limit=self.limit,
                    allowed_updates=ALLOWED_UPDATES,
                )
            )
            stop = asyncio.ensure_future(self.stopping.wait())
            await asyncio.wait({fetch, stop}, return_when=asyncio.FIRST_COMPLETED)
            stop.cancel()
            if not fetch.done():
                fetch.cancel()
                with suppress(asyncio.CancelledError, TelegramError):
                    await fetch
                break
            try:
                updates: Sequence[Update] = fetch.result()
            except InvalidToken:
                raise
            except (NetworkError, Conflict, RetryAfter) as exc:
                if not self._quiet:
                    log.warning("getUpdates failed (%s); retrying until it works", exc)
                    self._quiet = True
                wait = exc._retry_after.total_seconds() if isinstance(exc, RetryAfter) else backoff
                backoff = min(backoff * 2, 30.0)
                with suppress(TimeoutError):
                    await asyncio.wait_for(self.stopping.wait(), wait)
                continue
            if self._quiet:
                log.warning("getUpdates works again")
                self._quiet = False
            backoff = 1.0
            if updates:
                await self.answer(updates)
                self.offset = updates[-1].update_id + 1
        await self._confirm()

    async def answer(self, updates: Sequence[Update]) -> None:
        lanes: dict[str, list[Update]] = {}
        for update in updates:
            lanes.setdefault(_lane(update), []).append(update)
        await asyncio.gather(*(self._answer_lane(lane) for lane in lanes.values()))

    async def _answer_lane(self, updates: list[Update]) -> None:
        for update in updates:
            if await self.handled.done(update.update_id):
                log.info("update %s was answered before a restart; skipped", update.update_id)
                continue
            try:
                await self.app.process_update(update)
            except Exception:  # process_update hands handler errors to on_error already
                log.exception("update %s could not be processed", update.update_id)
            await self.handled.mark(update.update_id)

    async def _confirm(self) -> None:
        """Tell Telegram the last batch is done, so a clean restart does not see it again."""
        if self.offset is None:
            return
        try:
            await self.app.bot.get_updates(offset=self.offset, timeout=0, limit=1)
        except TelegramError as exc:  # the ids file/store still prevents double answers
            log.info("could not confirm the last updates on the way out: %s", exc)

    def stop(self) -> None:
        self.stopping.set()


def state_file(bot_id: int | str) -> Path:
    """Where one bot's answered update ids survive a restart of a single process.

    ``~/.local/state/vramchat/telegram-<bot id>.updates`` (the XDG state location). Where the
    home directory is not writable (a read-only container) the ids stay in the store: in
    memory, or in Redis when ``VRAMCHAT_REDIS_URL`` is set, which is what replicas need.
    """
    return Path.home() / ".local" / "state" / "vramchat" / f"{PLATFORM}-{bot_id}.updates"


def handled_updates(settings: Settings, desk: Desk, path: Path | None = None) -> HandledUpdates:
    """The answered-update record for this bot; ``path=None`` keeps it in the store only."""
    token = settings.require_telegram()
    return HandledUpdates(desk.store, token.split(":", 1)[0], path)


async def serve_polling(app: TgApp, settings: Settings, desk: Desk) -> None:
    """``vram telegram`` without a webhook: :class:`Poller` until SIGINT or SIGTERM."""
    bot_id = settings.require_telegram().split(":", 1)[0]
    poller = Poller(app, handled_updates(settings, desk, state_file(bot_id)))
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, poller.stop)
    async with app:
        if app.post_init is not None:
            await app.post_init(app)
        await app.bot.delete_webhook()
        await app.start()
        try:
            await poller.run()
        finally:
            await app.stop()


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

    app: TgApp = (
        ApplicationBuilder()
        .token(token)
        .base_url(settings.telegram_base_url)
        .base_file_url(file_url_for(settings.telegram_base_url))
        .rate_limiter(PatientRateLimiter())
        .post_init(post_init)
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
        asyncio.get_event_loop().run_until_complete(serve_polling(app, settings, desk))


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
    try:
        desk = desk_for(settings, catalog)
    except SettingsError as exc:
        print(f"vram telegram: {exc}", file=sys.stderr)
        return 2
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
