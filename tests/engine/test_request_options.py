"""Typed request options: what an adapter holds as fields goes to the engine as fields.

A button press or a slash-command option is never turned into an English sentence for the
parser to read back; options win over the text, and a value nobody can size with is refused.
"""

from __future__ import annotations

import pytest

from engine import (
    DEFAULT_CONTEXT,
    Answer,
    Catalog,
    RequestOptions,
    ask,
    context_of,
    is_context_value,
    load_catalog,
    parse_token_count,
)


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def req(a: Answer) -> tuple[str | None, str, int, int]:
    assert a.request is not None and a.request.model is not None
    r = a.request
    return r.model.id, r.precision, r.context_tokens, r.batch


def test_picking_a_clarify_candidate_answers_it(cat: Catalog) -> None:
    """After "lama 3 int4", the "Llama 3 8B" button must size Llama 3 8B at INT4, not ask again."""
    first = ask("lama 3 int4", catalog=cat)
    assert first.kind == "clarify"
    picked = next(c for c in first.candidates if c.id == "llama-3-8b")
    a = ask("lama 3 int4", catalog=cat, options=RequestOptions(model_id=picked.id))
    assert a.kind == "sizing"
    assert req(a) == ("llama-3-8b", "int4", DEFAULT_CONTEXT, 1)
    # The picked model wins over other model words, and the answer can be followed up.
    a = ask("qwen 32b int4", catalog=cat, options=RequestOptions(model_id="llama-3-8b"))
    assert req(a)[:2] == ("llama-3-8b", "int4")
    assert context_of(a) is not None


def test_options_win_over_the_text(cat: Catalog) -> None:
    o = RequestOptions(precision="fp8", context_tokens="128k", batch=4, kv_dtype="fp8")
    a = ask("llama 3.1 70b int4 32k batch 2", catalog=cat, options=o)
    assert req(a) == ("llama-3.1-70b", "fp8", 131072, 4)
    assert a.request is not None and a.request.kv_dtype == "fp8"
    assert all(n.code != "two_precisions" for n in a.caveats)
    a = ask("70b", catalog=cat, options=RequestOptions(precision="q4_KM", context_tokens=4096))
    assert a.request is not None and (a.request.precision, a.request.context_tokens) == (
        "q4_k_m",
        4096,
    )


def test_options_alone_make_a_question(cat: Catalog) -> None:
    a = ask("", catalog=cat, options=RequestOptions(model_id="qwen2.5-32b", task="qlora"))
    assert a.kind == "sizing" and a.request is not None and a.request.task == "qlora"
    a = ask("", catalog=cat, options=RequestOptions(model_id="llama-3.1-8b", card="4090", count=2))
    assert a.kind == "fit" and a.fit is not None
    assert (a.fit.card, a.fit.count) == ("RTX 4090", 2)


@pytest.mark.parametrize(
    ("options", "key"),
    [
        (RequestOptions(context_tokens=0), "option.context_tokens"),
        (RequestOptions(context_tokens="0"), "option.context_tokens"),
        (RequestOptions(context_tokens="lots"), "option.context_tokens"),
        (RequestOptions(context_tokens=-8), "option.context_tokens"),
        (RequestOptions(batch=0), "option.batch"),
        (RequestOptions(count=0), "option.count"),
        (RequestOptions(card="voodoo 2"), "option.card"),
        (RequestOptions(precision="q9_x"), "option.precision"),
        (RequestOptions(kv_dtype="int2"), "option.kv_dtype"),
        (RequestOptions(task="pretrain"), "option.task"),
        (RequestOptions(model_id="no-such-model"), "option.model_id"),
    ],
)
def test_unusable_options_get_a_friendly_reply(
    cat: Catalog, options: RequestOptions, key: str
) -> None:
    """A context of 0 is an invalid value, never silently the 8k default."""
    for lang in ("en", "pl", "th"):
        a = ask("llama 3.1 70b", lang, catalog=cat, options=options)
        assert a.kind == "error" and a.request is None and a.memory_gb is None
        template = cat.messages[lang][key]
        assert a.headline.startswith(template.split("{value}")[0])
        assert a.text


def test_one_reader_of_token_counts() -> None:
    assert [parse_token_count(x) for x in ("8k", "128k", "1M", "131072", "1.5k", " 32K ")] == [
        8192, 131072, 1048576, 131072, 1536, 32768,
    ]  # fmt: skip
    assert [parse_token_count(x) for x in ("0", "0k", "", "k", "12 users", "-1")] == [None] * 6
    assert is_context_value("128k") and not is_context_value("0")
    assert parse_token_count("9" * 400 + "k") is not None  # bounded, not an overflow
