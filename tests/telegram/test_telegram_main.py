"""``main(settings)``, the way ``vram telegram`` runs it: start-up checks and a real process.

The process tests start the bot as a child Python process (its own event loop and signal
handlers, like production) with TELEGRAM_BASE_URL pointed at the fake, then stop it with
SIGTERM. Each waits with a deadline and kills the child if anything hangs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest
from tg_support import FakeTelegram, free_port, post_webhook, valid_token, visible

from bot.render.telegram import format_html
from bot.settings import Settings
from bot.telegram.app import main
from engine import Catalog, ask

ROOT = Path(__file__).resolve().parents[2]
LAUNCH = (
    "import sys; from bot.settings import load_settings; from bot.telegram.app import main; "
    "sys.exit(main(load_settings()))"
)


def run_main(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture, **values: object
) -> tuple[int, str]:
    with caplog.at_level(logging.DEBUG):
        code = main(Settings(_env_file=None, **values))  # type: ignore[call-arg]
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("values", "needle"),
    [
        ({}, "TELEGRAM_TOKEN is not set"),
        ({"telegram_token": "changeme"}, "does not look like a bot token"),
        ({"telegram_token": "123456:short"}, "does not look like a bot token"),
        (
            {"telegram_token": valid_token(), "telegram_webhook_url": "https://x.example/tg"},
            "TELEGRAM_WEBHOOK_SECRET is required",
        ),
        (
            {"telegram_token": valid_token(), "vramchat_data_dir": "/nonexistent/data"},
            "cards.yaml",
        ),
    ],
    ids=["missing", "placeholder", "malformed", "webhook-no-secret", "bad-data"],
)
def test_bad_setup_stops_with_one_line(
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    values: dict[str, object],
    needle: str,
) -> None:
    code, err = run_main(capsys, caplog, **values)
    assert code == 2
    assert err.count("\n") == 1 and needle in err, err
    assert "Traceback" not in err
    token = str(values.get("telegram_token", "")) or "\0"
    assert token not in err and token not in caplog.text


def child_env(fake: FakeTelegram, token: str, **extra: str) -> dict[str, str]:
    skip = ("TELEGRAM_", "VRAMCHAT_", "PTB_")  # main() opts in to PTB_TIMEDELTA itself
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    env.update(
        TELEGRAM_TOKEN=token,
        TELEGRAM_BASE_URL=fake.base_url,
        VRAMCHAT_LOG_LEVEL="DEBUG",  # the most talkative level must still not leak the token
        NO_PROXY="127.0.0.1,localhost",
        HOME=tempfile.mkdtemp(prefix="vram-home-"),  # the answered-updates file goes here
        no_proxy="127.0.0.1,localhost",
    )
    env.update(extra)
    return env


@asynccontextmanager
async def vram_telegram(
    env: dict[str, str], log: Path
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Run main() in a child process; kill it on the way out if it is still alive."""
    with log.open("wb") as sink:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", LAUNCH, cwd=ROOT, env=env, stdout=sink, stderr=sink
        )
        try:
            yield proc
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


async def post_when_listening(url: str, update: dict[str, object], secret: str) -> int:
    """PTB calls setWebhook as its web server starts; allow it a moment to listen."""
    for _ in range(100):
        try:
            return await post_webhook(url, update, secret)
        except aiohttp.ClientConnectorError:
            await asyncio.sleep(0.05)
    raise AssertionError(f"nothing listens on {url}")


async def stop(proc: asyncio.subprocess.Process) -> int:
    proc.send_signal(signal.SIGTERM)
    return await asyncio.wait_for(proc.wait(), 15)


async def test_vram_telegram_polls_and_answers_like_vram_ask(
    fake: FakeTelegram, catalog: Catalog, tmp_path: Path
) -> None:
    log = tmp_path / "bot.log"
    port = free_port()
    env = child_env(fake, fake.token, VRAMCHAT_METRICS_PORT=str(port))
    async with vram_telegram(env, log) as proc:
        await fake.wait_for(lambda: len(fake.commands) == 3, timeout=20)
        fake.push_update(fake.message_update("70b int4 128k"))
        await fake.wait_for(lambda: len(fake.sent_messages) == 1, timeout=10)
        reply = fake.sent_messages[0]
        expected = ask("70b int4 128k", locale="en", catalog=catalog)
        assert visible(reply) == visible({"text": format_html(expected, catalog)})
        assert "A100 SXM" in visible(reply) and "$990" in visible(reply)

        async with (
            aiohttp.ClientSession(trust_env=False) as session,
            session.get(f"http://127.0.0.1:{port}/metrics") as resp,
        ):
            body = await resp.text()
        assert 'vramchat_questions_total{kind="sizing",lang="en",platform="telegram"}' in body

        proc.send_signal(signal.SIGHUP)
        for _ in range(100):
            if b"data reloaded" in log.read_bytes():
                break
            await asyncio.sleep(0.05)
        assert await stop(proc) == 0
    text = log.read_text()
    assert "data reloaded" in text
    assert fake.token not in text
    assert fake.token.split(":")[1] not in text
    assert [c["language_code"] for c in fake.commands] == ["", "pl", "th"]


async def test_vram_telegram_webhook_checks_the_secret(fake: FakeTelegram, tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/tg-hook"
    env = child_env(
        fake,
        fake.token,
        TELEGRAM_WEBHOOK_URL=url,
        TELEGRAM_WEBHOOK_SECRET="s3cret-Value_1",
        TELEGRAM_WEBHOOK_LISTEN="127.0.0.1",
        TELEGRAM_WEBHOOK_PORT=str(port),
        TELEGRAM_WEBHOOK_PATH="tg-hook",
    )
    log = tmp_path / "bot.log"
    async with vram_telegram(env, log) as proc:
        await fake.wait_for(lambda: bool(fake.webhook.get("url")), timeout=20)
        assert fake.webhook["url"] == url and fake.webhook["secret_token"] == "s3cret-Value_1"
        assert await post_when_listening(url, fake.message_update("70b int4"), "wrong") == 403
        assert await post_webhook(url, fake.message_update("70b int4"), None) == 403
        assert await post_webhook(url, fake.message_update("13b int4"), "s3cret-Value_1") == 200
        await fake.wait_for(lambda: len(fake.sent_messages) == 1, timeout=10)
        assert "13B" in visible(fake.sent_messages[0])
        assert await stop(proc) == 0
    text = log.read_text()
    assert fake.token not in text and "s3cret-Value_1" not in text
    assert not fake.calls_to("getUpdates")


async def test_rejected_token_is_one_line_and_never_logged(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    wrong = valid_token()  # well-formed, but the server does not know it (401)
    log = tmp_path / "bot.log"
    async with vram_telegram(child_env(fake, wrong), log) as proc:
        assert await asyncio.wait_for(proc.wait(), 20) == 2
    text = log.read_text()
    assert "Telegram rejected TELEGRAM_TOKEN" in text.splitlines()[-1]
    assert "Traceback" not in text
    assert wrong not in text and wrong.split(":")[1] not in text
