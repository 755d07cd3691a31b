"""Questions as people type them in a chat: words around the model name, budgets in other
currencies, comparisons of shapes we assume, and rows of the budget list. Each case failed
before its fix (a question back, a wrong currency, a dropped assumption, an FP8 model on a
card without FP8)."""

from __future__ import annotations

import pytest

from engine import Catalog, ask, fmt_num, fmt_usd, load_catalog
from engine.kinds.fleet import serving_table


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    "text",
    [
        "can deepseek r1 run on a single h200 lol",
        "deepseek r1 na jednym h200 da rade?",
        "deepseek r1 บน h200 ตัวเดียวไหวมั้ย",
        "deepseek r1 on one h200?",
    ],
)
def test_chat_words_around_a_name_do_not_hide_it(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "fit"
    assert a.request is not None and a.request.model is not None
    assert a.request.model.id == "deepseek-r1"
    assert a.fit is not None and a.fit.card == "H200 SXM"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("deepseek r1 distill", "clarify"),  # every word is a name word: which distill?
        ("zephyr 7b", "clarify"),  # a name we do not have: never guessed
    ],
)
def test_name_words_still_ask_back(cat: Catalog, text: str, kind: str) -> None:
    assert ask(text, catalog=cat).kind == kind


def test_thinking_of_is_not_the_thinking_release(cat: Catalog) -> None:
    a = ask("we were thinking of Qwen3 30B-A3B, what card for 15 users at 30k?", catalog=cat)
    assert a.request is not None and a.request.model is not None
    assert a.request.model.name == "Qwen3 30B-A3B"
    assert a.request.batch == 15
    b = ask("qwen3 30b a3b thinking", catalog=cat)
    assert b.request is not None and b.request.model is not None
    assert "Thinking" in b.request.model.name


@pytest.mark.parametrize(
    ("text", "lang", "said"),
    [
        ("siema, jaki model najlepszy do 2000 zł miesięcznie?", "pl", "2000 zł"),
        ("งบ 10000 บาทต่อเดือน รันโมเดลอะไรได้บ้าง", "th", "10000 บาท"),
        ("budget 10000 thb per month", "en", "10000 thb"),
        ("best model under €400 a month", "en", "€400"),
        ("what can I run for 300 eur/month", "en", "300 eur"),
    ],
)
def test_budget_in_another_currency_is_said_back_not_read_as_dollars(
    cat: Catalog, text: str, lang: str, said: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "error" and a.budget_usd is None and not a.budget
    assert a.lang == lang
    assert said in a.headline and "$" in a.headline  # what to type instead, in dollars


def test_dollar_budgets_still_list_models(cat: Catalog) -> None:
    for text in ("best model for $300/month", "najlepszy model do 300 $ miesięcznie"):
        a = ask(text, catalog=cat)
        assert a.kind == "budget" and a.budget_usd == 300 and a.budget


def test_budget_rows_in_fp8_are_on_fp8_cards_only(cat: Catalog) -> None:
    """Every serving row (the budget and capacity lists read them), the shipped rows of
    FP8 releases included: its card runs its precision."""
    fp8 = {p.name for p in cat.precisions if p.needs_fp8}
    rows = [r for r in serving_table(cat) if r.precision in fp8 and r.card]
    assert any(r.shipped for r in rows)  # FP8 releases are among them
    for r in rows:
        assert cat.card_by_name[r.card].fp8, (r.model, r.precision, r.card)
    for usd in (200, 300, 400, 800, 1600, 5000):
        for item in ask(f"best model under ${usd}/month", catalog=cat).budget:
            if item.precision in fp8:
                assert cat.card_by_name[item.card].fp8, (usd, item)


def test_a_comparison_says_which_shape_each_bare_size_took(cat: Catalog) -> None:
    a = ask("7b vs 13b", catalog=cat)
    assert a.kind == "compare"
    texts = [n.text for n in a.assumptions]
    # each item's own typical shape, under its label; the shared default once
    assert sum("typical 7B" in t for t in texts) == 1
    assert sum("typical 13B" in t for t in texts) == 1
    assert all(t.startswith(("7B", "13B")) for t in texts if "typical" in t)
    assert sum("8k" in t for t in texts) == 1
    named = ask("llama 3.1 8b vs qwen3 8b", catalog=cat)
    assert not any("typical" in n.text for n in named.assumptions)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("context สูงสุดของ llama 3.1 8b บน 4090 เท่าไหร่", "limit"),
        ("ile userów llama 3.1 70b int4 na h100 przy 32k", "limit"),
        ("ilu userów llama 3.1 70b int4 na h100 przy 32k", "limit"),
    ],
)
def test_limit_questions_in_mixed_words(cat: Catalog, text: str, kind: str) -> None:
    assert ask(text, catalog=cat).kind == kind


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
def test_one_user_is_never_counted_as_users(cat: Catalog, lang: str) -> None:
    a = ask("max context for mistral small 3.2 on a 4090?", lang, catalog=cat)
    assert a.limit is not None
    ones = [o for o in a.limit.options if o.max_batch == 1]
    assert ones  # Q6_K holds one user at 8k
    text = "\n".join(line for s in a.sections for line in s.lines)
    assert "1 users" not in text and "1 użytkowników" not in text
    assert "ผู้ใช้ 1 คน" not in text


