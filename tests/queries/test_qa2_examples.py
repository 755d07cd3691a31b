"""Questions from a QA pass, each through engine.ask: two cards with "vs" compare, Thai "กับ"
between two models compares, a Mac is plain capacity, a family name with several sizes asks
which, the short form's tiny margin, capacity lists size models as released, stock questions
say what the data knows, and the MoE caveat opens in the reply language."""

from __future__ import annotations

import pytest

from bot.render.short import short_lines
from engine import Answer, ask, default_catalog


def _text(a: Answer) -> str:
    lines = [a.headline or ""]
    for s in a.sections:
        lines.extend(s.lines)
    lines.extend(n.text for n in a.caveats)
    return "\n".join(lines)


@pytest.mark.parametrize(
    "q",
    [
        "4090 vs 5090 for qwen3 32b",
        "qwen3 32b 4090 versus 5090",
        "porównaj 4090 i 5090 dla qwen3 32b",
    ],
)
def test_two_cards_with_vs_compare(q: str) -> None:
    a = ask(q)
    assert a.kind == "compare" and a.verdict
    got = [(i.fit.card if i.fit else None) for i in a.items]
    assert got == ["RTX 4090", "RTX 5090"]
    assert all(i.request and i.request.model and i.request.model.id == "qwen3-32b" for i in a.items)


def test_or_between_cards_stays_one_fit() -> None:
    assert ask("70b fp8 h100 or mi300x?").kind == "fit"


def test_an_owned_card_against_a_rented_one() -> None:
    a = ask("4080 vs 4090 for qwen3 14b")
    assert a.kind == "compare"
    fits = [i.fit for i in a.items]
    assert [f.card for f in fits if f] == ["RTX 4080", "RTX 4090"]
    assert [f.offered for f in fits if f] == [False, True]


def test_thai_with_between_two_models_compares() -> None:
    a = ask("glm 4.5 air กับ qwen3 next 80b อันไหนใช้ vram น้อยกว่า")
    assert a.lang == "th" and a.kind == "compare"
    ids = [i.request.model.id for i in a.items if i.request and i.request.model]
    assert ids == ["glm-4.5-air", "qwen3-next-80b-a3b"]
    assert a.verdict and "Qwen3-Next" in a.verdict


def test_thai_with_between_a_model_and_a_card_stays_a_fit() -> None:
    assert ask("70b กับ 4090").kind == "fit"


@pytest.mark.parametrize(
    ("q", "lang"),
    [
        ("มี mac 128gb รัน deepseek r1 ได้ไหม", "th"),
        ("can my 128 GB mac run deepseek r1", "en"),
        ("czy mój mac studio 128gb uciągnie deepseek r1?", "pl"),
    ],
)
def test_a_mac_is_plain_capacity(q: str, lang: str) -> None:
    a = ask(q)
    assert a.lang == lang and a.kind == "fit" and a.fit is not None
    assert a.request is not None and a.request.model is not None
    assert a.request.model.id == "deepseek-r1"
    assert a.fit.vram_gb == 128 and a.fit.fits is False
    assert "128 GB has 128 GB" not in _text(a)


@pytest.mark.parametrize(
    "q", ["qwen3.5 ile vram?", "how much vram for qwen3.5", "qwen3.5 ใช้ vram เท่าไหร่"]
)
def test_a_family_with_several_sizes_asks_which(q: str) -> None:
    a = ask(q)
    assert a.kind == "clarify"
    names = {c.name for c in a.candidates}
    assert {"Qwen3.5 27B", "Qwen3.5 35B-A3B"} <= names
    assert all(n in _text(a) for n in names)


@pytest.mark.parametrize(("lang", "tiny"), [("en", "<0.1 GB"), ("pl", "<0,1 GB")])
def test_short_form_says_under_a_tenth_for_a_tiny_margin(lang: str, tiny: str) -> None:
    a = ask("qwen3 32b q4_k_m on a 4090", lang)  # asked at the edge: it leads as asked
    assert a.fit is not None and a.fit.fits and a.fit.best is not None
    assert 0 < a.fit.headroom_gb < 0.05
    first = short_lines(a, default_catalog())[0]
    assert tiny in first and " 0 GB" not in first and " 0,0 GB" not in first


@pytest.mark.parametrize(
    "q", ["what can i run on 24gb", "co odpalę na 24 GB?", "what can i run on a 4090"]
)
def test_capacity_sizes_models_as_released(q: str) -> None:
    a = ask(q)
    assert a.kind == "capacity" and a.budget
    oss = [o for o in a.budget if o.model_id == "gpt-oss-20b"]
    assert oss and oss[0].precision == "mxfp4"
    alone = ask("gpt-oss-20b")  # the same figure the model's own sizing gives
    assert alone.memory_gb is not None
    assert oss[0].need_gb == pytest.approx(alone.memory_gb["total"])
    assert all(o.need_gb <= 24 for o in a.budget)


def test_stock_question_says_what_the_data_knows() -> None:
    a = ask("do you have h100s in stock")
    assert a.kind == "faq" and a.faq_topic == "regions"
    text = _text(a)
    assert "no stock figure for the H100 SXM" in text and "MI300X (8)" in text
    assert "sales" in text


@pytest.mark.parametrize(
    ("lang", "opening"), [("pl", "Mieszanka ekspertów"), ("th", "โมเดลแบบผสม")]
)
def test_moe_caveat_opens_in_the_reply_language(lang: str, opening: str) -> None:
    a = ask("qwen3 30b a3b", lang)
    moe = [n.text for n in a.caveats if n.code == "moe"]
    assert moe and moe[0].startswith(opening) and not moe[0].startswith("Mixture")


def test_a_released_row_reads_its_experts_at_their_own_rate() -> None:
    cat = default_catalog()
    a = ask("what can i run on a 4090")
    row = next(o for o in a.budget if o.model_id == "gpt-oss-20b")
    spec = cat.model_by_id["gpt-oss-20b"]
    assert spec.moe is not None and spec.active_params_b is not None
    moe = spec.moe
    assert moe.expert_intermediate_size is not None and moe.moe_layers is not None
    experts_b = moe.moe_layers * moe.experts * 3 * spec.hidden_size * moe.expert_intermediate_size
    routed = experts_b / 1e9 * moe.experts_per_token / moe.experts
    rate = cat.precision_by_name
    read = routed * rate["mxfp4"].bytes_per_param + (spec.active_params_b - routed) * 2
    card = cat.card_by_name["RTX 4090"]
    assert row.decode_tok_s == pytest.approx(card.bandwidth_gbps / read, rel=1e-6)
