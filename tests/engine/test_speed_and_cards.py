"""Questions about speed and about the cards themselves, asked as new users ask them: a speed
question leads with the decode ceiling, "X over Y" compares two cards, a buying question is
about cards one can own, and the prices quoted are those of the set actually rented."""

from __future__ import annotations

import re

import pytest

from bot.render.short import short_lines
from engine import ask, default_catalog
from engine.recommend import set_price


def _tok(line: str) -> float:
    m = re.search(r"(\d+(?:[.,]\d+)?) (?:tokens/s|tok/s|token/s)", line)
    assert m is not None, line
    return float(m.group(1).replace(",", "."))


# -- 1. a speed question gets the decode ceiling first, then the fit


@pytest.mark.parametrize(
    ("q", "lang", "opens"),
    [
        ("how fast is llama 3.1 8b on a 4090 tok/s", "en", "Speed:"),
        ("tokens per second for mistral 7b on an L4?", "en", "Speed:"),
        ("jaka szybkość llama 3.1 8b na rtx 3090?", "pl", "Szybkość:"),
        ("llama 3.1 8b บน 4090 เร็วแค่ไหน", "th", "ความเร็ว:"),
    ],
)
def test_speed_question_leads_with_the_decode_ceiling(q: str, lang: str, opens: str) -> None:
    a = ask(q)
    assert a.kind == "fit" and a.lang == lang and a.fit is not None and a.fit.fits
    assert a.leads_with == "speed"
    first = a.headline.split(". ")[0]
    assert a.headline.startswith(opens)
    assert a.decode_tok_s is not None and _tok(first) == round(a.decode_tok_s)
    assert a.text.splitlines()[0].startswith(opens)  # the text too, not line 6
    assert short_lines(a, default_catalog())[0].startswith(opens)  # and the chat form


def test_speed_of_a_precision_that_does_not_fit_is_the_best_rungs() -> None:
    """FP8 of Qwen3 30B-A3B does not fit a 5090: the speed of the rung that does, said so,
    and "ile tokenów/s" is a speed, not the longest context."""
    a = ask("qwen3 30b a3b na rtx 5090 w fp8 ile tokenów/s?")
    assert a.kind == "fit" and a.lang == "pl"
    f = a.fit
    assert f is not None and not f.fits and f.best is not None and f.best.fits
    best = f.best.precision.upper()  # the rung with real room the verdict leads with
    assert f.decode_tok_s and a.decode_tok_s == f.decode_tok_s
    assert f.best.decode_tok_s == pytest.approx(f.decode_tok_s)
    assert a.headline.startswith(f"Szybkość: FP8 nie mieści się na RTX 5090; w {best}")
    assert _tok(a.headline.split(". ")[0]) == round(f.decode_tok_s)


def test_speed_with_no_card_named_is_the_picks() -> None:
    a = ask("how fast is llama 3.1 70b?")
    assert a.kind == "sizing" and a.recommendation is not None
    assert a.recommendation.decode_tok_s
    assert a.headline.startswith("Speed: about")
    assert a.recommendation.card in a.headline.split(". ")[0]
    assert _tok(a.headline) == round(a.recommendation.decode_tok_s)


def test_a_plain_fit_question_still_opens_with_the_verdict() -> None:
    a = ask("llama 3.1 8b on a 4090")
    assert a.leads_with is None and a.headline.startswith("Yes:")
    assert ask("ile tokenów kontekstu zmieszczę z llamą 3.1 70b int4 na a100?").kind == "limit"


# -- 4. the prices quoted are those of the set rented; a precision is said once


def _per_hour(cat_hours: float, price: float, count: int) -> str:
    return f"${price / count / cat_hours:,.2f}"


