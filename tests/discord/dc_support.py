"""Helpers for the Discord adapter tests (imported by name: tests/discord is on sys.path)."""

from __future__ import annotations

from typing import Any

from bot.desk import Desk
from bot.discord.app import VramBot, VramShardedBot, build_bot
from bot.settings import Settings
from bot.store import MemoryStore
from engine import Catalog
from tests.fakes.discord_api import FakeDiscord

#: Looks like a real bot token (three dot-separated parts), so ``require_discord`` accepts it.
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GaBcDe.abcdefghijklmnopqrstuvwxyz012345"


def make_settings(**values: Any) -> Settings:
    values.setdefault("discord_token", TOKEN)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def make_desk(catalog: Catalog, **values: Any) -> Desk:
    return Desk(catalog, MemoryStore(), **values)


def make_bot(settings: Settings, desk: Desk, *, sync: bool = True) -> VramBot | VramShardedBot:
    """The production bot with two test-only speed-ups (no 2 s guild wait, no 5 s
    re-IDENTIFY spacing)."""
    bot = build_bot(settings, desk, sync=sync, guild_ready_timeout=0.1)

    async def no_wait(shard_id: int | None, *, initial: bool = False) -> None:
        return None

    bot.before_identify_hook = no_wait  # type: ignore[method-assign]
    return bot


async def answer(fake: FakeDiscord, payload: dict[str, Any], shard_id: int = 0) -> dict[str, Any]:
    """Dispatch an interaction and return the JSON body of its accepted callback."""
    await fake.dispatch("INTERACTION_CREATE", payload, shard_id=shard_id)
    rec = await fake.wait_for(lambda: fake.response_for(payload))
    assert rec is not None
    body: dict[str, Any] = rec.json
    return body


def custom_ids(message_data: dict[str, Any]) -> list[str]:
    return [
        c["custom_id"]
        for row in message_data.get("components") or []
        for c in row.get("components") or []
        if "custom_id" in c
    ]


def embed_text(embed: dict[str, Any]) -> str:
    """Everything visible in an embed, for 'contains' checks."""
    parts = [embed.get("title") or "", embed.get("description") or ""]
    for f in embed.get("fields") or []:
        parts += [f["name"], f["value"]]
    parts.append((embed.get("footer") or {}).get("text") or "")
    return "\n".join(parts)
