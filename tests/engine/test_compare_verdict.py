"""A comparison's verdict says each item's best option as that item's own answer leads with
it: the same precision, the same KV cache and the same room, in every language."""

from __future__ import annotations

import pytest

from engine import ask


@pytest.mark.parametrize(
    ("text", "alone", "lang"),
    [
        ("gemma 3 27b vs qwen3 32b on a 5090", "qwen3 32b on a 5090", "en"),
        ("gemma 3 27b czy qwen3 32b na 5090?", "qwen3 32b na 5090", "pl"),
    ],
)
def test_each_items_best_is_said_as_its_own_answer_leads(text: str, alone: str, lang: str) -> None:
    single = ask(alone)
    f = single.fit
    assert f is not None and f.changes and f.changes[0].change == "precision_kv"
    lead = f.changes[0]
    room = f"{lead.headroom_gb:.1f}".replace(".", "," if lang == "pl" else ".")
    both = ask(text)
    assert both.kind == "compare" and both.lang == lang
    first = both.text.splitlines()[0]
    assert lead.precision.upper() in first and lead.kv_dtype in first and f"{room} GB" in first
    assert f"{room} GB" in single.text.splitlines()[0]
