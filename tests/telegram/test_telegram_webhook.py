"""Webhook mode end to end: the real PTB application behind ``serve_webhook``, the fake Bot
API receiving its calls, and updates POSTed the way Telegram posts them.

The 200 is Telegram's confirmation, so every case checks what had been sent by the time the
200 came back: an update confirmed before its reply went out is an answer a crash can lose.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from pydantic import SecretStr
from tg_support import FakeTelegram, JsonDict, free_port, make_settings, post_webhook, visible

from bot import health
from bot.desk import Desk
from bot.telegram.app import TgApp, build_application
from bot.telegram.webhook import MAX_BODY_BYTES, serve_webhook
from engine import Catalog

SECRET = "hook-Secret_42"


@dataclass
class Hook:
    url: str
    app: TgApp
    stop: asyncio.Event
    task: asyncio.Task[None]

    def __repr__(self) -> str:
        return f"<Hook {self.url}>"  # PTB's Application repr shows the token

    async def post(self, update: JsonDict, secret: str | None = SECRET) -> int:
        return await post_webhook(self.url, update, secret)


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The answered-ids file lives under HOME; keep it in the test's folder."""
    monkeypatch.setenv("HOME", str(tmp_path))


@asynccontextmanager
async def webhook_bot(fake: FakeTelegram, desk: Desk) -> AsyncIterator[Hook]:
    """``serve_webhook`` (what ``vram telegram`` runs) until the block ends; ready once the
    fake saw setWebhook, which comes after the server listens."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    settings = make_settings(
        fake,
        telegram_webhook_url=url,
        telegram_webhook_secret=SecretStr(SECRET),
        telegram_webhook_listen="127.0.0.1",
        telegram_webhook_port=port,
        telegram_webhook_path="hook",
    )
    app = build_application(settings, desk)
    stop = asyncio.Event()
    fake.webhook = {}
    task = asyncio.create_task(serve_webhook(app, settings, desk, stop))
    await fake.wait_for(lambda: fake.webhook.get("url") == url or task.done(), timeout=20)
    if task.done():
        await task
    assert fake.webhook["secret_token"] == SECRET
    try:
        yield Hook(url, app, stop, task)
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)


async def raw_post(url: str, body: bytes, secret: str | None = SECRET) -> tuple[int, Any]:
    """POST any bytes; returns the status and the parsed JSON body (None if not JSON)."""
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    async with (
        aiohttp.ClientSession(trust_env=False) as session,
        session.post(url, data=io.BytesIO(body), headers=headers) as resp,
    ):
        text = await resp.read()
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, None


def replies(fake: FakeTelegram, chat_id: int) -> list[JsonDict]:
    return [m for m in fake.sent_messages if m["chat_id"] == chat_id]


async def test_the_200_comes_after_the_reply_went_out(fake: FakeTelegram, desk: Desk) -> None:
    """Two 502s on sendMessage: the reply is retried, and only then is the update confirmed."""
    async with webhook_bot(fake, desk) as hook:
        assert hook.app.bot_data[health.TELEGRAM_POLLING] is True  # healthcheck sees it up
        fake.fail_next("sendMessage", status=502, times=2)
        assert await hook.post(fake.message_update("13b fp8", chat_id=5)) == 200
        assert [kind for _, kind in fake.faults] == ["502", "502"]
        assert len(replies(fake, 5)) == 1  # already recorded when the 200 arrived
        assert "13B" in visible(replies(fake, 5)[0])
    assert hook.app.bot_data[health.TELEGRAM_POLLING] is False


async def test_a_redelivered_update_is_answered_once(
    fake: FakeTelegram, desk: Desk, catalog: Catalog
) -> None:
    """Telegram resends an update it saw no 200 for: later, at once, or after a restart."""
    first = fake.message_update("70b int4", chat_id=7)
    second = fake.message_update("13b fp8", chat_id=7)
    async with webhook_bot(fake, desk) as hook:
        assert await hook.post(first) == 200
        assert await hook.post(first) == 200
        assert await asyncio.gather(hook.post(second), hook.post(second)) == [200, 200]
        assert len(replies(fake, 7)) == 2
    async with webhook_bot(fake, Desk(catalog, rate_per_minute=1000)) as hook:  # a restart
        assert await hook.post(second) == 200  # the ids file remembers it
        assert await hook.post(fake.message_update("gpus", chat_id=7)) == 200
    texts = [visible(m) for m in replies(fake, 7)]
    assert len(texts) == 3, texts
    assert "70B" in texts[0] and "13B" in texts[1]


async def test_refused_requests_are_json_and_answer_nothing(fake: FakeTelegram, desk: Desk) -> None:
    async with webhook_bot(fake, desk) as hook:
        good = json.dumps(fake.message_update("70b int4", chat_id=9)).encode()
        cases: list[tuple[bytes, str | None, int]] = [
            (good, "wrong-secret", 403),
            (good, None, 403),
            (good, SECRET[:-1], 403),
            (b"{not json", SECRET, 400),
            (b"\xff\xfe garbage", SECRET, 400),
            (b"[1, 2, 3]", SECRET, 400),
            (b'{"message": {}}', SECRET, 400),  # no update_id
            (b"[" * 100_000, SECRET, 400),  # nesting deep enough to break json.loads
            (b"x" * (MAX_BODY_BYTES + 1), SECRET, 413),
        ]
        for body, secret, expected in cases:
            status, payload = await raw_post(hook.url, body, secret)
            assert status == expected, (body[:20], secret)
            assert isinstance(payload, dict) and payload["error"]["code"], payload
            assert SECRET not in json.dumps(payload)
        async with (
            aiohttp.ClientSession(trust_env=False) as session,
            session.get(hook.url) as resp,
        ):
            assert resp.status == 405 and "error" in await resp.json()
        assert not fake.sent_messages  # none of them was answered
        assert await hook.post(fake.message_update("13b fp8", chat_id=9)) == 200
        assert len(fake.sent_messages) == 1 and "13B" in visible(fake.sent_messages[0])


@pytest.mark.parametrize("how", ["stop", "sigterm"])
async def test_a_stop_finishes_the_update_in_flight(
    fake: FakeTelegram, desk: Desk, how: str
) -> None:
    """Stopped while a reply is on its way: the reply completes and Telegram gets its 200."""
    fake.delay("sendMessage", 1.0)
    async with webhook_bot(fake, desk) as hook:
        posting = asyncio.create_task(hook.post(fake.message_update("70b int4", chat_id=3)))
        await fake.wait_for_call("sendMessage")  # the reply is held by the fake
        if how == "sigterm":
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL  # handler installed
            os.kill(os.getpid(), signal.SIGTERM)
        else:
            hook.stop.set()
        status = await posting
        assert hook.stop.is_set()  # the signal reached serve_webhook's handler
        assert len(replies(fake, 3)) == 1  # sent before the 200
        assert status == 200
        await asyncio.wait_for(asyncio.shield(hook.task), 30)  # and serve_webhook returned
    assert "70B" in visible(replies(fake, 3)[0])


async def test_chats_run_side_by_side_and_each_in_order(fake: FakeTelegram, desk: Desk) -> None:
    """While chat 1's first reply is held, chat 2 is answered; chat 1's second question waits."""
    fake.delay("sendMessage", 1.5)
    async with webhook_bot(fake, desk) as hook:
        a1 = asyncio.create_task(hook.post(fake.message_update("70b int4", chat_id=1)))
        await fake.wait_for_call("sendMessage")
        a2 = asyncio.create_task(hook.post(fake.message_update("13b fp8", chat_id=1)))
        b1 = asyncio.create_task(hook.post(fake.message_update("gpus", chat_id=2)))
        second = await fake.wait_for_call("sendMessage", 2)
        assert second.params["chat_id"] == 2  # chat 2 did not wait for chat 1
        assert [c.params["chat_id"] for c in fake.calls_to("sendMessage")] == [1, 2]
        assert await asyncio.gather(a1, a2, b1) == [200, 200, 200]
    texts = [visible(m) for m in replies(fake, 1)]
    assert len(texts) == 2 and "70B" in texts[0] and "13B" in texts[1], texts
    assert len(replies(fake, 2)) == 1
