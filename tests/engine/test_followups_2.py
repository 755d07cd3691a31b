"""Follow-ups in a chat that used to repeat the last answer or not be understood: "cheaper?"
and "why?" after a pick, "and at 32k?" after a budget's or a card's list, and "show the math"
(the same answer with its math shown)."""

from __future__ import annotations

import pytest

from bot.render.text import format_text
from bot.store import context_from_json, context_to_json
from engine import Answer, Catalog, ask, context_of, load_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def _chat(cat: Catalog, *texts: str) -> list[Answer]:
    answers: list[Answer] = []
    prev = None
    for text in texts:
        a = ask(text, catalog=cat, previous=prev)
        answers.append(a)
        prev = context_of(a) or prev
    return answers


def _first(a: Answer) -> str:
    return a.text.split("\n", 1)[0]


@pytest.mark.parametrize(("then", "word"), [("cheaper?", "Cheaper:"), ("taniej?", "Taniej:")])
def test_cheaper_after_the_cheapest_fp8_card_goes_to_a_lighter_precision(
    cat: Catalog, then: str, word: str
) -> None:
    """H100 PCIe is the cheapest FP8 card for 70B: the next lighter precision on a cheaper
    card is INT4 on one A40 (40 GB, $240), said as such, not the first answer again."""
    first, b = _chat(cat, "which card for llama 3.3 70b in fp8?", then)
    assert first.recommendation is not None and first.recommendation.card == "H100 PCIe"
    assert b.kind == "sizing" and b.follows_up == "cheaper"
    assert b.request is not None and b.request.precision == "int4"
    assert b.recommendation is not None
    assert (b.recommendation.card, b.recommendation.count) == ("A40", 1)
    assert b.recommendation.monthly_usd == 240
    assert b.memory_gb is not None and round(b.memory_gb["total"]) == 40
    assert _first(b).startswith(word) and b.text != first.text
    assert "H100 PCIe" in _first(b) and "490" in _first(b)  # the pick and price it beats


def test_cheaper_at_the_same_precision_first(cat: Catalog) -> None:
    """2× H100 SXM for 70B FP16: the fleet's one-card pick costs less at FP16 itself, then
    its cheapest set (4× A40), and only then a lighter precision."""
    a, b, c, d = _chat(cat, "llama 3.1 70b fp16 on h100s", "cheaper?", "cheaper?", "cheaper?")
    assert a.fit is not None and a.fit.count == 2
    assert b.request is not None and b.request.precision == "fp16"
    assert b.recommendation is not None and b.recommendation.card == "MI300X"
    assert c.kind == "fit" and c.fit is not None and (c.fit.card, c.fit.count) == ("A40", 4)
    assert c.request is not None and c.request.precision == "fp16"
    assert c.fit.monthly_usd is not None and c.fit.monthly_usd < b.recommendation.monthly_usd
    assert d.request is not None and d.request.precision != "fp16"
    assert d.follows_up == "cheaper" and _first(d).startswith("Cheaper:")


@pytest.mark.parametrize(
    ("then", "word"),
    [("cheaper?", "Nothing cheaper:"), ("taniej?", "Taniej się nie da:")],
)
def test_nothing_cheaper_is_said_plainly(cat: Catalog, then: str, word: str) -> None:
    """70B at INT4 on one A40 ($240) has no cheaper set nor a lighter ladder rung that is."""
    a, b = _chat(cat, "llama 3.3 70b int4", then)
    assert a.recommendation is not None and a.recommendation.card == "A40"
    assert b.follows_up == "no_cheaper" and _first(b).startswith(word)
    assert b.recommendation == a.recommendation


@pytest.mark.parametrize(("then", "word"), [("why?", "Why:"), ("dlaczego?", "Dlaczego:")])
def test_why_explains_the_pick_with_its_sums(cat: Catalog, then: str, word: str) -> None:
    a, b = _chat(cat, "which card for llama 3.3 70b in fp8?", then)
    assert b.follows_up == "why" and b.show_math and b.math
    assert b.recommendation == a.recommendation and b.memory_gb == a.memory_gb
    line = _first(b)
    assert line.startswith(word) and line != _first(a)
    assert "FP8" in line and "70" in line and "75" in line and "H100 PCIe" in line


def test_why_after_a_fit_says_how_short_the_card_is(cat: Catalog) -> None:
    a, b = _chat(cat, "does qwen2.5 32b fit on a 4090?", "why?")
    assert b.kind == "fit" and b.fit is not None and a.fit is not None and not b.fit.fits
    line = _first(b)
    assert line.startswith("Why:") and "RTX 4090 has 24 GB" in line and "too little" in line


def test_why_in_thai(cat: Catalog) -> None:
    _, b = _chat(cat, "llama 3.1 8b บน l40s", "ทำไม")
    assert b.lang == "th" and _first(b).startswith("เหตุผล:")


def test_the_renderer_leads_with_the_follow_up_line(cat: Catalog) -> None:
    _, b = _chat(cat, "which card for llama 3.3 70b in fp8?", "cheaper?")
    assert format_text(b, cat).startswith("Cheaper:")