@pytest.mark.parametrize("text", ["h100 กับ a100", "h100 vs a100", "h100 or a100"])
def test_two_cards_compared_say_a_tie_in_memory_as_a_tie(cat: Catalog, text: str) -> None:
    a = ask(text, "en", catalog=cat)
    assert a.kind == "compare" and [i.card.name for i in a.items if i.card] == [
        "H100 SXM",
        "A100 SXM",
    ]
    assert "the most memory" not in a.headline  # both have 80 GB
    assert "80 GB" in a.headline
    bigger = ask("h100 vs h200", "en", catalog=cat)
    assert "H200 SXM has the most memory" in bigger.headline


def test_thai_with_between_a_model_and_a_card_stays_a_fit(cat: Catalog) -> None:
    a = ask("70b กับ 4090", catalog=cat)
    assert a.kind == "fit" and a.fit is not None and a.fit.card == "RTX 4090"


@pytest.mark.parametrize(
    ("text", "lang"),
    [("does claude fit on a 4090", "en"), ("czy claude zmieści się na 4090", "pl")],
)
def test_a_fit_question_about_an_unknown_model_says_so(cat: Catalog, text: str, lang: str) -> None:
    """Not the card's sheet, as if the model had not been asked about."""
    a = ask(text, catalog=cat)
    assert a.kind == "clarify" and a.lang == lang
    assert "claude" in a.headline


@pytest.mark.parametrize(
    "text",
    [
        "deepseek v3 how many h100",
        "DEEPSEEK V3 HOW MANY H100 FOR 128K??? 😭",
        "ile h100 dla deepseek v3",
        "deepseek v3 ต้องใช้ h100 กี่ใบ",
        "full fine-tune llama 3.1 70b, how many h100?",
        "ile kart H100 potrzebuję do deepseek v3?",
        "how many gpus h100 for deepseek v3",
    ],
)
def test_how_many_of_a_card_is_answered_with_a_set_of_it(cat: Catalog, text: str) -> None:
    """Not one card and a verdict that it is too small: the set the question asks about."""
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.fit is not None
    assert a.fit.card == "H100 SXM" and a.fit.count > 1
    one = ask("deepseek v3 on one h100", catalog=cat)
    assert one.fit is not None and one.fit.count == 1


@pytest.mark.parametrize(
    ("follow", "count"),
    [
        ("on two of them?", 2),
        ("and on 2x?", 2),
        ("4 of those", 4),
        ("a na dwóch takich?", 2),
        ("with four?", 4),
    ],
)
def test_a_follow_up_count_applies_to_the_card_in_question(
    cat: Catalog, follow: str, count: int
) -> None:
    from engine import context_of

    first = ask("llama 3.1 70b int8 32k on a100", catalog=cat)
    a = ask(follow, catalog=cat, previous=context_of(first))
    assert a.kind == "fit" and a.fit is not None
    assert (a.fit.card, a.fit.count) == ("A100 SXM", count)
    assert a.request is not None and a.request.precision == "int8"


def test_a_count_word_inside_a_question_is_not_a_card_count(cat: Catalog) -> None:
    a = ask("llama 3.1 8b with 2 users", catalog=cat)
    assert a.request is not None and a.request.batch == 2 and a.request.count is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("co się zmieści w 24gb?", "capacity"),
        ("gdzie macie serwery? jest coś w europie?", "faq"),
        ("มีเซิร์ฟเวอร์ที่ไหนบ้าง มีในเอเชียไหม", "faq"),
        ("czy macie h100 na stanie?", "faq"),
        ("where are your servers", "faq"),
    ],
)
def test_everyday_phrasings_of_capacity_and_regions(cat: Catalog, text: str, kind: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == kind
    if kind == "faq":
        assert a.faq_topic == "regions"


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("what fits on a 4060 ti 16gb", "RTX 4060 Ti 16GB"),
        ("rtx 4060 ti 16gb", "RTX 4060 Ti 16GB"),
        ("co zmieszczę na 2x 4060 ti 16gb", "2× RTX 4060 Ti 16GB"),
    ],
)
def test_a_card_we_do_not_rent_gets_what_fits_on_it(cat: Catalog, text: str, label: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "capacity" and a.fit is not None and a.budget
    assert a.fit.card == label
    for row in a.budget:  # each listed model fits the asked memory
        assert row.need_gb <= a.fit.vram_gb


def test_a_card_another_price_book_leaves_out_is_still_a_card(cat: Catalog) -> None:
    hourly = cat.with_price_book("hourly")
    assert "H100 SXM" not in hourly.card_by_name  # that book does not price it
    a = ask("llama 3.1 70b fp8 on h100", catalog=hourly)
    assert a.kind == "fit" and a.fit is not None and a.fit.card == "H100 SXM"
    assert a.request is not None and a.request.model is not None
    assert a.request.model.id == "llama-3.1-70b"


@pytest.mark.parametrize(
    ("text", "gb"),
    [("qwen3 235b-a22b on M2 Ultra 192GB", 192.0), ("llama 3.1 70b q4_k_m on m3 max 128gb", 128.0)],
)
def test_an_apple_chip_is_hardware_not_part_of_the_name(cat: Catalog, text: str, gb: float) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.fit is not None and a.fit.vram_gb == gb
    assert a.request is not None and a.request.model is not None


@pytest.mark.parametrize(
    "text",
    [
        "8b on a single h100",
        "can 70b run on a single h100",
        "70b on h100 lol",
        "70b q4 on my 3090 haha",
        "hey can 0.5b run on a single 8x a100 pls",
    ],
)
def test_chat_words_beside_a_size_do_not_make_an_unknown_model(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.request is not None and a.request.model is not None


@pytest.mark.parametrize("text", ["does claude fit on rtx 4060 ti", "foo on rtx 4060 ti 16gb"])
def test_an_unknown_model_on_a_card_we_do_not_rent_is_asked_about(cat: Catalog, text: str) -> None:
    assert ask(text, catalog=cat).kind == "clarify"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("budżet 2 000 zł", "2 000 zł"),
        ("1 500 zł miesięcznie", "1 500 zł"),
        ("ile vram dla 70b za 2 000 zł", "2 000 zł"),
    ],
)
def test_amounts_grouped_with_spaces_are_read_whole(cat: Catalog, text: str, said: str) -> None:
    a = ask(text, catalog=cat)
    notes = [a.headline] + [n.text for n in a.caveats]
    assert any(f"„{said}”" in t for t in notes), notes
    dollars = ask("budżet 2 000 $ miesięcznie", catalog=cat)
    assert dollars.kind == "budget" and dollars.budget_usd == 2000


