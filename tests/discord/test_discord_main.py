"""``vram discord`` as an operator runs it: settings errors, and a real process on the fake."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from dc_support import TOKEN, answer, embed_text, make_settings

from bot.discord.app import main, shard_plan
from bot.render.discord import escape
from bot.settings import SettingsError
from engine import Catalog
from tests.fakes.discord_api import FakeDiscord

SECRET = "this-is-not-a-bot-token-but-still-secret"


@pytest.fixture(autouse=True)
def _no_discord_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("DISCORD_", "VRAMCHAT_")):
            monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("values", "needle"),
    [
        ({"discord_token": None}, "DISCORD_TOKEN is not set"),
        ({"discord_token": SECRET}, "does not look like a bot token"),
        ({"discord_token": "changeme"}, "does not look like a bot token"),
        ({"discord_shards": "auto", "discord_shard_ids": "0"}, "DISCORD_SHARD_IDS"),
        ({"discord_shards": "2", "discord_shard_ids": "0,x"}, "DISCORD_SHARD_IDS"),
        ({"discord_shards": "2", "discord_shard_ids": "2"}, "DISCORD_SHARD_IDS"),
    ],
)
def test_bad_settings_are_one_line_and_exit_2(
    values: dict[str, Any],
    needle: str,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    assert main(make_settings(**values)) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("vram discord: ") and needle in lines[0]
    assert "Traceback" not in err, err
    assert SECRET not in err and SECRET not in caplog.text


def test_token_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n", encoding="utf-8")
    settings = make_settings(discord_token=None, discord_token_file=path)
    assert settings.require_discord() == TOKEN


def test_shard_plan() -> None:
    assert not shard_plan(make_settings()).sharded
    auto = shard_plan(make_settings(discord_shards="auto"))
    assert auto.sharded and auto.count is None
    two = shard_plan(make_settings(discord_shards="4", discord_shard_ids="2, 3"))
    assert (two.count, two.ids) == (4, [2, 3])
    with pytest.raises(SettingsError):
        shard_plan(make_settings(discord_shards="1", discord_shard_ids="0"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _env(fake: FakeDiscord, token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "VRAMCHAT_"))}
    env.update(
        DISCORD_TOKEN=token,
        DISCORD_API_BASE_URL=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        DISCORD_GUILD_ID=fake.guild_id,
        VRAMCHAT_STAFF_IDS="",
        NO_PROXY="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
    )
    return env


async def _vram_ask_json(query: str, cwd: Path) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "ask", query, "--format", "json",
        cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    data: dict[str, Any] = json.loads(out)
    return data


async def test_vram_discord_process_answers_like_vram_ask(
    fake: FakeDiscord, catalog: Catalog, tmp_path: Path
) -> None:
    """The real entry point (``python -m bot.cli discord --sync``) against the fake."""
    port = _free_port()
    env = {**_env(fake, TOKEN), "VRAMCHAT_METRICS_PORT": str(port)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "discord", "--sync",
        cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        await fake.wait_ready(timeout=30)
        (sync,) = await fake.wait_for(lambda: fake.command_syncs, timeout=30)
        assert sync.params["guild_id"] == fake.guild_id

        expected = await _vram_ask_json("70b int4 128k", tmp_path)
        payload = fake.slash_interaction("vram", [fake.option("query", "70b int4 128k")])
        body = await answer(fake, payload)
        embed = body["data"]["embeds"][0]
        rec = expected["recommendation"]
        assert (rec["card"], rec["monthly_usd"]) == ("A100 SXM", 990)
        assert escape(expected["headline"]) in embed_text(embed)
        assert embed["title"].startswith(f"✅ 1× {rec['card']} · $990/mo")
        assert body["data"]["allowed_mentions"] == {"parse": []}

        url = f"http://127.0.0.1:{port}/metrics"
        async with aiohttp.ClientSession() as http, http.get(url) as resp:
            exposition = await resp.text()
        assert 'vramchat_questions_total{kind="sizing",lang="en",platform="discord"} 1.0' in (
            exposition
        )

        proc.send_signal(signal.SIGHUP)  # reload the data, keep serving
        await asyncio.sleep(0.3)
        again = await answer(fake, fake.slash_interaction("gpus"))
        assert "MI300X" in embed_text(again["data"]["embeds"][0])
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        _, err_bytes = await asyncio.wait_for(proc.communicate(), 20)
    err = err_bytes.decode()
    assert proc.returncode == 0, err
    assert "synced 8 slash commands to guild" in err
    assert "data reloaded" in err
    assert TOKEN not in err
    assert "Traceback" not in err, err


async def test_refused_token_is_one_line_and_exit_2(fake: FakeDiscord, tmp_path: Path) -> None:
    wrong = TOKEN[:-4] + "XXXX"  # well formed, but not the fake's token
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "discord",
        cwd=tmp_path, env=_env(fake, wrong),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err_bytes = await asyncio.wait_for(proc.communicate(), 30)
    err = err_bytes.decode()
    assert proc.returncode == 2, err
    ours = [line for line in err.splitlines() if line.startswith("vram discord:")]
    assert len(ours) == 1 and "DISCORD_TOKEN" in ours[0]
    assert "Traceback" not in err, err
    assert wrong not in err and TOKEN not in err
