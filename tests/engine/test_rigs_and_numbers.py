"""Cards, counts and numbers as people say them: a card named twice in a rig is two of it
("3090 + 3060 + 3060"), "another"/"drugą"/"อีกใบ" adds one, and a count, budget, user count or
sequence said below zero or absurdly large is said back, naming the slot."""

from __future__ import annotations

import pytest

from engine import Answer, ask


def _rig(a: Answer) -> list[tuple[str, int]]:
    return [(c["card"], c["count"]) for c in a.to_json()["rig"]]


@pytest.mark.parametrize(
    ("text", "label", "vram", "parts"),
    [
        (
            "my rig: 3090 + 3060 + 3060, llama 3.1 70b int4?",
            "RTX 3090 + 2× RTX 3060 12GB",
            48,
            [("RTX 3090", 1), ("RTX 3060 12GB", 2)],
        ),
        (
            "4090 + 4090 + 3090 llama 3.1 70b int4?",
            "2× RTX 4090 + RTX 3090",
            72,
            [("RTX 4090", 2), ("RTX 3090", 1)],
        ),
        (
            "3090, 3060 and another 3060: llama 3.1 70b int4?",
            "RTX 3090 + 2× RTX 3060 12GB",
            48,
            [("RTX 3090", 1), ("RTX 3060 12GB", 2)],
        ),
        (
            "3090 + 3060 + 2x 3060 llama 3.1 70b int4",
            "RTX 3090 + 3× RTX 3060 12GB",
            60,
            [("RTX 3090", 1), ("RTX 3060 12GB", 3)],
        ),
        (
            "mam 3070, 3060 i drugą 3060, llama 3.1 70b int4?",
            "2× RTX 3060 12GB + RTX 3070",
            32,
            [("RTX 3060 12GB", 2), ("RTX 3070", 1)],
        ),
    ],
)
def test_each_mention_of_a_card_counts_in_a_rig(
    text: str, label: str, vram: float, parts: list[tuple[str, int]]
) -> None:
    a = ask(text)
    f = a.to_json()["fit"]
    assert a.kind == "fit" and len(a.fits) == 1
    assert f["card"] == label and f["vram_gb"] == vram and f["count"] == 1
    assert _rig(a) == parts
    assert label in a.headline


@pytest.mark.parametrize(
    "text",
    [
        "my 3090 and another 3090: llama 3.1 70b int4?",
        "my 3090 and another one: llama 3.1 70b int4?",
        "i have a 3090 + a second one, llama 3.1 70b int4?",
        "mam 3090 i drugą: llama 3.1 70b int4?",
        "ผมมี 3090 และอีกใบ llama 3.1 70b int4",
    ],
)
def test_the_same_card_twice_is_two_of_it(text: str) -> None:
    a = ask(text)
    f = a.to_json()["fit"]
    assert a.kind == "fit" and f["card"] == "RTX 3090" and f["count"] == 2 and f["fits"]
    assert "2× RTX 3090" in a.headline


def test_a_choice_between_the_same_card_is_not_two_of_it() -> None:
    a = ask("4090 vs 4090 llama 3.1 70b int4")
    assert all(f.count == 1 for f in a.fits)
    assert "2× RTX 4090" not in a.headline