def test_a_model_asked_with_another_currency_is_still_sized(cat: Catalog) -> None:
    a = ask("70b for 2 000 pln a month on h100", catalog=cat)
    assert a.kind == "fit" and a.fit is not None and a.fit.card == "H100 SXM"
    assert [n.code for n in a.caveats if n.code == "other_currency"] == ["other_currency"]


@pytest.mark.parametrize("text", ["ile za h100?", "ile ma h100", "h100 กี่บาท"])
def test_a_price_question_is_not_a_count_question(cat: Catalog, text: str) -> None:
    from engine.understand import parse

    q = parse(text, cat)
    assert [c.name for c in q.cards] == ["H100 SXM"] and not q.cards[0].several


@pytest.mark.parametrize(
    ("follow", "count", "ctx"),
    [("on two of them?", 2, 8192), ("and at 32k?", 1, 32768), ("what about int8", 1, 8192)],
)
def test_follow_ups_keep_a_card_we_do_not_rent(
    cat: Catalog, follow: str, count: int, ctx: int
) -> None:
    from engine import context_of

    first = ask("llama 3.1 70b int4 on rtx 4060 ti 16gb", catalog=cat)
    assert first.request is not None and first.request.card == "RTX 4060 Ti 16GB"
    a = ask(follow, catalog=cat, previous=context_of(first))
    assert a.kind == "fit" and a.fit is not None
    assert (a.fit.card, a.fit.count) == ("RTX 4060 Ti 16GB", count)
    assert a.request is not None and a.request.context_tokens == ctx


def test_the_follow_up_count_gate_lets_every_match_through() -> None:
    """``ends_with_count`` runs before ``FOLLOW_COUNT`` to save its cost: it may say yes too
    often, never too rarely."""
    import random

    from engine.understand.counts import FOLLOW_COUNT, ends_with_count

    words = ["on", "two", "of", "them", "x", "2x", "2", "na", "dwóch", "takich", "with"]
    words += ["four", "such", "cards", "llama", "70b", "8", "batch", "tych", "z", "16", "17"]
    rng = random.Random(5)
    hits = 0
    for _ in range(20_000):
        sep = " " * rng.randint(1, 3)
        text = sep.join(rng.choice(words) for _ in range(rng.randint(1, 6)))
        s = " " + text + rng.choice(["", "?", "!", " ?", "  "]) + " "
        if FOLLOW_COUNT.search(s, max(0, len(s) - 40)):
            hits += 1
            assert ends_with_count(s), s
    assert hits > 1000


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("h100 per hour?", "en"),
        ("ile kosztuje h100 za godzinę", "pl"),
        ("h100 ชั่วโมงละเท่าไหร่", "th"),
    ],
)
def test_a_card_by_the_hour_leads_with_its_hourly_and_monthly_price(
    cat: Catalog, text: str, lang: str
) -> None:
    from engine.rounding import fmt_usd

    a = ask(text, catalog=cat)
    h100 = cat.card_by_name["H100 SXM"]
    assert a.kind == "faq" and a.lang == lang
    assert a.headline.startswith("H100 SXM")
    hourly = h100.monthly_usd / cat.fleet.provider.hours_per_month
    assert fmt_usd(hourly, lang) in a.headline  # 1,690 / 720 = $2.35
    assert fmt_usd(h100.monthly_usd, lang) in a.headline


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
def test_no_fit_at_the_lowest_rung_does_not_repeat_its_own_number(cat: Catalog, lang: str) -> None:
    a = ask("70b int4 on a 3090", lang, catalog=cat)
    assert a.fit is not None and not a.fit.fits and a.fit.best is None
    assert a.headline.count("39") == 1  # 39.7 GB once, not "even INT4 needs 39.7 GB" again
    b = ask("70b on a 3090", lang, catalog=cat)  # asked in BF16: INT4's need is news
    assert "INT4" in b.headline


