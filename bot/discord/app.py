"""The Discord adapter: slash commands, mentions and buttons -> :class:`Desk` -> embeds.

Commands (names and descriptions from ``data/messages/discord.*.yaml``, localized for pl/th):
``/vram query: [precision:] [context:] [batch:]``, ``/gpus``, ``/card name:``, ``/faq topic:``,
``/help`` and the staff-only ``/reload``. A channel message that mentions the bot
(``@vramchat 70b int4 128k``) or any DM is answered too: mentions carry their text without
the privileged message-content intent. ``@vramchat sync`` from the application owner syncs
the commands, which is how a fresh bot gets its commands before any exist.

The package, by job: :mod:`~bot.discord.commands` (the command set and its translations),
:mod:`~bot.discord.handlers` (what each command, button and mention does; options and
presses become typed :class:`engine.RequestOptions`), :mod:`~bot.discord.respond` (the
first response inside Discord's 3 s, deferral, retried edits), and this module (settings,
the client classes, start-up and shutdown through :mod:`bot.lifecycle`).

- Buttons and the model menu carry a token in their ``custom_id``; the memo behind it
  (:class:`bot.memo.ButtonMemo`) is kept in process and, with Redis, shared.
- One error path: ``tree.on_error``, ``on_error`` (events) and component callbacks all end in
  :meth:`VramMixin.report_error`: the traceback goes to the log under a reference id, the user
  gets an ephemeral apology with the same id, and the bot keeps serving.
- ``AllowedMentions.none()`` on the client and on every send: nothing the bot writes can ping.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

import discord
import discord.gateway
import discord.http
import yarl
from discord import app_commands
from discord.ext import commands

from bot import health, metrics
from bot.desk import Desk
from bot.discord.commands import PRECISIONS, VramTranslator, register_commands
from bot.discord.handlers import PLATFORM, VramMixin
from bot.discord.respond import DEFER_AFTER_S, NO_MENTIONS
from bot.lifecycle import Signals, boot, close_store, fatal
from bot.logs import REQUEST_ID
from bot.settings import Settings, SettingsError

__all__ = [
    "DEFER_AFTER_S",
    "PLATFORM",
    "PRECISIONS",
    "ShardPlan",
    "VramBot",
    "VramShardedBot",
    "VramTranslator",
    "build_bot",
    "configure_endpoints",
    "main",
    "run",
    "shard_plan",
]

log = logging.getLogger("vramchat.discord")


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class ShardPlan:
    """How to connect: one gateway session, or AutoSharded with a count (None: ask Discord)."""

    sharded: bool
    count: int | None = None
    ids: list[int] | None = None


def shard_plan(settings: Settings) -> ShardPlan:
    """DISCORD_SHARDS / DISCORD_SHARD_IDS -> a plan; a bad combination is a SettingsError."""
    raw_ids = settings.discord_shard_ids.strip()
    ids: list[int] | None = None
    if raw_ids:
        parts = [p.strip() for p in raw_ids.split(",") if p.strip()]
        if not parts or not all(p.isdigit() for p in parts):
            raise SettingsError("DISCORD_SHARD_IDS must be comma-separated numbers, e.g. 0,1.")
        ids = sorted({int(p) for p in parts})
    if settings.discord_shards == "auto":
        if ids is not None:
            raise SettingsError(
                "DISCORD_SHARD_IDS needs DISCORD_SHARDS to be the total shard count, not auto."
            )
        return ShardPlan(sharded=True)
    count = int(settings.discord_shards)
    if ids is not None and (count < 2 or max(ids) >= count):
        raise SettingsError(
            f"DISCORD_SHARD_IDS must be below DISCORD_SHARDS ({count}) and DISCORD_SHARDS > 1."
        )
    if count == 1:
        return ShardPlan(sharded=False)
    return ShardPlan(sharded=True, count=count, ids=ids)


def configure_endpoints(settings: Settings) -> None:
    """Point discord.py at DISCORD_API_BASE_URL / DISCORD_GATEWAY_URL (process-wide)."""
    discord.http.Route.BASE = settings.discord_api_base_url.rstrip("/")
    if settings.discord_gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


class _Tree(app_commands.CommandTree[Any]):
    """Tags every interaction with a request id and routes command errors to one place."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        REQUEST_ID.set(f"dc-{interaction.id}")
        return True

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError, /
    ) -> None:
        original = getattr(error, "original", None) or error
        await self.client.report_error(interaction, original)


