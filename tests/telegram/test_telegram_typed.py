"""Telegram commands reach the engine as typed requests (/gpus, /card X, /faq X and a tapped
topic), the rent and sales link buttons appear only when their URLs are set, and help in
Polish and Thai shows examples in the reader's language. The real PTB app against the fake."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from tg_support import Bot, FakeTelegram, JsonDict, make_settings, running_bot, visible

from bot.desk import Desk
from bot.render.telegram import format_html
from engine import Answer, RequestOptions, ask, t

RENT = "https://rent.example.com/order?card={card}"
SALES = "https://example.com/contact-sales"


@pytest.fixture
async def linked(fake: FakeTelegram, desk: Desk) -> AsyncIterator[Bot]:
    """The bot with both link URLs set (the path main() uses, like the ``bot`` fixture)."""
    settings = make_settings(fake, vramchat_rent_url=RENT, vramchat_sales_url=SALES)
    async with running_bot(fake, desk, settings) as bot:
        yield bot


def url_buttons(message: JsonDict) -> list[tuple[str, str]]:
    rows = message.get("reply_markup", {}).get("inline_keyboard", [])
    return [(b["text"], b["url"]) for row in rows for b in row if "url" in b]


def same(sent: JsonDict, answer: Answer, bot: Bot) -> None:
    assert sent["text"] == format_html(answer, bot.catalog)


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
async def test_commands_are_typed_requests(bot: Bot, lang: str) -> None:
    cat = bot.catalog
    for command, options in [
        ("/gpus", RequestOptions(kind="cards")),
        ("/card a40", RequestOptions(kind="card", card="a40")),
        ("/card RTX 4090", RequestOptions(kind="card", card="RTX 4090")),
        ("/faq kv_cache", RequestOptions(kind="faq", faq_topic="kv_cache")),
    ]:
        sent = await bot.say(command, language_code=lang)
        same(sent, ask("", locale=lang, catalog=cat, options=options), bot)
    # /card of a card we do not have names it back instead of guessing
    unknown = visible(await bot.say("/card zz9000", language_code=lang))
    assert "zz9000" in unknown
    assert unknown.startswith(t(cat, lang, "option.card", value="zz9000"))


async def test_a_tapped_faq_topic_is_a_typed_request(bot: Bot) -> None:
    topics = await bot.say("/faq", language_code="pl")
    before = len(bot.sent_to(42))
    await bot.press("f:sales", topics, edits_message=False, language_code="pl")
    await bot.fake.wait_for(lambda: len(bot.sent_to(42)) > before)
    sent = bot.sent_to(42)[before]
    expected = ask("", "pl", catalog=bot.catalog, options=RequestOptions(faq_topic="sales"))
    same(sent, expected, bot)
    assert url_buttons(sent) == []  # no sales URL is set


@pytest.mark.parametrize("lang", ["pl", "th"])
async def test_help_shows_examples_in_the_readers_language(bot: Bot, lang: str) -> None:
    cat = bot.catalog
    word = {"pl": "pomoc", "th": "ช่วยด้วย"}[lang]
    shown = await bot.say(word, language_code=lang)
    expected = ask(word, locale=lang, catalog=cat)
    assert expected.kind == "help" and expected.lang == lang
    same(shown, expected, bot)
    text = visible(shown)
    for n in range(1, 6):
        assert t(cat, lang, f"help.example_{n}") in text
    assert t(cat, "en", "help.example_2") not in text


async def test_link_buttons_when_configured(linked: Bot) -> None:
    sizing = await linked.say("70b int4 128k")
    assert url_buttons(sizing) == [("Rent A100 SXM", RENT.format(card="A100%20SXM"))]
    cluster = await linked.say("405b full fine-tune")
    assert url_buttons(cluster) == [("Talk to sales", SALES)]
    # a new chat: in this one the conversation is English, which a wordless command keeps
    sales = await linked.say("/faq sales", language_code="th", chat_id=43)
    assert url_buttons(sales) == [(t(linked.catalog, "th", "render.link.sales"), SALES)]
    fit = await linked.say("does 70b int4 fit on 2x 4090?")
    assert url_buttons(fit) == [("Rent RTX 4090", RENT.format(card="RTX%204090"))]
    assert url_buttons(await linked.say("/faq kv_cache")) == []
    # the math toggle redraws the message and keeps the links
    rows = sizing["reply_markup"]["inline_keyboard"]
    math = next(b["callback_data"] for row in rows for b in row if "callback_data" in b)
    await linked.press(math, sizing)
    edited = linked.fake.message(sizing["chat_id"], sizing["message_id"])
    assert url_buttons(edited) == url_buttons(sizing)


async def test_no_link_buttons_when_unset(bot: Bot) -> None:
    for question in ("70b int4 128k", "405b full fine-tune", "/faq sales", "/card a40"):
        assert url_buttons(await bot.say(question)) == [], question
