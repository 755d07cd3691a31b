"""The Discord adapter end to end: the real discord.py client against the fake over loopback."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import unicodedata
from typing import Any

import discord
import pytest
from dc_support import (
    TOKEN,
    answer,
    custom_ids,
    embed_text,
    make_bot,
    make_desk,
    make_settings,
)

from bot import metrics
from bot.desk import Desk
from bot.render.discord import escape
from engine import Catalog, ask
from engine.i18n import t
from tests.fakes.discord_api import FakeDiscord

EPHEMERAL = 1 << 6
MANAGE_GUILD = 1 << 5


def vram(fake: FakeDiscord, query: str, **kw: Any) -> dict[str, Any]:
    options = [fake.option("query", query)]
    for name in ("precision", "context", "batch"):
        if name in kw:
            options.append(fake.option(name, kw.pop(name)))
    return fake.slash_interaction("vram", options, **kw)


def discord_name_ok(name: str) -> bool:
    """Discord's rule: 1-32 of letters, digits (any script, Thai marks included), - _ '."""
    if not 1 <= len(name) <= 32 or name != name.lower():
        return False
    return all(c in "-_'" or unicodedata.category(c)[0] in "LNM" for c in name)


# --------------------------------------------------------------------------- login, sync


async def test_login_and_command_sync_payload(fake: FakeDiscord, catalog: Catalog) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        paths = [(r.method, r.path) for r in fake.requests[:2]]
        assert paths == [("GET", "/users/@me"), ("GET", "/oauth2/applications/@me")]
        (ident,) = fake.identifies
        assert ident["intents"] == discord.Intents.default().value
        assert not ident["intents"] & discord.Intents(message_content=True).value

        (sync,) = fake.command_syncs
        assert sync.path == f"/applications/{fake.application_id}/commands"  # global
        cmds = {c["name"]: c for c in sync.json}
        assert set(cmds) == {"vram", "fit", "compare", "gpus", "card", "faq", "help", "reload"}

        opts = {o["name"]: o for o in cmds["vram"]["options"]}
        assert list(opts) == ["query", "precision", "context", "batch", "task", "card"]
        assert opts["query"]["required"] and opts["query"]["autocomplete"]
        assert opts["query"]["name_localizations"] == {"pl": "zapytanie", "th": "คำถาม"}
        assert [c["value"] for c in opts["precision"]["choices"]] == [
            "bf16", "fp16", "fp8", "int8", "int4", "q4_k_m", "q8_0",
        ]  # fmt: skip
        assert opts["context"]["autocomplete"] and opts["context"]["type"] == 3
        assert opts["batch"]["type"] == 4 and opts["batch"]["min_value"] == 1
        assert opts["batch"]["name_localizations"]["pl"] == "sekwencje"

        assert cmds["help"]["name_localizations"] == {"pl": "pomoc", "th": "คำแนะนำ"}
        assert cmds["gpus"]["name_localizations"]["pl"] == "karty"
        assert cmds["faq"]["name_localizations"]["th"] == "ถามตอบ"
        assert cmds["vram"]["description_localizations"]["pl"].startswith("Ile VRAM")
        assert cmds["vram"]["description_localizations"]["th"].startswith("โมเดล")
        assert int(cmds["reload"]["default_member_permissions"]) == MANAGE_GUILD

        topic = cmds["faq"]["options"][0]
        assert len(topic["choices"]) == len(catalog.faq) <= 25
        kv = next(c for c in topic["choices"] if c["value"] == "kv_cache")
        assert kv["name"] == t(catalog, "en", "faq.kv_cache.title")
        assert kv["name_localizations"]["pl"] == t(catalog, "pl", "faq.kv_cache.title")

        for cmd in sync.json:
            for name in [cmd["name"], *cmd.get("name_localizations", {}).values()]:
                assert discord_name_ok(name), name
            for opt in cmd.get("options", []):
                for name in [opt["name"], *opt.get("name_localizations", {}).values()]:
                    assert discord_name_ok(name), name


async def test_no_sync_on_plain_start_and_guild_sync(fake: FakeDiscord, catalog: Catalog) -> None:
    bot = make_bot(make_settings(), make_desk(catalog), sync=False)
    async with fake.running(bot, token=TOKEN):
        assert not fake.command_syncs
    settings = make_settings(discord_guild_id=int(fake.guild_id))
    async with fake.running(make_bot(settings, make_desk(catalog)), token=TOKEN):
        (sync,) = fake.command_syncs
        assert sync.params["guild_id"] == fake.guild_id
        assert {c["name"] for c in sync.json} >= {"vram", "faq"}


async def test_owner_mention_syncs_and_others_cannot(fake: FakeDiscord, catalog: Catalog) -> None:
    bot = make_bot(make_settings(), make_desk(catalog), sync=False)
    async with fake.running(bot, token=TOKEN):
        await fake.dispatch("MESSAGE_CREATE", fake.message_create("sync"))
        (refused,) = await fake.wait_for(lambda: fake.channel_messages)
        assert refused.json["content"] == t(catalog, "en", "dc.sync.owner_only")
        assert not fake.command_syncs

        owner = fake.owner_user["id"]
        await fake.dispatch("MESSAGE_CREATE", fake.message_create("sync", author_id=owner))
        await fake.wait_for(lambda: len(fake.channel_messages) == 2)
        assert len(fake.command_syncs) == 1
        assert fake.channel_messages[1].json["content"].startswith("Synced 8 commands")


# --------------------------------------------------------------------------- answers


async def test_vram_slash_embed_has_the_engines_numbers(
    fake: FakeDiscord, catalog: Catalog
) -> None:
    expected = ask("70b int4 128k", catalog=catalog)
    assert expected.recommendation is not None
    assert (expected.recommendation.card, expected.recommendation.monthly_usd) == ("A100 SXM", 990)
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        body = await answer(fake, vram(fake, "70b int4 128k"))
        assert body["type"] == 4
        data = body["data"]
        assert data["allowed_mentions"] == {"parse": []}
        (embed,) = data["embeds"]
        # the short form: verdict, card and price in the title; the rest behind "Details"
        assert embed["title"] == "✅ 1× A100 SXM · $990/mo · tight: 0.1 GB left"
        assert escape(expected.headline) in embed["description"]
        assert "2× A40 · $456/mo" in embed["description"]
        assert "fields" not in embed or not embed["fields"]
        assert embed["footer"]["text"] == f"Prices as of {catalog.prices_as_of}."
        ids = custom_ids(data)
        assert len(ids) == 3 and ids[0].startswith("vc:math:")
        assert ids[1].startswith("vc:alt:") and ids[1].endswith(":0")


async def test_options_join_the_question_and_bad_context(
    fake: FakeDiscord, catalog: Catalog
) -> None:
    expected = ask("llama 3.1 70b int4 ctx 32k batch 4", catalog=catalog)
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        payload = vram(fake, "llama 3.1 70b fp8", precision="int4", context="32k", batch=4)
        embed = (await answer(fake, payload))["data"]["embeds"][0]
        desc = embed["description"]
        assert escape(expected.headline) in desc
        assert "INT4" in desc and "32k" in desc and "batch 4" in desc

        bad = await answer(fake, vram(fake, "70b", context="lots"))
        assert bad["data"]["flags"] & EPHEMERAL
        assert "lots" in bad["data"]["content"]


async def test_autocomplete_models_cards_and_context(fake: FakeDiscord, catalog: Catalog) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        body = await answer(
            fake, fake.autocomplete_interaction("vram", [fake.option("query", "lama")])
        )
        assert body["type"] == 8
        choices = body["data"]["choices"]
        assert 2 <= len(choices) <= 25
        assert choices[0] == {"name": "lama", "value": "lama"}  # Enter keeps what was typed
        assert all("Llama" in c["name"] for c in choices[1:])

        body = await answer(
            fake,
            fake.autocomplete_interaction(
                "vram", [fake.option("query", "lama 70b int4 128k", focused=True)]
            ),
        )
        names = [c["name"] for c in body["data"]["choices"]]
        assert "Llama 3.1 70B int4 128k" in names

        body = await answer(
            fake, fake.autocomplete_interaction("card", [fake.option("name", "a6")])
        )
        assert body["data"]["choices"][0] == {"name": "RTX A6000", "value": "RTX A6000"}

        body = await answer(
            fake,
            fake.autocomplete_interaction(
                "vram", [fake.option("query", "70b"), fake.option("context", "1", focused=True)]
            ),
        )
        assert [c["value"] for c in body["data"]["choices"]] == ["1", "16k", "128k", "1M"]


async def test_mention_reply_and_dm_message(fake: FakeDiscord, catalog: Catalog) -> None:
    expected = ask("70b int4 128k", catalog=catalog)
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        msg = fake.message_create("70b int4 128k")
        await fake.dispatch("MESSAGE_CREATE", msg)
        (reply,) = await fake.wait_for(lambda: fake.channel_messages)
        assert str(reply.json["message_reference"]["message_id"]) == msg["id"]
        assert reply.json["allowed_mentions"] == {"parse": [], "replied_user": False}
        assert escape(expected.headline) in embed_text(reply.json["embeds"][0])

        # A guild message without a mention is not for us (and arrives blank anyway).
        await fake.dispatch("MESSAGE_CREATE", fake.message_create("70b", mentions=[]))
        # A DM needs no mention.
        await fake.dispatch(
            "MESSAGE_CREATE", fake.message_create("card a40", guild=False, mentions=[])
        )
        await fake.wait_for(lambda: len(fake.channel_messages) == 2)
        assert fake.channel_messages[1].json["embeds"][0]["title"].startswith("A40")


async def test_dm_slash_command(fake: FakeDiscord, catalog: Catalog) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        payload = fake.dm_slash_interaction("vram", [fake.option("query", "70b int4 128k")])
        embed = (await answer(fake, payload))["data"]["embeds"][0]
        assert "A100 SXM" in embed_text(embed)

        gpus = (await answer(fake, fake.dm_slash_interaction("gpus")))["data"]["embeds"][0]
        assert catalog.cards[0].name in embed_text(gpus)  # the rest wait behind "Details"


async def test_math_button_and_alternative_card(fake: FakeDiscord, catalog: Catalog) -> None:
    expected = ask("70b int4 128k", catalog=catalog)
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        shown = await answer(fake, vram(fake, "70b int4 128k"))
        math_id, alt0, _ = custom_ids(shown["data"])

        click = fake.component_interaction(math_id)
        body = await answer(fake, click)
        assert body["type"] == 7
        embed = body["data"]["embeds"][0]
        math_field = next(f for f in embed["fields"] if f["name"] == "Show the math")
        assert math_field["value"].startswith("```")
        assert expected.math[0] in math_field["value"]
        assert [i.split(":")[1] for i in custom_ids(body["data"])] == ["alt", "alt"]
        assert fake.messages[click["message"]["id"]]["embeds"][0]["fields"] == embed["fields"]

        alt = await answer(fake, fake.component_interaction(alt0))
        assert alt["type"] == 4
        title = alt["data"]["embeds"][0]["title"]
        assert title.startswith("✅ Fits 4× RTX A6000")
        assert "79.9 GB" in embed_text(alt["data"]["embeds"][0])


async def test_select_menu_for_an_ambiguous_model(fake: FakeDiscord, catalog: Catalog) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        shown = await answer(fake, vram(fake, "llama 3.1 int4 128k"))
        (pick,) = custom_ids(shown["data"])
        menu = shown["data"]["components"][0]["components"][0]
        assert menu["type"] == 3
        assert [o["value"] for o in menu["options"]] == [
            "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
        ]  # fmt: skip
        click = fake.component_interaction(pick, component_type=3, values=["llama-3.1-70b"])
        body = await answer(fake, click)
        assert body["type"] == 7  # the question becomes the answer, in place
        expected = ask("Llama 3.1 70B int4 128k", catalog=catalog)
        desc = body["data"]["embeds"][0]["description"]
        assert escape(expected.headline) in desc
        assert desc.startswith("Llama 3.1 70B · INT4 · 128k")
        assert custom_ids(body["data"])[0].startswith("vc:math:")


async def test_expired_button_says_ask_again(fake: FakeDiscord, catalog: Catalog) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN) as bot:
        shown = await answer(fake, vram(fake, "70b int4 128k"))
        bot.memos._items.clear()  # type: ignore[attr-defined]  # as after a restart
        body = await answer(fake, fake.component_interaction(custom_ids(shown["data"])[0]))
        assert body["data"]["flags"] & EPHEMERAL
        assert body["data"]["content"] == escape(t(catalog, "en", "dc.expired"))


async def test_polish_and_thai_locales(fake: FakeDiscord, catalog: Catalog) -> None:
    expected = ask("70b int4 128k", locale="pl", catalog=catalog)
    assert expected.lang == "pl"
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        embed = (await answer(fake, vram(fake, "70b int4 128k", locale="pl")))["data"]["embeds"][0]
        assert escape(expected.headline) in embed["description"]
        assert embed["title"].startswith("✅ 1× A100 SXM · $990/mies.")
        assert embed["footer"]["text"].startswith("Ceny na dzień")

        shown = await answer(fake, vram(fake, "70b int4 128k", locale="pl"))
        labels = [c.get("label") for c in shown["data"]["components"][0]["components"]]
        assert labels[0] == t(catalog, "pl", "dc.button.details_math")

        card = await answer(
            fake, fake.slash_interaction("card", [fake.option("name", "A40")], locale="pl")
        )
        expected_card = ask("card A40", "pl", catalog=catalog).headline
        assert card["data"]["embeds"][0]["title"] == escape(expected_card)

        helped = await answer(fake, fake.slash_interaction("help", locale="th"))
        text = embed_text(helped["data"]["embeds"][0])
        assert t(catalog, "th", "help.title") in text
        assert t(catalog, "th", "dc.help.commands_title") in text


async def test_everyone_and_role_mentions_are_inert(fake: FakeDiscord, catalog: Catalog) -> None:
    hostile = "@everyone <@&123456789012345678> **70b** int4 <@&123>"
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        body = await answer(fake, vram(fake, hostile))
        assert body["data"]["allowed_mentions"] == {"parse": []}
        text = embed_text(body["data"]["embeds"][0])
        assert "@everyone" not in text and "<@&" not in text

        await fake.dispatch("MESSAGE_CREATE", fake.message_create(hostile))
        (reply,) = await fake.wait_for(lambda: fake.channel_messages)
        assert reply.json["allowed_mentions"]["parse"] == []
        assert "@everyone" not in embed_text(reply.json["embeds"][0])


async def test_hostile_4000_character_query_fits_discord_limits(
    fake: FakeDiscord, catalog: Catalog
) -> None:
    hostile = ("@everyone **bold** `code` <@&1> lama ||x|| 𝕏 " * 200)[:4000]
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        body = await answer(fake, vram(fake, hostile))  # the fake refuses anything over limits
        (embed,) = body["data"]["embeds"]
        assert len(embed["title"]) <= 256
        assert len(embed_text(embed)) <= 6000
        assert "@everyone" not in embed_text(embed)
        bad = [r for r in fake.requests if r.status >= 400]
        assert not bad


async def test_rate_limit_reply_is_ephemeral(fake: FakeDiscord, catalog: Catalog) -> None:
    desk = make_desk(catalog, rate_per_minute=1)
    async with fake.running(make_bot(make_settings(), desk), token=TOKEN):
        assert (await answer(fake, vram(fake, "70b")))["data"]["embeds"]
        limited = await answer(fake, vram(fake, "70b"))
        assert limited["data"]["flags"] & EPHEMERAL
        assert re.search(r"wait \d+ s", limited["data"]["content"])


async def test_reload_is_staff_only(fake: FakeDiscord, catalog: Catalog) -> None:
    desk = make_desk(catalog, staff_ids={"discord:424242"})
    async with fake.running(make_bot(make_settings(), desk), token=TOKEN):
        refused = await answer(fake, fake.slash_interaction("reload"))
        assert refused["data"]["content"] == escape(t(catalog, "en", "dc.staff_only"))
        done = await answer(fake, fake.slash_interaction("reload", user_id="424242"))
        assert done["data"]["flags"] & EPHEMERAL
        assert done["data"]["content"].startswith("Data reloaded")
        assert desk.catalog is not catalog


# --------------------------------------------------------------------------- resilience


async def test_429_and_500_are_retried_and_answered_once(
    fake: FakeDiscord, catalog: Catalog
) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        fake.fail_next("POST", r"/callback$", status=429, retry_after=0.2)
        payload = vram(fake, "70b int4 128k")
        body = await answer(fake, payload)
        assert "A100 SXM" in embed_text(body["data"]["embeds"][0])
        mine = [r for r in fake.requests if r.params.get("interaction_id") == payload["id"]]
        assert [r.status for r in mine] == [429, 200]

        fake.fail_next("POST", r"/callback$", status=500)
        payload = vram(fake, "13b fp8")
        await answer(fake, payload)
        mine = [r for r in fake.requests if r.params.get("interaction_id") == payload["id"]]
        assert [r.status for r in mine] == [500, 200]
        assert len(fake.interaction_responses) == 2
        assert fake.faults_served == 2


async def test_reconnect_and_invalid_session_keep_answering(
    fake: FakeDiscord, catalog: Catalog
) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        await fake.send_reconnect()
        await fake.wait_ready(count=2)
        assert fake.resume_count[0] == 1
        assert (await answer(fake, vram(fake, "70b int4 128k")))["type"] == 4

        await fake.send_invalid_session(resumable=False)
        await fake.wait_ready(count=3)
        assert fake.identify_count[0] == 2
        body = await answer(fake, vram(fake, "70b int4 128k"))
        assert "A100 SXM" in embed_text(body["data"]["embeds"][0])


async def test_two_shards(fake: FakeDiscord, catalog: Catalog) -> None:
    settings = make_settings(discord_shards="2")
    async with fake.running(make_bot(settings, make_desk(catalog)), token=TOKEN) as bot:
        assert isinstance(bot, discord.AutoShardedClient)
        assert sorted(i["shard"] for i in fake.identifies) == [[0, 2], [1, 2]]
        shard = FakeDiscord._shard_for(fake.guild_id, 2)
        body = await answer(fake, vram(fake, "70b int4 128k"), shard_id=shard)
        assert "A100 SXM" in embed_text(body["data"]["embeds"][0])
        dm = await answer(fake, fake.dm_slash_interaction("gpus"), shard_id=0)
        assert dm["type"] == 4


async def test_auto_shards_ask_discord_for_the_count(fake: FakeDiscord, catalog: Catalog) -> None:
    settings = make_settings(discord_shards="auto")
    async with fake.running(make_bot(settings, make_desk(catalog)), token=TOKEN) as bot:
        assert isinstance(bot, discord.AutoShardedClient)
        assert ("GET", "/gateway/bot") in [(r.method, r.path) for r in fake.requests]
        assert [i["shard"] for i in fake.identifies] == [[0, 1]]
        assert (await answer(fake, vram(fake, "70b int4 128k")))["type"] == 4


async def test_handler_crash_apologises_with_reference_and_keeps_serving(
    fake: FakeDiscord,
    catalog: Catalog,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    desk = make_desk(catalog)
    real = Desk.answer
    calls = {"n": 0}

    async def flaky(self: Desk, text: str, **kw: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("boom in the engine")
        return await real(self, text, **kw)

    monkeypatch.setattr(Desk, "answer", flaky)
    caplog.set_level(logging.ERROR, logger="vramchat.discord")
    errors = metrics.ERRORS.labels("discord")._value.get()
    async with fake.running(make_bot(make_settings(), desk), token=TOKEN):
        body = await answer(fake, vram(fake, "70b int4 128k"))
        assert body["data"]["flags"] & EPHEMERAL
        ref = re.search(r"Reference: ([0-9a-f]{8})$", body["data"]["content"])
        assert ref is not None
        (record,) = [r for r in caplog.records if ref.group(1) in r.getMessage()]
        assert record.exc_info is not None and "boom in the engine" in str(record.exc_info[1])

        again = await answer(fake, vram(fake, "70b int4 128k"))
        assert "A100 SXM" in embed_text(again["data"]["embeds"][0])
        assert metrics.ERRORS.labels("discord")._value.get() == errors + 1

        # A crash in a mention takes the same path: apology in the channel, bot still serves.
        calls["n"] = 0
        await fake.dispatch("MESSAGE_CREATE", fake.message_create("70b"))
        (sorry,) = await fake.wait_for(lambda: fake.channel_messages)
        assert "Reference:" in sorry.json["content"]


async def test_slow_answer_is_deferred_then_edited(
    fake: FakeDiscord, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    desk = make_desk(catalog)
    real = Desk.answer

    async def slow(self: Desk, text: str, **kw: Any) -> Any:
        await asyncio.sleep(0.3)
        return await real(self, text, **kw)

    monkeypatch.setattr(Desk, "answer", slow)
    bot = make_bot(make_settings(), desk)
    bot.defer_after_s = 0.05
    async with fake.running(bot, token=TOKEN):
        payload = vram(fake, "70b int4 128k")
        body = await answer(fake, payload)
        assert body["type"] == 5
        (edit,) = await fake.wait_for(lambda: fake.webhook_edits)
        assert edit.path.endswith("/messages/@original")
        assert "A100 SXM" in embed_text(edit.json["embeds"][0])
        assert edit.json["allowed_mentions"] == {"parse": []}


# --------------------------------------------------------------------------- typed options


@pytest.mark.parametrize("value", ["0", "0k", "lots"])
async def test_context_option_that_cannot_be_used_is_refused(
    fake: FakeDiscord, catalog: Catalog, value: str
) -> None:
    """``context: 0`` gets a private reply naming the value, never a silent 8k sizing."""
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        body = await answer(fake, vram(fake, "llama 3.1 70b int4", context=value))
        assert body["type"] == 4 and body["data"]["flags"] & EPHEMERAL
        assert not body["data"].get("embeds")
        content = body["data"]["content"]
        assert f"“{value}”" in content and "8k" in content  # the message names valid values
        assert "8,192" not in content and "GB" not in content


async def test_a_picked_model_keeps_the_options(fake: FakeDiscord, catalog: Catalog) -> None:
    """The model menu re-asks with the picked model as a field, the /vram options kept."""
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        shown = await answer(fake, vram(fake, "lama 3", precision="int4", context="32k"))
        (pick,) = custom_ids(shown["data"])
        click = fake.component_interaction(pick, component_type=3, values=["llama-3-8b"])
        body = await answer(fake, click)
        assert body["type"] == 7
        desc = body["data"]["embeds"][0]["description"]
        assert desc.startswith("Llama 3 8B · INT4 · 32k"), desc


async def test_only_the_asker_can_press_their_buttons(fake: FakeDiscord, catalog: Catalog) -> None:
    """Another user's press gets a private copy; the asker's message is unchanged."""
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        shown = await answer(fake, vram(fake, "70b int4 128k"))
        math_id, alt0, _ = custom_ids(shown["data"])
        click = fake.component_interaction(math_id, user_id="999")
        before = json.dumps(fake.messages[click["message"]["id"]], sort_keys=True)
        body = await answer(fake, click)
        assert body["type"] == 4 and body["data"]["flags"] & EPHEMERAL
        assert body["data"]["embeds"][0]["title"] == shown["data"]["embeds"][0]["title"]
        assert not body["data"].get("components")
        other = await answer(fake, fake.component_interaction(alt0, user_id="999"))
        assert other["data"]["flags"] & EPHEMERAL
        assert other["data"]["embeds"][0]["title"] == shown["data"]["embeds"][0]["title"]
        assert json.dumps(fake.messages[click["message"]["id"]], sort_keys=True) == before
        # the asker's own press still works and edits in place
        mine = await answer(fake, fake.component_interaction(math_id))
        assert mine["type"] == 7


async def test_commands_can_be_user_installed(fake: FakeDiscord, catalog: Catalog) -> None:
    """Every command but /reload works for a user install, in DMs and group DMs too."""
    async with fake.running(make_bot(make_settings(), make_desk(catalog), sync=True), token=TOKEN):
        (sync,) = fake.command_syncs
        cmds = {c["name"]: c for c in sync.json}
        for name in ("vram", "fit", "compare", "gpus", "card", "faq", "help"):
            assert sorted(cmds[name]["integration_types"]) == [0, 1], name  # guild, user
            assert sorted(cmds[name]["contexts"]) == [0, 1, 2], name  # guild, bot DM, group DM
        assert 1 not in (cmds["reload"].get("integration_types") or [0])
