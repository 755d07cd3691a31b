"""Proves FakeTelegram is faithful enough for the real PTB Application, and strict enough.

Each test drives an unmodified python-telegram-bot Application over HTTP against the fake, so a
regression in either the fake or PTB's wire behaviour shows up here before it hides bot bugs.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import html
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest as PTBBadRequest
from telegram.error import RetryAfter
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackContext,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from .telegram_api import BadRequest, FakeTelegram, free_port, parse_telegram_html, post_webhook


@pytest.fixture(autouse=True)
def _test_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep traffic local and opt in to PTB's timedelta periods.

    httpx honours HTTP(S)_PROXY even for loopback. Without PTB_TIMEDELTA every RetryAfter
    emits a PTBDeprecationWarning, which filterwarnings=error turns into an exception inside
    AIORateLimiter, so 429s are never retried.
    """
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("PTB_TIMEDELTA", "1")


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    """A fresh fake per test, so recorded calls never leak between tests."""
    async with FakeTelegram() as server:
        yield server


class EchoBot:
    """Throwaway bot: the handlers a real bot uses, minus any domain logic."""

    def __init__(self, fake: FakeTelegram, *, rate_limiter: AIORateLimiter | None = None) -> None:
        builder = fake.app_builder()
        if rate_limiter is not None:
            builder = builder.rate_limiter(rate_limiter)
        self.app: Application[Any, Any, Any, Any, Any, Any] = builder.build()
        self.handled: list[Update] = []
        self.errors: list[BaseException] = []
        self.app.add_handler(CommandHandler("start", self.start))
        self.app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, self.echo))
        self.app.add_handler(CallbackQueryHandler(self.button))
        self.app.add_handler(InlineQueryHandler(self.inline))
        self.app.add_error_handler(self.on_error)

    async def on_error(self, update: object, context: CallbackContext[Any, Any, Any, Any]) -> None:
        """Collect handler errors so tests can assert there were none."""
        assert context.error is not None
        self.errors.append(context.error)

    async def start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Reply with an inline keyboard, like the real /start."""
        self.handled.append(update)
        assert update.effective_message is not None
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("70B", callback_data="pick:70b")]])
        await update.effective_message.reply_text(
            "<b>Pick</b> a model:", parse_mode=ParseMode.HTML, reply_markup=keyboard
        )

    async def echo(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Echo with HTML escaping, the pattern that breaks when someone forgets to escape."""
        self.handled.append(update)
        message = update.effective_message
        assert message is not None and message.text is not None
        await message.reply_text(f"<b>echo:</b> {html.escape(message.text)}", parse_mode="HTML")

    async def button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Answer the callback and edit the keyboard message."""
        self.handled.append(update)
        query = update.callback_query
        assert query is not None
        await query.answer("picked")
        await query.edit_message_text(
            f"You picked <code>{html.escape(query.data or '')}</code>", parse_mode="HTML"
        )

    async def inline(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Answer an inline query with one HTML article."""
        self.handled.append(update)
        query = update.inline_query
        assert query is not None
        content = InputTextMessageContent(
            f"<i>{html.escape(query.query)}</i> needs ~40 GB", parse_mode="HTML"
        )
        await query.answer([InlineQueryResultArticle("r1", "70b int4", content)], cache_time=0)


@contextlib.asynccontextmanager
async def polling(bot: EchoBot) -> AsyncIterator[EchoBot]:
    """Manual lifecycle (run_polling would take over the loop and signal handlers)."""
    async with bot.app:
        await bot.app.start()
        assert bot.app.updater is not None
        await bot.app.updater.start_polling(timeout=1, poll_interval=0)
        try:
            yield bot
        finally:
            await bot.app.updater.stop()
            await bot.app.stop()


async def raw_call(
    fake: FakeTelegram, method: str, data: dict[str, str], token: str | None = None
) -> tuple[int, dict[str, Any]]:
    """Call the fake like PTB does (form-urlencoded), bypassing PTB's own validation."""
    url = f"{fake.base_url}{token or fake.token}/{method}"
    async with (
        aiohttp.ClientSession(trust_env=False) as session,
        session.post(url, data=data) as resp,
    ):
        return resp.status, await resp.json(content_type=None)


# --------------------------------------------------------------------------- (1) polling


