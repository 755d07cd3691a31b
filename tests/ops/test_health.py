"""``vram healthcheck``: healthy only while the service really works.

Each bot runs as a real process against the fake platform on loopback; cutting the fake off
must turn it unhealthy, and a stopped bot leaves no heartbeat behind. The desk is asked over
HTTP, so a desk that is gone (or frozen) is unhealthy at once.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from bot.desk import Desk
from bot.health import MAX_AGE_S, Heartbeat, check
from bot.settings import Settings
from bot.web.app import serve
from engine import load_catalog
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.telegram_api import FakeTelegram, free_port

ROOT = Path(__file__).resolve().parents[2]
DISCORD_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


def env_for(tmp: Path, **extra: str) -> dict[str, str]:
    skip = ("TELEGRAM_", "DISCORD_", "VRAMCHAT_", "PTB_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    env.update(TMPDIR=str(tmp), NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    env.update(extra)
    return env


def healthcheck(service: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The command exactly as a container probe runs it."""
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "healthcheck", service, *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=30,
    )  # fmt: skip


async def until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"not {what} within {timeout} s")
        await asyncio.sleep(0.2)


async def run_bot_until_cut_off(
    command: str, heartbeat: Path, env: dict[str, str], fake_close: Callable[[], object]
) -> str:
    """Start the bot, wait for healthy, cut the platform off, wait for unhealthy, stop it."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", command, cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    service = "discord" if command == "discord" else "telegram"
    try:
        await until(lambda: check(service, path=heartbeat) == 0, 30, "healthy")
        done = await asyncio.to_thread(healthcheck, service, env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"{service} healthy: last confirmed")
        await fake_close()  # type: ignore[misc]
        # The heartbeat stops being refreshed; a short limit keeps the test quick.
        await until(lambda: check(service, max_age=3, path=heartbeat) == 1, 30, "unhealthy")
        done = await asyncio.to_thread(healthcheck, service, env, "--max-age", "3")
        assert done.returncode == 1 and f"{service} unhealthy" in done.stderr
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert not heartbeat.exists(), "a stopped bot must not look alive"
    return err.decode()


async def test_telegram_heartbeat_follows_the_bot_api(tmp_path: Path) -> None:
    fake = FakeTelegram(token=f"123456:{secrets.token_urlsafe(30)}")
    await fake.start()
    try:
        env = env_for(tmp_path, TELEGRAM_TOKEN=fake.token, TELEGRAM_BASE_URL=fake.base_url)
        path = tmp_path / "vramchat" / "telegram.alive"
        err = await run_bot_until_cut_off("telegram", path, env, fake.close)
    finally:
        await fake.close()
    assert "telegram connection confirmed (getMe ok as @vram_test_bot)" in err


async def test_discord_heartbeat_follows_the_gateway(tmp_path: Path) -> None:
    fake = FakeDiscord(token=DISCORD_TOKEN)
    await fake.__aenter__()
    try:
        env = env_for(
            tmp_path,
            DISCORD_TOKEN=DISCORD_TOKEN,
            DISCORD_API_BASE_URL=fake.api_base,
            DISCORD_GATEWAY_URL=fake.gateway_url,
        )
        path = tmp_path / "vramchat" / "discord.alive"

        async def cut_off() -> None:
            await fake.__aexit__(None, None, None)

        err = await run_bot_until_cut_off("discord", path, env, cut_off)
    finally:
        await fake.__aexit__(None, None, None)
    assert "discord connection confirmed (gateway up, 1 shard(s)" in err


def test_no_or_stale_heartbeat_is_unhealthy(tmp_path: Path) -> None:
    path = tmp_path / "telegram.alive"
    assert check("telegram", path=path) == 1
    beat = Heartbeat("telegram", path)
    beat.beat("getMe ok as @bot")
    assert check("telegram", path=path) == 0
    age = beat.age()
    assert age is not None and age[1] == "getMe ok as @bot"
    assert beat.age(now=age[0] + MAX_AGE_S + 100) is not None
    os.utime(path)  # the file's time does not count, only the beat recorded in it
    assert check("telegram", path=path, max_age=-5) == 1
    path.write_text("{not json", encoding="utf-8")
    assert check("telegram", path=path) == 1


async def test_web_health_asks_the_running_desk(tmp_path: Path) -> None:
    port = free_port()
    settings = Settings(_env_file=None, vramchat_port=port)  # type: ignore[call-arg]
    stop = asyncio.Event()
    server = asyncio.create_task(serve(Desk(load_catalog()), settings, stop))
    try:
        for _ in range(50):  # off the loop: the desk answers on this very loop
            if await asyncio.to_thread(check, "web", port=port) == 0:
                break
            await asyncio.sleep(0.2)
        done = await asyncio.to_thread(
            healthcheck, "web", env_for(tmp_path, VRAMCHAT_PORT=str(port))
        )
        assert done.returncode == 0 and "prices as of" in done.stdout, done.stderr
    finally:
        stop.set()
        await server
    assert await asyncio.to_thread(check, "web", port=port) == 1
