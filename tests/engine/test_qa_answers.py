"""Questions asked the way people ask them in a channel or a DM, checked through engine.ask:
the answer leads with what was asked, the numbers follow the sizing rules (recomputed here
where they matter), and the words are the asker's language with no nonsense ("0 tokens",
"0 GB to spare" for a real margin, "1 users", "64 GB has 64 GB")."""

from __future__ import annotations

import re

import pytest

from engine import Answer, ask


def _all_text(a: Answer) -> str:
    lines = [a.headline or ""]
    for s in a.sections:
        lines.extend(s.lines)
    lines.extend(n.text for n in a.caveats)
    lines.extend(n.text for n in a.assumptions)
    return "\n".join(lines)


# -- limits lead with the asked number, never "0 tokens" for a precision that cannot run


def test_users_question_leads_with_the_user_count() -> None:
    a = ask("how many users can i serve on an h100 with gpt-oss-20b")
    assert a.kind == "limit" and a.limit is not None
    users = a.limit.max_batch
    assert users and users > 100  # 80 GB minus 16 GB of weights and overhead, 0.2 GB each
    assert f"{users} users" in (a.headline or "")
    assert "with an FP8 KV cache" in (a.headline or "")


@pytest.mark.parametrize(
    ("q", "lang"),
    [
        ("longest context for qwen3 30b a3b on a 4090", "en"),
        ("jaki najdłuższy kontekst dla qwen3 30b a3b na 4090?", "pl"),
        ("บริบทยาวสุดของ qwen3 30b a3b บน 4090 เท่าไหร่", "th"),
    ],
)
def test_context_question_when_bf16_does_not_fit_leads_with_the_context_that_fits(
    q: str, lang: str
) -> None:
    a = ask(q)
    assert a.kind == "limit" and a.limit is not None and a.lang == lang
    assert a.limit.max_context_tokens == 0  # BF16 (61 GB of weights) does not fit 24 GB
    q4 = next(o for o in a.limit.options if o.precision == "q4_k_m")
    # 24 GB - 18.45 GB of Q4_K_M weights - 2 GB, at 48 x 4 x 128 x 2 x 2 bytes per token
    assert q4.max_context_tokens // 1024 == 35
    head = a.headline or ""
    assert "Q4_K_M" in head and "35k" in head
    text = _all_text(a)
    assert not re.search(r"\b0 (tokens|token)\b", text)
    assert "0k" not in text.replace("40k", "")


def test_context_question_at_the_models_own_maximum_says_so() -> None:
    a = ask("longest context for gpt-oss-20b on a 5090")
    assert a.limit is not None and a.limit.max_context_tokens == 131072
    assert "128k" in (a.headline or "") and "maximum" in (a.headline or "")


def test_limit_on_fp8_hardware_does_not_list_the_cards_without_fp8() -> None:
    a = ask("how many users on an h100 for deepseek r1 fp8")
    codes = [n.code for n in a.caveats]
    assert "fp8_cards" not in codes


# -- tiny margins, plurals, plain amounts


def test_a_real_but_tiny_margin_is_not_printed_as_zero() -> None:
    a = ask("ollama gpt-oss:20b on 16gb")
    assert a.kind == "fit" and a.fit is not None and a.fit.fits
    assert 0 < a.fit.headroom_gb < 0.05
    text = _all_text(a)
    assert "<0.1 GB to spare" in text
    assert " 0 GB to spare" not in text and "(0 GB)" not in text


def test_one_user_is_not_one_users() -> None:
    a = ask("ollama gpt-oss:20b on 16gb")
    assert a.fit is not None and a.fit.max_batch == 1
    text = _all_text(a)
    assert "1 users" not in text and "only one user" in text


@pytest.mark.parametrize(
    ("q", "bad"),
    [
        ("i have a 64gb mac, can it run qwen3-next 80b?", "64 GB has 64 GB"),
        ("mam maca z 64 gb, pójdzie qwen3-next 80b?", "64 GB to 64 GB"),
        ("gemma 3n e4b fits on 8gb?", "8 GB has 8 GB"),
    ],
)
def test_a_plain_amount_is_not_said_twice(q: str, bad: str) -> None:
    a = ask(q)
    assert a.kind == "fit" and a.fit is not None and not a.fit.fits
    assert bad not in _all_text(a)


def test_lora_tight_fit_speaks_of_sequence_and_batch_not_users() -> None:
    a = ask("lora on mistral 7b 24gb enough?")
    tight = next(n for n in a.caveats if n.code == "tight")
    assert "users" not in tight.text and "batch" in tight.text


