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


@pytest.mark.parametrize(
    ("text", "first_words"),
    [
        ("llama 3.1 8b on -2x 4090", "The number of cards has to be"),
        ("llama 3.1 8b on -2 4090s", "The number of cards has to be"),
        ("llama 3.1 8b on -2x 3060", "The number of cards has to be"),
        ("llama 3.1 8b on 0x 3060", "The number of cards has to be"),
        ("llama 8b on 1e30x h100", "1e30 cards is more than I size"),
        ("budget -300 dollars per month", "A budget has to be an amount of US dollars"),
        ("best model for -$300/month", "A budget has to be an amount of US dollars"),
        ("best model for $-300/month", "A budget has to be an amount of US dollars"),
        ("best model for $1e30/month", "“1e30” dollars is more budget than"),
        ("best model for $99999999999/month", "“99999999999” dollars is more budget"),
        ("llama 8b for 1e30 users", "1e30 users at once is more than I size"),
        ("llama 8b for 99999999999 users", "99999999999 users at once is more than"),
        ("llama 8b batch -3", "The number of users at once has to be"),
        ("qlora llama 3.1 8b sequence -2k", "The training sequence has to be at least"),
    ],
)
def test_a_number_below_zero_or_absurdly_large_is_said_back(text: str, first_words: str) -> None:
    a = ask(text)
    assert a.kind == "error" and a.headline.startswith(first_words)
    assert a.to_json()["kind"] == "error"


def test_said_back_in_polish_and_thai_names_the_slot() -> None:
    pl = ask("qlorę llama 3.1 8b z sekwencją -2k")
    assert pl.kind == "error" and pl.headline.startswith("Sekwencja treningowa musi mieć")
    assert "-2k" in pl.headline and "Kontekst" not in pl.headline
    big = ask("qlorę llama 3.1 8b z sekwencją 99999k")
    assert big.headline.startswith("„99999k” tokenów to dłuższa sekwencja treningowa")
    th = ask("งบ -300 ดอลลาร์ ต่อเดือน ใช้โมเดลไหนดี")
    assert th.kind == "error" and th.headline.startswith("งบต้องเป็นจำนวนเงินดอลลาร์สหรัฐ")
    users = ask("llama 8b dla 1e30 użytkowników")
    assert users.headline.startswith("1e30 równoczesnych użytkowników to więcej")


@pytest.mark.parametrize(
    "text",
    ["best model for $2-300/month", "qwen3-30b-a3b on 2x 4090 for 10 users", "rtx-4090 llama 8b"],
)
def test_a_dash_that_is_no_minus_is_read_as_before(text: str) -> None:
    assert ask(text).kind != "error"


@pytest.mark.parametrize(
    ("text", "said", "card"),
    [
        ("llama 3.1 70b fp8 on h100 nvl", "H100 NVL", "H100 SXM (80 GB)"),
        ("llama 3.1 8b on a100 pcie", "A100 PCIe", "A100 SXM (80 GB)"),
        ("llama 3.1 8b on h100 hgx", "H100 HGX", "H100 SXM (80 GB)"),
    ],
)
def test_a_variant_word_the_catalog_lacks_is_said_back(text: str, said: str, card: str) -> None:
    a = ask(text)
    notes = {n.code: n.text for n in a.assumptions}
    assert a.kind == "fit" and "card_variant_word" in notes
    assert notes["card_variant_word"].startswith(f"I do not know the {said}, so this is sized on")
    assert card in notes["card_variant_word"]
    pl = ask(text.replace(" on ", " na "))
    assert any(n.text.startswith(f"Nie znam karty {said}") for n in pl.assumptions)


def test_a_variant_with_its_amount_is_named_in_the_headline() -> None:
    a = ask("llama 3.1 8b on a100 40gb")
    assert a.headline.startswith("Yes") and "with 40 GB" in a.headline
    assert a.to_json()["fit"]["card"] == "A100 SXM with 40 GB" and a.to_json()["fit"]["fits"]
    h = ask("llama 3.1 70b int4 on h100 94gb")
    assert h.to_json()["fit"]["card"] == "H100 SXM with 94 GB"
    assert h.to_json()["fit"]["vram_gb"] == 94
    assert "card_variant_word" not in {n.code for n in h.assumptions}
    nvl = ask("h100 nvl 94gb llama 3.1 70b fp8 32k").to_json()["fit"]
    assert nvl["card"] == "H100 NVL with 94 GB" and nvl["vram_gb"] == 94


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("does qwen3 8b fit on an l40?", "L40"),
        ("qwen3 8b on a10g", "A10G"),
        ("qwen3 8b on a10", "A10"),
        ("qwen3 8b on t4", "T4"),
        ("qwen3 8b on v100", "V100"),
        ("qwen3 8b on rx 6800", "RX 6800"),
        ("qwen3 8b on arc a770", "Arc A770"),
    ],
)
def test_a_card_the_catalog_does_not_know_is_said_back(text: str, name: str) -> None:
    a = ask(text)
    assert a.kind == "error"
    assert a.headline.startswith(f"I do not know the {name}, so I cannot size on it")


def test_an_unknown_card_with_its_amount_is_sized_as_that_amount() -> None:
    a = ask("qwen3 8b on l40 48gb")
    f = a.to_json()["fit"]
    assert a.kind == "fit" and f["card"] == "L40 with 48 GB" and f["vram_gb"] == 48
    th = ask("qwen3 8b บน t4 ได้ไหม")
    assert th.kind == "error" and th.headline.startswith("ไม่รู้จัก T4")
    assert ask("qwen3 8b on l40s").to_json()["fit"]["card"] == "L40S"


@pytest.mark.parametrize("text", ["-5b int4", "-70b on a 4090", "ile vram dla -13b?"])
def test_a_size_below_zero_is_refused_as_a_size(text: str) -> None:
    from engine.answer import default_catalog
    from engine.understand import parse

    q = parse(text, default_catalog())
    assert q.size_b is None and q.bad_size_b is not None and q.bad_size_b < 0
    assert ask(text).kind == "help"


@pytest.mark.parametrize(("text", "size"), [("llama-3-8b", 8.0), ("qwen2.5-7b int4", 7.6)])
def test_a_dash_inside_a_name_is_no_minus(text: str, size: float) -> None:
    a = ask(text)
    assert a.kind == "sizing" and a.request is not None
    assert round(a.request.model.params_b, 1) == size