async def test_dm_gets_exactly_one_reply_and_offsets_advance(fake: FakeTelegram) -> None:
    bot = EchoBot(fake)
    async with polling(bot):
        fake.push_update(fake.message_update("2 < 3 & 99"))
        await fake.wait_for(lambda: len(fake.sent_messages) == 1)
        second = fake.push_update(fake.message_update("again", chat_id=7, user_id=7))
        await fake.wait_for(lambda: len(fake.sent_messages) == 2)
    assert bot.errors == []
    first_reply, second_reply = fake.sent_messages
    assert first_reply["chat_id"] == 42
    assert first_reply["text"] == "<b>echo:</b> 2 &lt; 3 &amp; 99"
    assert fake.message(42, first_reply["message_id"])["text"] == "echo: 2 < 3 & 99"
    assert second_reply["chat_id"] == 7
    assert len(bot.handled) == 2
    assert set(fake.deliveries.values()) == {1}, "an update was delivered twice"
    offsets = [c.params.get("offset", 0) for c in fake.calls_to("getUpdates")]
    assert offsets == sorted(offsets)
    assert offsets[-1] == second + 1  # final confirming poll on stop
    methods = [c.method for c in fake.calls]
    assert methods[:2] == ["getMe", "deleteWebhook"]


async def test_text_params_stay_strings(fake: FakeTelegram) -> None:
    """PTB sends strings raw; "99" must not turn into an int inside the fake."""
    fake.add_chat(42)
    status, body = await raw_call(fake, "sendMessage", {"chat_id": "42", "text": "99"})
    assert status == 200, body
    assert body["result"]["text"] == "99"
    assert fake.sent_messages[-1]["text"] == "99"
    assert fake.sent_messages[-1]["chat_id"] == 42


# --------------------------------------------------------------------------- (2) strictness


@pytest.mark.parametrize(
    ("text", "description"),
    [
        ("<b>x", "can't parse entities"),
        ("<b><i>x</b></i>", "can't parse entities"),
        ("</b>", "can't parse entities"),
        ("<div>x</div>", "can't parse entities"),
        ("<br/>", "can't parse entities"),
        ("1 < 2", "can't parse entities"),
        ("fish & chips", "can't parse entities"),
        ("&nbsp;", "can't parse entities"),
        ('<span class="x">s</span>', "can't parse entities"),
        ("x" * 5000, "message is too long"),
        ("\U0001f600" * 2049, "message is too long"),
        ("   ", "message text is empty"),
        ("<b> </b>", "message text is empty"),
    ],
)
async def test_bad_html_and_length_rejected(
    fake: FakeTelegram, text: str, description: str
) -> None:
    fake.add_chat(42)
    status, body = await raw_call(
        fake, "sendMessage", {"chat_id": "42", "text": text, "parse_mode": "HTML"}
    )
    assert status == 400
    assert body["ok"] is False and body["error_code"] == 400
    assert body["description"].startswith("Bad Request: ")
    assert description in body["description"]
    assert fake.sent_messages == []


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        ("<b>b</b><strong>s</strong><i>i</i><em>e</em><u>u</u><ins>n</ins>", "bsieun"),
        ("<s>s</s><strike>k</strike><del>d</del><tg-spoiler>p</tg-spoiler>", "skdp"),
        ('<span class="tg-spoiler">p</span><a href="https://x.y/?a=1&amp;b=2">l</a>', "pl"),
        ('<pre><code class="language-python">x = 1</code></pre><code>c</code>', "x = 1c"),
        ("<blockquote expandable>q</blockquote>", "q"),
        ('<tg-emoji emoji-id="5368324170671202286">\U0001f44d</tg-emoji>', "\U0001f44d"),
        ("&lt;&gt;&amp;&quot;&#65;&#x42; 3 > 2", '<>&"AB 3 > 2'),
        ("<B>upper</B>", "upper"),
    ],
)
def test_telegram_html_accepted(text: str, visible: str) -> None:
    assert parse_telegram_html(text) == visible


async def test_length_counts_visible_utf16(fake: FakeTelegram) -> None:
    """Markup does not count; astral characters count twice, like Telegram."""
    fake.add_chat(42)
    ok_text = "<b>" + "a" * 4000 + "</b>" + "&amp;" * 96
    status, body = await raw_call(
        fake, "sendMessage", {"chat_id": "42", "text": ok_text, "parse_mode": "HTML"}
    )
    assert status == 200, body
    status, body = await raw_call(fake, "sendMessage", {"chat_id": "42", "text": "😀" * 2048})
    assert status == 200, body


