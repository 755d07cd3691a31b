""" "What would make it fit" says the smallest change first: what keeps the cards and the
precision, then a lighter precision on the same cards (below 4 bits last), then the fewest
more cards; the headline and line 1 say that first change. A shipped 4-bit checkpoint is
never offered "INT4" as a lighter one; a rental's more cards are sets we rent; a tight
change says it is tight."""

from __future__ import annotations

import pytest

from bot.render.short import short_lines
from engine import Answer, Catalog, FitChange, RequestOptions, ask, load_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def no_fit(cat: Catalog, text: str) -> tuple[Answer, list[FitChange]]:
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.fit is not None and not a.fit.fits, text
    return a, a.fit.changes


def line1(cat: Catalog, a: Answer) -> str:
    return short_lines(a, cat)[0]


def fits_back(cat: Catalog, text: str, c: FitChange) -> Answer:
    opts = RequestOptions(
        precision=c.precision, kv_dtype=c.kv_dtype, context_tokens=c.context_tokens, batch=c.batch
    )
    return ask(text, catalog=cat, options=opts)


# -- 1. one order, smallest first


def test_keeping_the_precision_with_an_fp8_cache_leads_over_a_format_switch(cat: Catalog) -> None:
    a, changes = no_fit(cat, "llama 3.1 70b fp8 32k on h100")
    assert [c.change for c in changes][:3] == ["kv_cache", "context", "precision"]
    first = changes[0]
    assert (first.precision, first.kv_dtype) == ("fp8", "fp8")
    assert first.total_gb == pytest.approx(77.9, abs=0.05)
    assert "Keep FP8 with an FP8 KV cache: 77.9 GB" in a.headline
    assert "Yes in Q6_K" not in a.headline
    assert "FP8 with an FP8 KV cache fits" in line1(cat, a)
    assert a.fit is not None and a.fit.best is not None  # the JSON's best rung is kept


@pytest.mark.parametrize(
    ("text", "count", "precision"),
    [
        ("lamma 3 70b on rtx 5090?", 2, "q5_k_m"),  # Q6_K on 2 is tight: the next has room
        ("can i run llama 3.3 70b on a 4090", 2, "int4"),  # Q4_K_M on 2 leaves 0.6 GB
        ("qwen3 32b bf16 on a 7900 xtx", 2, "q8_0"),
    ],
)
def test_the_fewest_more_cards_come_first_at_the_heaviest_precision_with_room(
    cat: Catalog, text: str, count: int, precision: str
) -> None:
    _, changes = no_fit(cat, text)
    cards = [c for c in changes if c.change == "cards"]
    assert (cards[0].count, cards[0].precision) == (count, precision)
    assert cards[0].headroom_gb / count >= 2  # real room, not an edge
    assert [c.count for c in cards] == sorted(c.count for c in cards)
    assert changes.index(cards[0]) == len(changes) - len(cards)  # more cards come last


def test_polish_owned_card_leads_with_the_same_card_then_two_at_int4(cat: Catalog) -> None:
    a, changes = no_fit(cat, "czy llama 3.3 70b wejdzie na moja 7900 xtx?")
    assert not any(c.change == "cards" and c.precision == "bf16" for c in changes[:2])
    two = next(c for c in changes if c.change == "cards")
    assert (two.count, two.precision, two.total_gb) == (2, "int4", pytest.approx(40.0, abs=0.05))
    assert "Użyj 8×" not in a.headline
    assert "8×" not in line1(cat, a)


# -- 3. a shipped 4-bit checkpoint has no "lighter" INT4


@pytest.mark.parametrize(
    "text", ["gpt-oss 20b on rtx 4080 at 128k", "gpt-oss 120b on rtx 5090", "gpt-oss 20b on 12gb"]
)
def test_a_shipped_mxfp4_checkpoint_is_not_offered_int4_as_lighter(cat: Catalog, text: str) -> None:
    a, changes = no_fit(cat, text)
    assert a.request is not None and a.request.precision == "mxfp4"
    assert a.fit is not None
    assert a.fit.best is None or a.fit.best.precision not in ("int4", "q4_k_m")
    assert a.memory_gb is not None
    lighter = [o.precision for o in a.fit.options if o.total_gb < a.memory_gb["total"]]
    assert "int4" not in lighter and "q4_k_m" not in lighter  # Q4_K_M weighs more on 120b
    assert all(c.precision not in ("int4", "q4_k_m") for c in changes)
    assert "INT4" not in a.headline and "INT4" not in line1(cat, a)


def test_gpt_oss_at_128k_keeps_mxfp4_and_cuts_the_context(cat: Catalog) -> None:
    a, changes = no_fit(cat, "gpt-oss 20b on rtx 4080 at 128k")
    assert changes[0].change == "context" and changes[0].precision == "mxfp4"
    assert "Keep MXFP4 with the context cut to" in a.headline


# -- 2. below 4 bits, when no 4-bit format fits the asked card


