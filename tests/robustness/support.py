"""Shared helpers: the real Telegram and Discord apps started against the fakes, and checks."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from bot.desk import Desk
from bot.discord.app import VramBot, VramShardedBot, build_bot
from bot.settings import Settings
from bot.telegram.app import ALLOWED_UPDATES, TgApp, build_application
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.telegram_api import FakeTelegram, parse_telegram_html, utf16_len

__all__ = [
    "DISCORD_TOKEN",
    "FakeDiscord",
    "FakeTelegram",
    "discord_bot",
    "discord_settings",
    "embed_units",
    "parse_telegram_html",
    "telegram_app",
    "telegram_settings",
    "telegram_token",
    "units",
    "utf16_len",
]

#: Shaped like a real bot token (three dot-separated parts), so ``require_discord`` accepts it.
DISCORD_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GrObUs.abcdefghijklmnopqrstuvwxyz987654"


def telegram_token() -> str:
    """Shaped like a BotFather token, so ``Settings.require_telegram`` accepts it."""
    return f"123456:{secrets.token_urlsafe(30)}"


def telegram_settings(fake: FakeTelegram, **extra: Any) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        telegram_token=fake.token,
        telegram_base_url=fake.base_url,
        **extra,
    )


def discord_settings(**extra: Any) -> Settings:
    extra.setdefault("discord_token", DISCORD_TOKEN)
    return Settings(_env_file=None, **extra)  # type: ignore[call-arg]


@asynccontextmanager
async def telegram_app(fake: FakeTelegram, desk: Desk) -> AsyncIterator[TgApp]:
    """build_application (the path ``main()`` uses), long-polling the fake."""
    app = build_application(telegram_settings(fake), desk)
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(timeout=1, poll_interval=0, allowed_updates=ALLOWED_UPDATES)
        try:
            yield app
        finally:
            await app.updater.stop()
            await app.stop()


def discord_bot(desk: Desk, **settings: Any) -> VramBot | VramShardedBot:
    """The production bot, without the 2 s guild wait and the 5 s re-IDENTIFY spacing."""
    bot = build_bot(discord_settings(**settings), desk, guild_ready_timeout=0.1)

    async def no_wait(shard_id: int | None, *, initial: bool = False) -> None:
        return None

    bot.before_identify_hook = no_wait  # type: ignore[method-assign]
    return bot


def units(text: str | None) -> int:
    """Length in UTF-16 code units (never less than ``len``): Discord's limits hold in both."""
    return utf16_len(text or "")


def embed_units(embed: dict[str, Any]) -> int:
    """What counts toward Discord's 6,000 total: title, description, fields, footer, author."""
    total = units(embed.get("title")) + units(embed.get("description"))
    total += sum(units(f.get("name")) + units(f.get("value")) for f in embed.get("fields") or [])
    total += units((embed.get("footer") or {}).get("text"))
    total += units((embed.get("author") or {}).get("name"))
    return total
