"""Budgets, "what can I run" lists and the assumptions line: every listed model is sized at
the context and users asked (and says them), only what was really assumed is said, a budget
named with a card set in one long message answers the budget and judges the set, and a
budget's first line says what the budget gets."""

from __future__ import annotations

import pytest

from engine import Catalog, ask, fmt_usd, load_catalog
from engine.answer_types import Answer
from engine.i18n import t
from engine.recommend import set_price
from engine.refs import model_ref
from engine.sizing import inference


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def _codes(a: Answer) -> set[str]:
    return {n.code for n in a.assumptions}


def _note(a: Answer, code: str) -> str:
    return next(n.text for n in a.assumptions if n.code == code)


# -- 2. the assumptions line says only what was assumed -----------------------------------


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("llama 3.1 70b int4 serving 20 users", "en"),
        ("a100 or h100 for llama 3.1 70b int4 serving 20 users", "en"),
        ("qwen2.5 32b fp8 for 6 users on h100", "en"),
        ("llama 3.1 70b int4 dla 20 użytkowników", "pl"),
        ("llama 3.1 70b int4 ผู้ใช้ 20 คน", "th"),
    ],
)
def test_users_given_the_note_says_only_the_context(cat: Catalog, text: str, lang: str) -> None:
    a = ask(text, lang, catalog=cat)
    req = a.request or a.items[0].request
    assert req is not None and req.batch > 1 and req.context_tokens == 8192
    assert _codes(a) >= {"default_context"} and "default_users" not in _codes(a)
    assert _note(a, "default_context") == t(cat, lang, "assume.default_context_only", ctx="8k")
    one_user = t(cat, lang, "label.users_one")
    assert one_user.split()[0] not in _note(a, "default_context")


@pytest.mark.parametrize("lang", ["en", "pl", "th"])
def test_every_combination_of_context_and_users(cat: Catalog, lang: str) -> None:
    neither = ask("llama 3.1 70b int4", lang, catalog=cat)
    ctx = ask("llama 3.1 70b int4 32k context", lang, catalog=cat)
    both = ask("llama 3.1 70b int4 32k context 4 users", lang, catalog=cat)
    assert _note(neither, "default_context") == t(cat, lang, "assume.default_context", ctx="8k")
    assert "default_users" not in _codes(neither)
    assert ctx.request is not None and ctx.request.context_tokens == 32768
    assert "default_context" not in _codes(ctx)
    assert _note(ctx, "default_users") == t(cat, lang, "assume.default_users")
    assert both.request is not None and both.request.batch == 4
    assert not _codes(both) & {"default_context", "default_users"}


# -- 1. budget and capacity lists are sized at the context and users asked ------------------


def _check_sized(cat: Catalog, a: Answer, ctx: int, batch: int) -> None:
    assert a.budget
    for o in a.budget:
        assert (o.context_tokens, o.batch) == (ctx, batch)
        m = cat.model_by_id[o.model_id]
        assert m.max_context_tokens >= ctx
        p = cat.precision_by_name[o.precision]
        if m.native_precision.experts is None and m.native_precision.dense == "bf16":
            need = inference(model_ref(m), p.bytes_per_param, 2.0, ctx, batch).total
            assert o.need_gb == pytest.approx(need)


@pytest.mark.parametrize(
    ("text", "lang", "ctx", "batch", "cap"),
    [
        ("jaki model zmieszcze na 2x 3090 dla 4 osób przy 16k", "pl", 16384, 4, 48.0),
        ("what can i run on my 3090 with 32k context", "en", 32768, 1, 24.0),
        ("what fits on 2x a40 for 8 users at 32k", "en", 32768, 8, 96.0),
        ("co zmieszczę w 80gb przy 64k kontekstu", "pl", 65536, 1, 80.0),
    ],
)
def test_capacity_lists_at_the_asked_shape(
    cat: Catalog, text: str, lang: str, ctx: int, batch: int, cap: float
) -> None:
    a = ask(text, lang, catalog=cat)
    assert a.kind == "capacity"
    _check_sized(cat, a, ctx, batch)
    assert all(o.need_gb <= cap for o in a.budget)
    ctx_word = f"{ctx // 1024}k"
    assert ctx_word in a.headline
    users = t(cat, lang, "label.users_one") if batch == 1 else t(cat, lang, "label.users", n=batch)
    assert users in a.headline
    assert not _codes(a) & {"default_context"}


def test_two_3090s_for_four_users_at_16k_drop_the_70b(cat: Catalog) -> None:
    """Llama 3.3 70B in INT4 needs 35.3 + 21.5 + 2 = 58.8 GB there, more than 48 GB."""
    a = ask("jaki model zmieszcze na 2x 3090 dla 4 osób przy 16k", "pl", catalog=cat)
    assert "llama-3.3-70b" not in {o.model_id for o in a.budget}
    ref = model_ref(cat.model_by_id["llama-3.3-70b"])
    assert inference(ref, 0.5, 2.0, 16384, 4).total > 48


