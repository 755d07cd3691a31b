"""A model asked about with a budget: the answer says whether the pick is within it, and when
it is not, the heaviest precision (or lighter training method) whose cheapest rental is, or
the cheapest rental there is. Before, the budget was read and then ignored."""

from __future__ import annotations

import pytest

from bot.render.short import short_lines
from engine import Catalog, RequestOptions, ask, fmt_usd, load_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("can i run llama 3.1 70b for under $500/month?", 500),
        ("llama 3.1 70b budget $300", 300),
        ("qwen3 32b fp8 for 10 users, I have $1000/month", 1000),
        ("full fine-tune 13b under $1000 a month", 1000),
        ("czy uruchomię llama 3.1 70b za 500 dolarów miesięcznie?", 500),
    ],
)
def test_over_budget_offers_the_first_lighter_setup_within(
    cat: Catalog, text: str, budget: float
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "sizing" and a.budget_usd == budget
    rec, w, req = a.recommendation, a.within_budget, a.request
    assert rec is not None and w is not None and req is not None
    assert rec.monthly_usd > budget >= w.monthly_usd
    assert w.need_gb is not None and a.memory_gb is not None
    assert w.need_gb <= a.memory_gb["total"]
    # asked back in that setup, the same need; and it is the heaviest such setup
    task = w.reason if w.reason != "inference" else None
    back = ask(text, catalog=cat, options=RequestOptions(precision=w.precision, task=task))
    assert back.memory_gb is not None and back.memory_gb["total"] == pytest.approx(w.need_gb)
    assert fmt_usd(w.monthly_usd, a.lang) in a.headline
    first = short_lines(a, cat)[0]
    assert first.startswith("❌") and f"{w.count}× {w.card}" in first


def test_within_budget_says_yes(cat: Catalog) -> None:
    a = ask("qwen3 32b fp8 under $1000/month", catalog=cat)
    assert a.recommendation is not None and a.recommendation.monthly_usd <= 1000
    assert a.within_budget is None and a.budget_floor is None
    assert a.headline.startswith("Yes, within $1,000/month")
    assert short_lines(a, cat)[0].startswith("✅")


def test_nothing_within_budget_names_the_cheapest(cat: Catalog) -> None:
    a = ask("deepseek v3 under $200/month", catalog=cat)
    f = a.budget_floor
    assert a.within_budget is None and f is not None and f.monthly_usd > 200
    assert fmt_usd(f.monthly_usd, a.lang) in a.headline
    assert short_lines(a, cat)[0].startswith("❌")


def test_a_tight_lighter_setup_gives_way_to_one_with_room(cat: Catalog) -> None:
    # Q4_K_M of a 70B model leaves 0.6 GB on a 48 GB A40; INT4 on the same card has room
    a = ask("llama 3.1 70b budget $300", catalog=cat)
    w = a.within_budget
    assert w is not None and not w.tight


def test_json_keeps_the_budget_keys(cat: Catalog) -> None:
    j = ask("llama 3.1 70b", catalog=cat).to_json()
    assert "within_budget" in j and "budget_floor" in j and j["within_budget"] is None


def test_a_follow_up_stays_within_the_budget(cat: Catalog) -> None:
    from engine import context_of

    first = ask("can i run llama 3.1 70b for under $500/month?", catalog=cat)
    ctx = context_of(first)
    assert ctx is not None and ctx.budget_usd == 500
    more = ask("and at 32k?", catalog=cat, previous=ctx)
    assert more.budget_usd == 500 and more.request is not None
    assert more.request.context_tokens == 32768
    w = more.within_budget
    assert w is not None and w.monthly_usd <= 500
    other = ask("what about on an h100?", catalog=cat, previous=ctx)
    assert other.budget_usd is None  # hardware named: a new question, not the budget's


@pytest.mark.parametrize(
    ("text", "card", "count"),
    [
        ("can I run gemma 3 27b for under $500/month?", "A40", 2),
        ("can I run llama 3.3 70b for under $900/month?", "A40", 4),
        ("qwen3 32b za 500 dolarów miesięcznie", "A40", 2),
    ],
)
def test_a_set_cheaper_than_the_single_card_pick_is_within_as_asked(
    cat: Catalog, text: str, card: str, count: int
) -> None:
    """The rule's pick is one dearer card; a budget may buy the cheaper set as asked."""
    a = ask(text, catalog=cat)
    w, rec, req = a.within_budget, a.recommendation, a.request
    assert w is not None and rec is not None and req is not None and a.budget_usd is not None
    assert rec.monthly_usd > a.budget_usd >= w.monthly_usd
    assert (w.card, w.count, w.precision) == (card, count, req.precision)
    assert w is a.budget_asked
    lines = short_lines(a, cat)
    assert lines[0].startswith("✅") and f"{count}× {card}" in lines[0]
    assert all(f"{count}× {card}" not in line for line in lines[2:3])  # not said twice


def test_short_alternatives_stay_within_the_budget(cat: Catalog) -> None:
    for text in ("can i run llama 3.1 70b for under $500/month?", "deepseek v3 under $200/month"):
        a = ask(text, catalog=cat)
        assert a.budget_usd is not None
        for line in short_lines(a, cat)[2:3]:
            prices = [x for x in a.alternatives if f"{x.count}× {x.card}" in line]
            assert all(x.monthly_usd <= a.budget_usd for x in prices), line


def test_line_one_survives_the_json_round_trip(cat: Catalog) -> None:
    """A button's memo rebuilds the answer from its JSON: the set within the budget as asked
    is still told apart by value, not by object."""
    from engine import Answer

    a = ask("llama 3.3 70b under $900 a month", catalog=cat)
    back = Answer.model_validate(a.to_json())
    assert short_lines(back, cat)[:2] == short_lines(a, cat)[:2]
    assert short_lines(back, cat)[0].startswith("✅")


def test_nothing_within_names_the_setup_as_asked_when_nothing_is_lighter(cat: Catalog) -> None:
    a = ask("qlora qwen3 235b under $500/month", catalog=cat)
    low = a.budget_asked
    assert a.within_budget is None and low is not None
    assert fmt_usd(low.monthly_usd, a.lang) in a.headline and "QLoRA on" in a.headline


def test_a_budget_per_hour_is_the_month_it_comes_to(cat: Catalog) -> None:
    a = ask("can i run llama 3.1 8b for under $1 per hour?", catalog=cat)
    assert a.budget_usd == cat.fleet.provider.hours_per_month
    assert a.headline.startswith("Yes, within")


def test_per_hour_after_a_budget_keeps_the_monthly_budget(cat: Catalog) -> None:
    """A kept budget is monthly already: "what about per hour?" prices the same set by the hour
    rather than multiplying the budget by the hours of a month again."""
    from engine import context_of

    first = ask("qwen2.5 72b on a budget of $1000 a month", catalog=cat)
    more = ask("what about per hour?", catalog=cat, previous=context_of(first))
    assert more.budget_usd == 1000
    assert more.recommendation == first.recommendation or more.within_budget is not None
    hourly = [c for c in more.caveats if c.code == "per_hour"]
    assert hourly and "$1.23 an hour" in hourly[0].text  # 4x A40: $883.20 / 720 h


@pytest.mark.parametrize(
    ("text", "hour"),
    [
        ("how much per hour to run llama 3.1 70b on b200?", "$10.27"),  # 2x B200, $7,391
        ("DeepSeek-V3 บน B200 ราคาเท่าไหร่ต่อชั่วโมง", "$19.88"),  # 4x B200, $14,315
        ("llama 3.1 8b per hour", "$0.26"),  # RTX A5000, $190
    ],
)
def test_per_hour_says_the_hour(cat: Catalog, text: str, hour: str) -> None:
    a = ask(text, catalog=cat)
    hourly = [c for c in a.caveats if c.code == "per_hour"]
    assert hourly and hour in hourly[0].text
    assert hour in "\n".join(short_lines(a, cat))


def test_per_hour_as_a_follow_up_is_about_the_last_answers_set(cat: Catalog) -> None:
    from engine import context_of

    first = ask("how much to run qwen3 32b on h100 pcie", catalog=cat)
    more = ask("per hour?", catalog=cat, previous=context_of(first))
    assert "H100 PCIe" in more.headline and "$2.07" in more.headline


def test_a_lighter_setup_that_costs_no_less_is_not_offered(cat: Catalog) -> None:
    a = ask("mistral small 3.1 at 128k for 10 users under $500/month", catalog=cat)
    assert a.request is not None and a.budget_floor is None and a.budget_asked is not None
    assert f"{a.request.precision.upper()} on" in a.headline
