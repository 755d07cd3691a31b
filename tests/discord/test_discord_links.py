"""User-typed URLs come back inert: no live link, no embed preview, no invite card."""

from __future__ import annotations

import re
from typing import Any

import pytest
from dc_support import TOKEN, answer, embed_text, make_bot, make_desk, make_settings

from bot.render.discord import escape
from engine import Catalog
from tests.fakes.discord_api import FakeDiscord

# What Discord turns into a link: a scheme followed by "//", or an invite host and a slash.
LIVE = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://|\bdiscord(?:\.gg|(?:app)?\.com/invite)/")


@pytest.mark.parametrize(
    "typed",
    [
        "https://evil.example/login",
        "HTTP://EVIL.EXAMPLE",
        "[free GPUs](https://evil.example)",
        "<https://evil.example>",
        "steam://run/1",
        "discord.gg/abcdef",
        "discord.com/invite/abcdef",
    ],
)
def test_escape_leaves_no_live_link(typed: str) -> None:
    out = escape(typed)
    assert not LIVE.search(out), out
    assert out.replace("\u200b", "").replace("\\", "") == typed.replace("\\", "")


def test_plain_text_keeps_its_colons() -> None:
    assert escape("ratio 1:2, 70b:q4") == "ratio 1:2, 70b:q4"


async def test_a_typed_url_is_echoed_inert(fake: FakeDiscord, catalog: Catalog) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        payload = fake.slash_interaction(
            "vram", [fake.option("query", "https://evil.example/x discord.gg/abc")]
        )
        body: dict[str, Any] = await answer(fake, payload)
        text = embed_text(body["data"]["embeds"][0])
        assert "evil.example" in text  # still shown, as typed
        assert not LIVE.search(text), text

        await fake.dispatch("MESSAGE_CREATE", fake.message_create("https://evil.example/y"))
        (reply,) = await fake.wait_for(lambda: fake.channel_messages)
        shown = embed_text(reply.json["embeds"][0])
        assert "evil.example" in shown and not LIVE.search(shown), shown
