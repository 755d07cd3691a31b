"""Questions a new-user trial found read wrong: a budget per hour, day or week, Polish forms
of LoRA, GiB, unknown or out-of-range values said back, rental terms, and card variants.
Each failed before its fix."""

from __future__ import annotations

import pytest

from engine import Catalog, ask, load_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("text", "monthly", "lang", "head"),
    [
        ("what can I run for $2/hr", 1440, "en", "What you can serve for $1,440/month"),
        ("$2/hour", 1440, "en", "What you can serve for $1,440/month"),
        ("budget $2/h", 1440, "en", "What you can serve for $1,440/month"),
        ("2 usd/h", 1440, "en", "What you can serve for $1,440/month"),
        ("$3 per hr", 2160, "en", "What you can serve for $2,160/month"),
        ("$0.5 hourly", 360, "en", "What you can serve for $360/month"),
        ("najlepszy model za 2 dolary na godzinę", 1440, "pl", "Co uruchomisz za $1\u00a0440"),
        ("budżet 2 $/h", 1440, "pl", "Co uruchomisz za $1\u00a0440"),
        ("งบ 2 ดอลลาร์ต่อชั่วโมง", 1440, "th", "งบ $1,440 ต่อเดือน"),
        ("$50 per day", 1500, "en", "What you can serve for $1,500/month"),
        ("$50 daily", 1500, "en", "What you can serve for $1,500/month"),
        ("budżet 50 dolarów dziennie", 1500, "pl", "Co uruchomisz za $1\u00a0500"),
        ("$210/week", 900, "en", "What you can serve for $900/month"),
        ("budżet 70 $ tygodniowo", 300, "pl", "Co uruchomisz za $300"),
        ("งบ $70 ต่อสัปดาห์", 300, "th", "งบ $300 ต่อเดือน"),
    ],
)
def test_a_budget_per_hour_day_or_week_is_the_month_it_comes_to(
    cat: Catalog, text: str, monthly: float, lang: str, head: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "budget" and a.lang == lang
    assert a.budget_usd == pytest.approx(monthly)
    assert a.text.splitlines()[0].startswith(head)


def test_a_budget_per_hour_with_a_model_is_not_a_model_named_h(cat: Catalog) -> None:
    a = ask("$2/h llama 3.3 70b", catalog=cat)
    assert a.kind != "clarify" and a.request is not None and a.request.model is not None
    assert a.request.model.id == "llama-3.3-70b" and a.budget_usd == pytest.approx(1440)


def test_another_currency_per_hour_is_said_back_whole(cat: Catalog) -> None:
    a = ask("8 zł/h", catalog=cat)
    assert a.kind != "clarify" and a.lang == "pl"
    assert "„8 zł/h”" in a.text and a.budget_usd is None


def test_a_month_stays_a_month(cat: Catalog) -> None:
    assert ask("$300/month", catalog=cat).budget_usd == pytest.approx(300)
    assert ask("$300 a month on h100", catalog=cat).budget_usd == pytest.approx(300)


@pytest.mark.parametrize(
    ("text", "task", "lang"),
    [
        ("czy zrobię lorę na mistral nemo 12b na 3060 12gb", "lora", "pl"),
        ("czy zrobie lore na llama 3.1 8b", "lora", "pl"),
        ("lory dla llama 3.1 8b", "lora", "pl"),
        ("z lorą na llama 3.1 8b", "lora", "pl"),
        ("o lorze na llama 3.1 8b", "lora", "pl"),
        ("qlorę na llama 3.1 8b", "qlora", "pl"),
        ("z qlorą llama 3.1 8b na 4090", "qlora", "pl"),
        ("fajntiun llama 3.1 8b", "full", "pl"),
        ("dotrenowanie llama 3.1 8b", "full", "pl"),
        ("douczenie llama 3.1 8b", "full", "pl"),
        ("โลรา llama 3.1 8b", "lora", "th"),
        ("ลอร่า llama 3.1 8b", "lora", "th"),
        ("คิวโลรา llama 3.1 8b", "qlora", "th"),
        ("ปรับจูน llama 3.1 8b", "full", "th"),
    ],
)
def test_inflected_and_thai_training_words_name_the_task(
    cat: Catalog, text: str, task: str, lang: str
) -> None:
    a = ask(text, catalog=cat)
    assert a.request is not None and a.request.task == task and a.lang == lang
    assert a.request.model is not None and a.request.model.id.startswith(("llama", "mistral"))
    assert a.memory_gb is not None and a.memory_gb["total"] > 0


def test_the_polish_lora_answer_is_the_training_verdict(cat: Catalog) -> None:
    a = ask("czy zrobię lorę na mistral nemo 12b na 3060 12gb", catalog=cat)
    assert a.kind == "fit" and a.request is not None and a.request.model is not None
    assert a.request.model.id == "mistral-nemo-12b"
    assert a.text.splitlines()[0].startswith("Mistral Nemo 12B · LoRA")
    assert "nie mieści się" in a.text.splitlines()[0]


@pytest.mark.parametrize("text", ["fajnie byłoby llama 3.1 8b", "trend llama 3.1 8b"])
def test_near_words_are_not_training(cat: Catalog, text: str) -> None:
    a = ask(text, catalog=cat)
    assert a.request is not None and a.request.task == "inference"