@pytest.mark.parametrize(("q", "card", "count"), [
    ("What does 2x H100 cost per month, and per GPU-hour?", "H100 SXM", 2),
    ("price of 4x a100 per gpu hour", "A100 SXM", 4),
    ("8x mi300x cost", "MI300X", 8),
])  # fmt: skip
def test_a_sets_gpu_hour_is_the_sets_price(q: str, card: str, count: int) -> None:
    cat = default_catalog()
    a = ask(q)
    assert a.kind == "card" and a.card is not None and a.card.name == card
    price = set_price(cat, cat.card_by_name[card], count)[2]
    hour = _per_hour(cat.fleet.provider.hours_per_month, price, count)
    assert hour in a.headline
    assert f"${cat.card_by_name[card].monthly_usd / cat.fleet.provider.hours_per_month:,.2f}" \
        not in a.headline  # fmt: skip  # the list price per card is the sheet's, not the set's


@pytest.mark.parametrize("q", ["Can I rent one B200?", "card b200", "b200 specs"])
def test_a_set_only_cards_week_is_its_smallest_sets(q: str) -> None:
    cat = default_catalog()
    b200 = cat.card_by_name["B200"]
    assert b200.min_count == 2
    prov = cat.fleet.provider
    week = set_price(cat, b200, 2)[2] * prov.min_term_days * 24 / prov.hours_per_month
    a = ask(q)
    assert a.kind == "card"
    lines = [x for s in a.sections for x in s.lines]
    term = next(x for x in lines if "minimum term" in x)
    assert f"${week:,.0f}" in term and "2× B200" in term
    one_week = b200.monthly_usd * prov.min_term_days * 24 / prov.hours_per_month
    assert f"${one_week:,.0f}" not in a.text


def test_an_hourly_faq_of_a_set_only_card_quotes_the_sets_week() -> None:
    a = ask("can i rent a b200 by the hour")
    assert a.kind == "faq" and "$1,725 (2× B200)" in a.text and "$908" not in a.text


@pytest.mark.parametrize("q", [
    "max context qwen3 235b a22b fp8 on 8x h100",
    "qwen3 235b a22b fp8 on 8x h100",
    "how many users for glm-4.7 fp8 on 8x h200",
])  # fmt: skip
def test_a_release_named_for_its_precision_says_it_once(q: str) -> None:
    a = ask(q)
    assert a.request is not None and a.request.precision == "fp8"
    assert not re.search(r"FP8 (?:· )?FP8", a.text), a.text.splitlines()[0]
    assert "FP8" in a.headline


def test_a_capacity_list_says_a_releases_precision_once() -> None:
    a = ask("what can i run on 4x h200")
    rows = [x for s in a.sections for x in s.lines]
    assert any(x.startswith("GLM-4.7 in FP8") for x in rows)
    assert not any("FP8 in FP8" in x for x in rows)


# -- 2. "X over Y", "X instead of Y", "upgrade from Y to X": the two cards compared


@pytest.mark.parametrize(("q", "lang", "first", "second"), [
    ("is the h200 worth it over h100?", "en", "H200 SXM", "H100 SXM"),
    ("should i get a 4090 instead of a 3090", "en", "RTX 4090", "RTX 3090"),
    ("is mi300x better than h100", "en", "MI300X", "H100 SXM"),
    ("upgrade from a100 to h100 worth it?", "en", "A100 SXM", "H100 SXM"),
    ("h100 zamiast a100?", "pl", "H100 SXM", "A100 SXM"),
    ("l40s ดีกว่า a100 ไหม", "th", "L40S", "A100 SXM"),
])  # fmt: skip
def test_two_cards_weighed_are_compared(q: str, lang: str, first: str, second: str) -> None:
    a = ask(q)
    assert a.kind == "compare" and a.lang == lang
    assert [i.card.name for i in a.items if i.card is not None] == [first, second]
    rows = a.sections[0].lines
    assert rows[0].startswith(first) and rows[1].startswith(second)
    cat = default_catalog()
    c1, c2 = cat.card_by_name[first], cat.card_by_name[second]
    cheap, dear = sorted((c1, c2), key=lambda c: c.monthly_usd)
    extra = rows[2]  # what the dearer card's extra money buys
    assert extra.startswith(dear.name) and cheap.name in extra
    assert f"${dear.monthly_usd - cheap.monthly_usd:,.0f}" in extra


