"""Proves the fake Discord works with the real discord.py client, end to end over loopback."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from .discord_api import FAKE_TOKEN, FakeDiscord

PING_PL = {"ping": "pinguj", "Check that the bot is alive": "Sprawdza, czy bot żyje"}
MODELS = ["llama-3-70b", "llama-3-8b", "mistral-7b", "qwen2-72b"]


class PolishTranslator(app_commands.Translator):
    """Gives /ping Polish localizations so the sync payload carries name_localizations."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is discord.Locale.polish:
            return PING_PL.get(string.message)
        return None


class ButtonView(discord.ui.View):
    """A one-button view; the click edits the message (callback type 7)."""

    def __init__(self) -> None:
        super().__init__(timeout=30)

    @discord.ui.button(label="Go", custom_id="go-button", style=discord.ButtonStyle.primary)
    async def go(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.edit_message(content="clicked", view=None)


def setup_commands(bot: commands.Bot | commands.AutoShardedBot) -> None:
    """The throwaway command set: embed reply, autocomplete, button, defer+followup, slow."""

    @bot.tree.command(
        name=app_commands.locale_str("ping"),
        description=app_commands.locale_str("Check that the bot is alive"),
    )
    async def ping(interaction: discord.Interaction) -> None:
        embed = discord.Embed(title="pong", description=f"locale={interaction.locale.value}")
        await interaction.response.send_message(embed=embed)

    @bot.tree.command(name="model", description="Look up a model")
    async def model(interaction: discord.Interaction, query: str) -> None:
        await interaction.response.send_message(f"model: {query}")

    @model.autocomplete("query")
    async def model_autocomplete(
        interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=m, value=m) for m in MODELS if current in m]

    @bot.tree.command(name="buttons", description="Show a button")
    async def buttons(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("press it", view=ButtonView())

    @bot.tree.command(name="slowpoke", description="Defers, then follows up")
    async def slowpoke(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        report = discord.File(io.BytesIO(b"vram"), filename="report.txt")
        await interaction.followup.send("done later", file=report)
        await interaction.edit_original_response(content="edited")

    @bot.command(name="hello")
    async def hello(ctx: commands.Context[commands.Bot]) -> None:
        await ctx.reply("hi there")


class FakeTestBot(commands.Bot):
    """Mention prefix, default intents (no message_content), syncs in setup_hook."""

    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            allowed_mentions=discord.AllowedMentions.none(),
            guild_ready_timeout=0.1,
        )
        setup_commands(self)

    async def setup_hook(self) -> None:
        await self.tree.set_translator(PolishTranslator())
        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """The default sleeps 5 s before every re-IDENTIFY."""


class ShardedTestBot(commands.AutoShardedBot):
    """Two shards, no 5 s identify spacing."""

    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            allowed_mentions=discord.AllowedMentions.none(),
            guild_ready_timeout=0.1,
            shard_count=2,
        )
        setup_commands(self)

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """The default sleeps 5 s before every non-initial IDENTIFY."""


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    """A running fake with discord.py pointed at it for this test only."""
    async with FakeDiscord() as server:
        server.patch(monkeypatch)
        yield server


async def answer(fake: FakeDiscord, payload: dict[str, Any], shard_id: int = 0) -> dict[str, Any]:
    """Dispatch an interaction and return the JSON of its accepted callback."""
    await fake.dispatch("INTERACTION_CREATE", payload, shard_id=shard_id)
    rec = await fake.wait_for(lambda: fake.response_for(payload))
    assert rec is not None
    body: dict[str, Any] = rec.json
    return body


async def test_login_sync_and_slash_embed(fake: FakeDiscord) -> None:
    async with fake.running(FakeTestBot()) as bot:
        assert bot.get_guild(int(fake.guild_id)) is not None  # GUILD_CREATE parsed
        paths = [(r.method, r.path) for r in fake.requests]
        assert paths[:2] == [("GET", "/users/@me"), ("GET", "/oauth2/applications/@me")]
        assert all(r.auth == "ok" for r in fake.requests)
        assert not fake.unhandled

        (sync,) = fake.command_syncs
        assert sync.path == f"/applications/{fake.application_id}/commands"
        ping = next(c for c in sync.json if c["name"] == "ping")
        assert ping["name_localizations"] == {"pl": "pinguj"}
        assert ping["description_localizations"] == {"pl": "Sprawdza, czy bot żyje"}

        (ident,) = fake.identifies
        assert ident["token_ok"] is True
        assert ident["intents"] == discord.Intents.default().value
        assert "token" not in ident

        body = await answer(fake, fake.slash_interaction("ping", locale="pl"))
        assert body["type"] == 4
        (embed,) = body["data"]["embeds"]
        assert embed["title"] == "pong"
        assert embed["description"] == "locale=pl"

        dm = await answer(fake, fake.dm_slash_interaction("ping"))
        assert dm["data"]["embeds"][0]["title"] == "pong"