@pytest.mark.parametrize(
    ("text", "batch"),
    [
        ("llama 3.1 8b with two users", 2),
        ("llama 3.1 8b dla dwóch użytkowników", 2),
        ("llama 3.1 8b สองคน", 2),
        ("llama 3.1 8b for ten concurrent users on a 4090", 10),
        ("llama 3.1 8b on two 3090s", 1),  # a count of cards, not of users
    ],
)
def test_a_number_of_users_in_words(cat: Catalog, text: str, batch: int) -> None:
    a = ask(text, catalog=cat)
    assert a.request is not None and a.request.batch == batch


def test_a_bare_number_beside_a_name_does_not_hide_it(cat: Catalog) -> None:
    a = ask("deepseek v3 on 2 nodes?", catalog=cat)
    assert a.request is not None and a.request.model is not None
    assert a.request.model.id == "deepseek-v3"


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("what can i run for 500 zł", "en"),
        ("70b for 2000 zł a month", "en"),
        ("qwen 32b, budget 3000 zł", "en"),
        ("best model for 1000zł/month", "en"),
        ("ile vram dla 70b za 500 zł", "pl"),
        ("budżet 500 zł", "pl"),
        ("70b 500 zł", "pl"),  # shorthand: the sign is the only hint there is
        ("co lepsze: 2x a6000 czy 1x l40s do qwen2.5 32b awq", "pl"),
        ("ile kart graficznych do 70b", "pl"),
    ],
)
def test_the_zloty_sign_alone_does_not_make_english_polish(
    cat: Catalog, text: str, lang: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.lang == lang
    if lang == "en":
        assert "zł" in a.text and "złot" not in a.text.lower()


@pytest.mark.parametrize(
    ("text", "fewer", "card", "count"),
    [
        ("how many 4090 for 70b", "70b on 4x 4090", "RTX 4090", 8),  # 145 GB; no 4090 sets
        ("how many rtx 3090 do i need for llama 3.1 70b int4", "llama 3.1 70b int4 on 3090",
         "RTX 3090", 2),
        ("ile 4090 potrzebuję do 70b", "70b na 4x 4090", "RTX 4090", 8),
        ("how many h200 for kimi k2", "kimi k2 on 4x h200", "H200 SXM", 8),
        ("how many h100 for deepseek v3", "deepseek v3 on 8x h100", "H100 SXM", 16),  # 675 GB
        ("deepseek r1 ต้องใช้ h200 กี่ใบ", "deepseek r1 on 4x h200", "H200 SXM", 8),
    ],
)  # fmt: skip
def test_how_many_counts_the_hardware_past_the_sets_we_rent(
    cat: Catalog, text: str, fewer: str, card: str, count: int
) -> None:
    """ "How many X" is answered with the smallest count of X that holds it; that we do not
    rent that set is said as a separate fact."""
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.fit is not None
    assert (a.fit.card, a.fit.count, a.fit.fits) == (card, count, True)
    less = ask(fewer, catalog=cat).fit  # the next count down does not hold it as asked
    assert less is not None and less.card == card and less.count < count and not less.fits


@pytest.mark.parametrize("text", ["70b on l40s", "70b fp8 on l40s or h100 pcie"])
def test_a_name_ending_in_s_is_not_a_plural(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.fit is not None and (a.fit.card, a.fit.count) == ("L40S", 1)
    assert a.request is not None and a.request.count is None  # as asked: no count said


@pytest.mark.parametrize(
    ("first", "follow", "fits", "precision", "context"),
    [
        ("70b int4 in 48gb", "and at 32k?", True, "int4", 32768),
        ("70b int4 in 48gb", "what about fp8?", False, "fp8", 8192),
        ("does qwen2.5 32b fit in 24gb vram", "and at 32k?", False, "bf16", 32768),
        ("70b on m2 ultra 192gb", "and at 128k?", True, "bf16", 131072),
    ],
)
def test_a_follow_up_stays_on_the_plain_amount_it_was_checked_against(
    cat: Catalog, first: str, follow: str, fits: bool, precision: str, context: int
) -> None:
    from engine import context_of

    before = ask(first, catalog=cat)
    assert before.fit is not None
    ctx = context_of(before)
    assert ctx is not None and ctx.vram_gb == before.fit.vram_gb
    a = ask(follow, catalog=cat, previous=ctx)
    assert a.kind == "fit" and a.fit is not None
    assert (a.fit.card, a.fit.vram_gb, a.fit.fits) == (before.fit.card, before.fit.vram_gb, fits)
    assert a.request is not None
    assert (a.request.precision, a.request.context_tokens) == (precision, context)


def test_a_card_named_in_the_follow_up_replaces_the_amount(cat: Catalog) -> None:
    from engine import context_of

    ctx = context_of(ask("70b int4 in 48gb", catalog=cat))
    a = ask("and on an h100?", catalog=cat, previous=ctx)
    assert a.fit is not None and a.fit.card == "H100 SXM"
    assert context_of(a) is not None and context_of(a).vram_gb is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("m3 max 128gb", "128 GB"),
        ("128gb", "128 GB"),
        ("mac studio 192gb", "192 GB"),
        ("i have 12gb", "12 GB"),
        ("my gpu has 16gb", "16 GB"),
        ("my laptop has 8gb vram", "8 GB"),
        ("mam 16gb vram", "16 GB"),
        ("i own an rtx 4080", "RTX 4080"),
        ("i have a 4090", "RTX 4090"),
        ("we have 4 a100s", "4× A100 SXM"),
        ("i've got 2x 3090", "2× RTX 3090"),
        ("mam dwie 3090", "2× RTX 3090"),
        ("ผมมี 4090", "RTX 4090"),
    ],
)
def test_hardware_named_alone_as_ones_own_gets_what_fits_on_it(
    cat: Catalog, text: str, label: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "capacity"
    assert label in a.headline


@pytest.mark.parametrize("text", ["a100", "h100?", "card a40", "h100 specs"])
def test_a_card_named_alone_without_owning_it_gets_its_sheet(cat: Catalog, text: str) -> None:
    assert ask(text, catalog=cat).kind == "card"


@pytest.mark.parametrize(
    ("text", "most", "lang"),
    [
        ("m3 max 128gb vs a100", "128 GB", "en"),
        ("mac studio 192gb vs h100", "192 GB", "en"),
        ("4090 vs 48gb", "48 GB", "en"),
        ("m2 ultra 192gb czy h100?", "192 GB", "pl"),
        ("128gb กับ a100", "128 GB", "th"),
    ],
)
def test_memory_against_a_card_compares_what_each_holds(
    cat: Catalog, text: str, most: str, lang: str
) -> None:
    """Both sides kept: the plain amount is not dropped for the card's rental sheet."""
    a = ask(text, catalog=cat)
    assert a.kind == "compare" and a.lang == lang
    assert [i.kind for i in a.items] == ["capacity", "capacity"]
    assert a.headline.startswith(most)
    rows = a.sections[0].lines
    assert len(rows) == 2
    for item, line in zip(a.items, rows, strict=True):
        assert item.budget and item.budget[0].model in line  # the largest that fits on each
    assert all(i.budget[0].need_gb <= (i.fit.vram_gb or 0) for i in a.items if i.fit)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("why does nvidia-smi show less than 24 GB on my 4090?", "en"),
        ("nvidia-smi says 24564MiB", "en"),
        ("my 4090 only shows 23.99 GiB", "en"),
        ("dlaczego nvidia-smi pokazuje tylko 23 GB", "pl"),
    ],
)
def test_a_tool_showing_less_memory_gets_the_gib_answer(cat: Catalog, text: str, lang: str) -> None:
    a = ask(text, catalog=cat)
    assert (a.kind, a.faq_topic, a.lang) == ("faq", "gib", lang)