class VramBot(VramMixin, commands.Bot):
    """One gateway session (DISCORD_SHARDS=1, the default)."""

    def __init__(self, settings: Settings, desk: Desk, *, sync: bool = False, **options: Any):
        super().__init__(**options)
        self._init_vram(settings, desk, sync)


class VramShardedBot(VramMixin, commands.AutoShardedBot):
    """Several shards in this process (DISCORD_SHARDS=auto or a number > 1)."""

    def __init__(self, settings: Settings, desk: Desk, *, sync: bool = False, **options: Any):
        super().__init__(**options)
        self._init_vram(settings, desk, sync)


def build_bot(
    settings: Settings, desk: Desk, *, sync: bool = False, **options: Any
) -> VramBot | VramShardedBot:
    """The configured bot, not yet connected. ``options`` go to the discord.py client
    (tests pass ``guild_ready_timeout``); ``sync=True`` syncs commands in ``setup_hook``."""
    plan = shard_plan(settings)
    # A text-only bot: the voice libraries' absence is not worth a warning on every start.
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False
    kwargs: dict[str, Any] = {
        "command_prefix": commands.when_mentioned,
        "intents": discord.Intents.default(),
        "allowed_mentions": NO_MENTIONS,
        "help_command": None,
        "tree_cls": _Tree,
        "chunk_guilds_at_startup": False,
        **options,
    }
    bot: VramBot | VramShardedBot
    if plan.sharded:
        bot = VramShardedBot(
            settings, desk, sync=sync, shard_count=plan.count, shard_ids=plan.ids, **kwargs
        )
    else:
        bot = VramBot(settings, desk, sync=sync, **kwargs)
    register_commands(bot)
    return bot


# --------------------------------------------------------------------------- process


async def run(
    settings: Settings,
    desk: Desk,
    token: str,
    *,
    sync: bool = False,
    stop: asyncio.Event | None = None,
    **options: Any,
) -> int:
    """Connect and serve until ``stop`` (or SIGINT/SIGTERM); returns the exit code."""
    stop = stop or asyncio.Event()
    bot = build_bot(settings, desk, sync=sync, **options)
    signals = Signals(desk, stop=stop.set)
    signals.install()
    heartbeat = health.watch_discord(bot)  # for `vram healthcheck discord`
    try:
        async with bot:
            starter = asyncio.create_task(bot.start(token), name="vramchat-discord")
            stopper = asyncio.create_task(stop.wait())
            done, _ = await asyncio.wait({starter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if starter not in done:
                log.info("stopping: closing the Discord connection")
                await bot.close()
                if not (await asyncio.wait({starter}, timeout=2.0))[0]:
                    starter.cancel()  # asleep in a reconnect backoff: no need to wait it out
                with suppress(asyncio.CancelledError):
                    await starter
                return 0
            stopper.cancel()
            exc = starter.exception()
            if isinstance(exc, discord.LoginFailure):
                fatal(
                    "vram discord",
                    "Discord refused DISCORD_TOKEN (401 Unauthorized); "
                    "copy a fresh token from the Developer Portal.",
                )
                return 2
            if exc is not None:
                log.error("the Discord connection ended: %s", exc, exc_info=exc)
                return 1
            return 0
    finally:
        await health.stop(heartbeat)
        signals.remove()
        await close_store(desk)


def main(settings: Settings, sync: bool = False) -> int:
    """``vram discord [--sync]``: validate, load data, connect, serve; the exit code.

    A missing or malformed token (or a bad shard setting, or refused data) is one line on
    stderr and exit code 2, before anything connects; the token itself is never printed.
    ``sync=True`` syncs the slash commands once at start-up (to DISCORD_GUILD_ID if set,
    else globally) and then keeps serving.
    """
    desk = boot(
        settings, "vram discord", lambda: (settings.require_discord(), shard_plan(settings))
    )
    if isinstance(desk, int):
        return desk
    token = settings.require_discord()
    configure_endpoints(settings)
    if settings.vramchat_metrics_port:
        metrics.start_server(settings.vramchat_metrics_port, settings.vramchat_metrics_host)
    return asyncio.run(run(settings, desk, token, sync=sync))
