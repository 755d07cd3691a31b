"""The "what to buy" answer, second round (a user trial): training runs get desktop cards,
a money amount with buy words is a purchase budget (said unpriced, never a rental budget),
an owned card asked about with buy/worth words gets its own answer, and a mixed comparison
of cards says a verdict instead of its header twice."""

from __future__ import annotations

import pytest

from engine import Answer, ask, load_catalog
from engine.catalog import Catalog

HOME = {"en": "At home:", "pl": "W domu:", "th": "ที่บ้าน:"}
DATACENTER = ("MI300X", "H100", "H200", "B200", "A100", "L40S", "A40")


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def desktop(cat: Catalog) -> set[str]:
    return {c.name for c in cat.cards if c.desktop} | set(cat.owned_by_name)


def _verdict_on_desktop(a: Answer, cat: Catalog, lang: str) -> None:
    assert a.kind == "fit" and a.leads_with == "buying"
    assert a.headline.startswith(HOME[lang])
    assert a.buying and a.buying[0].role == "verdict"
    assert all(o.card in desktop(cat) for o in a.buying)
    assert a.fit is not None and a.fit.fits
    assert not any(d in a.headline for d in DATACENTER)


@pytest.mark.parametrize(
    ("text", "lang", "task"),
    [
        ("what should i buy at home to fine-tune a 13b model", "en", "full"),
        ("jaką kartę kupić do fine-tuningu llama 8b w domu", "pl", "full"),
        ("i want to train a 7b lora at home, which card should i buy", "en", "lora"),
        ("ซื้อการ์ดอะไรดีสำหรับ qlora 13b ที่บ้าน", "th", "qlora"),
    ],
)
def test_training_at_home_gets_desktop_cards(cat: Catalog, text: str, lang: str, task: str) -> None:
    a = ask(text, catalog=cat)
    _verdict_on_desktop(a, cat, lang)
    assert a.lang == lang
    assert a.request is not None and a.request.task == task
    v = a.buying[0]
    assert v.task == task and v.decode_tok_s is None
    assert v.total_gb == pytest.approx(a.memory_gb["total"])  # the training sizing's own sum
    assert 1 <= v.count <= 4


def test_qlora_13b_at_home_is_one_card_as_on_my_4090(cat: Catalog) -> None:
    """The same sizing as "does qlora 13b fit on my 4090": one desktop card holds it."""
    owned = ask("does qlora 13b fit on my 4090", catalog=cat)
    a = ask("what gpu should i buy at home for qlora 13b", catalog=cat)
    _verdict_on_desktop(a, cat, "en")
    assert a.buying[0].count == 1
    assert a.memory_gb["total"] == pytest.approx(owned.memory_gb["total"])


def test_full_fine_tune_too_big_names_the_lighter_method(cat: Catalog) -> None:
    a = ask("what should i buy at home to fully fine-tune a 70b", catalog=cat)
    _verdict_on_desktop(a, cat, "en")
    assert a.request is not None and a.request.task in ("lora", "qlora")
    assert "A full fine-tune needs" in a.headline and "more than 4 desktop cards" in a.headline
    assert a.buying[0].task == a.request.task


@pytest.mark.parametrize(
    ("text", "lang", "said"),
    [
        ("best gpu to buy for 70b under $2000", "en", "$2,000"),
        ("budżet 3000 dolarów, jaką kartę kupić do qwen 32b", "pl", "3\u00a0000"),
        ("ซื้อการ์ดงบ 50000 บาท รัน qwen 32b", "th", "50000 บาท"),
    ],
)
def test_buy_budget_is_a_purchase_not_a_rental(
    cat: Catalog, text: str, lang: str, said: str
) -> None:
    a = ask(text, catalog=cat)
    _verdict_on_desktop(a, cat, lang)
    notes = {n.code: n.text for n in a.caveats}
    assert "buy_budget" in notes and said in notes["buy_budget"]
    assert "other_currency" not in notes
    assert a.budget_usd is None  # not kept as a monthly rental budget for follow-ups
    text_all = a.headline + " ".join(" ".join(s.lines) for s in a.sections)
    assert "within" not in text_all


@pytest.mark.parametrize(
    ("text", "lang", "said"),
    [
        ("co kupić do domu za 5000 zł do llm", "pl", "5000 zł"),
        ("what gpu should i buy for $2000", "en", "$2,000"),
    ],
)
def test_model_less_buy_budget_is_a_friendly_reply(
    cat: Catalog, text: str, lang: str, said: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind not in ("help", "clarify", "error")  # `vram ask` exits 0
    assert a.lang == lang and said in a.headline
    body = " ".join(a.sections[0].lines)
    assert said in body and ("32b" in body or "70b" in body)  # an example


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("is a 3060 12gb worth buying for llms in 2026", "en"),
        ("should i buy a 3060 12gb", "en"),
        ("czy warto kupić 3060 12gb do llm w 2026", "pl"),
        ("ควรซื้อ 3060 12gb ไหม", "th"),
    ],
)
def test_owned_card_worth_buying_gets_the_card_answer(cat: Catalog, text: str, lang: str) -> None:
    a = ask(text, catalog=cat)
    assert a.owned_card is not None and a.owned_card.name == "RTX 3060 12GB"
    assert a.request is None or a.request.context_tokens != 2026  # a year, not a context


def test_a_year_is_no_context_but_a_bare_number_is(cat: Catalog) -> None:
    a = ask("llama 3.1 8b in 2026", catalog=cat)
    assert a.request is not None and a.request.context_tokens == 8192
    b = ask("llama 3.1 8b 2048", catalog=cat)
    assert b.request is not None and b.request.context_tokens == 2048


@pytest.mark.parametrize(
    "text", ["should i buy 2x 3090 or one 5090 for llm at home", "2x 3090 vs 5090"]
)
def test_mixed_comparison_says_a_verdict_not_its_header_twice(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "compare" and a.verdict
    assert a.headline != a.sections[0].title
    assert "RTX 3090" in a.verdict