async def test_autocomplete_returns_choices(fake: FakeDiscord) -> None:
    async with fake.running(FakeTestBot()):
        payload = fake.autocomplete_interaction("model", [fake.option("query", "llama")])
        body = await answer(fake, payload)
        assert body["type"] == 8
        names = [c["name"] for c in body["data"]["choices"]]
        assert names == ["llama-3-70b", "llama-3-8b"]


async def test_button_click_edits_message(fake: FakeDiscord) -> None:
    async with fake.running(FakeTestBot()):
        shown = await answer(fake, fake.slash_interaction("buttons"))
        assert shown["data"]["components"][0]["components"][0]["custom_id"] == "go-button"

        click = fake.component_interaction("go-button")
        body = await answer(fake, click)
        assert body["type"] == 7
        assert body["data"]["content"] == "clicked"
        assert fake.messages[click["message"]["id"]]["content"] == "clicked"


async def test_defer_followup_and_edit(fake: FakeDiscord) -> None:
    async with fake.running(FakeTestBot()):
        payload = fake.slash_interaction("slowpoke")
        body = await answer(fake, payload)
        assert body["type"] == 5
        await fake.wait_for(lambda: fake.webhook_edits)
        (followup,) = fake.followups_for(payload)
        assert followup.json["content"] == "done later"
        assert followup.query["wait"] == "1"
        assert followup.files == [("files[0]", "report.txt", 4)]
        assert fake.webhook_edits[0].path.endswith("/messages/@original")


async def test_mention_reply(fake: FakeDiscord) -> None:
    async with fake.running(FakeTestBot()):
        msg = fake.message_create("hello")
        await fake.dispatch("MESSAGE_CREATE", msg)
        (reply,) = await fake.wait_for(lambda: fake.channel_messages)
        assert reply.json["content"] == "hi there"
        assert str(reply.json["message_reference"]["message_id"]) == msg["id"]
        assert reply.auth == "ok"

        # No message_content intent: a guild message without a mention arrives blank.
        await fake.dispatch("MESSAGE_CREATE", fake.message_create("hello", mentions=[]))
        assert fake.dispatched[-1][2]["content"] == ""


async def test_rate_limit_and_server_error_are_retried_once(fake: FakeDiscord) -> None:
    async with fake.running(FakeTestBot()):
        fake.fail_next("POST", r"^/interactions/\d+/.+/callback$", status=429, retry_after=0.2)
        payload = fake.slash_interaction("ping")
        await answer(fake, payload)
        callbacks = [r for r in fake.requests if r.path.endswith("/callback")]
        assert [r.status for r in callbacks] == [429, 200]
        assert len(fake.interaction_responses) == 1

        fake.fail_next("POST", r"^/channels/\d+/messages$", status=500)
        await fake.dispatch("MESSAGE_CREATE", fake.message_create("hello"))
        await fake.wait_for(lambda: fake.channel_messages)
        posts = [r for r in fake.requests if r.path.endswith("/messages")]
        assert [r.status for r in posts] == [500, 200]
        assert len(fake.channel_messages) == 1
        assert fake.faults_served == 2


async def test_reconnect_invalid_session_and_close(fake: FakeDiscord) -> None:
    async with fake.running(FakeTestBot()):
        await fake.send_reconnect()
        await fake.wait_ready(count=2)
        assert fake.resume_count[0] == 1
        assert fake.gateway_connections[-1][0] == "/resume-gateway"
        assert (await answer(fake, fake.slash_interaction("ping")))["type"] == 4

        await fake.send_invalid_session(resumable=False)
        await fake.wait_ready(count=3)
        assert fake.identify_count[0] == 2
        assert (await answer(fake, fake.slash_interaction("ping")))["type"] == 4

        await fake.close_gateway(code=4000)
        await fake.wait_ready(count=4)
        assert fake.resume_count[0] == 2
        assert fake.identify_count[0] == 2
        assert (await answer(fake, fake.slash_interaction("ping")))["type"] == 4


async def test_auto_sharded_two_shards(fake: FakeDiscord) -> None:
    async with fake.running(ShardedTestBot()) as bot:
        assert sorted(i["shard"] for i in fake.identifies) == [[0, 2], [1, 2]]
        assert fake.handshakes[0] == fake.handshakes[1] == 1
        assert bot.shard_count == 2
        guild_shard = FakeDiscord._shard_for(fake.guild_id, 2)
        body = await answer(fake, fake.slash_interaction("ping"), shard_id=guild_shard)
        assert body["type"] == 4


async def test_strictness_deadline_and_bad_token(fake: FakeDiscord) -> None:
    """A late callback is refused like on Discord; a wrong token fails login."""
    fake.interaction_timeout = 0.0
    async with fake.running(FakeTestBot()):
        await fake.dispatch("INTERACTION_CREATE", fake.slash_interaction("ping"))
        late = await fake.wait_for(lambda: [r for r in fake.requests if r.status == 404])
        assert late[0].path.endswith("/callback")
        assert not fake.interaction_responses

    bot = FakeTestBot()
    with pytest.raises(discord.LoginFailure):
        await asyncio.wait_for(bot.start(FAKE_TOKEN + "x"), 5)
    await bot.close()
    assert fake.requests[-1].auth == "wrong"
