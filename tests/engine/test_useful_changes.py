"""Within one step of "what would make it fit", an option with real room (SIZING.md rule 4)
comes before a tight one, every lighter precision is also tried with an 8-bit KV cache, and
on an FP8 card FP8 comes before Q8_0: a demanding user sees the clean combination first."""

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


def tight(c: FitChange) -> bool:
    return c.headroom_gb < 5 if c.count == 1 else c.headroom_gb / c.count < 2


@pytest.mark.parametrize(
    ("text", "precision", "kv", "total", "room"),
    [
        ("does llama 3.1 8b fit on a 4090 at 32k for 3 users", "fp8", "fp8", 16.47, 7.53),
        ("does qwen3 14b fit on a 4090 at 32k for 4 users", "int4", "fp8", 20.1, 3.9),
        ("does llama 3.1 8b fit on my 3060 at 32k?", "q5_k_m", "q8_0", 10.0, 2.0),
    ],
)
def test_a_lighter_precision_with_an_8_bit_cache_leads_when_it_has_more_room(
    cat: Catalog, text: str, precision: str, kv: str, total: float, room: float
) -> None:
    a, changes = no_fit(cat, text)
    first = changes[0]
    assert (first.change, first.precision, first.kv_dtype) == ("precision_kv", precision, kv)
    assert first.total_gb == pytest.approx(total, abs=0.06)
    assert first.headroom_gb == pytest.approx(room, abs=0.06)
    # nothing before it in the list has more room at an equally small change
    assert all(c.headroom_gb < first.headroom_gb for c in changes[1:] if c.change == "precision")
    back = ask(
        text,
        catalog=cat,
        options=RequestOptions(
            precision=precision, kv_dtype=kv, context_tokens=first.context_tokens
        ),
    )
    assert back.fit is not None and back.fit.fits  # asked back, it fits
    assert f"{precision.upper()} with a" in a.headline
    assert f"{precision.upper()} with a" in short_lines(a, cat)[0]


def test_a_clean_combination_is_not_called_tight_and_leads_line_1(cat: Catalog) -> None:
    a, changes = no_fit(cat, "does llama 3.1 8b fit on a 4090 at 32k for 3 users")
    assert not tight(changes[0])
    assert "Tight" not in a.headline
    assert "FP8 with an FP8 KV cache fits · 7.5 GB to spare" in short_lines(a, cat)[0]
    q6 = next(c for c in changes if c.precision == "q6_k")  # the tight one is still said, after
    assert changes.index(q6) > 0 and tight(q6)


@pytest.mark.parametrize(
    "text",
    [
        "does qwen3 14b fit on a 4090 at 32k for 4 users",
        "does llama 3.1 8b fit on a 4090 at 32k for 3 users",
        "does llama 3.1 8b fit on my 3060 at 32k?",
        "mistral nemo 12b on a 4080 at 32k for 2 users",
        "qwen3 8b on a 4060 ti 16gb at 64k",
        "llama 3.1 70b fp8 32k on h100",
    ],
)
def test_within_a_step_real_room_comes_before_tight(cat: Catalog, text: str) -> None:
    """The general rule: for any two changes of the precision step, a tight one never comes
    before one with room."""
    _, changes = no_fit(cat, text)
    step = [c for c in changes if c.change in ("precision", "precision_kv")]
    levels = [tight(c) for c in step]
    assert levels == sorted(levels)


@pytest.mark.parametrize(
    ("text", "lead", "edge"),
    [
        ("does qwen3 14b fit on my 4090?", "fp8", "q8_0"),
        ("czy qwen3 14b zmieści się na mojej 4090?", "fp8", "q8_0"),
        ("qwen3 14b on an l4 at 8k", "fp8", "q8_0"),
    ],
)
def test_on_an_fp8_card_fp8_with_room_comes_before_a_tight_q8_0(
    cat: Catalog, text: str, lead: str, edge: str
) -> None:
    a, changes = no_fit(cat, text)
    assert a.fit is not None and a.fit.best is not None
    assert a.fit.best.precision == lead and a.fit.best.headroom_gb >= 5
    q8 = next(o for o in a.fit.options if o.precision == edge)
    assert q8.fits and q8.headroom_gb < 5
    assert changes[0].precision == lead
    assert lead.upper() in short_lines(a, cat)[0]


