"""/fit, /compare, the typed /vram task: and card: options, the named-kind commands and the
link buttons, end to end: the real discord.py client against the fake over loopback, each
answer checked against the engine called directly with the same typed values."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dc_support import TOKEN, answer, custom_ids, embed_text, make_bot, make_desk, make_settings

from bot.render.discord import escape, format_embed
from bot.settings import Settings, SettingsError, load_settings
from engine import Catalog, RequestOptions, ask, compare, t
from tests.fakes.discord_api import FakeDiscord

EPHEMERAL = 1 << 6
LINK_STYLE = 5
RENT = "https://rent.example.com/order?card={card}"
SALES = "https://example.com/contact-sales"


def slash(
    fake: FakeDiscord, command: str, locale: str = "en-US", /, **values: Any
) -> dict[str, Any]:
    options = [fake.option(k, v) for k, v in values.items()]
    return fake.slash_interaction(command, options, locale=locale)


def links(data: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (c["label"], c["url"])
        for row in data.get("components") or []
        for c in row.get("components") or []
        if c.get("style") == LINK_STYLE
    ]


def linked(**values: Any) -> Settings:
    return make_settings(vramchat_rent_url=RENT, vramchat_sales_url=SALES, **values)


async def test_fit_answers_with_the_engines_numbers(fake: FakeDiscord, catalog: Catalog) -> None:
    typed = RequestOptions(card="A100", precision="int4")
    expected = ask("llama 3.1 70b", catalog=catalog, options=typed)
    assert expected.kind == "fit" and expected.fit is not None and expected.fit.fits
    pair = ask("70b int4", catalog=catalog, options=RequestOptions(card="RTX 4090", count=2))
    assert pair.fit is not None and pair.fit.count == 2
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        body = await answer(
            fake, slash(fake, "fit", model="llama 3.1 70b", card="A100", precision="int4")
        )
        (embed,) = body["data"]["embeds"]
        assert embed == format_embed(expected, catalog).to_dict()
        assert embed["title"].startswith("✅") and "A100 SXM" in embed["title"]
        body = await answer(fake, slash(fake, "fit", model="70b int4", card="4090", count=2))
        (embed,) = body["data"]["embeds"]
        assert embed == format_embed(pair, catalog).to_dict()
        assert "2× RTX 4090" in embed_text(embed)
        # a card we do not have is named back, privately, not guessed
        bad = await answer(fake, slash(fake, "fit", model="70b", card="zz9000"))
        assert bad["data"]["flags"] & EPHEMERAL and "zz9000" in bad["data"]["content"]


async def test_compare_answers_side_by_side(fake: FakeDiscord, catalog: Catalog) -> None:
    shared = RequestOptions(context_tokens="32k")
    expected = compare(["llama 3.1 8b", "qwen2.5 7b"], catalog=catalog, options=shared)
    typed = ask("llama 3.1 8b vs qwen2.5 7b at 32k", catalog=catalog)
    assert expected.kind == "compare" and expected.verdict == typed.verdict
    cards = compare(["H100", "A100", "MI300X"], locale="pl", catalog=catalog)
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        body = await answer(
            fake,
            slash(fake, "compare", first="llama 3.1 8b", second="qwen2.5 7b", context="32k"),
        )
        (embed,) = body["data"]["embeds"]
        assert embed == format_embed(expected, catalog).to_dict()
        assert escape(expected.verdict or "") in embed_text(embed)
        assert "19.1 GB" in embed_text(embed) and "22.4 GB" in embed_text(embed)

        body = await answer(
            fake, slash(fake, "compare", "pl", first="H100", second="A100", third="MI300X")
        )
        (embed,) = body["data"]["embeds"]
        assert cards.lang == "pl" and embed == format_embed(cards, catalog).to_dict()
        assert [i.card.name for i in cards.items if i.card] == ["H100 SXM", "A100 SXM", "MI300X"]

        # a vague item asks which model was meant, listing the names (no menu to re-ask with)
        vague = await answer(fake, slash(fake, "compare", first="lama", second="qwen2.5 7b"))
        assert escape(ask("lama", catalog=catalog).headline) in embed_text(
            vague["data"]["embeds"][0]
        )
        assert not vague["data"].get("components")


async def test_vram_task_and_card_options_are_honoured(fake: FakeDiscord, catalog: Catalog) -> None:
    qlora = ask("13b", catalog=catalog, options=RequestOptions(task="qlora", card="RTX 4090"))
    assert qlora.kind == "fit" and qlora.request is not None and qlora.request.task == "qlora"
    full = ask("13b", catalog=catalog, options=RequestOptions(task="full"))
    assert full.request is not None and full.request.task == "full"
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        body = await answer(fake, slash(fake, "vram", query="13b", task="qlora", card="4090"))
        (embed,) = body["data"]["embeds"]
        assert embed == format_embed(qlora, catalog).to_dict()
        assert "QLoRA" in embed_text(embed) and "RTX 4090" in embed_text(embed)
        body = await answer(fake, slash(fake, "vram", query="13b", task="full"))
        assert body["data"]["embeds"][0] == format_embed(full, catalog).to_dict()

        (sync,) = fake.command_syncs
        cmds = {c["name"]: c for c in sync.json}
        opts = {o["name"]: o for o in cmds["vram"]["options"]}
        assert [c["value"] for c in opts["task"]["choices"]] == [
            "inference",
            "full",
            "lora",
            "qlora",
        ]
        assert opts["task"]["choices"][3]["name_localizations"]["pl"] == "Dostrajanie QLoRA"
        assert opts["card"]["autocomplete"] and not opts["card"].get("required")
        fit = {o["name"]: o for o in cmds["fit"]["options"]}
        assert list(fit) == ["model", "card", "count", "precision", "context"]
        assert fit["model"]["autocomplete"] and fit["card"]["autocomplete"]
        assert (
            fit["model"]["required"]
            and fit["card"]["required"]
            and not fit["count"].get("required")
        )
        assert cmds["fit"]["name_localizations"] == {"pl": "zmieści", "th": "รันได้ไหม"}
        cmp = [o["name"] for o in cmds["compare"]["options"]]
        assert cmp == ["first", "second", "third", "precision", "context"]
        assert cmds["compare"]["name_localizations"]["pl"] == "porównaj"


async def test_autocomplete_for_fit_and_compare(fake: FakeDiscord, catalog: Catalog) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        body = await answer(
            fake, fake.autocomplete_interaction("fit", [fake.option("model", "lama 3.1 70")])
        )
        names = [c["name"] for c in body["data"]["choices"]]
        assert names[0] == "lama 3.1 70" and any("Llama 3.1 70B" in n for n in names[1:])
        body = await answer(
            fake,
            fake.autocomplete_interaction(
                "fit", [fake.option("model", "70b"), fake.option("card", "a6", focused=True)]
            ),
        )
        assert body["data"]["choices"][0] == {"name": "RTX A6000", "value": "RTX A6000"}
        body = await answer(
            fake, fake.autocomplete_interaction("compare", [fake.option("first", "h100")])
        )
        values = [c["value"] for c in body["data"]["choices"]]
        assert values[0] == "h100" and "H100 SXM" in values


@pytest.mark.parametrize("locale", ["en-US", "pl", "th"])
async def test_named_commands_equal_the_typed_engine_answers(
    fake: FakeDiscord, catalog: Catalog, locale: str
) -> None:
    lang = locale[:2]
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        for name, values, options in [
            ("gpus", {}, RequestOptions(kind="cards")),
            ("card", {"name": "A40"}, RequestOptions(kind="card", card="A40")),
            ("faq", {"topic": "kv_cache"}, RequestOptions(kind="faq", faq_topic="kv_cache")),
        ]:
            expected = ask("", lang, catalog=catalog, options=options)
            body = await answer(fake, slash(fake, name, locale, **values))
            assert body["data"]["embeds"][0] == format_embed(expected, catalog).to_dict(), name


async def test_help_in_polish_and_thai_shows_their_examples(
    fake: FakeDiscord, catalog: Catalog
) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        for lang in ("pl", "th"):
            body = await answer(fake, slash(fake, "help", lang))
            text = embed_text(body["data"]["embeds"][0])
            assert escape(t(catalog, lang, "help.example_1")) in text
            assert "70b int4 128k\n" not in text  # not the English example
            assert "/" + t(catalog, lang, "dc.cmd.compare.name") in text


async def test_link_buttons_only_when_configured(fake: FakeDiscord, catalog: Catalog) -> None:
    async with fake.running(make_bot(make_settings(), make_desk(catalog)), token=TOKEN):
        for q in ("70b int4 128k", "405b full fine-tune"):
            assert links((await answer(fake, slash(fake, "vram", query=q)))["data"]) == []
        assert links((await answer(fake, slash(fake, "faq", topic="sales")))["data"]) == []
    async with fake.running(make_bot(linked(), make_desk(catalog)), token=TOKEN):
        shown = await answer(fake, slash(fake, "vram", query="70b int4 128k"))
        rent = [("Rent A100 SXM", "https://rent.example.com/order?card=A100%20SXM")]
        assert links(shown["data"]) == rent
        assert len(custom_ids(shown["data"])) == 3  # details and two alternatives stay
        cluster = await answer(fake, slash(fake, "vram", query="405b full fine-tune"))
        assert links(cluster["data"]) == [("Talk to sales", SALES)]
        topic = await answer(fake, slash(fake, "faq", "pl", topic="sales"))
        assert links(topic["data"]) == [(t(catalog, "pl", "render.link.sales"), SALES)]
        card = await answer(fake, slash(fake, "card", name="4090"))
        assert links(card["data"]) == [("Rent RTX 4090", RENT.format(card="RTX%204090"))]
        # the details press keeps the links; another user's press changes nothing
        math_id = custom_ids(shown["data"])[0]
        click = fake.component_interaction(math_id, user_id="999")
        before = json.dumps(fake.messages[click["message"]["id"]], sort_keys=True)
        other = await answer(fake, click)
        assert other["data"]["flags"] & EPHEMERAL
        assert json.dumps(fake.messages[click["message"]["id"]], sort_keys=True) == before
        mine = await answer(fake, fake.component_interaction(math_id))
        assert mine["type"] == 7 and links(mine["data"]) == rent


@pytest.mark.parametrize(
    "value",
    [
        "http://example.com/rent",
        "ftp://example.com",
        "example.com",
        "https://",
        "https://x.com/{id}",
        "https://x.com/a b",
    ],
)
def test_link_urls_must_be_https(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("VRAMCHAT_RENT_URL", value)
    with pytest.raises(SettingsError, match="VRAMCHAT_RENT_URL"):
        load_settings()
    monkeypatch.delenv("VRAMCHAT_RENT_URL")
    monkeypatch.setenv("VRAMCHAT_SALES_URL", value)
    with pytest.raises(SettingsError, match="VRAMCHAT_SALES_URL"):
        load_settings()
    monkeypatch.setenv("VRAMCHAT_SALES_URL", SALES)
    monkeypatch.setenv("VRAMCHAT_RENT_URL", RENT)
    s = load_settings()
    assert (s.vramchat_rent_url, s.vramchat_sales_url) == (RENT, SALES)
