"""How many cards, the limits a set reaches, speed first, card against card and the short
follow-ups of a chat: each case answered wrongly before its fix (a count of the next power of
two, a limit planned to the last byte, the fit verdict before the speed asked for)."""

from __future__ import annotations

import math

import pytest

from engine import Answer, Catalog, ask, context_of, load_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("text", "card", "count", "first"),
    [
        ("Full fine-tune of Qwen3 8B on A6000s — how many and price?", "RTX A6000", 4, "4×"),
        ("How many RTX 3090s to full fine-tune Mistral 7B v0.3?", "RTX 3090", 6, "6×"),
        ("How many H100s for a full fine-tune of Llama 3.1 70B", "H100 SXM", 17, "17×"),
        ("ile RTX 3090 do pełnego dostrajania Mistral 7B v0.3?", "RTX 3090", 6, "6×"),
        ("full fine-tune llama 3.1 8b บน l40s กี่ใบ", "L40S", 4, "4×"),
        ("how many a40s to full fine-tune qwen2.5 7b", "A40", None, None),
    ],
)
def test_training_count_is_the_fewest_cards_that_hold_it(
    cat: Catalog, text: str, card: str, count: int | None, first: str | None
) -> None:
    """Training shards over any count (the heads rule is inference's): the count is the
    smallest whose memory holds the run, one card fewer does not."""
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.fit is not None and a.fit.card == card
    vram = cat.card_by_name[card].vram_gb
    need = a.to_json()["memory_gb"]["total"]
    assert a.fit.fits
    assert a.fit.count == math.ceil(need / vram)
    assert (a.fit.count - 1) * vram < need
    if count is not None:
        assert a.fit.count == count
    if first is not None:
        assert first in a.text.splitlines()[0]
    assert "attention heads" not in a.text  # the inference rule is not given as the reason


@pytest.mark.parametrize(
    ("text", "lang", "words"),
    [
        ("Max context for Llama 3.1 8B on a 4090?", "en", "90% of memory"),
        ("Qwen3 235B A22B on 4x H100 in FP8, how many users at 32k?", "en", "90% of memory"),
        ("ile użytkowników llama 3.1 70b int4 na 2x a100 przy 8k?", "pl", "90% pamięci"),
        ("llama 3.1 8b บน 4090 context ได้สูงสุดเท่าไหร่", "th", "90%"),
    ],
)
def test_limit_is_also_given_at_the_engine_share(
    cat: Catalog, text: str, lang: str, words: str
) -> None:
    """A limit found by filling the memory sits at the edge: the headline also gives it at
    vLLM's default 90%, which is lower, and the JSON carries both."""
    a = ask(text, catalog=cat)
    assert a.kind == "limit" and a.lang == lang and a.limit is not None
    lim = a.to_json()["limit"]
    assert lim["engine_batch"] is not None and lim["engine_context_tokens"] is not None
    assert lim["engine_batch"] <= lim["max_batch"]
    assert lim["engine_context_tokens"] <= lim["max_context_tokens"]
    assert words in a.headline


def test_limit_numbers_at_the_engine_share(cat: Catalog) -> None:
    """The tester's figures: 45,318 tokens at 100% and about 27.0k at 90% on a 4090 (the
    free memory 21.6 - 16.06 - 2 GB over 131,072 bytes a token); at 32k, 12 users and 7 with
    the FP8 checkpoint's own parts (its BF16 embeddings and gates; 13 and 8 at a flat FP8)."""
    a = ask("Max context for Llama 3.1 8B on a 4090?", catalog=cat)
    assert a.limit is not None
    assert a.limit.max_context_tokens == 45318
    assert a.limit.engine_context_tokens is not None
    assert 26_500 < a.limit.engine_context_tokens < 27_500
    assert f"{a.limit.engine_context_tokens:,}" in a.headline
    b = ask("Qwen3 235B A22B on 4x H100 in FP8, how many users at 32k?", catalog=cat)
    assert b.limit is not None and b.limit.max_batch == 12 and b.limit.engine_batch == 7
    assert b.headline.endswith("7 at vLLM's default 90% of memory")


def _after(cat: Catalog, first: str, then: str) -> tuple[Answer, Answer]:
    a = ask(first, catalog=cat)
    ctx = context_of(a)
    assert ctx is not None
    return a, ask(then, catalog=cat, previous=ctx)


