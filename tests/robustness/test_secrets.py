"""No secret in any log output: the Telegram (webhook mode), Discord and web apps run against
the fakes with DEBUG logging set up the way ``main()`` sets it up, through a normal exchange,
faults and a handler crash; neither our handler's output nor anything pytest captured (every
record, message and traceback) contains the bot tokens, the webhook secret or the API token.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from bot.desk import Desk
from bot.logs import setup_logging
from bot.settings import Settings
from bot.telegram.app import ALLOWED_UPDATES, build_application
from bot.telegram.webhook import serve_webhook
from bot.web.app import DESK, create_app
from engine import Catalog, load_catalog
from tests.fakes.telegram_api import free_port, post_webhook
from tests.robustness.support import (
    DISCORD_TOKEN,
    FakeDiscord,
    FakeTelegram,
    discord_bot,
    discord_settings,
    telegram_settings,
    telegram_token,
)

WEBHOOK_SECRET = "hook-Secret_0123456789abcdef"
API_TOKEN = "api-token-SECRET-0123456789abcdef"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture
def captured(caplog: pytest.LogCaptureFixture) -> Iterator[io.StringIO]:
    """DEBUG everywhere, captured by pytest and by the handler ``setup_logging`` installs."""
    caplog.set_level(logging.DEBUG)
    yield io.StringIO()


def pieces(secret: str) -> list[str]:
    """The secret and its distinctive parts (a token's halves leak as well as the whole)."""
    parts = [secret]
    for sep in (":", "."):
        parts += [p for p in secret.split(sep) if len(p) >= 12]
    return parts


def assert_clean(secrets: list[str], out: io.StringIO, caplog: pytest.LogCaptureFixture) -> None:
    texts = {"handler output": out.getvalue(), "captured log": caplog.text}
    for record in caplog.records:
        texts[f"record {record.name}"] = "\n".join(
            [record.getMessage(), record.exc_text or "", record.stack_info or ""]
        )
    assert out.getvalue(), "the handler wrote nothing: the test would prove nothing"
    for secret in secrets:
        for piece in pieces(secret):
            for where, text in texts.items():
                assert piece not in text, f"a secret appears in the {where}"


def crash_once(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    real = desk.answer
    calls = {"n": 0}

    async def flaky(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("boom in the engine")
        return await real(*args, **kwargs)

    monkeypatch.setattr(desk, "answer", flaky)


async def test_telegram_webhook_logs_no_secret(
    catalog: Catalog,
    captured: io.StringIO,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    async with FakeTelegram(token=telegram_token()) as fake:
        port = free_port()
        url = f"http://127.0.0.1:{port}/tg"
        settings = telegram_settings(
            fake,
            telegram_webhook_url=url,
            telegram_webhook_secret=SecretStr(WEBHOOK_SECRET),
            telegram_webhook_listen="127.0.0.1",
            telegram_webhook_port=port,
            telegram_webhook_path="tg",
            vramchat_log_level="DEBUG",
        )
        setup_logging(settings, stream=captured)
        desk = Desk(catalog, rate_per_minute=1000)
        crash_once(desk, monkeypatch)
        monkeypatch.setenv("HOME", str(tmp_path))  # the answered-ids file goes there
        app = build_application(settings, desk)
        stop = asyncio.Event()
        serving = asyncio.create_task(serve_webhook(app, settings, desk, stop))
        try:
            await fake.wait_for(lambda: bool(fake.webhook.get("url")) or serving.done(), 20)
            assert not serving.done()
            fake.fail_next("sendMessage", status=429, retry_after=1)
            for chat, text in enumerate(("70b int4", "13b fp8", "gpus"), 1):
                update = fake.message_update(text, chat_id=chat, user_id=chat)
                assert await post_webhook(url, update, WEBHOOK_SECRET) == 200
            assert await post_webhook(url, fake.message_update("7b"), "wrong") == 403
            fake.fail_next("sendMessage", drop_connection=True)
            await post_webhook(url, fake.message_update("8b", chat_id=9), WEBHOOK_SECRET)
            await fake.wait_for(lambda: len(fake.sent_messages) >= 4, timeout=15)
        finally:
            stop.set()
            await asyncio.wait_for(serving, 30)
        assert fake.webhook["secret_token"] == WEBHOOK_SECRET  # the secret was in use
        assert fake.webhook["allowed_updates"] == ALLOWED_UPDATES
    assert "boom in the engine" in captured.getvalue()  # the error path was logged
    assert_clean([fake.token, WEBHOOK_SECRET], captured, caplog)


async def test_discord_logs_no_token(
    catalog: Catalog,
    captured: io.StringIO,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    setup_logging(discord_settings(vramchat_log_level="DEBUG"), stream=captured)
    desk = Desk(catalog, rate_per_minute=1000)
    crash_once(desk, monkeypatch)
    async with FakeDiscord(token=DISCORD_TOKEN) as fake:
        fake.patch(monkeypatch)
        async with fake.running(discord_bot(desk), token=DISCORD_TOKEN):
            fake.fail_next("POST", r"/callback$", status=429, retry_after=0.1)
            payloads = [
                fake.slash_interaction("vram", [fake.option("query", q)])
                for q in ("70b int4", "13b fp8", "7b")
            ]
            for payload in payloads[:2]:
                await fake.dispatch("INTERACTION_CREATE", payload)
            await fake.close_gateway(code=4000)
            await fake.dispatch("INTERACTION_CREATE", payloads[2])
            await fake.wait_for(lambda: all(fake.response_for(p) for p in payloads), timeout=15)
    assert "boom in the engine" in captured.getvalue()
    assert_clean([DISCORD_TOKEN], captured, caplog)


async def test_web_logs_no_api_token(
    catalog: Catalog,
    captured: io.StringIO,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        vramchat_api_token=SecretStr(API_TOKEN),
        vramchat_log_level="DEBUG",
    )
    setup_logging(settings, stream=captured)
    desk = Desk(catalog)
    client = TestClient(TestServer(create_app(desk, settings), host="127.0.0.1"))
    await client.start_server()
    try:
        auth = {"Authorization": f"Bearer {API_TOKEN}"}
        assert (await client.get("/v1/ask", params={"q": "70b int4"}, headers=auth)).status == 200
        wrong = {"Authorization": f"Bearer {API_TOKEN[:-1]}x"}
        assert (await client.get("/v1/ask", params={"q": "7b"}, headers=wrong)).status == 401
        assert client.app is not None
        crash_once(client.app[DESK], monkeypatch)
        await client.get("/v1/ask", params={"q": "13b"}, headers=auth)
        crashed = await client.get("/v1/ask", params={"q": "14b"}, headers=auth)
        assert crashed.status == 500
    finally:
        await client.close()
    assert "boom in the engine" in captured.getvalue()
    assert_clean([API_TOKEN], captured, caplog)
