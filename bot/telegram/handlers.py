"""The Telegram bot's behaviour: each update becomes ``Desk.answer(...)``, rendered as HTML.

Button presses edit the message they sit on. What a button needs (the person's question, the
typed options applied to it, the answers shown) is a :class:`bot.memo.ButtonMemo` behind a
short reference in callback_data; a candidate or an alternative press re-asks that question
with changed :class:`engine.RequestOptions`. Replying to one of the bot's answers refines it:
the answer's engine ``Context`` is kept in ``desk.store`` under :func:`message_key`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from contextlib import suppress
from typing import Final, TypeVar

from telegram import (
    CallbackQuery,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    Update,
    User,
)
from telegram.constants import ChatAction, ChatType, ParseMode
from telegram.error import BadRequest, TelegramError

from bot.desk import Desk, Limited
from bot.lifecycle import apology, reload_off_loop, report
from bot.logs import REQUEST_ID
from bot.memo import ButtonMemo, Memos, alternative_options, candidate_options
from bot.render.common import Links
from bot.render.telegram import (
    examples_keyboard,
    faq_keyboard,
    format_faq_topics,
    format_help,
    format_html,
    format_notice,
    keyboard,
    parse_callback,
    shorten,
)
from bot.telegram.base import PLATFORM, Ctx, message_key
from bot.telegram.inline import INLINE_CACHE_S, answer_inline
from engine import Answer, Catalog, Context, RequestOptions, context_of, pick_lang, t

__all__ = ["INLINE_CACHE_S", "TYPING_AFTER_S", "TelegramHandlers"]

#: An answer slower than this shows "typing…" while the person waits; quicker ones do not.
TYPING_AFTER_S: Final = 0.5

log = logging.getLogger("vramchat.telegram")
T = TypeVar("T")


def _lang(user: User | None) -> str:
    return pick_lang(user.language_code if user else None) or "en"


def _argument(text: str | None) -> str:
    """Everything after '/command' (or '/command@bot'), spacing kept."""
    parts = (text or "").split(maxsplit=1)
    return parts[1].strip() if len(parts) > 1 else ""


# --------------------------------------------------------------------------- handlers


class TelegramHandlers:
    """The bot's behaviour: one instance per application, holding the desk and button state."""

    def __init__(self, desk: Desk, shown: Memos | None = None, links: Links | None = None) -> None:
        self.desk = desk
        self.shown = shown or Memos(PLATFORM, store=desk.store)
        self.links = links  # the rent / sales link buttons' URLs (None: no link buttons)

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

    async def _typing(self, message: Message, work: Awaitable[T]) -> T:
        """``work``'s result; "typing…" is shown only if it takes longer than TYPING_AFTER_S."""
        task = asyncio.ensure_future(work)
        done, _ = await asyncio.wait({task}, timeout=TYPING_AFTER_S)
        if not done:
            with suppress(TelegramError):  # a lost chat action is no reason to fail
                await message.get_bot().send_chat_action(message.chat_id, ChatAction.TYPING)
        return await task

    async def _ask(
        self,
        update: Update,
        text: str,
        previous: Context | None = None,
        *,
        lang: str | None = None,
        options: RequestOptions | None = None,
    ) -> None:
        """One question -> exactly one sendMessage (the answer, or the rate-limit notice)."""
        message, user = update.effective_message, update.effective_user
        if message is None:
            return
        chat_id = message.chat_id
        work = self.desk.answer(
            text,
            platform=PLATFORM,
            chat_key=f"{chat_id}:{user.id if user else 0}",
            user_key=str(user.id) if user else None,
            locale=user.language_code if user else None,
            lang=lang,
            previous=previous,
            options=options,
        )
        result = await self._typing(message, work)
        if isinstance(result, Limited):
            await self._reply(message, format_notice(self._limited(result)))
            return
        cat = self.catalog
        memo = ButtonMemo(text, result.lang, previous, result, result, options=options)
        ref = self.shown.add(memo)
        await self.shown.save(ref)
        markup = keyboard(result, cat, ref, links=self.links)
        sent = await self._reply(message, format_html(result, cat), markup)
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
        await self._reply(update.effective_message, text, examples_keyboard(self.catalog, lang))

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
        await self._ask(update, "", options=RequestOptions(kind="cards"))

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
        await self._ask(update, "", options=RequestOptions(kind="card", card=name[:80]))

    async def faq(self, update: Update, context: Ctx) -> None:
        """/faq [topic]: one answer, or the list of topics when none (or an unknown one) is given."""
        message = update.effective_message
        if message is None:
            return
        words = _argument(message.text).split()
        topic = words[0].lower() if words else ""
        if topic and topic in {entry.id for entry in self.catalog.faq}:
            await self._ask(update, "", options=RequestOptions(kind="faq", faq_topic=topic))
            return
        lang = _lang(update.effective_user)
        topics = format_faq_topics(self.catalog, lang)
        await self._reply(message, topics, faq_keyboard(self.catalog, lang))

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
        reason = await reload_off_loop(self.desk)
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
        """Inline buttons: the math, an alternative card, a clarify candidate, back, or a
        tappable example / FAQ topic (those ask a question of their own)."""
        query = update.callback_query
        if query is None:
            return
        parsed = parse_callback(query.data or "")
        message = query.message
        if parsed is not None and parsed[0] in ("e", "f") and isinstance(message, Message):
            await query.answer()
            await self._tapped(update, parsed[0], parsed[1], parsed[2])
            return
        memo = await self.shown.load(parsed[1]) if parsed else None
        if parsed is None or memo is None or not isinstance(message, Message):
            await query.answer(t(self.catalog, _lang(query.from_user), "tg.expired"))
            return
        action, ref, n = parsed
        if action in ("m", "h"):
            memo.math = action == "m"
        elif action == "b":
            memo.current, memo.math = memo.original, False
        else:
            asked = self._button_request(memo, action, n)
            if asked is None:
                await query.answer(t(self.catalog, _lang(query.from_user), "tg.expired"))
                return
            question, previous, options = asked
            result = await self.desk.answer(
                question,
                platform=PLATFORM,
                chat_key=f"{message.chat_id}:{query.from_user.id}",
                user_key=str(query.from_user.id),
                lang=memo.lang,
                previous=previous,
                remember=action == "c",
                options=options,
            )
            if isinstance(result, Limited):
                await query.answer(shorten(self._limited(result), 200), show_alert=True)
                return
            if action == "c":  # the picked model is now what the message is about
                memo.options, memo.original = options, result
            memo.current, memo.math = result, False
            await self._remember(message.chat_id, message.message_id, result)
        await self.shown.save(ref)
        await query.answer()
        await self._redraw(query, memo, ref)

    async def _redraw(self, query: CallbackQuery, memo: ButtonMemo, ref: str) -> None:
        """Edit the pressed message to show the memo's current answer and its buttons."""
        cat = self.catalog
        back = memo.current is not memo.original
        markup = keyboard(memo.current, cat, ref, math_shown=memo.math, back=back, links=self.links)
        try:
            await query.edit_message_text(
                format_html(memo.current, cat, math=memo.math),
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
            )
        except BadRequest as exc:
            if "not modified" not in exc.message.lower():  # a double tap is not an error
                raise

    @staticmethod
    def _button_request(
        memo: ButtonMemo, action: str, n: int | None
    ) -> tuple[str, Context | None, RequestOptions] | None:
        """What an alternative-card or clarify-candidate press asks: (text, context, options).

        An alternative is a follow-up of the answer it sits on, with only the card changed;
        a candidate is the person's own question again, with the model they picked.
        """
        current = memo.current
        if action == "a" and n is not None and n < len(current.alternatives):
            return "", context_of(current), alternative_options(current.alternatives[n])
        if action == "c" and n is not None and n < len(current.candidates):
            return memo.question, memo.previous, candidate_options(memo, current.candidates[n])
        return None

    async def _tapped(self, update: Update, action: str, key: str, n: int | None) -> None:
        """A tapped example from /start or a tapped /faq topic: asked as a new question."""
        if action == "e" and n is not None and key in self.catalog.messages:
            example = self.catalog.messages[key].get(f"tg.help.example_{n}")
            if example:
                await self._ask(update, example, lang=key)
        elif action == "f" and key in {entry.id for entry in self.catalog.faq}:
            options = RequestOptions(kind="faq", faq_topic=key)
            await self._ask(update, "", lang=_lang(update.effective_user), options=options)

    # -- inline mode

    async def inline(self, update: Update, context: Ctx) -> None:
        """``@bot 70b int4 128k`` in any chat: the answer plus up to two alternatives."""
        if update.inline_query is not None:
            await answer_inline(self.desk, update.inline_query, self._limited)

    # -- errors

    async def on_error(self, update: object, context: Ctx) -> None:
        """Log a reference id with the traceback, then apologise with the same id; never raise."""
        ref = report(PLATFORM, log, "telegram update failed", context.error)
        if not isinstance(update, Update):
            return
        try:
            if update.callback_query is not None:
                with suppress(TelegramError):
                    await update.callback_query.answer()
            chat = update.effective_chat
            if update.inline_query is None and chat is not None:
                text = apology(self.catalog, _lang(update.effective_user), ref)
                await context.bot.send_message(
                    chat.id, format_notice(text), parse_mode=ParseMode.HTML
                )
        except Exception:
            log.warning("ref=%s the apology could not be sent either", ref, exc_info=True)