@pytest.mark.parametrize("q", ["gemma 3n e4b fits on 8gb?", "nemotron super 49b on an a100"])
def test_layers_without_state_do_not_claim_zero_mb_of_state(q: str) -> None:
    a = ask(q)
    hybrid = next(n for n in a.caveats if n.code == "hybrid_layers")
    assert "0 MB" not in hybrid.text


def test_hybrid_state_is_given_when_there_is_one() -> None:
    a = ask("i have a 64gb mac, can it run qwen3-next 80b?")
    hybrid = next(n for n in a.caveats if n.code == "hybrid_layers")
    assert re.search(r"\d MB per sequence", hybrid.text)


def test_gguf_bits_are_shown_without_padding_zeros() -> None:
    a = ask("glm 4.6 q4_k_m how much vram")
    gguf = next(n for n in a.caveats if n.code == "gguf")
    assert "4.84 bits" in gguf.text and "4.8400" not in gguf.text


# -- GGUF on a set runs in llama.cpp, split by layers: one card's bandwidth, not the pool


def test_gguf_on_a_set_gets_one_cards_ceiling_not_a_tensor_parallel_one() -> None:
    a = ask("glm 4.6 q4_k_m how much vram")
    p = a.recommendation
    assert p is not None and p.count > 1 and a.request is not None
    from engine import load_catalog

    cat = load_catalog()
    card = cat.card_by_name[p.card]
    model = cat.model_by_id[a.request.model.id]  # type: ignore[union-attr]
    active = model.active_params_b or model.params_b
    bits = cat.precision_by_name["q4_k_m"].bits
    assert p.decode_tok_s == pytest.approx(card.bandwidth_gbps / (active * bits / 8), rel=0.01)
    text = _all_text(a)
    assert "tensor parallel" not in text
    assert "split by layers" in text
    assert "tensor_parallel" not in [n.code for n in a.caveats]


# -- "what would make it fit" names fewer cards at a lower precision, not only more at BF16


def test_fewer_cards_at_a_lower_precision_are_offered_beside_more_at_bf16() -> None:
    a = ask("can i run llama 3.3 70b on a 4090")
    assert a.fit is not None and not a.fit.fits
    cards = [c for c in a.fit.changes if c.change == "cards"]
    assert (cards[1].count, cards[1].precision) == (8, "bf16")  # the fewest cards come first
    fewer = cards[0]
    assert fewer.count == 2 and fewer.precision != "bf16"
    assert fewer.total_gb <= 48 and fewer.headroom_gb >= 0
    # no lower precision fits one 4090 (INT4: 35.3 GB of weights + KV + 2 GB > 24 GB)
    assert a.fit.best is None


def test_a_set_too_small_at_any_precision_still_gets_a_card_count() -> None:
    a = ask("2x 3090 enough for glm-4.5-air?")
    assert a.fit is not None and not a.fit.fits and a.fit.best is None
    cards = [c for c in a.fit.changes if c.change == "cards"]
    assert cards, "a bigger set of the user's own card should be named"
    c = cards[0]
    assert c.count > 2 and c.headroom_gb >= 0 and c.total_gb <= 24 * c.count
    assert "What would make it fit" in [s.title for s in a.sections]


# -- a card link's name is in the reply language, never a raw English data label


@pytest.mark.parametrize(
    ("q", "word"),
    [
        ("which card for deepseek r1", "Infinity Fabric on the 8-card node"),
        ("jaka karta do deepseek r1?", "Infinity Fabric w węźle 8 kart"),
        ("deepseek r1 ต้องใช้การ์ดอะไร", "Infinity Fabric ในโหนด 8 การ์ด"),
    ],
)
def test_link_names_are_translated(q: str, word: str) -> None:
    a = ask(q)
    assert a.recommendation is not None and a.recommendation.card == "MI300X"
    text = _all_text(a)
    assert word in text and "(8-card node)" not in text
    assert a.card is None or a.card.interconnect  # the JSON keeps the data's own name


# -- the smallest change that serves one user reads as one user, in every language


@pytest.mark.parametrize(
    ("q", "one", "never"),
    [
        ("13b fp16 128k 16 users on h200", "for one user at a time", r"(?<![\d,.])1 users"),
        ("ile vram dla 13b fp16 128k 16 users na h200", "jednego użytkownika", r"z 1 użytk"),
        ("ต้องใช้ VRAM เท่าไร 13b fp16 128k 16 users on h200", "ทีละคน", r"พร้อมกัน 1 คน"),
    ],
)
def test_a_change_to_one_user_is_worded_for_one(q: str, one: str, never: str) -> None:
    a = ask(q)
    assert a.fit is not None and not a.fit.fits
    assert any(c.change == "batch" and c.batch == 1 for c in a.fit.changes)
    text = _all_text(a)
    assert one in text and not re.search(never, text)
    assert "at a 8k" not in text  # the context change names its length without an article
