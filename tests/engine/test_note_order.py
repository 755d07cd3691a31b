"""A context past what the model was trained for undoes a "fits": that note comes first,
whatever the answer kind, before the notes about memory and regions."""

from __future__ import annotations

import pytest

from engine import ask


@pytest.mark.parametrize(
    "text",
    [
        "llama 3.1 8b 10m context",
        "llama 3.1 8b 1m context on h100",
        "llama 3.1 8b 10m context fp8 kv cache 4 users",
        "ile vram dla llama 3.1 8b z kontekstem 10m",
    ],
)
def test_a_context_past_the_models_own_leads_the_notes(text: str) -> None:
    codes = [c.code for c in ask(text).caveats]
    assert codes and codes[0] == "beyond_max_context"
    assert codes.count("beyond_max_context") == 1