@pytest.mark.parametrize(
    ("first", "then", "ctx", "users"),
    [
        ("what can I run for $500 a month?", "and with 4 users at 16k?", 16384, 4),
        ("what can I run for $500 a month?", "and at 32k?", 32768, 1),
        ("what can I run for $500 a month?", "what about 4 users", 8192, 4),
        ("what can I run for $500 a month?", "a przy 32k?", 32768, 1),
        ("co uruchomię za $300 miesięcznie?", "a dla 2 użytkowników?", 8192, 2),
    ],
)
def test_a_budget_list_is_asked_again_at_the_new_shape(
    cat: Catalog, first: str, then: str, ctx: int, users: int
) -> None:
    a, b = _chat(cat, first, then)
    assert a.kind == "budget" and b.kind == "budget" and b.budget_usd == a.budget_usd
    assert b.budget and all((r.context_tokens, r.batch) == (ctx, users) for r in b.budget)
    assert all(r.monthly_usd <= (a.budget_usd or 0) for r in b.budget)
    assert "I could not find" not in b.text


@pytest.mark.parametrize(
    ("first", "then", "card", "ctx", "users"),
    [
        ("what can I run on my 3090?", "and at 32k?", "RTX 3090", 32768, 1),
        ("what can I run on my 3090?", "and with 4 users at 16k?", "RTX 3090", 16384, 4),
        ("what can I run on my 3090?", "a przy 32k?", "RTX 3090", 32768, 1),
        ("what fits on 2x a40?", "what about 4 users", "2× A40", 8192, 4),
        ("what fits in 48gb", "and at 64k?", "48 GB", 65536, 1),
        ("what fits on my 4060 ti?", "and at 16k?", "RTX 4060 Ti", 16384, 1),
    ],
)
def test_a_capacity_list_is_asked_again_on_the_same_hardware(
    cat: Catalog, first: str, then: str, card: str, ctx: int, users: int
) -> None:
    a, b = _chat(cat, first, then)
    assert a.kind == b.kind == "capacity"
    assert a.fit is not None and b.fit is not None
    assert b.fit.card.startswith(card) and b.fit.card == a.fit.card
    assert b.fit.vram_gb == a.fit.vram_gb
    assert b.budget and all((r.context_tokens, r.batch) == (ctx, users) for r in b.budget)
    assert all(r.need_gb <= (b.fit.vram_gb or 0) for r in b.budget)


def test_the_shape_of_a_list_carries_to_the_next_follow_up(cat: Catalog) -> None:
    _, _, c = _chat(cat, "what can I run for $500 a month?", "and at 32k?", "and 4 users?")
    assert c.kind == "budget" and c.budget
    assert all((r.context_tokens, r.batch) == (32768, 4) for r in c.budget)


def test_a_list_context_survives_the_shared_store(cat: Catalog) -> None:
    a = ask("what can I run on my 3090?", catalog=cat)
    ctx = context_of(a)
    assert ctx is not None and ctx.listing == "capacity"
    back = context_from_json(context_to_json(ctx))
    assert back == ctx
    b = ask("and at 32k?", catalog=cat, previous=back)
    assert b.kind == "capacity" and b.budget and b.budget[0].context_tokens == 32768


def test_a_model_after_a_budget_list_stays_within_the_budget(cat: Catalog) -> None:
    _, b = _chat(cat, "what can I run for $500 a month?", "what about qwen2.5 72b?")
    assert b.kind == "sizing" and b.budget_usd == 500
    assert b.within_budget is not None and b.within_budget.monthly_usd <= 500


@pytest.mark.parametrize(
    ("then", "lang"),
    [
        ("show math", "en"),
        ("show the math", "en"),
        ("explain", "en"),
        ("pokaż obliczenia", "pl"),
        ("แสดงวิธีคิด", "th"),
    ],
)
def test_show_the_math_as_a_follow_up(cat: Catalog, then: str, lang: str) -> None:
    a, b = _chat(cat, "llama 3.1 70b int4 on an a40", then)
    assert b.kind == a.kind == "fit" and b.lang == lang
    assert b.show_math and b.follows_up == "math" and b.math
    assert b.fit is not None and a.fit is not None and b.fit.card == a.fit.card
    assert not a.show_math
    shown = format_text(b, cat)
    assert b.math[0] in shown and a.math[0] not in format_text(a, cat)


@pytest.mark.parametrize(
    "text", ["llama 3.1 8b fp16, show the math", "explain llama 3.1 8b in fp8 on an l4"]
)
def test_show_the_math_inside_a_question(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind in ("sizing", "fit") and a.show_math and a.math
    assert a.request is not None and a.request.model is not None
    assert a.math[0] in format_text(a, cat)


def test_show_the_math_after_a_budget_list(cat: Catalog) -> None:
    _, b = _chat(cat, "what can I run for $500 a month?", "show the math")
    assert b.kind == "budget" and b.show_math