@pytest.mark.parametrize(
    ("text", "lead", "edge", "said"),
    [
        ("70b on h100", "fp8", "q8_0", "At the edge: Q8_0"),  # 0.9 GB left vs 5.3 GB
        ("qwen3 32b on a 4090", "int4", "q4_k_m", "At the edge: Q4_K_M"),
        ("llama 3.1 8b na 3060 12gb", "q6_k", "int8", "Na styk: INT8"),  # the rung above
    ],
)
def test_a_fit_leads_with_room_and_says_the_edge_beside_it(
    cat: Catalog, text: str, lead: str, edge: str, said: str
) -> None:
    a = ask(text, catalog=cat)
    f = a.fit
    assert f is not None and not f.fits and f.best is not None
    assert f.best.precision == lead
    at_edge = next(o for o in f.options if o.precision == edge)
    assert at_edge.fits and at_edge.headroom_gb < f.best.headroom_gb
    assert said in a.headline
    assert a.headline.index(lead.upper()) < a.headline.index(edge.upper())


def test_the_lead_never_drops_far_below_the_edge_rung(cat: Catalog) -> None:
    """Only a step lighter: when just a much smaller format has room, the edge rung leads."""
    from engine.kinds.ladder import LEAD_STEP

    for text in ("70b on h100", "qwen3 32b on a 4090", "gemma 3 27b on a 3090", "13b on a 3090"):
        a = ask(text, catalog=cat)
        f = a.fit
        assert f is not None and f.best is not None and a.memory_gb is not None
        first = next(o for o in f.options if o.fits)
        fixed = a.memory_gb["kv_cache"] + a.memory_gb["overhead"]  # the same on every rung
        assert f.best.total_gb - fixed >= LEAD_STEP * (first.total_gb - fixed) - 1e-9