async def test_protocol_errors(fake: FakeTelegram) -> None:
    fake.add_chat(42)
    status, body = await raw_call(fake, "getMe", {}, token="1:wrong")
    assert (status, body) == (401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
    status, body = await raw_call(fake, "frobnicate", {})
    assert status == 404 and fake.unknown_methods == ["frobnicate"]
    status, body = await raw_call(fake, "sendMessage", {"chat_id": "999", "text": "x"})
    assert (status, body["description"]) == (400, "Bad Request: chat not found")
    long_data = '{"inline_keyboard":[[{"text":"b","callback_data":"' + "x" * 65 + '"}]]}'
    status, body = await raw_call(
        fake, "sendMessage", {"chat_id": "42", "text": "k", "reply_markup": long_data}
    )
    assert (status, body["description"]) == (400, "Bad Request: BUTTON_DATA_INVALID")
    status, body = await raw_call(fake, "answerCallbackQuery", {"callback_query_id": "nope"})
    assert status == 400 and "query ID is invalid" in body["description"]
    status, body = await raw_call(fake, "deleteMessage", {"chat_id": "42", "message_id": "1"})
    assert (status, body["description"]) == (400, "Bad Request: message to delete not found")
    status, body = await raw_call(fake, "setChatMenuButton", {})
    assert (status, body) == (200, {"ok": True, "result": True})


async def test_json_bodies_and_edit_rules(fake: FakeTelegram) -> None:
    """JSON bodies work too; re-sending identical content is 'message is not modified'."""
    fake.add_chat(42)
    url = f"{fake.base_url}{fake.token}/sendMessage"
    async with (
        aiohttp.ClientSession(trust_env=False) as session,
        session.post(url, json={"chat_id": 42, "text": "<b>v1</b>"}) as resp,
    ):
        assert resp.status == 200
        message_id = (await resp.json())["result"]["message_id"]
    edit = {"chat_id": "42", "message_id": str(message_id), "text": "<b>v1</b>"}
    status, body = await raw_call(fake, "editMessageText", edit)
    assert status == 400 and "message is not modified" in body["description"]
    status, body = await raw_call(fake, "editMessageText", {**edit, "parse_mode": "HTML"})
    assert status == 200 and body["result"]["text"] == "v1"
    status, body = await raw_call(fake, "editMessageText", {**edit, "message_id": "999"})
    assert (status, body["description"]) == (400, "Bad Request: message to edit not found")
    user_msg = fake.message_update("mine")["message"]["message_id"]
    status, body = await raw_call(fake, "editMessageText", {**edit, "message_id": str(user_msg)})
    assert (status, body["description"]) == (400, "Bad Request: message can't be edited")


async def test_ptb_sees_bad_request_and_inline_limits(fake: FakeTelegram) -> None:
    bot = EchoBot(fake)
    fake.add_chat(42)
    async with bot.app:
        with pytest.raises(PTBBadRequest, match=r"(?i)can't parse entities"):
            await bot.app.bot.send_message(42, "<b>x", parse_mode="HTML")
        with pytest.raises(PTBBadRequest, match="Message is too long"):
            await bot.app.bot.send_message(42, "y" * 5000)
        query_id = fake.inline_update("q")["inline_query"]["id"]
        content = InputTextMessageContent("x")
        too_many = [InlineQueryResultArticle(str(i), "t", content) for i in range(51)]
        with pytest.raises(PTBBadRequest, match="Results_too_much"):
            await bot.app.bot.answer_inline_query(query_id, too_many)
        bad_html = [InlineQueryResultArticle("1", "t", InputTextMessageContent("<b>", "HTML"))]
        with pytest.raises(PTBBadRequest, match=r"(?i)can't parse entities"):
            await bot.app.bot.answer_inline_query(query_id, bad_html)
        assert fake.inline_answers == []
        await bot.app.bot.answer_inline_query(query_id, too_many[:50])
        assert len(fake.inline_answers[0]["results"]) == 50


# --------------------------------------------------------------------------- (3)/(4) faults


async def test_rate_limited_send_is_retried_once(fake: FakeTelegram) -> None:
    fake.fail_next("sendMessage", status=429, retry_after=1)
    bot = EchoBot(fake, rate_limiter=AIORateLimiter(max_retries=2))
    async with polling(bot):
        fake.push_update(fake.message_update("hi"))
        await fake.wait_for(lambda: len(fake.sent_messages) == 1, timeout=5)
    assert bot.errors == []
    assert fake.faults == [("sendMessage", "429")]
    assert len(fake.calls_to("sendMessage")) == 2
    assert len(fake.sent_messages) == 1


async def test_429_without_limiter_surfaces_retry_after(fake: FakeTelegram) -> None:
    fake.add_chat(42)
    fake.fail_next("sendMessage", status=429, retry_after=3)
    async with fake.app_builder().build() as app:
        with pytest.raises(RetryAfter) as info:
            await app.bot.send_message(42, "x")
    assert info.value.retry_after == dt.timedelta(seconds=3)


@pytest.mark.parametrize(
    "fault",
    [{"status": 500}, {"status": 502}, {"drop_connection": True}, {"malformed": True}],
    ids=["500", "502", "drop", "malformed"],
)
async def test_polling_recovers_from_get_updates_fault(
    fake: FakeTelegram, fault: dict[str, Any]
) -> None:
    fake.push_update(fake.message_update("queued before start"))
    fake.fail_next("getUpdates", **fault)
    bot = EchoBot(fake)
    async with polling(bot):
        await fake.wait_for(lambda: len(fake.sent_messages) == 1, timeout=5)
    assert fake.fault_count == 1
    assert len(bot.handled) == 1 and bot.errors == []
    assert set(fake.deliveries.values()) == {1}


# --------------------------------------------------------------------------- (5) webhook


async def test_webhook_secret_is_enforced(fake: FakeTelegram) -> None:
    bot = EchoBot(fake)
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    async with bot.app:
        await bot.app.start()
        assert bot.app.updater is not None
        await bot.app.updater.start_webhook(
            listen="127.0.0.1", port=port, url_path="hook", secret_token="s3cret", webhook_url=url
        )
        try:
            assert fake.webhook["url"] == url and fake.webhook["secret_token"] == "s3cret"
            assert await post_webhook(url, fake.message_update("nope"), "wrong") == 403
            assert await post_webhook(url, fake.message_update("nope"), None) == 403
            assert await post_webhook(url, fake.message_update("hook"), "s3cret") == 200
            await fake.wait_for(lambda: len(fake.sent_messages) == 1)
            status, body = await raw_call(fake, "getUpdates", {})
            assert status == 409 and "webhook is active" in body["description"]
        finally:
            await bot.app.updater.stop()
            await bot.app.stop()
    assert [u.effective_message.text for u in bot.handled if u.effective_message] == ["hook"]
    assert fake.sent_messages[0]["text"] == "<b>echo:</b> hook"


# --------------------------------------------------------------------------- (6) queries


async def test_callback_and_inline_round_trips(fake: FakeTelegram) -> None:
    bot = EchoBot(fake)
    async with polling(bot):
        fake.push_update(fake.message_update("/start"))
        await fake.wait_for(lambda: len(fake.sent_messages) == 1)
        keyboard_msg = fake.sent_messages[0]
        assert keyboard_msg["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == (
            "pick:70b"
        )
        fake.push_update(fake.callback_update("pick:70b", keyboard_msg))
        await fake.wait_for(lambda: len(fake.edits) == 1)
        fake.push_update(fake.inline_update("70b int4"))
        await fake.wait_for(lambda: len(fake.inline_answers) == 1)
    assert bot.errors == []
    assert fake.callback_answers[0]["text"] == "picked"
    edited = fake.message(42, keyboard_msg["message_id"])
    assert edited["text"] == "You picked pick:70b" and "reply_markup" not in edited
    (result,) = fake.inline_answers[0]["results"]
    assert result["input_message_content"]["message_text"] == "<i>70b int4</i> needs ~40 GB"
    assert set(fake.deliveries.values()) == {1}


async def test_commands_mentions_and_wait_for_timeout(fake: FakeTelegram) -> None:
    update = fake.message_update("/start@vram_test_bot hi @VRAM_test_bot", chat_type="group")
    entities = update["message"]["entities"]
    assert entities[0] == {"type": "bot_command", "offset": 0, "length": 20}
    assert entities[1]["type"] == "mention" and entities[1]["offset"] == 24
    async with fake.app_builder().build() as app:
        await app.bot.set_my_commands([("vram", "Size a model")], language_code="pl")
        assert [c.command for c in await app.bot.get_my_commands(language_code="pl")] == ["vram"]
    assert fake.commands == [
        {
            "scope": {"type": "default"},
            "language_code": "pl",
            "commands": [{"command": "vram", "description": "Size a model"}],
        }
    ]
    with pytest.raises(AssertionError, match="condition not met"):
        await fake.wait_for(lambda: False, timeout=0.05)
    with pytest.raises(BadRequest):
        parse_telegram_html("<tg-emoji>x</tg-emoji>")