@pytest.mark.parametrize(
    ("text", "kind", "precision", "kv"),
    [
        ("Gemma 3 27B QAT int4 on my 16GB 4080 Super", "low_bits", "q3_k_s", "fp16"),
        ("llama 3.1 70b q2_k on 24gb", "low_bits_kv", "iq2_xs", "q8_0"),
        ("lamma 3 70b on rtx 5090?", "low_bits", "iq3_xxs", "fp16"),
        ("mixtral 8x7b on a 4090", "low_bits", "q3_k_s", "fp16"),
    ],
)
def test_sub_4_bit_comes_before_more_cards_because_it_keeps_the_card_asked_about(
    cat: Catalog, text: str, kind: str, precision: str, kv: str
) -> None:
    a, changes = no_fit(cat, text)
    low = [c for c in changes if c.change.startswith("low_bits")]
    assert len(low) == 1
    c = low[0]
    assert (c.change, c.precision, c.kv_dtype) == (kind, precision, kv)
    cards = [i for i, x in enumerate(changes) if x.change == "cards"]
    assert all(changes.index(c) < i for i in cards)
    back = fits_back(cat, text, c)  # asked back, it fits with the numbers said
    assert back.fit is not None and back.fit.fits
    assert back.memory_gb is not None and back.memory_gb["total"] == pytest.approx(c.total_gb)
    assert "below 4 bits" in a.headline and "noticeably worse" in a.headline


def test_below_4_bits_is_said_in_polish_and_thai(cat: Catalog) -> None:
    pl = ask("Gemma 3 27B QAT int4 na moim 16GB 4080 Super", catalog=cat)
    th = ask("Gemma 3 27B QAT int4 บน 4080 Super 16GB ของฉัน", catalog=cat)
    assert "poniżej 4 bitów" in pl.headline
    assert "ต่ำกว่า 4 บิต" in th.headline


def test_a_limit_question_names_a_sub_4_bit_format_when_nothing_else_fits(cat: Catalog) -> None:
    a = ask("Qwen3-Coder 30B A3B on RTX 4070 12GB, how much context?", catalog=cat)
    assert a.kind == "limit" and a.limit is not None
    assert [o.precision for o in a.limit.options] == ["iq2_xs"]
    assert a.limit.options[0].max_context_tokens > 0
    assert "not even INT4" not in a.headline
    assert any(n.code == "low_bits_limit" for n in a.caveats)


# -- 5. a rental's more cards are sets we rent


def test_a_rental_adds_cards_only_in_sets_we_rent(cat: Catalog) -> None:
    _, changes = no_fit(cat, "Rent an MI300X for DeepSeek R1 in FP8")
    cards = [c for c in changes if c.change == "cards"]
    assert [c.count for c in cards] == [8]  # the whole node, never 2 or 4
    _, h100 = no_fit(cat, "llama 3.1 405b fp8 on 2x h100")
    assert all(c.count in (4, 8) for c in h100 if c.change == "cards")


def test_a_set_we_do_not_rent_is_said_so(cat: Catalog) -> None:
    a, _ = no_fit(cat, "can i run llama 3.3 70b on a 4090")
    lines = next(s.lines for s in a.sections if s.title == "What would make it fit")
    two = next(x for x in lines if x.startswith("Use 2× RTX 4090"))
    assert "we do not rent this set" in two


# -- 6. a tight change says so


def test_a_tight_change_on_a_set_says_its_room_per_card(cat: Catalog) -> None:
    a, changes = no_fit(cat, "QLoRA Llama 3.3 70B on my two 3090s")
    c = changes[0]
    assert c.change == "sequence" and c.headroom_gb / 2 < 2
    assert "Tight: only 0.5 GB left per card." in a.headline
    pl = ask("QLoRA Llama 3.3 70B na moich dwóch 3090", catalog=cat)
    assert "Na styk" in pl.headline


def test_a_change_with_room_is_not_called_tight(cat: Catalog) -> None:
    a, _ = no_fit(cat, "llama 3.1 70b fp8 32k on h100")
    lines = next(s.lines for s in a.sections if s.title == "What would make it fit")
    q6 = next(x for x in lines if x.startswith("Use Q6_K"))
    assert "Tight" not in q6
    assert "Tight: under 5 GB left." in lines[0]


# -- 4. the shipped precision asked by name is sized as shipped


@pytest.mark.parametrize(
    ("asked", "shipped"),
    [
        ("Rent an MI300X for DeepSeek R1 in FP8", "Will DeepSeek R1 fit on 8x H100?"),
        ("deepseek v3 fp8 on 8x h200", "deepseek v3 on 8x h200"),
        ("kimi k2 in fp8 on 8x h200", "kimi k2 on 8x h200"),
    ],
)
def test_the_shipped_precision_asked_by_name_uses_the_shipped_parts(
    cat: Catalog, asked: str, shipped: str
) -> None:
    a, b = ask(asked, catalog=cat), ask(shipped, catalog=cat)
    assert a.request is not None and b.request is not None
    assert a.request.precision == b.request.precision == "fp8"
    assert a.request.weight_parts is not None and b.request.weight_parts is not None
    assert a.request.weight_parts.dense == b.request.weight_parts.dense
    assert a.request.weight_parts is not None and a.request.weight_parts.embeddings == "bf16"
    assert a.memory_gb is not None and b.memory_gb is not None
    assert a.memory_gb["weights"] == pytest.approx(b.memory_gb["weights"])