@pytest.mark.parametrize(
    ("text", "lang", "said"),
    [
        ("price of 4x a100 per month", "en", "$3,643"),  # 4 x 990 x 0.92
        ("8x h100 per month", "en", "$12,168"),  # 8 x 1690 x 0.90
        ("cena 8x h100", "pl", "$12\u00a0168"),
        ("3x a100 price", "en", "2, 4, 8"),
        ("2x 4090 price", "en", "one card at a time"),
    ],
)
def test_the_price_of_a_set_is_the_sets(cat: Catalog, text: str, lang: str, said: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "card" and a.lang == lang and a.card is not None
    assert said in a.headline
    # the card's own sheet still follows the set's line
    assert a.sections[0].lines[0].startswith(a.card.name + ": ")


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("can i run a good coding model locally?", "en"),
        ("what model should i use?", "en"),
        ("jaki model do kodu polecasz?", "pl"),
        ("โมเดลอะไรดีสำหรับเขียนโค้ด", "th"),
    ],
)
def test_a_model_wanted_without_hardware_asks_for_the_hardware(
    cat: Catalog, text: str, lang: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "help" and a.lang == lang
    assert a.headline == cat.messages[lang]["help.needs_hardware"]


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("coding model for a 4090", "RTX 4090"),
        ("model do kodu na 4090", "RTX 4090"),
        ("best model for a 3090", "RTX 3090"),
        ("good model for my 3060", "RTX 3060 12GB"),
    ],
)
def test_a_model_wanted_for_a_card_lists_what_fits_on_it(
    cat: Catalog, text: str, label: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "capacity" and label in a.headline
    if "kod" in text or "coding" in text:
        ids = {o.model_id for o in a.budget}
        assert ids and all("code" in cat.model_by_id[i].tasks for i in ids)


@pytest.mark.parametrize(
    "text", ["does @everyone fit on a 4090?", "h100 fits?", "czy zmieści się na 4090?"]
)
def test_does_it_fit_with_nothing_to_size_lists_what_fits(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "capacity"
    assert "@everyone" not in a.text


def test_does_it_fit_after_a_question_checks_that_question(cat: Catalog) -> None:
    from engine import context_of

    a = ask("does it fit on an h100?", catalog=cat, previous=context_of(ask("70b int4")))
    assert a.kind == "fit" and a.fit is not None and a.fit.card == "H100 SXM"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("qwen3 32b vs llama 3.3 70b on a 4090", ["Qwen3 32B in INT4", "Llama 3.3 70B not even"]),
        ("qwen3 32b vs gemma 3 27b on a 4090 int4", ["the most room on Gemma 3 27B"]),
        ("70b int4 on h100 vs a100", ["Holds it as asked: H100 SXM, A100 SXM."]),  # a tie
    ],
)
def test_a_fit_comparison_picks(cat: Catalog, text: str, said: list[str]) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "compare"
    for part in said:
        assert part in a.headline
    assert "each line below says" not in a.headline


def test_a_budget_may_buy_a_set_where_the_rules_pick_is_one_dearer_card(cat: Catalog) -> None:
    """gpt-oss-120b as released (67.6 GB): one A100 at $990, or two A40s at $456."""
    a = ask("best model under $500/month", catalog=cat)
    rows = {o.model_id: o for o in a.budget}
    oss = rows["gpt-oss-120b"]
    assert (oss.card, oss.count, oss.precision) == ("A40", 2, "mxfp4")
    assert oss.monthly_usd == pytest.approx(2 * 240 * 0.95)
    for o in a.budget:
        assert o.monthly_usd <= 500
        card = cat.card_by_name[o.card]
        assert card.vram_gb * o.count >= o.need_gb
        assert o.count == 1 or o.count in card.set_sizes
    coding = ask("best model under $500/month for coding", catalog=cat)
    assert coding.budget and all("code" in cat.model_by_id[o.model_id].tasks for o in coding.budget)


def test_a_partial_config_paste_says_what_it_assumed(cat: Catalog) -> None:
    part = '{"num_hidden_layers": 64, "num_attention_heads": 64, "num_key_value_heads": 8, "hidden_size": 5120}'
    a = ask(part, catalog=cat)
    assert a.kind == "sizing"
    (note,) = [n for n in a.assumptions if n.code == "config_guessed"]
    for key in ("intermediate_size", "vocab_size", "max_position_embeddings"):
        assert key in note.text
    assert "num_key_value_heads" not in note.text  # given, so not assumed
    whole = (
        '{"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, '
        '"hidden_size": 4096, "intermediate_size": 14336, "vocab_size": 128256, '
        '"max_position_embeddings": 131072}'
    )
    assert not [n for n in ask(whole, catalog=cat).assumptions if n.code == "config_guessed"]


@pytest.mark.parametrize(
    ("text", "vllm"),
    [
        ("gpt-oss-20b on a 16gb card", True),  # served at the edge: vLLM's 90% matters
        ("qlora 34b", False),  # a training job
        ("llama 3.1 70b q4_k_m on 2x 3090", False),  # a GGUF file: llama.cpp, Ollama
    ],
)
def test_the_vllm_share_is_said_for_serving_only(cat: Catalog, text: str, vllm: bool) -> None:
    a = ask(text, catalog=cat)
    assert any(n.code == "vllm_headroom" for n in a.caveats) is vllm


def test_past_one_node_a_stream_pools_one_nodes_bandwidth(cat: Catalog) -> None:
    """16x H100 is two servers: tensor parallel inside each, the layers split between them."""
    from engine.recommend import NODE_CARDS

    assert cat.fleet.cluster.cards_per_node == NODE_CARDS
    eight = ask("deepseek v3 on 8x h200", catalog=cat).fit
    sixteen = ask("deepseek v3 on 16x h200", catalog=cat).fit
    assert eight is not None and sixteen is not None and eight.fits and sixteen.fits
    assert sixteen.decode_tok_s == pytest.approx(eight.decode_tok_s)  # not twice as fast
    a = ask("how many h100 for deepseek v3", catalog=cat)
    assert "more than one server" in a.text and "one node's bandwidth" in a.text


