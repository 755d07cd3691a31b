"""When no one change makes an asked setup fit, two may: a lighter precision with a shorter
context, fewer users or an FP8 KV cache; and a training run that does not fit has its own
changes (a shorter sequence, batch 1, a lighter method). Each change offered is checked by
asking it back: the changed setup must fit on the same hardware with the numbers said."""

from __future__ import annotations

import pytest

from engine import Answer, Catalog, FitChange, RequestOptions, ask, fmt_gb, load_catalog
from engine.answer_types import TWO_SLOTS

TRAINING = ("sequence", "train_batch", "batch_sequence", "method", "method_sequence")


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def asked_back(cat: Catalog, text: str, c: FitChange) -> Answer:
    """The same question with the change's slots given as fields."""
    opts = RequestOptions(
        precision=c.precision,
        kv_dtype=c.kv_dtype,
        context_tokens=c.context_tokens,
        batch=c.batch,
        task=c.task,
    )
    return ask(text, catalog=cat, options=opts)


def changes_of(cat: Catalog, text: str) -> tuple[Answer, list[FitChange]]:
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.fit is not None, text
    assert not a.fit.fits, text
    return a, a.fit.changes


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("32b at 128k on my 4090", "precision_context"),  # BF16 at no context, INT4 not at 128k
        ("qwen2.5 32b 128k na moim 4090", "precision_context"),
        ("does qwen2.5 32b fit on a single 3090 at 32k context?", "precision_kv"),
        ("can I run llama 3.3 70b on a single L40S with 64k context?", "precision_context"),
        ("llama 3.1 70b on 2x a100 fp16 for 16 users at 32k", "precision_kv"),
        ("70b bf16 for 40 users at 8k on an h100", "precision_batch"),
    ],
)
def test_two_slots_change_fits_when_asked_back(cat: Catalog, text: str, kind: str) -> None:
    a, changes = changes_of(cat, text)
    assert a.fit is not None
    two = [c for c in changes if c.change == kind]
    assert two, [c.change for c in changes]
    for c in two:
        assert c.headroom_gb >= 0
        assert c.total_gb <= (a.fit.vram_gb or 0)
        back = asked_back(cat, text, c)
        assert back.fit is not None and back.fit.fits, (text, c)
        assert back.memory_gb is not None
        assert back.memory_gb["total"] == pytest.approx(c.total_gb)
        assert back.fit.headroom_gb == pytest.approx(c.headroom_gb)
    # the headline and the first line say the first change of two slots
    first = next(c for c in changes if c.change in TWO_SLOTS)
    assert first.precision.upper() in a.headline


def test_two_slots_are_lighter_and_keep_what_they_do_not_change(cat: Catalog) -> None:
    a, changes = changes_of(cat, "32b at 128k on my 4090")
    assert a.request is not None
    for c in changes:
        if c.change == "precision_context":
            assert c.precision != a.request.precision
            assert 0 < c.context_tokens < a.request.context_tokens
            assert c.batch == a.request.batch and c.kv_dtype == a.request.kv_dtype
        if c.change == "precision_kv":
            assert c.kv_dtype == "fp8" and c.context_tokens == a.request.context_tokens
    # a heavier rung with a useful context, and the rung that keeps the most context
    # (the one with more room is listed first; each cut is a round step, its longest beside)
    cuts = [c for c in changes if c.change == "precision_context"]
    bits = cat.precision_by_name
    heavy, light = sorted(cuts, key=lambda c: -bits[c.precision].bits)
    longest = [c.max_context_tokens or c.context_tokens for c in (heavy, light)]
    assert len(cuts) == 2 and heavy.context_tokens >= 8192 and longest[1] >= 1.5 * longest[0]


def test_one_slot_enough_means_no_two_slot_change(cat: Catalog) -> None:
    # INT4 at 8k fits a 24 GB card: the precision change alone is the smallest
    _, changes = changes_of(cat, "qwen2.5 32b on a 4090")
    assert [c.change for c in changes if c.change in TWO_SLOTS] == []
    assert any(c.change == "precision" for c in changes)


@pytest.mark.parametrize(
    ("text", "kind", "task"),
    [
        ("qlora llama 3.1 70b on a single 48gb card?", "sequence", "qlora"),
        ("qlora 32b on a 3090 seq 16k", "sequence", "qlora"),
        ("qlora 32b batch 4 on a 3090", "batch_sequence", "qlora"),
        ("full fine-tune 7b on a 4090", "method", "lora"),
        ("lora 13b on a 4090", "method", "qlora"),
        ("full fine-tune 13b on an a100", "method", "lora"),
        ("lora 32b seq 8k on an a100", "sequence", "lora"),
        ("lora 70b seq 16k on an h100", "method_sequence", "qlora"),
    ],
)
def test_training_changes_fit_when_asked_back(
    cat: Catalog, text: str, kind: str, task: str
) -> None:
    a, changes = changes_of(cat, text)
    assert a.request is not None and a.request.task != "inference"
    got = [c for c in changes if c.change == kind]
    assert got, [c.change for c in changes]
    c = got[0]
    assert c.task == task
    assert c.context_tokens <= a.request.context_tokens
    back = asked_back(cat, text, c)
    assert back.request is not None and back.request.task == task
    assert back.fit is not None and back.fit.fits, (text, c)
    assert back.memory_gb is not None
    assert back.memory_gb["total"] == pytest.approx(c.total_gb)
    assert f"{fmt_gb(c.headroom_gb)} GB to spare." in a.headline  # a tight one says so after


