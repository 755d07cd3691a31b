"""A LoRA rank said ("rank 64", "r=8", "ranga 128") sizes the adapters at that rank: their
state grows with the rank from the sources' rank-16 rule (0.5% of the parameters), the
verdict follows, the answer says the rank, and a follow-up keeps it."""

from __future__ import annotations

import pytest

from engine import ask, context_of


def _adapters(text: str, **kw: object) -> float:
    a = ask(text, **kw)  # type: ignore[arg-type]
    assert a.memory_gb is not None
    return a.memory_gb["adapters"]


@pytest.mark.parametrize(
    ("text", "plain", "rank"),
    [
        ("lora rank 64 qwen3 32b", "lora qwen3 32b", 64),
        ("qlora 70b r=8", "qlora 70b", 8),
        ("lora qwen3 32b ranga 128", "lora qwen3 32b", 128),
        ("70b qlora on a 4090 with rank 256", "70b qlora on a 4090", 256),
    ],
)
def test_adapter_state_grows_with_the_rank_said(text: str, plain: str, rank: int) -> None:
    a = ask(text)
    assert a.request is not None and a.request.lora_rank == rank
    assert _adapters(text) == pytest.approx(_adapters(plain) * rank / 16)
    assert a.to_json()["request"]["lora_rank"] == rank
    assert (
        f"{rank}" in " ".join(n.text for n in a.assumptions + a.caveats) or f"Rank-{rank}" in a.text
    )


def test_rank_16_and_no_rank_are_the_sources_rule() -> None:
    assert _adapters("llama 3.1 8b lora rank 16") == pytest.approx(_adapters("llama 3.1 8b lora"))
    assert ask("llama 3.1 8b lora").request.lora_rank is None  # type: ignore[union-attr]


def test_a_larger_rank_can_change_the_verdict() -> None:
    small, big = ask("lora qwen3 32b on an a100"), ask("lora qwen3 32b on an a100 rank 64")
    assert small.fit is not None and big.fit is not None
    assert small.fit.fits and not big.fit.fits


def test_a_rank_alone_means_lora_and_a_follow_up_keeps_it() -> None:
    a = ask("qwen 32b rank 64")
    assert a.request is not None and a.request.task == "lora" and a.request.lora_rank == 64
    b = ask("32k", previous=context_of(a))
    assert b.request is not None and b.request.lora_rank == 64 and b.request.context_tokens == 32768
