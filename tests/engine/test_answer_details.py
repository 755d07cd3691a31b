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
