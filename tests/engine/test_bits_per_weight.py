"""Bits per weight said as such ("exl2 4.65bpw", "6 bpw") size the weights at no fewer bits:
the lightest llama.cpp type with at least that many stands in, and the answer says which.
A precision named as well wins; "exl2" is never read as part of a model's name."""

from __future__ import annotations

import pytest

from engine import ask
from engine.answer import default_catalog


@pytest.mark.parametrize(
    ("text", "bits", "lang"),
    [
        ("mixtral 8x7b exl2 4.65bpw on 3090", 4.65, "en"),
        ("llama 3.1 8b exl2 6bpw", 6.0, "en"),
        ("llama 3.1 70b 2.5 bpw on 4090", 2.5, "en"),
        ("ile vram dla qwen 32b exl2 5.0bpw", 5.0, "pl"),
    ],
)
def test_bits_per_weight_size_at_the_lightest_type_with_at_least_that_many(
    text: str, bits: float, lang: str
) -> None:
    cat = default_catalog()
    a = ask(text)
    assert a.request is not None and a.request.model is not None and a.lang == lang
    used = cat.precision_by_name[a.request.precision]
    assert used.gguf and used.bits >= bits
    lighter = [p for p in cat.precisions if p.gguf and bits <= p.bits < used.bits]
    assert not lighter  # the lightest such type
    assert "bpw" in [n.code for n in a.assumptions]
    assert a.request.model.id not in ("", None) and "exl2" not in a.request.model.id


def test_a_named_precision_wins_over_bits_per_weight() -> None:
    a = ask("llama 3.1 8b q8_0 6bpw")
    assert a.request is not None and a.request.precision == "q8_0"
    assert "bpw" not in [n.code for n in a.assumptions]


def test_fp4_is_nvfp4() -> None:
    a = ask("llama 3.3 70b fp4 on 2x 5090")
    assert a.request is not None and a.request.precision == "nvfp4"
    assert "unknown_precision" not in [n.code for n in a.caveats]
