"""Rental questions in the words people use in a DM, in en, pl and th: each reaches the FAQ
answer it asks about (not the help text), with the numbers read from the price list."""

from __future__ import annotations

import pytest

from engine import ask, load_catalog


@pytest.mark.parametrize(
    ("q", "lang"),
    [
        ("do you take paypal", "en"),
        ("can i pay by card or bank transfer?", "en"),
        ("mogę zapłacić przez paypal?", "pl"),
        ("จ่ายผ่าน paypal ได้ไหม", "th"),
    ],
)
def test_payment_in_other_words(q: str, lang: str) -> None:
    a = ask(q)
    assert a.kind == "faq" and a.faq_topic == "payment" and a.lang == lang
    methods = load_catalog().fleet.provider.payment_methods
    assert all(m in "\n".join(s for sec in a.sections for s in sec.lines) for m in methods)


@pytest.mark.parametrize(
    ("q", "lang"),
    [
        ("is there a discount if i rent for longer", "en"),
        ("any discounts for long term?", "en"),
        ("czy są jakieś rabaty przy dłuższym wynajmie?", "pl"),
        ("มีส่วนลดไหมถ้าเช่ายาว", "th"),
    ],
)
def test_discount_questions_get_the_discounts(q: str, lang: str) -> None:
    a = ask(q)
    assert a.kind == "faq" and a.faq_topic == "discounts" and a.lang == lang
    text = "\n".join(line for sec in a.sections for line in sec.lines)
    for d in load_catalog().fleet.discounts:
        assert f"{d.pct:g}% ({d.count})" in text
    assert a.card is not None  # the weekly price quoted is that card's


def test_a_sizing_question_that_mentions_the_discount_stays_a_sizing() -> None:
    a = ask("4x a100 for llama 3.1 70b, what's the price after the discount?")
    assert a.kind == "fit"
