"""Getting an answer to Discord in time: a first response inside its 3 s window, else a
deferral and an edit that is retried through outages.

Every answer runs as a task; if it is not ready after ``DEFER_AFTER_S`` (1 s), or Discord
does not take the first response at once, the interaction is deferred (thinking, or a
deferred update for edits), retried briefly inside Discord's 3 s window, and the original
response is edited when the answer arrives (edits retried through 5xx).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord.ext import commands

__all__ = ["ATTEMPT_S", "DEFER_AFTER_S", "NO_MENTIONS", "Reply", "Responder", "ready"]

log = logging.getLogger("vramchat.discord")

DEFER_AFTER_S = 1.0  # an answer not ready by then is deferred (Discord allows 3 s in all)
FIRST_WINDOW_S = 2.8  # Discord's 3 s for the first response, less the trip there
ATTEMPT_S = 0.4  # one try at the first response; a slower one is abandoned and tried again
RETRY_GAP_S = 0.1  # between tries at the first response
EDIT_RETRY_S = 120.0  # more tries at the edit after discord.py's own (the token lasts 15 min)
ALREADY_ACKNOWLEDGED = 40060  # an abandoned try did get through
UNKNOWN_INTERACTION = 10062  # the 3 s window is over
NO_MENTIONS = discord.AllowedMentions.none()


@dataclass
class Reply:
    """One message to send or edit: an embed with its components, or a short text."""

    embed: discord.Embed | None = None
    view: discord.ui.View | None = None
    content: str | None = None
    ephemeral: bool = False

    def parts(self) -> dict[str, Any]:
        """The content, embed and view that are set, as keyword arguments for a new message
        (discord.py refuses an empty content and sends no absent embed or view)."""
        out: dict[str, Any] = {}
        if self.content:
            out["content"] = self.content
        if self.embed is not None:
            out["embed"] = self.embed
        if self.view is not None:
            out["view"] = self.view
        return out


async def ready(reply: Reply) -> Reply:
    """A reply that needs no work, in the shape :meth:`Responder.respond` takes."""
    return reply


if TYPE_CHECKING:
    _Base = commands.Bot
else:
    _Base = object


class Responder(_Base):
    """The first-response, deferral and edit logic, mixed into the bot."""

    defer_after_s: float = DEFER_AFTER_S
    attempt_s: float = ATTEMPT_S

    async def respond(
        self, interaction: discord.Interaction[Any], work: Awaitable[Reply], *, edit: bool = False
    ) -> None:
        """Answer directly if ``work`` is quick and Discord takes it, else defer, then edit.

        Discord drops an interaction that has no first response within 3 s, while the
        deferred answer may follow for 15 minutes. So the first response is tried briefly
        and often inside that window (discord.py alone waits 1 s, then 3 s, after a 5xx),
        and once a deferral is in, the edit is retried through longer outages.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + FIRST_WINDOW_S
        task = asyncio.ensure_future(work)
        reply: Reply | None = None
        with contextlib.suppress(TimeoutError):
            reply = await asyncio.wait_for(asyncio.shield(task), self.defer_after_s)
        if reply is not None:
            ready = reply
            if await self._first(lambda: self.send(interaction, ready, edit=edit), deadline, 1):
                return
        if not await self._first(lambda: self._defer(interaction, edit), deadline):
            task.cancel()
            log.warning(
                "interaction %s: Discord took no first response within its 3 s window",
                interaction.id,
            )
            return
        reply = await task
        final = reply
        await self._edit_retrying(
            lambda: self.send(interaction, final, edit=edit, acknowledged=True)
        )

    async def _defer(self, interaction: discord.Interaction[Any], edit: bool) -> None:
        if edit:
            await interaction.response.defer()
        else:
            await interaction.response.defer(thinking=True)

    async def _first(
        self, call: Callable[[], Awaitable[None]], deadline: float, tries: int = 1_000
    ) -> bool:
        """Try a first response until it is in (True) or the window is over (False)."""
        loop = asyncio.get_running_loop()
        for _ in range(tries):
            left = deadline - loop.time()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(call(), min(self.attempt_s, left))
                return True
            except TimeoutError:
                pass  # slow, or discord.py asleep before its own retry: try again sooner
            except discord.HTTPException as exc:
                if exc.code == ALREADY_ACKNOWLEDGED:
                    return True
                if exc.code == UNKNOWN_INTERACTION:
                    return False
                if exc.status < 500 and exc.status != 429:
                    raise
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(max(0.0, min(RETRY_GAP_S, deadline - loop.time())))
        return False

    async def _edit_retrying(self, call: Callable[[], Awaitable[None]]) -> None:
        """An edit of an acknowledged interaction: retried on 5xx and network errors."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + EDIT_RETRY_S
        pause = 1.0
        while True:
            try:
                await call()
                return
            except (discord.DiscordServerError, aiohttp.ClientError) as exc:
                if loop.time() + pause > give_up:
                    raise
                log.warning("discord edit failed (%s); retrying in %.0f s", exc, pause)
            await asyncio.sleep(pause)
            pause = min(pause * 2, 15.0)

    async def send(
        self,
        interaction: discord.Interaction[Any],
        reply: Reply,
        *,
        edit: bool = False,
        acknowledged: bool = False,
    ) -> None:
        """Initial response, message edit or original-response edit, as the state requires."""
        if acknowledged or interaction.response.is_done():
            if reply.ephemeral and edit:
                await interaction.followup.send(
                    reply.content or "\u200b", ephemeral=True, allowed_mentions=NO_MENTIONS
                )
                return
            await interaction.edit_original_response(
                content=reply.content,
                embed=reply.embed,
                view=reply.view,
                allowed_mentions=NO_MENTIONS,
            )
            return
        if edit and not reply.ephemeral:
            await interaction.response.edit_message(
                content=reply.content,
                embed=reply.embed,
                view=reply.view,
                allowed_mentions=NO_MENTIONS,
            )
            return
        await interaction.response.send_message(
            ephemeral=reply.ephemeral, allowed_mentions=NO_MENTIONS, **reply.parts()
        )