@pytest.mark.parametrize(
    "text",
    [
        "what's the bandwidth of my 4090?",
        "i have a 4090 what is its bandwidth",
        "is my 3090 supported for fp8",
        "i have a question about the h100",
        "i own an h100 - price?",
        "i have a 4090, how fast is it?",
    ],
)
def test_a_question_about_ones_own_card_gets_the_cards_sheet(cat: Catalog, text: str) -> None:
    assert ask(text, catalog=cat).kind == "card"


@pytest.mark.parametrize(
    "follow",
    [
        "which card do i need at 32k?",
        "what should i rent for 32k?",
        "and the cheapest rental at 32k?",
    ],
)
def test_a_follow_up_asking_what_to_rent_leaves_the_plain_amount(cat: Catalog, follow: str) -> None:
    from engine import context_of

    a = ask(follow, catalog=cat, previous=context_of(ask("70b int4 in 48gb", catalog=cat)))
    assert a.fit is None or a.fit.card != "48 GB"
    assert a.recommendation is not None and a.request is not None
    assert a.request.context_tokens == 32768


def test_the_edge_said_is_the_rung_just_above_the_lead(cat: Catalog) -> None:
    a = ask("does llama 3.1 70b fit on an h100", catalog=cat)
    assert a.fit is not None and a.fit.best is not None
    above = [o for o in a.fit.options if o.fits and o.total_gb > a.fit.best.total_gb]
    lightest = min(above, key=lambda o: o.total_gb)
    assert f"At the edge: {lightest.precision.upper()}" in a.headline
    assert lightest.precision == "fp8"  # FP8 before INT8 at the same size, on an FP8 card


def test_an_id_made_of_chat_words_is_not_a_model(cat: Catalog) -> None:
    a = ask("budget 500 usd/month, best model i can run?", catalog=cat)
    assert a.kind == "budget" and a.budget_usd == 500


def test_the_config_note_says_only_the_defaults_it_applied(cat: Catalog) -> None:
    part = '{"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 8192}'
    (note,) = [n for n in ask(part, catalog=cat).assumptions if n.code == "config_guessed"]
    assert "vocab_size = 32000" in note.text
    assert "intermediate_size" not in note.text and "max_position_embeddings" not in note.text


