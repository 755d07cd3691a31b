"""Different cards a person owns together ("my 3090 + 3080 10GB", "mam 3090 i 3060") are one
rig: the pool split by layers in proportion to memory, each card's share checked, the speed of
layers run in turn; a choice between cards ("4090 or 3090") stays a choice."""

from __future__ import annotations

import pytest

from engine import Answer, ask, load_catalog
from engine.answer import context_of
from engine.kinds.hardware import Hardware
from engine.kinds.rig import Part, Rig, room_gb, split


def _text(a: Answer) -> str:
    lines = [a.headline or ""]
    for s in a.sections:
        lines.extend(s.lines)
    return "\n".join(lines)


def _rig(a: Answer) -> list[tuple[str, int]]:
    return [(c["card"], c["count"]) for c in a.to_json()["rig"]]


def test_3090_plus_3080_is_one_34_gb_rig_with_q6_k_and_q5_k_m_on_it() -> None:
    a = ask("Does DeepSeek-R1-Distill-Qwen-32B fit on my 3090 + 3080 10GB?")
    j = a.to_json()
    assert a.kind == "fit" and len(a.fits) == 1
    f = j["fit"]
    assert f["card"] == "RTX 3090 + RTX 3080 10GB" and f["vram_gb"] == 34
    assert _rig(a) == [("RTX 3090", 1), ("RTX 3080 10GB", 1)]
    by = {o["precision"]: o for o in f["options"]}
    assert by["q6_k"]["fits"] and by["q6_k"]["headroom_gb"] == pytest.approx(3.0, abs=0.05)
    assert by["q5_k_m"]["fits"] and by["q5_k_m"]["headroom_gb"] == pytest.approx(6.6, abs=0.05)
    assert not by["q8_0"]["fits"]
    assert f["best"]["precision"] in ("q6_k", "q5_k_m")
    assert "4× RTX 3090" not in _text(a)  # no "use more of one card" for a rig
    assert a.headline.startswith("Not in BF16 on RTX 3090 + RTX 3080 10GB")
    # layers in proportion to memory: 24:10 of 64 layers
    layers = [c["layers"] for c in j["rig"]]
    assert sum(layers) == 64 and layers[0] == pytest.approx(64 * 24 / 34, abs=1)
    # a token passes the cards in turn: slower than the 3090 alone, faster than the 3080 alone
    read = f["best"]["total_gb"] - j["memory_gb"]["kv_cache"] - j["memory_gb"]["overhead"]
    assert 760 / read < f["decode_tok_s"] < 936 / read
    assert "in turn" in _text(a)
    assert f["rental"] is not None and f["offered"] is False


def test_iq2_xs_70b_fits_the_36_gb_of_a_3090_and_a_3060() -> None:
    a = ask("Llama 3.3 70B in IQ2_XS on my RTX 3090 + RTX 3060")
    f = a.to_json()["fit"]
    assert f["fits"] and f["vram_gb"] == 36
    assert f["headroom_gb"] == pytest.approx(36 - a.memory_gb["total"])  # type: ignore[index]
    assert a.headline.startswith("Yes:") and "RTX 3090 + RTX 3060 12GB" in a.headline


def test_4090_and_3090_stated_total_is_the_rig_not_a_second_target() -> None:
    a = ask("I have an RTX 4090 and an RTX 3090 (48 GB total). Llama 3.3 70B Q4_K_M?")
    assert len(a.fits) == 1 and a.fit is not None
    assert a.fit.card == "RTX 4090 + RTX 3090" and a.fit.vram_gb == 48
    assert a.fit.fits and a.fit.tight
    assert a.headline.startswith("Yes:")
    assert "Not on" not in _text(a)


@pytest.mark.parametrize(
    ("q", "rig", "vram"),
    [
        ("llama 3.3 70b q4_k_m on my 3090 and a 3060", [("RTX 3090", 1), ("RTX 3060 12GB", 1)], 36),
        (
            "Llama 3.3 70B Q4_K_M on my 2x 3090 + 1x 3060",
            [("RTX 3090", 2), ("RTX 3060 12GB", 1)],
            60,
        ),
        ("rig with 3090, 3060: qwen2.5 32b q6_k?", [("RTX 3090", 1), ("RTX 3060 12GB", 1)], 36),
        ("my 4090 + 3060 12gb, qwen3 32b q8_0?", [("RTX 4090", 1), ("RTX 3060 12GB", 1)], 36),
    ],
)
def test_other_rigs_are_read_as_one(q: str, rig: list[tuple[str, int]], vram: float) -> None:
    a = ask(q)
    assert a.kind == "fit" and len(a.fits) == 1
    assert _rig(a) == rig and a.fit is not None and a.fit.vram_gb == vram


