"""Things people type that the parser used to read wrong without a word: a version run into a
size, a bare size after a named model in a comparison, Thai spellings of "fine-tune", and
counts nobody can use. Each failed before its fix."""

from __future__ import annotations

import pytest

from engine import Catalog, ask, load_catalog


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("llama3.170b int4", "llama-3.1-70b"),
        ("llama3.18b", "llama-3.1-8b"),
        ("qwen2.532b fp8", "qwen2.5-32b"),
        ("qwen2.57b on a 4090", "qwen2.5-7b"),
    ],
)
def test_a_version_run_into_a_size(cat: Catalog, text: str, model: str) -> None:
    a = ask(text, catalog=cat)
    assert a.request is not None and a.request.model is not None
    assert a.request.model.id == model


def test_a_size_with_no_model_of_that_version_stays_a_size(cat: Catalog) -> None:
    a = ask("llama3.17b", catalog=cat)  # no Llama 3.1 7B: not split into one
    assert a.request is not None and a.request.model is not None
    assert a.request.model.id != "llama-3.1-8b" and a.request.model.params_b != 8.03


@pytest.mark.parametrize(
    ("text", "models"),
    [
        ("gpt-oss 20b vs 120b vram for 4 users at 32k", ["gpt-oss-20b", "gpt-oss-120b"]),
        ("gpt-oss 20b กับ 120b ต้องใช้ vram เท่าไร", ["gpt-oss-20b", "gpt-oss-120b"]),
        ("llama 3.1 8b or 70b", ["llama-3.1-8b", "llama-3.1-70b"]),
        ("qwen2.5 7b vs 14b vs 32b", ["qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b"]),
    ],
)
def test_a_bare_size_after_a_named_model_is_its_sibling(
    cat: Catalog, text: str, models: list[str]
) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "compare"
    got = [i.request.model.id if i.request and i.request.model else None for i in a.items]
    assert got == models


def test_a_bare_size_with_no_sibling_stays_a_typical_shape(cat: Catalog) -> None:
    a = ask("llama 3.1 8b vs 13b", catalog=cat)
    assert a.kind == "compare"
    second = a.items[1].request
    assert second is not None and second.model is not None and second.model.id is None
    assert second.model.params_b == 13


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("ฟายทูน llama 3.1 70b แบบ full ต้องใช้ GPU เท่าไหร่", "full"),
        ("ไฟน์ทูน llama 3.1 8b ต้องใช้ vram เท่าไร", "full"),
        ("ฟายทูน qwen2.5 7b แบบ qlora", "qlora"),
        ("llama 3.1 70b แบบ full", "full"),
    ],
)
def test_thai_spellings_of_fine_tuning(cat: Catalog, text: str, task: str) -> None:
    a = ask(text, catalog=cat)
    assert a.request is not None and a.request.task == task


def test_a_thai_precision_after_the_word_for_kind_stays_inference(cat: Catalog) -> None:
    a = ask("llama 3.1 70b แบบ int4", catalog=cat)
    assert a.request is not None and a.request.task == "inference"
    assert a.request.precision == "int4"


@pytest.mark.parametrize(
    ("text", "value"),
    [("70b on 0x h100", "0"), ("70b on 99999x a100", "99999"), ("70b for -5 users", "-5")],
)
def test_counts_nobody_can_use_are_answered_as_such(cat: Catalog, text: str, value: str) -> None:
    a = ask(text, catalog=cat)
    assert a.kind == "error"
    assert value in a.headline


@pytest.mark.parametrize(
    ("text", "count"), [("kimi k2 on 32x h100", 32), ("70b on 2x h100", 2), ("70b-5 users", None)]
)
def test_counts_that_can_be_used_still_are(cat: Catalog, text: str, count: int | None) -> None:
    a = ask(text, catalog=cat)
    assert a.kind != "error"
    if count is not None:
        assert a.fit is not None and a.fit.count == count
