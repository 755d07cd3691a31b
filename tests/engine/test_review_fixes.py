"""Inputs a review of the day's change found mishandled, kept as plain examples."""

from __future__ import annotations

from engine import ask, load_catalog

CAT = load_catalog()


def test_a_huge_amount_after_a_card_is_no_variant_and_no_crash() -> None:
    for text in ("16-BIT a40 " + "9" * 300 + "gb", "is a 3090 " + "9" * 320 + "gb enough for 13b"):
        a = ask(text, catalog=CAT)
        assert a.kind not in ("error",) and a.headline
        assert not any("I know no" in x.text for x in a.assumptions)


def test_a_zero_amount_after_a_card_leaves_the_card() -> None:
    a = ask("a100 0gb llama 3.1 8b", catalog=CAT)
    assert a.kind == "fit" and a.fit is not None and a.fit.card == "A100 SXM"


def test_training_over_many_cards_is_sharded_not_tensor_parallel() -> None:
    a = ask("how many h100s for a full fine-tune of llama 3.1 70b", catalog=CAT)
    assert a.fit is not None and a.fit.count == 17
    lines = [x for sec in a.sections for x in sec.lines]
    assert any("ZeRO-3" in x for x in lines)
    assert not any("tensor parallel" in x for x in lines)


def test_a_bridge_said_is_read_and_a_bridge_denied_is_not() -> None:
    said = ask("llama 3.1 70b int4 on my two 3090s with nvlink", catalog=CAT)
    denied = ask("llama 3.1 70b int4 on my two 3090s without nvlink", catalog=CAT)
    assert said.fit is not None and denied.fit is not None
    assert said.fit.link_gbps == 112.5 and denied.fit.link_gbps != 112.5


def test_the_tensor_parallel_caveat_names_its_link_once() -> None:
    a = ask("70b batch 32", catalog=CAT)
    (note,) = [n.text for n in a.caveats if n.code == "tensor_parallel"]
    assert "link" not in note.rsplit(":", 1)[-1]  # "... between pairs link." read twice


def test_a_speed_follow_up_answers_the_last_request_speed_first() -> None:
    from engine import context_of

    first = ask("llama 3.1 8b on rtx 4090", catalog=CAT)
    ctx = context_of(first)
    for text, lang, word in (
        ("how fast is it?", "en", "Speed:"),
        ("tokens per second?", "en", "Speed:"),
        ("jak szybko?", "pl", "Szybkość:"),
        ("เร็วแค่ไหน?", "th", "ความเร็ว:"),
    ):
        a = ask(text, catalog=CAT, previous=ctx)
        assert a.kind == "fit" and a.lang == lang, text
        assert a.fit is not None and a.fit.card == "RTX 4090"
        assert a.headline.startswith(word) and a.decode_tok_s


def test_thai_cheaper_with_a_particle_is_cheaper() -> None:
    from engine import context_of

    ctx = context_of(ask("llama 3.1 8b on rtx 4090", catalog=CAT))
    a = ask("ถูกกว่านี้ล่ะ?", catalog=CAT, previous=ctx)
    assert a.follows_up == "cheaper" and a.lang == "th"