@pytest.mark.parametrize(
    ("text", "ctx", "batch", "assumed"),
    [
        ("budget 300 usd a month, need 32k context for coding model", 32768, 1, "default_users"),
        ("best model for $300/month at 32k context", 32768, 1, "default_users"),
        ("best model under $500/mo for 8 users", 8192, 8, "default_context"),
        ("best model for $2000/month, 16k context, 10 users", 16384, 10, None),
    ],
)
def test_budget_lists_at_the_asked_shape(
    cat: Catalog, text: str, ctx: int, batch: int, assumed: str | None
) -> None:
    a = ask(text, "en", catalog=cat)
    assert a.kind == "budget" and a.budget_usd is not None
    _check_sized(cat, a, ctx, batch)
    assert all(o.monthly_usd <= a.budget_usd for o in a.budget)
    assert f"at {ctx // 1024}k context" in a.headline
    found = _codes(a) & {"default_context", "default_users"}
    assert found == ({assumed} if assumed else set())
    if assumed == "default_context":
        assert "one user" not in _note(a, assumed)


# -- 3. a long message: a budget, users, context and a card set someone said is needed -----

_BUDDY = (
    "ok so me and 4 friends want to run llama 3.1 70b for a coding thing, each of us would "
    "use like 16k context, budget of like 1500 bucks a month, my buddy says we need 4 h100s, "
    "is that true?"
)


@pytest.mark.parametrize(
    ("text", "lang", "budget", "batch", "ctx", "card", "count"),
    [
        (_BUDDY, "en", 1500, 5, 16384, "H100 SXM", 4),
        (
            "my boss says we need 8 h100 for llama 3.3 70b fp8 for 10 users, budget "
            "5000/month, is that right",
            "en",
            5000,
            10,
            8192,
            "H100 SXM",
            8,
        ),
        (
            "is 4 h100 needed for llama 3.1 70b with 8 users at 16k, we have $2000 a month",
            "en",
            2000,
            8,
            16384,
            "H100 SXM",
            4,
        ),
        (
            "kolega mówi, że potrzebujemy 4 h100 do llama 3.1 70b dla 5 osób przy 16k, budżet "
            "1500 $ miesięcznie, czy to prawda?",
            "pl",
            1500,
            5,
            16384,
            "H100 SXM",
            4,
        ),
    ],
)
def test_a_budget_with_a_named_set_answers_the_budget_and_judges_the_set(
    cat: Catalog, text: str, lang: str, budget: int, batch: int, ctx: int, card: str, count: int
) -> None:
    a = ask(text, lang, catalog=cat)
    assert a.kind == "sizing" and a.budget_usd == budget
    assert a.request is not None
    assert (a.request.batch, a.request.context_tokens) == (batch, ctx)
    shown = a.within_budget or a.budget_asked or a.recommendation
    assert shown is not None and shown.monthly_usd <= budget
    (set_note,) = [n for n in a.caveats if n.code.startswith("named_set_")]
    price = set_price(cat, cat.card_by_name[card], count)[2]
    assert set_note.code == ("named_set_over" if price > budget else "named_set_within")
    assert f"{count}× {card}" in set_note.text
    assert fmt_usd(price, lang) in set_note.text and fmt_usd(budget, lang) in set_note.text
    assert not _codes(a) & {"default_context", "default_users"} or ctx == 8192


def test_the_buddy_message_sizes_five_users_at_16k(cat: Catalog) -> None:
    a = ask(_BUDDY, "en", catalog=cat)
    assert a.memory_gb is not None
    ref = model_ref(cat.model_by_id["llama-3.1-70b"])
    assert a.memory_gb["total"] == pytest.approx(inference(ref, 2.0, 2.0, 16384, 5).total)
    assert "$1,500/month" in a.headline and "Yes, within" in a.headline
    assert "$6,219/month" in a.text and "you do not need it" in a.text


@pytest.mark.parametrize(
    ("text", "users"),
    [("me and 4 friends want llama 3.1 70b", 5), ("5 of us want llama 3.1 70b", 5)],
)
def test_a_group_says_how_many_users(cat: Catalog, text: str, users: int) -> None:
    a = ask(text, "en", catalog=cat)
    assert a.request is not None and a.request.batch == users


# -- 4. a budget's first line is its verdict; a release named for its precision is not requantised


@pytest.mark.parametrize("budget", [1500, 3000, 800])
def test_no_release_named_for_a_precision_is_listed_in_another(cat: Catalog, budget: int) -> None:
    a = ask(f"best model under ${budget}/mo", "en", catalog=cat)
    for o in a.budget:
        last = o.model.rsplit(" ", 1)[-1].lower()
        if last in cat.precision_by_name:
            assert o.precision == last, o.model


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "best model under $1500/mo"),
        ("pl", "najlepszy model za 1500 dolarów miesięcznie"),
        ("th", "งบ 1500 ดอลลาร์ต่อเดือน รันโมเดลอะไรได้"),
    ],
)
def test_the_budget_headline_is_its_best_model(cat: Catalog, lang: str, text: str) -> None:
    a = ask(text, lang, catalog=cat)
    assert a.kind == "budget" and a.budget
    best = a.budget[0]
    assert best.model in a.headline and best.precision.upper() in a.headline
    assert best.card in a.headline and "8k" in a.headline
    assert t(cat, lang, "label.users_one") in a.headline
    assert a.headline != t(cat, lang, "headline.budget", budget="$1,500")
    assert "GLM-4.7 FP8 in INT4" not in a.text