def test_what_the_h200_buys_over_the_h100() -> None:
    a = ask("is the h200 worth it over h100?")
    extra = a.sections[0].lines[2]
    assert extra == (
        "H200 SXM over H100 SXM: $600/month more (+36%) buys 61 GB more memory (+76%) and 43% "
        "more bandwidth, so a model both hold decodes up to about 43% faster."
    )
    assert "$16.24/GB" in a.text and "$21.13/GB" in a.text


def test_a_model_on_two_cards_stays_a_fit() -> None:
    a = ask("llama 3.1 70b int4 on a100 instead of h100?")
    assert a.kind != "compare" or all(i.kind == "fit" for i in a.items)


# -- 3. the cheapest card with a feature; a premise about $/GB is checked, not echoed


def _least_price(name: str) -> float:
    cat = default_catalog()
    c = cat.card_by_name[name]
    return set_price(cat, c, c.min_count)[2] if c.min_count > 1 else c.monthly_usd


@pytest.mark.parametrize(("q", "fp8", "gb", "opens"), [
    ("cheapest card with fp8?", True, 0.0, "The cheapest card with FP8 is the L4"),
    ("cheapest 80gb card", False, 80.0, "The cheapest card with at least 80 GB is the"),
    ("cheapest card with 48 gb", False, 48.0, "The cheapest card with at least 48 GB is the"),
    ("cheapest gpu with fp8 and 100gb", True, 100.0, "The cheapest card with FP8 and at least"),
    ("najtańsza karta z fp8", True, 0.0, "Najtańsza karta z FP8 to L4"),
    ("การ์ดที่ถูกที่สุดที่มี fp8", True, 0.0, "การ์ดที่ถูกที่สุดที่รองรับ FP8 คือ L4"),
])  # fmt: skip
def test_cheapest_card_with_a_feature(q: str, fp8: bool, gb: float, opens: str) -> None:
    cat = default_catalog()
    ok = [c for c in cat.cards if (c.fp8 or not fp8) and c.vram_gb >= gb]
    best = min(ok, key=lambda c: (_least_price(c.name), c.vram_gb))
    a = ask(q)
    assert a.kind == "card" and a.card is not None and a.card.name == best.name
    assert a.headline.startswith(opens) and best.name in a.headline
    assert f"{_least_price(best.name):,.0f}".replace(",", "") in a.headline.replace(
        ",", ""
    ).replace("\u00a0", "").replace(" ", "")


def test_cheapest_fp8_card_is_the_l4_at_250() -> None:
    a = ask("cheapest card with fp8?")
    assert a.headline == "The cheapest card with FP8 is the L4, at $250/month."


@pytest.mark.parametrize(("q", "lang", "opens"), [
    ("why is the 3090 cheaper than a5000 per gb", "en", "Per GB a month, RTX A5000 is the cheaper"),
    ("dlaczego 3090 jest tańsza od a5000 za gb", "pl", "Za GB miesięcznie taniej wychodzi RTX A5000"),
    ("ทำไม 3090 ถูกกว่า a5000 ต่อ gb", "th", "คิดต่อ GB ต่อเดือน RTX A5000 ถูกกว่า"),
])  # fmt: skip
def test_a_wrong_premise_on_price_per_gb_is_corrected(q: str, lang: str, opens: str) -> None:
    a = ask(q)
    assert a.kind == "compare" and a.lang == lang and a.verdict is not None
    assert a.verdict.startswith(opens)
    cat = default_catalog()
    a5000, r3090 = cat.card_by_name["RTX A5000"], cat.card_by_name["RTX 3090"]
    low, high = a5000.monthly_usd / a5000.vram_gb, r3090.monthly_usd / r3090.vram_gb
    assert low < high
    sep = "," if lang == "pl" else "."
    for x in (low, high):
        assert f"${x:.2f}".replace(".", sep) in a.verdict
