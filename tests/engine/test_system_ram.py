"""System RAM said beside the GPU ("my 3090, I have 64gb ram", "64 GB DDR5", "64gb ramu",
"แรม 64gb") is memory the card cannot use: never a second VRAM amount to check, never the
card's own amount (a variant), and said back in a note. A Mac's RAM is its unified memory,
and "gpu ram" or GDDR is VRAM: those stay as they were."""

from __future__ import annotations

import pytest

from engine import Answer, ask
from engine.answer import default_catalog
from engine.understand import parse


def _fit_cards(a: Answer) -> list[str]:
    data = a.to_json()
    return [f["card"] for f in data.get("fits") or [data["fit"]]] if a.kind == "fit" else []


def _codes(a: Answer) -> list[str]:
    return [c["code"] for c in a.to_json()["caveats"]]


@pytest.mark.parametrize(
    ("text", "ram", "card"),
    [
        ("llama 3.3 70b on my 3090, I have 64gb ram", 64, "RTX 3090"),
        ("3090 + 32gb ram, can I run qwen2.5 14b?", 32, "RTX 3090"),
        ("64gb ddr5 and a 4090, qwen 32b?", 64, "RTX 4090"),
        ("4090 with 128 GB of system RAM, llama 3.1 70b int4", 128, "RTX 4090"),
        ("ram: 32gb, gpu 4090, qwen2.5 14b", 32, "RTX 4090"),
        ("mam 4090 i 64gb ramu, czy qwen 32b wejdzie?", 64, "RTX 4090"),
        ("มี 4090 แรม 64gb รัน qwen 32b ได้ไหม", 64, "RTX 4090"),
    ],
)
def test_system_ram_is_not_vram(text: str, ram: float, card: str) -> None:
    q = parse(text, default_catalog())
    assert q.system_ram_gb == ram and q.vram_gb is None
    assert q.variant is None  # not "an RTX 4090 with 64 GB"
    a = ask(text)
    assert a.kind == "fit" and _fit_cards(a) == [card]  # one verdict: the card's
    assert "system_ram" in _codes(a)
    assert f"{ram} GB" in a.text


@pytest.mark.parametrize(
    ("text", "vram"),
    [
        ("qwen 32b on 24gb gpu ram", 24),
        ("24gb gddr6x card, qwen 32b?", 24),
        ("does qwen2.5 14b fit in 24gb?", 24),
    ],
)
def test_gpu_memory_said_as_ram_or_gddr_stays_vram(text: str, vram: float) -> None:
    q = parse(text, default_catalog())
    assert q.vram_gb == vram and q.system_ram_gb is None
    assert "system_ram" not in _codes(ask(text))


def test_a_macs_ram_is_its_unified_memory() -> None:
    q = parse("70b on m2 max 96gb ram", default_catalog())
    assert q.unified and q.vram_gb == 96 and q.system_ram_gb is None


def test_the_cards_own_amount_said_as_ram_is_no_note() -> None:
    q = parse("3090 24gb ram qwen 32b", default_catalog())
    assert q.system_ram_gb is None and q.vram_gb is None


def test_ram_alone_asks_for_the_card_and_says_why() -> None:
    a = ask("i have 64gb ram")
    assert a.kind != "fit" and "What fits in 64 GB" not in a.text
    assert "system_ram" in _codes(a) and "graphics card" in a.text
    pl = ask("mam 64gb ramu")
    assert pl.lang == "pl" and "system_ram" in _codes(pl)
