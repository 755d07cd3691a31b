"""Input limits and abuse: long questions are capped with a friendly note, one rate limiter
(one setting) serves every platform, and answers stay short unless the math is asked for.

On "shared by all platforms": a Telegram user and a Discord user cannot be linked, and the
same number on two platforms is two different people, so the limit is shared as one limiter
implementation (``Desk`` over its ``StateStore``, in-process or Redis) and one setting
(``VRAMCHAT_RATE_PER_MINUTE``), keyed per platform and user.
"""

from __future__ import annotations

import pytest

from bot.desk import Desk, Limited
from bot.render.discord import format_embed
from bot.render.telegram import format_html
from engine import Answer, Catalog, ask, load_catalog
from engine.i18n import t
from engine.understand import MAX_QUERY_CHARS
from tests.robustness.support import (
    DISCORD_TOKEN,
    FakeDiscord,
    FakeTelegram,
    discord_bot,
    embed_units,
    parse_telegram_html,
    telegram_app,
    telegram_token,
    utf16_len,
)

LONG = ("70b int4 128k on an a40, " * 400)[:5_000]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def truncated_note(catalog: Catalog, lang: str = "en") -> str:
    answer = ask(LONG, lang, catalog=catalog)
    (note,) = [n for n in answer.caveats if n.code == "truncated"]
    return note.text


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
def test_over_long_question_is_answered_from_its_first_4096_characters(
    catalog: Catalog, lang: str
) -> None:
    assert MAX_QUERY_CHARS == 4096
    answer = ask(LONG, lang, catalog=catalog)
    assert answer.kind == "fit"  # 70B at INT4 with 128k on an A40: the question was read
    codes = [n.code for n in answer.caveats]
    assert "truncated" in codes
    assert ask(LONG[:4096], lang, catalog=catalog).caveats == [
        n for n in answer.caveats if n.code != "truncated"
    ]
    assert "4" in truncated_note(catalog, lang)  # the note says where the cut is


async def test_discord_shows_the_truncation_note(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slash options take up to 6,000 characters: a 5,000-character query gets the note."""
    async with FakeDiscord(token=DISCORD_TOKEN) as fake:
        fake.patch(monkeypatch)
        async with fake.running(discord_bot(Desk(catalog)), token=DISCORD_TOKEN):
            payload = fake.slash_interaction("vram", [fake.option("query", LONG)])
            await fake.dispatch("INTERACTION_CREATE", payload)
            rec = await fake.wait_for(lambda: fake.response_for(payload))
            (embed,) = rec.json["data"]["embeds"]
            shown = "\n".join(  # the short form names the cut among its few lines
                [embed.get("description") or ""] + [f["value"] for f in embed.get("fields", [])]
            )
            assert truncated_note(catalog).split()[0] in shown
            assert embed_units(embed) <= 6000


async def test_telegram_longest_message_is_answered(catalog: Catalog) -> None:
    """Telegram lets a user send 4,096 characters: that is within the cap, no note."""
    async with FakeTelegram(token=telegram_token()) as fake:
        async with telegram_app(fake, Desk(catalog)):
            fake.push_update(fake.message_update(LONG[:4096]))
            await fake.wait_for(lambda: bool(fake.sent_messages), timeout=10)
        visible = parse_telegram_html(fake.sent_messages[0]["text"])
        assert "70B" in visible and truncated_note(catalog) not in visible


async def test_one_limiter_one_setting_per_platform_identity(catalog: Catalog) -> None:
    desk = Desk(catalog, rate_per_minute=3)
    for platform in ("telegram", "discord"):
        results = [await desk.answer("7b", platform=platform, user_key="4242") for _ in range(4)]
        assert [isinstance(r, Answer) for r in results] == [True, True, True, False]
        limited = results[-1]
        assert isinstance(limited, Limited) and 0 < limited.retry_after_s <= 60
    # another person is not affected, on either platform
    assert isinstance(await desk.answer("7b", platform="telegram", user_key="1"), Answer)


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
@pytest.mark.parametrize(
    "question",
    [
        "70b int4 128k",
        "llama 3.1 405b fp8",
        "deepseek v3 on 8x h200",
        "qwen2.5 32b qlora",
        "gpus",
        "card h100",
        "best model for $300/month",
        "max context for 70b int4 on an a40",
    ],
)
def test_answers_stay_short_unless_the_math_is_asked_for(
    catalog: Catalog, question: str, lang: str
) -> None:
    answer = ask(question, lang, catalog=catalog)
    visible = parse_telegram_html(format_html(answer, catalog))
    assert utf16_len(visible) <= 2_000, utf16_len(visible)
    assert embed_units(format_embed(answer, catalog).to_dict()) <= 2_000
    if answer.math:
        title = t(catalog, lang, "tg.math.title")
        assert title not in visible
        assert title in parse_telegram_html(format_html(answer, catalog, math=True))