@pytest.mark.parametrize(
    ("then", "lang"),
    [
        ("cheaper?", "en"),
        ("anything cheaper?", "en"),
        ("which is cheaper, that or renting?", "en"),
        ("taniej?", "pl"),
        ("coś tańszego?", "pl"),
        ("ถูกกว่านี้มีไหม", "th"),
    ],
)
def test_cheaper_follow_up_gives_the_cheapest_set_for_the_same_need(
    cat: Catalog, then: str, lang: str
) -> None:
    """After a fit on a named set, "cheaper?" sizes the same request on the fleet: the pick
    holds the same need and costs less than the set asked about."""
    a, b = _after(cat, "llama 3.1 70b fp16 on h100s", then)
    assert a.kind == "fit" and a.fit is not None and a.fit.count == 2
    assert b.kind == "sizing" and b.lang == lang
    assert b.request is not None and a.request is not None
    assert b.request.model == a.request.model and b.request.precision == a.request.precision
    assert b.recommendation is not None
    assert b.recommendation.monthly_usd < 2 * cat.card_by_name["H100 SXM"].monthly_usd
    assert b.recommendation.headroom_gb >= 0


@pytest.mark.parametrize(
    ("then", "lang"),
    [("why?", "en"), ("why so?", "en"), ("dlaczego?", "pl"), ("czemu?", "pl"), ("ทำไม", "th")],
)
def test_why_follow_up_gives_the_last_verdict_with_its_breakdown(
    cat: Catalog, then: str, lang: str
) -> None:
    a, b = _after(cat, "does qwen2.5 32b fit on a 4090?", then)
    assert b.kind == a.kind == "fit" and b.lang == lang
    assert b.fit is not None and a.fit is not None
    assert (b.fit.card, b.fit.count, b.fit.fits) == (a.fit.card, a.fit.count, a.fit.fits)
    assert b.memory_gb == a.memory_gb and b.memory_gb is not None
    assert "I could not find" not in b.text


def test_short_words_without_an_answer_before_stay_a_question_back(cat: Catalog) -> None:
    assert ask("cheaper?", catalog=cat).kind == "help"


@pytest.mark.parametrize(
    ("text", "lang", "first", "fast"),
    [
        ("4090 or 3090 for qwen2.5 14b?", "en", "Neither holds it as asked", "RTX 4090"),
        ("a100 or h100 for llama 3.1 70b int4 serving 20 users", "en", "both have 80 GB", "H100"),
        ("l40s or a6000 for llama 3.1 70b fp16", "en", "Both fit in INT4", "L40S"),
        ("4090 czy 3090 dla qwen2.5 14b?", "pl", "Żadna nie mieści", "RTX 4090"),
        ("qwen2.5 14b บน 4090 หรือ 3090", "th", "ทั้งสองใบใส่ตามที่ถามไม่ได้", "RTX 4090"),
    ],
)
def test_two_cards_that_both_fall_short_are_still_told_apart(
    cat: Catalog, text: str, lang: str, first: str, fast: str
) -> None:
    """Neither holds it as asked: the headline says so once, what makes both fit and which
    has more bandwidth for how much more a month, not two equal "no"s."""
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.lang == lang and len(a.fits) == 2
    assert not any(f.fits for f in a.fits)
    assert first in a.headline
    assert (fast + ":") in a.headline or (fast + " SXM:") in a.headline


def test_a100_h100_numbers(cat: Catalog) -> None:
    a = ask("a100 or h100 for llama 3.1 70b int4 serving 20 users", catalog=cat)
    diff = cat.card_by_name["H100 SXM"].monthly_usd - cat.card_by_name["A100 SXM"].monthly_usd
    ratio = (
        cat.card_by_name["H100 SXM"].bandwidth_gbps / cat.card_by_name["A100 SXM"].bandwidth_gbps
    )
    assert "FP8 KV cache (64.1 GB)" in a.headline
    assert f"{ratio:.1f}× the bandwidth" in a.headline and f"${diff:,.0f}/month more" in a.headline


def test_a_limit_answer_shows_the_cache_its_longest_context_fills() -> None:
    """The Memory section adds up: weights, overhead, the KV cache at the longest context
    (with its bytes per token) and their total, which is the memory the limit was cut at."""
    from engine import ask

    a = ask("max context for llama 3.1 8b on a 24gb card")
    assert a.kind == "limit" and a.limit is not None and a.kv_bytes_per_token
    memory = next(s for s in a.sections if s.title == "Memory").lines
    kv_gb = a.limit.max_context_tokens * a.kv_bytes_per_token / 1e9
    assert any(line.startswith("KV cache at the longest context") for line in memory)
    assert f"{a.kv_bytes_per_token / 1000:.0f} KB a token" in memory[2]
    total = a.memory_gb["weights"] + a.memory_gb["overhead"] + kv_gb
    assert memory[-1] == f"Total: {total:.1f} GB".replace(".0 GB", " GB")
    assert abs(total - 24) < 0.01  # the whole card, to the token