def test_compared_sets_are_priced_and_sized_as_sets(cat: Catalog) -> None:
    """2x H100 at 2 x 1690 x 0.95 = $3,211 against one H200 at $2,290: the H200 is cheaper."""
    a = ask("which is cheaper per month, 2x h100 or 1x h200?", catalog=cat)
    assert a.kind == "compare"
    assert "H200 SXM the lowest price ($2,290/month)" in a.headline
    assert "2× H100 SXM has the most memory (160 GB)" in a.headline
    rows = a.sections[0].lines
    assert rows[0].startswith("2× H100 SXM: 160 GB") and "$3,211/month" in rows[0]
    unrented = ask("2x 4090 vs a100", catalog=cat).sections[0].lines[0]
    assert unrented.startswith("2× RTX 4090: 48 GB") and "not a set we rent" in unrented


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("price per hour for 8x h100", "$16.90 an hour for the set"),  # 8 x 1690 x 0.9 / 720
        ("ile to jest na godzine 4x a100?", "$5,06 za godzinę"),  # 4 x 990 x 0.92 / 720
    ],
)
def test_the_hourly_price_of_a_set_is_the_sets(cat: Catalog, text: str, said: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "faq" and said in a.headline


def test_a_comparison_of_fits_names_the_cheapest_and_the_fastest(cat: Catalog) -> None:
    a = ask("h100 vs a100 for 70b int4 whats faster and cheaper", catalog=cat)
    assert "Cheapest to rent: A100 SXM at $990/month." in a.headline
    assert "Fastest: H100 SXM, up to 96 tok/s" in a.headline  # 3,350 GB/s / 35 GB of weights


def test_a_comparison_says_what_the_others_run_when_one_holds_it(cat: Catalog) -> None:
    a = ask("gpt-oss-20b vs qwen3 14b on a 4060 ti 16gb", catalog=cat)
    assert a.headline.startswith("Holds it as asked: gpt-oss-20b")
    qwen = a.items[1].fit
    assert qwen is not None and not qwen.fits and qwen.best is not None
    assert "The others: " in a.headline and f"in {qwen.best.precision.upper()}" in a.headline


@pytest.mark.parametrize(
    ("text", "count"),
    [("kimi k2 on 32x h100", 32), ("kimi k2 on 24x h100", 24), ("32 x h100 for kimi k2", 32)],
)
def test_a_count_past_sixteen_with_its_x_is_read(cat: Catalog, text: str, count: int) -> None:
    f = ask(text, catalog=cat).fit
    assert f is not None and (f.card, f.count, f.fits) == ("H100 SXM", count, True)


def test_a_bare_large_number_before_a_card_is_not_a_count(cat: Catalog) -> None:
    f = ask("70b 128 a100", catalog=cat).fit
    assert f is not None and f.count == 1


def test_memory_against_a_set_names_the_set_once(cat: Catalog) -> None:
    a = ask("mac studio 512gb vs 8x a100", catalog=cat)
    assert a.kind == "compare" and "8× 8×" not in a.text
    assert a.headline.startswith("8× A100 SXM (640 GB) holds the most")


def test_the_128k_release_is_not_the_4k_one(cat: Catalog) -> None:
    """Phi-3 mini 128k shares the 4k shape but takes 131072 tokens (LongRoPE)."""
    long = ask("microsoft/Phi-3-mini-128k-instruct int4", catalog=cat)
    short = ask("microsoft/Phi-3-mini-4k-instruct int4", catalog=cat)
    assert long.request is not None and long.request.model is not None
    assert short.request is not None and short.request.model is not None
    assert long.request.model.id == "phi-3-mini-128k"
    assert long.request.model.max_context_tokens == 131072
    assert short.request.model.max_context_tokens == 4096
    assert long.request.model.layers == short.request.model.layers


@pytest.mark.parametrize(
    "text",
    [
        "4090 or 3090 for running qwen3 14b q4_k_m?",
        "70b int4 on a6000 or a100",
        "qwen3 14b q4_k_m na 4090 czy 3090?",
        "llama 3.1 8b on a40, l40s or h100",
        "qlora 7b on a 4090 or a 3090",
    ],
)
def test_several_cards_that_hold_it_are_told_apart(cat: Catalog, text: str) -> None:
    """ "A or B" where both hold it: the headline says which is cheaper and which faster,
    from the fits' own prices and ceilings, not the first card's verdict alone."""
    a = ask(text, catalog=cat)
    held = [f for f in a.fits if f.fits]
    assert len(held) >= 2
    cheap = min(held, key=lambda f: f.monthly_usd or 0.0)
    assert cheap.card in a.headline
    assert fmt_usd(cheap.monthly_usd or 0.0, a.lang) in a.headline
    if all(f.decode_tok_s for f in held):
        fast = max(held, key=lambda f: f.decode_tok_s or 0.0)
        assert fast.card in a.headline
        assert fmt_num(fast.decode_tok_s or 0.0, 0, a.lang) in a.headline


@pytest.mark.parametrize(
    "text", ["can i rent a single b200?", "B200 เช่าใบเดียวได้ไหม", "czy mogę wynająć jedną b200?"]
)
def test_a_card_never_rented_alone_says_so_first(cat: Catalog, text: str) -> None:
    from engine.recommend import set_price

    a = ask(text, catalog=cat)
    assert a.kind == "card" and a.card is not None
    card = cat.card_by_name[a.card.name]
    assert card.min_count > 1
    assert f"{card.min_count}× {card.name}" in a.headline
    assert fmt_usd(set_price(cat, card, card.min_count)[2], a.lang) in a.headline


@pytest.mark.parametrize(
    "text",
    [
        "qwen3 235b a22b at int4 and 128k context - fits on 2 h100?",
        "qwen3 235b int4 128k na 2x h100",
        "llama 2 7b at 16k on an h100",
        "qwen3 30b a3b on a 3090 at 64k",  # fits in a lighter precision only
        "qwen3 30b a3b na 3090 przy 64k",
    ],
)
def test_a_fit_past_the_trained_context_does_not_say_up_to_it(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.fit is not None and (a.fit.fits or a.fit.best is not None)
    assert a.request is not None
    m = a.request.model
    assert m is not None and m.max_context_tokens is not None
    assert a.request.context_tokens > m.max_context_tokens
    trained = f"{m.max_context_tokens // 1024}k"
    assert trained in a.headline
    assert f"up to {trained}" not in a.headline and f"do {trained}" not in a.headline


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("does llama 3.1 70b q4_k_m fit on my mac studio 64gb?", "mac_gpu_share"),
        ("llama 3.1 70b q8_0 on a mac studio 96gb", "mac_raise_limit"),
        ("what can i run on my mac studio 192gb?", "mac_gpu_share"),
        ("qwen2.5 32b int4 na m3 max 128gb", "mac_gpu_share"),
    ],
)
def test_a_mac_says_its_gpu_gets_part_of_the_memory(cat: Catalog, text: str, code: str) -> None:
    """The verdict is judged against the GPU's default share, said; past it, the `sysctl`
    that lets it load."""
    a = ask(text, catalog=cat)
    codes = [c.code for c in a.caveats]
    assert code in codes
    assert "iogpu.wired_limit_mb" in a.text


def test_plain_memory_that_is_not_a_mac_has_no_such_note(cat: Catalog) -> None:
    a = ask("70b int4 in 48gb", catalog=cat)
    assert not [c for c in a.caveats if c.code.startswith("mac_")]


@pytest.mark.parametrize(
    "text", ["gemma 3 4b on my m2 macbook air 16gb", "qwen2.5 14b na m4 mac mini 24gb"]
)
def test_a_chip_said_before_the_mac_is_part_of_the_mac(cat: Catalog, text: str) -> None:
    """ "m2 macbook air": the chip is hardware, not a model word."""
    a = ask(text, catalog=cat)
    assert a.kind == "fit" and a.request is not None and a.request.model is not None
    assert any(c.code.startswith("mac_gpu_share") for c in a.caveats)
