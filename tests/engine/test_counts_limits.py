"""How many cards, the limits a set reaches, speed first, card against card and the short
follow-ups of a chat: each case answered wrongly before its fix (a count of the next power of
two, a limit planned to the last byte, the fit verdict before the speed asked for)."""

from __future__ import annotations

import math

import pytest

from engine import Catalog, ask, load_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("text", "card", "count", "first"),
    [
        ("Full fine-tune of Qwen3 8B on A6000s — how many and price?", "RTX A6000", 4, "4×"),
        ("How many RTX 3090s to full fine-tune Mistral 7B v0.3?", "RTX 3090", 6, "6×"),
        ("How many H100s for a full fine-tune of Llama 3.1 70B", "H100 SXM", 17, "17×"),
        ("ile RTX 3090 do pełnego dostrajania Mistral 7B v0.3?", "RTX 3090", 6, "6×"),
        ("full fine-tune llama 3.1 8b บน l40s กี่ใบ", "L40S", 4, "4×"),
        ("how many a40s to full fine-tune qwen2.5 7b", "A40", None, None),
    ],
)
def test_training_count_is_the_fewest_cards_that_hold_it(
    cat: Catalog, text: str, card: str, count: int | None, first: str | None
) -> None:
    """Training shards over any count (the heads rule is inference's): the count is the
    smallest whose memory holds the run, one card fewer does not."""
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.fit is not None and a.fit.card == card
    vram = cat.card_by_name[card].vram_gb
    need = a.to_json()["memory_gb"]["total"]
    assert a.fit.fits
    assert a.fit.count == math.ceil(need / vram)
    assert (a.fit.count - 1) * vram < need
    if count is not None:
        assert a.fit.count == count
    if first is not None:
        assert first in a.text.splitlines()[0]
    assert "attention heads" not in a.text  # the inference rule is not given as the reason
