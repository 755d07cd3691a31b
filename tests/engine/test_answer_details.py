"""Details of a sizing answer's text that must agree with its own headline: the pick's block
says "single card" when a cheaper multi-card set is shown, alternatives keep to a budget, the
math lines multiply out as written, decode and link lines name what they mean."""

from __future__ import annotations

import pytest

from engine import Catalog, ask, load_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("text", "lang", "title"),
    [
        ("llama 3.1 70b, budget $1,500 a month", "en", "Cheapest single card that holds it"),
        ("llama 3.1 70b", "en", "Cheapest single card that holds it"),
        ("qwen 2.5 72b", "en", "Cheapest single card that holds it"),
        ("llama 3.1 70b", "pl", "Najtańsza pojedyncza karta, która to pomieści"),
        ("llama 3.1 70b", "th", "การ์ดเดี่ยวที่ถูกที่สุดที่รองรับได้"),
    ],
)
def test_single_card_block_named_so_when_a_cheaper_set_is_shown(
    cat: Catalog, text: str, lang: str, title: str
) -> None:
    a = ask(text, catalog=cat, lang=lang)
    p = a.recommendation
    assert a.kind == "sizing" and p is not None and p.count == 1
    shown = [*a.alternatives, a.within_budget]
    assert any(o and o.count > 1 and o.monthly_usd < p.monthly_usd for o in shown)
    assert [s.title for s in a.sections][1] == title


def test_plain_cheapest_card_kept_when_no_set_is_cheaper(cat: Catalog) -> None:
    a = ask("llama 3.1 8b", catalog=cat)
    p = a.recommendation
    assert p is not None and p.count == 1
    assert all(o.monthly_usd >= p.monthly_usd or o.count == 1 for o in a.alternatives)
    assert [s.title for s in a.sections][1] == "Cheapest card that holds it"


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("budget 100 dollars a week, llama 3.1 70b", 428.6),
        ("llama 3.1 70b, budget $1,500 a month", 1500),
        ("budget $200/month for llama 3.1 8b", 200),
        ("qwen 2.5 72b under $1200/month", 1200),
        ("mixtral 8x22b for $2000 a month", 2000),
    ],
)
def test_alternatives_stay_within_the_budget(cat: Catalog, text: str, budget: float) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "sizing" and a.budget_usd == pytest.approx(budget, abs=0.5)
    assert all(o.monthly_usd <= a.budget_usd for o in a.alternatives), a.alternatives
    w = a.within_budget
    if w is not None:  # the budget's own pick is the headline, never repeated below it
        assert all((o.card, o.count) != (w.card, w.count) for o in a.alternatives)
    rec = a.recommendation
    assert rec is not None
    block = a.sections[1].lines[0]
    assert ("over the" in block) == (rec.monthly_usd > a.budget_usd), block