def test_training_that_nothing_saves_offers_nothing(cat: Catalog) -> None:
    # QLoRA's 4-bit base of a 70B model alone is more than 24 GB
    _, changes = changes_of(cat, "qlora 70b on a 4090")
    assert [c.change for c in changes if c.change in TRAINING] == []


def test_changes_are_said_in_every_language(cat: Catalog) -> None:
    for text, word in [
        ("qwen2.5 32b 128k na moim 4090", "skróć kontekst"),
        ("qwen2.5 32b 128k บน 4090 ของฉัน", "ลดบริบท"),
        ("qlora llama 3.1 70b na karcie 48gb", "sekwencj"),
    ]:
        a = ask(text, catalog=cat)
        assert word in a.text, text


def test_json_keeps_the_change_keys(cat: Catalog) -> None:
    j = ask("full fine-tune 7b on a 4090", catalog=cat).to_json()
    c = j["fit"]["changes"][0]
    assert set(c) >= {"change", "precision", "kv_dtype", "context_tokens", "batch", "count"}
    assert set(c) >= {"total_gb", "headroom_gb", "task"}
    assert c["change"] == "method" and c["task"] == "lora"


def test_a_set_split_by_layers_streams_at_one_cards_pace(cat: Catalog) -> None:
    """3 cards do not divide 64 heads: no tensor parallelism, the cards take their turns."""
    one = ask("llama 3.1 70b fp8 on 1x h100", catalog=cat).fit
    three = ask("llama 3.1 70b fp8 on 3x h100", catalog=cat)
    four = ask("llama 3.1 70b fp8 on 4x h100", catalog=cat).fit
    assert one is not None and three.fit is not None and four is not None
    assert one.fits and three.fit.fits and four.fits
    assert three.fit.decode_tok_s == pytest.approx(one.decode_tok_s)
    assert (four.decode_tok_s or 0) > 2 * (one.decode_tok_s or 0)
    assert "split by layers" in three.text and "tensor parallel;" not in three.text


@pytest.mark.parametrize(
    "text",
    ["QLoRA qwen2.5 72b on an RTX A6000 with 4096 sequence length", "qlora 34b on a 24gb card?"],
)
def test_a_sequence_under_1k_is_offered_when_only_that_fits(cat: Catalog, text: str) -> None:
    _, changes = changes_of(cat, text)
    seq = [c for c in changes if c.change == "sequence"]
    assert seq and seq[0].context_tokens == 512 and seq[0].headroom_gb >= 0
    back = asked_back(cat, text, seq[0])
    assert back.fit is not None and back.fit.fits


def test_a_number_before_sequence_length_is_the_sequence(cat: Catalog) -> None:
    a = ask("lora llama 3.1 8b 4096 sequence length on a 4090", catalog=cat)
    assert a.request is not None
    assert (a.request.context_tokens, a.request.batch) == (4096, 1)
    b = ask("70b for 8 sequences", catalog=cat)
    assert b.request is not None and b.request.batch == 8


@pytest.mark.parametrize(
    "text", ["gemma 3 27b q4_k_m at 128k on my rtx 3090", "qwen2.5 32b q4_k_m at 32k on a 4090"]
)
def test_gguf_gets_llama_cpps_cache_not_fp8(cat: Catalog, text: str) -> None:
    """llama.cpp has no FP8 KV cache: a GGUF precision's 8-bit cache is q8_0."""
    _, changes = changes_of(cat, text)
    for c in changes:
        if c.change in ("kv_cache", "precision_kv"):
            gguf = cat.precision_by_name[c.precision].gguf
            assert c.kv_dtype == ("q8_0" if gguf else "fp8"), c


def test_a_card_rented_only_in_sets_says_so_on_a_fit(cat: Catalog) -> None:
    a = ask("can I rent one b200 for qwen3 32b?", catalog=cat)
    assert a.fit is not None and a.fit.reason == "min_count"
    assert "only in sets of 2" in a.text and "as a set;" not in a.text
    assert "rented 2 or more" in a.text  # the caveat names the smallest set, not "1"
    b = ask("can I run llama 3 70b fp8 on an a100?", catalog=cat)
    assert "as a set" not in b.text  # the reason is FP8, which the caveat says


def test_a_price_asked_on_a_card_is_the_set_it_needs(cat: Catalog) -> None:
    for text in (
        "how much does it cost to run deepseek v3 on b200?",
        "ile kosztuje deepseek r1 na b200?",
    ):
        a = ask(text, catalog=cat)
        assert a.fit is not None and a.fit.fits
        assert (a.fit.card, a.fit.count) == ("B200", 4)
        assert a.fit.monthly_usd is not None


