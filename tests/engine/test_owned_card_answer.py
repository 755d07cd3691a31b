"""A card people own that we do not rent (data/hardware.yaml), asked about itself: "specs",
"is it good for llms?", "worth it?", "czy ... nada się do llm", "... ดีไหม". The answer is the
card's sheet from data, the "what fits on it" list, and apart from both that we do not rent
it, with the cheapest card we do rent that has at least its memory."""

from __future__ import annotations

import pytest

from engine import Answer, Catalog, ask, default_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return default_catalog()


QUESTIONS = [
    ("rx 7900 xtx specs", "Radeon RX 7900 XTX", "en"),
    ("is 7900 xtx good for llms", "Radeon RX 7900 XTX", "en"),
    ("is a 3060 enough for local llms", "RTX 3060 12GB", "en"),
    ("is the 5080 worth it", "RTX 5080", "en"),
    ("rtx pro 6000 specs", "RTX PRO 6000 Blackwell", "en"),
    ("czy 4070 ti super nada się do llm", "RTX 4070 Ti Super", "pl"),
    ("czy 3060 jest dobra do llm", "RTX 3060 12GB", "pl"),
    ("4060 ti 16gb ดีไหมสำหรับ llm", "RTX 4060 Ti 16GB", "th"),
    ("สเปค 7900 xtx", "Radeon RX 7900 XTX", "th"),
]


@pytest.mark.parametrize(("text", "name", "lang"), QUESTIONS)
def test_an_owned_card_asked_about_gets_its_sheet_and_what_fits(
    cat: Catalog, text: str, name: str, lang: str
) -> None:
    a = ask(text, catalog=cat)
    mine = cat.owned_by_name[name]
    assert a.kind == "capacity" and a.lang == lang
    o = a.owned_card
    assert o is not None and o.name == name and o.count == 1
    assert (o.vram_gb, o.bandwidth_gbps, o.fp8) == (mine.vram_gb, mine.bandwidth_gbps, mine.fp8)
    assert (o.vendor, o.arch) == (mine.vendor, mine.arch)
    # the headline is the card: its memory and bandwidth from data
    assert a.headline.startswith(f"{name}: ")
    assert f"{mine.vram_gb:g} GB" in a.headline
    # the list is the what-fits list of the same card, under its own title
    plain = ask(f"what fits on {name}", lang, catalog=cat)
    assert [r.model_id for r in a.budget] == [r.model_id for r in plain.budget]
    assert a.budget and all(r.need_gb <= mine.vram_gb for r in a.budget)
    assert a.budget[0].model in a.headline
    titles = [s.title for s in a.sections]
    assert plain.headline in titles
    # not rented, and the rental beside it, in a section of its own
    rent = o.rental
    assert rent is not None and rent.name in {c.name for c in cat.cards}
    assert rent.vram_gb >= mine.vram_gb
    last = a.sections[2]
    assert name in last.lines[0] and rent.name in last.lines[1]
    assert a.text.count(rent.name) >= 1


def test_the_sheet_says_fp8_from_data(cat: Catalog) -> None:
    amd = ask("rx 7900 xtx specs", catalog=cat)
    ada = ask("4070 ti super specs", catalog=cat)
    assert "no FP8" in amd.headline and "FP8: not supported" in amd.text
    assert "FP8 supported" in ada.headline and "FP8: supported" in ada.text
    assert "AMD" in amd.text and "RDNA 3" in amd.text


def test_a_card_without_fp8_lists_no_fp8_rows(cat: Catalog) -> None:
    """The RTX 3060 (Ampere) computes no FP8: its list never offers an FP8 row, and each row
    carries the card's own decode ceiling."""
    for text in ("is a 3060 good for llms?", "what fits on my 3060"):
        a = ask(text, catalog=cat)
        assert a.budget and all(r.precision != "fp8" for r in a.budget)
        assert all(r.decode_tok_s and r.card == "RTX 3060 12GB" for r in a.budget)
        assert all(r.rent_card for r in a.budget) and "FP8" not in a.sections[0].title
        assert "on your RTX 3060 12GB" in a.text


def test_the_rental_is_the_cheapest_single_card_with_its_memory(cat: Catalog) -> None:
    a = ask("is the 5080 worth it", catalog=cat)
    o = a.owned_card
    assert o is not None and o.rental is not None
    mine = cat.owned_by_name["RTX 5080"]
    holding = [c for c in cat.cards if c.min_count == 1 and c.vram_gb >= mine.vram_gb and c.fp8]
    assert o.rental.monthly_usd == min(c.monthly_usd for c in holding)
    assert o.rental.fp8


def test_we_say_we_do_not_rent_it_in_each_language(cat: Catalog) -> None:
    en = ask("can i rent a 3060", catalog=cat)
    pl = ask("czy mogę wynająć 3060", catalog=cat)
    th = ask("เช่า 3060 ได้ไหม", catalog=cat)
    assert "We do not rent the RTX 3060 12GB" in en.text
    assert "Nie wynajmujemy karty RTX 3060 12GB" in pl.text
    assert "เราไม่ได้ให้เช่า RTX 3060 12GB" in th.text
    for a in (en, pl, th):
        assert a.owned_card is not None and a.owned_card.rental is not None
        assert a.owned_card.rental.name in a.text


def test_two_of_an_owned_card(cat: Catalog) -> None:
    a = ask("is 2x 3060 good for llms", catalog=cat)
    o = a.owned_card
    assert o is not None and o.count == 2 and o.vram_gb == 12
    assert a.headline.startswith("2× RTX 3060 12GB: 24 GB in all")
    assert o.rental is not None and o.rental.vram_gb >= 24
    assert any(r.need_gb > 12 for r in a.budget)


@pytest.mark.parametrize(
    "text",
    [
        "what fits on a 7900 xtx",  # a list asked for: the list, as before
        "7900 xtx",
        "best model for my 3060",
        "good coding model for a 4060 ti",
        "is a 3060 good for llama 3 8b",  # a model on it: a fit
        "is a 3060 enough for lamma 9000",  # a model we do not know: which one?
        "card a40",  # a card we rent: its own sheet
    ],
)
def test_other_questions_about_cards_are_answered_as_before(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.owned_card is None


def _json(a: Answer) -> dict[str, object]:
    return a.to_json()


def test_the_json_carries_owned_card(cat: Catalog) -> None:
    j = _json(ask("rx 7900 xtx specs", catalog=cat))
    o = j["owned_card"]
    assert isinstance(o, dict)
    assert o["name"] == "Radeon RX 7900 XTX" and o["fp8"] is False
    assert isinstance(o["rental"], dict) and o["rental"]["monthly_usd"] > 0
    assert _json(ask("what fits on a 7900 xtx", catalog=cat))["owned_card"] is None