def test_a_card_without_fp8_keeps_q8_0(cat: Catalog) -> None:
    a, changes = no_fit(cat, "does qwen3 14b fit on my 3090?")
    assert all(c.precision != "fp8" for c in changes)
    assert a.fit is not None and a.fit.best is not None and a.fit.best.precision != "fp8"


def test_a_cheaper_rental_is_only_said_when_it_is_cheaper(cat: Catalog) -> None:
    a = ask("does qwen3 14b fit on my 4090?", catalog=cat)
    rec = a.recommendation
    assert rec is not None
    for alt in a.alternatives:
        if alt.reason == "lower_precision":
            assert alt.monthly_usd < rec.monthly_usd


def test_past_the_trained_context_a_change_says_so(cat: Catalog) -> None:
    for text, said in [
        ("qwen3 30b a3b on a 3090 at 64k", "trained for 40k"),
        ("qwen3 30b a3b na 3090 przy 64k", "kontekstu 40k"),
    ]:
        a, changes = no_fit(cat, text)
        assert changes[0].change == "precision_kv"
        assert said in a.headline


# -- a context cut leaves real room, at a round step, and says the longest that fits


@pytest.mark.parametrize(
    ("text", "change", "precision"),
    [
        ("does qwen3 14b fit on a 4090 at 32k for 4 users", "precision_context", "int4"),
        ("qwen3 32b on my 4090 at 128k", "precision_context", "int4"),
        ("llama 3.1 70b fp8 32k on h100", "context", "fp8"),
        ("llama 3.1 8b on a 4090 at 128k for 2 users", "context", "bf16"),
    ],
)
def test_a_context_cut_is_a_round_step_below_the_last_byte(
    cat: Catalog, text: str, change: str, precision: str
) -> None:
    a, changes = no_fit(cat, text)
    cut = next(c for c in changes if c.change == change and c.precision == precision)
    k = cut.context_tokens // 1024
    assert cut.context_tokens % 1024 == 0 and k in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96)
    assert cut.max_context_tokens is not None and cut.max_context_tokens > cut.context_tokens
    assert cut.headroom_gb >= 1.0  # never the last byte
    lines = next(s.lines for s in a.sections if s.title == "What would make it fit")
    line = next(x for x in lines if f"context cut to {k}k" in x)
    assert f"At most {cut.max_context_tokens // 1024}k fits" in line
    assert "At most" not in a.headline  # the headline keeps to the change itself


def test_a_cut_with_real_room_is_offered_when_a_round_step_gives_it(cat: Catalog) -> None:
    _, changes = no_fit(cat, "does qwen3 14b fit on a 4090 at 32k for 4 users")
    cut = next(c for c in changes if c.change == "precision_context" and c.precision == "int4")
    assert cut.context_tokens == 12 * 1024 and cut.headroom_gb >= 5
    assert cut.max_context_tokens == 21 * 1024


def test_the_longest_cut_is_said_in_polish_and_thai(cat: Catalog) -> None:
    pl = ask("czy qwen3 14b zmieści się na 4090 przy 32k dla 4 użytkowników", catalog=cat)
    th = ask("qwen3 14b บน 4090 ที่ 32k สำหรับ 4 ผู้ใช้", catalog=cat)
    for a, said in ((pl, "Najwyżej 21k"), (th, "ใส่ได้สูงสุด 21k")):
        assert a.fit is not None and any(c.max_context_tokens for c in a.fit.changes)
        assert any(said in x for s in a.sections for x in s.lines), a.lang


# -- a tight figure never rounds up to the threshold it is flagged under


def test_a_tight_room_is_shown_under_the_threshold(cat: Catalog) -> None:
    a = ask("does qwen3 14b fit on my 4090?", catalog=cat)
    assert a.fit is not None
    q8 = next(o for o in a.fit.options if o.precision == "q8_0")
    assert 4.95 <= q8.headroom_gb < 5
    assert "At the edge: Q8_0, 19 GB, 4.9 GB left" in a.headline


@pytest.mark.parametrize(
    ("room", "count", "shown"),
    [(4.96, 1, 4.9), (3.97, 2, 3.8), (4.2, 1, 4.2), (5.0, 1, 5.0), (6.0, 2, 6.0)],
)
def test_below_keeps_the_figure_under_the_flag(room: float, count: int, shown: float) -> None:
    from engine.text.rooms import below

    assert below(room, count) == pytest.approx(shown)