def test_a_lighter_method_one_sequence_at_a_time_keeps_the_sequence(cat: Catalog) -> None:
    text = "lora llama 3.1 8b at 8k batch 4 on a 4090"
    _, changes = changes_of(cat, text)
    c = next(c for c in changes if c.change == "method_batch")
    assert (c.task, c.batch, c.context_tokens) == ("qlora", 1, 8192)
    back = asked_back(cat, text, c)
    assert back.fit is not None and back.fit.fits


def test_limits_of_a_or_b_name_their_card(cat: Catalog) -> None:
    a = ask("rtx 5090 or rtx 4090 for qwen3 14b q4_k_m", catalog=cat)
    assert len(a.fits) == 2 and a.fit is not None
    for f in a.fits:  # each card that holds it gets its own limits, named
        assert f.fits and f"On {f.card} in Q4_K_M: up to" in a.text
        assert f"or up to {f.max_batch} users" in a.text


def test_a_single_only_card_sheet_says_so(cat: Catalog) -> None:
    a = ask("card l40s", catalog=cat)
    assert "single cards only" in a.text and "sets of 1" not in a.text


def test_an_exact_context_limit_says_tokens(cat: Catalog) -> None:
    a = ask("max context for llama 3.1 8b on an rtx 4090", catalog=cat)
    assert a.kind == "limit" and "tokens of context" in a.headline


def test_an_8bit_cache_alone_is_said_before_a_lighter_precision_with_it(cat: Catalog) -> None:
    _, changes = changes_of(cat, "llama 3.1 8b q4_k_m at 96k on 16gb")
    kinds = [c.change for c in changes]
    assert "kv_cache" in kinds and "precision_kv" not in kinds


def test_a_one_slot_change_leads_over_a_shorter_context_with_a_lighter_precision(
    cat: Catalog,
) -> None:
    _, changes = changes_of(cat, "llama 3.1 8b for 64 users at 32k on a 4090")
    assert any(c.change == "batch" for c in changes)
    assert changes[0].change not in TWO_SLOTS  # one slot changed first, two only after it


def test_one_user_reads_as_one_user(cat: Catalog) -> None:
    from bot.render.short import short_lines

    a, changes = changes_of(cat, "llama 3.1 70b at 100k for 4 users on an h100")
    for c in changes:
        if c.change in ("batch", "precision_batch") and c.batch == 1:
            assert "1 users" not in a.text
    line = short_lines(a, cat)[0]
    assert "short." not in line and "1 users" not in line


def test_a_q8_cache_asked_keeps_line_one_readable(cat: Catalog) -> None:
    from bot.render.short import short_lines

    a = ask("32b with q8_0 kv cache at 128k on my 4090", catalog=cat)
    assert "short." not in short_lines(a, cat)[0]


def test_a_single_card_with_a_price_word_stays_one(cat: Catalog) -> None:
    for text in (
        "how much does a single h100 cost for llama 3.1 70b?",
        "ile kosztuje llama 3.1 70b na jednym h100?",
    ):
        a = ask(text, catalog=cat)
        assert a.fit is not None and a.fit.count == 1, text


def test_a_release_named_for_its_context_is_not_a_comparison(cat: Catalog) -> None:
    a = ask("phi 3 mini 128k at 32k on a 3090", catalog=cat)
    assert a.kind == "fit" and a.request is not None and a.request.model is not None
    assert a.request.model.id == "phi-3-mini-128k" and a.request.context_tokens == 32768


def test_a_mac_note_weighs_what_the_answer_offers(cat: Catalog) -> None:
    a = ask("llama 3.1 70b on my 64gb mac", catalog=cat)  # Q4_K_M within 48 GB; Q5_K_M past it
    assert a.fit is not None and a.fit.best is not None and a.fit.best.total_gb <= 48
    assert "mac_gpu_share_over" in [c.code for c in a.caveats]


@pytest.mark.parametrize(
    "text",
    ["32b with q8_0 kv cache at 128k on my 4090", "32b with fp8 kv cache at 128k on my 4090"],
)
def test_a_change_that_keeps_the_cache_keeps_a_format_that_has_it(cat: Catalog, text: str) -> None:
    from engine.kinds.combos import cache_runs

    _, changes = changes_of(cat, text)
    kept = [c for c in changes if c.change in ("precision_context", "precision_batch")]
    assert kept
    for c in kept:
        assert cache_runs(c.kv_dtype, cat.precision_by_name[c.precision].gguf), c


def test_no_rental_rule_line_when_memory_is_what_is_short(cat: Catalog) -> None:
    a = ask("gpt-oss-120b na dwóch RTX 3090", catalog=cat)
    assert a.fit is not None and not a.fit.fits and a.fit.best is None
    assert "zasada wynajmu" not in a.text