def test_two_3090s_and_a_3060_hold_70b_q4_k_m_with_room() -> None:
    a = ask("Llama 3.3 70B Q4_K_M on my 2x 3090 + 1x 3060")
    assert a.fit is not None and a.fit.fits and not a.fit.tight
    assert a.fit.headroom_gb == pytest.approx(60 - 47.4, abs=0.1)
    assert "RTX 3060 12GB" in a.headline and "Not on" not in _text(a)


@pytest.mark.parametrize(
    ("q", "lang", "first"),
    [
        ("mam 3090 i 3060, czy llama 3.3 70b iq2_xs się zmieści?", "pl", "Tak"),
        ("ผมมี 3090 กับ 3060 รัน llama 3.3 70b iq2_xs ได้ไหม", "th", None),
    ],
)
def test_polish_and_thai_rigs(q: str, lang: str, first: str | None) -> None:
    a = ask(q)
    assert a.lang == lang and a.fit is not None and a.fit.fits
    assert _rig(a) == [("RTX 3090", 1), ("RTX 3060 12GB", 1)]
    if first:
        assert a.headline.startswith(first)
    text = _text(a)
    assert "RTX 3090 + RTX 3060 12GB" in text and "tensor-split" in text


@pytest.mark.parametrize(
    "q",
    ["4090 or 3090 for running qwen3 14b q4_k_m?", "qwen3 14b q4_k_m na 4090 czy 3090?",
     "does llama 70b fit on my 4090 or my 3090?", "70b on h100 and a100"],
)  # fmt: skip
def test_a_choice_between_cards_stays_a_choice(q: str) -> None:
    assert ask(q).to_json()["rig"] == []


def test_a_follow_up_stays_on_the_rig() -> None:
    first = ask("Llama 3.3 70B in IQ2_XS on my RTX 3090 + RTX 3060")
    a = ask("and in q4_k_m?", previous=context_of(first))
    assert a.kind == "fit" and a.fit is not None
    assert a.fit.card == "RTX 3090 + RTX 3060 12GB" and not a.fit.fits
    assert a.fit.headroom_gb == pytest.approx(36 - 47.4, abs=0.1)


def test_each_card_share_is_checked_by_whole_layers() -> None:
    """A pool with room can still leave a card short: whole layers do not split."""
    big = Part("big", 1, 20.0, 900.0, True)
    small = Part("small", 1, 2.5, 400.0, True)
    hw = Hardware("big + small", None, 2, 22.5, None, True, None, "big + small")
    rig = Rig((big, small), hw)
    # 4 layers of 5 GB: 20 + 2 overhead = 22 of 22.5, but the small card cannot hold a layer
    held, room = split(rig, 22.0, 4)
    assert sum(held) == 4 and min(room) < 0
    assert room_gb(rig, 22.0, 4) < 0
    assert room_gb(rig, 12.0, 4) == pytest.approx(10.5)  # 2.5 GB layers fit both cards


def test_a_stated_nvlink_bridge_is_the_link_line() -> None:
    a = ask("Qwen2.5 32B q8_0 on my 2x 3090 with NVLink")
    assert a.fit is not None and a.fit.link_gbps == load_catalog().card("RTX 3090").bridge_gbps  # type: ignore[union-attr]
    assert "NVLink bridges between pairs" in _text(a)
    plain = ask("Qwen2.5 32B q8_0 on my 2x 3090 without nvlink")
    assert plain.fit is not None and plain.fit.link_gbps == 32


@pytest.mark.parametrize(
    "text", ["2x 3090 nvlink 70b", "70b int4 on 2x 3090 nvlink", "2x 3090 + nvlink, qwen2.5 32b"]
)
def test_nvlink_after_a_card_is_its_bridge_not_an_unknown_variant(text: str) -> None:
    a = ask(text)
    assert a.fit is not None and a.fit.link_gbps == load_catalog().card("RTX 3090").bridge_gbps  # type: ignore[union-attr]
    assert "card_variant_word" not in [n.code for n in a.caveats + a.assumptions]


@pytest.mark.parametrize(
    ("text", "label", "vram"),
    [
        ("rtx 4070 laptop 8gb qwen2.5 7b", "RTX 4070 Laptop", 8.0),
        ("4070 mobile with 8gb, gemma 3 12b?", "4070 Laptop", 8.0),
        ("4090 laptop 16gb llama 3.1 8b", "4090 Laptop", 16.0),
    ],
)
def test_a_laptop_chip_with_its_memory_is_one_verdict_on_that_memory(
    text: str, label: str, vram: float
) -> None:
    a = ask(text)
    assert a.kind == "fit" and len(a.fits) <= 1 and a.fit is not None
    assert a.fit.vram_gb == vram and a.fit.card.startswith(label)


def test_a_laptop_chip_without_its_memory_is_said_to_be_sized_as_the_desktop_card() -> None:
    a = ask("does qwen2.5 14b fit on my rtx 4070 laptop?")
    notes = [n.text for n in a.caveats + a.assumptions if n.code == "card_variant_word"]
    assert notes and "RTX 4070 Laptop" in notes[0] and "RTX 4070" in notes[0]
