""" "70b fp8 on h100 or mi300x": when every other part is a card alone, the comparison check
decides without parsing the parts. Its answer must be the one the full check gives, for every
card spelling, separator and subject (the full check is forced by making no part bare)."""

from __future__ import annotations

import json
import random

import pytest

from engine import ask, load_catalog
from engine.catalog import Catalog
from engine.understand import pipeline

SUBJECTS = [
    "70b fp8",
    "qwen3 32b bf16 32k",
    "gpt-oss-120b",
    "ile vram dla llama 3.1 8b int4",
    "ต้องใช้ VRAM เท่าไร 13b",
    "deepseek-r1:8b 4 users",
    "mixtral 8x7b q4_k_m 128k",
    "does 34b fit on",
]
SEPARATORS = [" or ", " vs ", " czy ", " albo ", " หรือ ", " or a ", " versus "]


def _questions(cat: Catalog, n: int) -> list[str]:
    rng = random.Random(16)
    spellings = [a for c in cat.fleet.cards for a in (c.name, *c.aliases)]
    spellings += list(cat.owned_by_name)
    out = []
    for _ in range(n):
        cards = [rng.choice(spellings) for _ in range(rng.choice([2, 2, 3]))]
        first = rng.choice(SUBJECTS)
        head = f"{first} {cards[0]}" if rng.random() < 0.7 else f"{cards[0]} for {first}"
        rest = "".join(rng.choice(SEPARATORS) + c for c in cards[1:])
        out.append(head + rest + rng.choice(["?", "", "!"]))
    return out


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def test_bare_card_parts_are_recognised(cat: Catalog) -> None:
    assert pipeline._bare_card("mi300x", cat)
    assert pipeline._bare_card(" H100 SXM ", cat)
    assert not pipeline._bare_card("2x a40", cat)  # a count is more than a card
    assert not pipeline._bare_card("70b on h100", cat)
    assert not pipeline._bare_card("h100 fp8", cat)


def test_shortcut_answers_as_the_full_check(cat: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    questions = _questions(cat, 600)
    fast = [
        json.dumps(ask(q, catalog=cat).to_json(), sort_keys=True, default=str) for q in questions
    ]
    monkeypatch.setattr(pipeline, "_bare_card", lambda part, catalog: False)
    full = [
        json.dumps(ask(q, catalog=cat).to_json(), sort_keys=True, default=str) for q in questions
    ]
    assert fast == full
    kinds = {json.loads(a)["kind"] for a in full}
    assert {"fit", "compare"} <= kinds  # both outcomes of the check were exercised
