"""The parser and ``ask`` never raise, whatever people paste, and never invent a model.

Arbitrary unicode up to 10,000 characters (control, zero-width, RTL, emoji, HTML/Markdown
metacharacters included), and the same mixed with the words the parser looks for, so the
slot regexes see near-misses and not only noise. Bounded: about 200 examples per property.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Catalog, ask, context_of, load_catalog
from engine.understand import MAX_QUERY_CHARS, clean, detect_lang, parse

CAT = load_catalog()
KINDS = {
    "sizing", "fit", "compare", "card", "cards", "faq", "clarify", "help", "limit", "budget", "capacity", "error",
}  # fmt: skip

SPECIAL = [
    "\u0000", "\u0007", "\t", "\n", "\r", "\u000b", "\u001b", "\u007f", "\u0085", "\u00a0",
    "\u00ad", "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u202a", "\u202b", "\u202e",
    "\u2066", "\u2069", "\u2060", "\ufeff", "\ufffd", "\U0001f999", "\U0001f680", "\u2764\ufe0f",
    "\U0001f1f5\U0001f1f1", "\U0001f469\u200d\U0001f4bb", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629",
    "\u05e2\u05d1\u05e8\u05d9\u05ea", "<b>", "</b>", "<script>", "&amp;", "**", "__", "`", "```",
    "~~", "||", "[x](y)", "#", ">", "|", "\\", "%", "{", "}", "๗๐", "๑๒๘k", "７０ｂ", "²", "½",
    "٣", "१", "𝟕𝟎b",
]  # fmt: skip
WORDS = [
    "70b", "7.6b", "8x7b", "1t", "7,6b", "bf16", "fp8", "int4", "4-bit", "q4_k_m", "Q5_K_S",
    "nf4", "awq", "kv", "fp8 kv", "kv fp8", "cache", "128k", "131072", "32 000 tokens", "ctx",
    "8k", "1m", "batch", "32", "users", "concurrent", "serve", "fine-tune", "full ft", "lora",
    "qlora", "on a", "4090", "2x", "a40", "h100", "or", "mi300x", "24gb", "$", "$500",
    "/month", "under", "card", "cheapest", "per gb", "max context", "how many", "llama",
    "lama3", "llama3.1:70b-instruct-q4_K_M", "Qwen/Qwen2.5-32B-Instruct", "deepseek", "r1",
    "mixtral", "gemma", "and", "instead", "same for", "what about", "ile", "kontekst",
    "partia", "dostrajanie", "użytkowników", "บริบท", "ไฟน์จูน", "ผู้ใช้", "คน", "การ์ด", "-",
    "/", ":", ",", ".", "?", "0", "00000000000000000000", "1e309", "9" * 40,
]  # fmt: skip

messy = st.lists(
    st.one_of(st.sampled_from(WORDS), st.sampled_from(SPECIAL), st.text(max_size=12)),
    max_size=60,
).map(lambda parts: " ".join(parts))
any_text = st.one_of(
    st.text(max_size=10_000),
    st.text(st.characters(codec=None), max_size=300),
    messy,
    messy.map(lambda s: s * 40),
)
SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _model_ids(cat: Catalog) -> set[str]:
    return {m.id for m in cat.models}


@SETTINGS
@given(any_text)
def test_parse_never_raises(text: str) -> None:
    q = parse(text, CAT)
    assert len(q.text) <= MAX_QUERY_CHARS
    assert q.model is None or q.model.id in _model_ids(CAT)  # never a model we do not have
    assert all(o.model.id in _model_ids(CAT) for o in q.others)
    assert q.context_tokens is None or q.context_tokens >= 0
    assert q.batch is None or q.batch >= 0
    assert all(CAT.card(c.name) is not None for c in q.cards)
    assert q.lang in (None, "en", "pl", "th")


@SETTINGS
@given(any_text, st.sampled_from([None, "en", "pl-PL", "th_TH", "xx"]))
def test_ask_never_raises(text: str, locale: str | None) -> None:
    a = ask(text, locale=locale, catalog=CAT)
    assert a.kind in KINDS
    assert a.text
    if a.request is not None and a.request.model is not None and a.request.model.id:
        assert a.request.model.id in _model_ids(CAT)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["70b fp8", "llama 3.1 70b int4 on 2x a40", "qlora 13b", "llama 8b in 24gb"]),
       any_text)  # fmt: skip
def test_followups_never_raise(first: str, text: str) -> None:
    prev = context_of(ask(first, catalog=CAT))
    a = ask(text, catalog=CAT, previous=prev)
    assert a.kind in KINDS


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\u200b\u200b",
        "\u202e07b 8pf",
        "<script>alert(1)</script>",
        "**bold** _it_ `code` ~~x~~ ||spoiler||",
        "🦙" * 5000,
        "a" * 10_000,
        "1 " * 5000,
        "9" * 10_000,
        "70b " * 2500,
        "$" * 10_000,
        "บริบท" * 2000,
        "4090 " * 2000,
        "a-" * 5000,
        "how many " * 1000,
    ],
)
def test_hostile_inputs_are_bounded(text: str) -> None:
    """Long repetitive input must stay linear-ish: no regex may backtrack catastrophically."""
    start = time.perf_counter()
    q = parse(text, CAT)
    a = ask(text, catalog=CAT)
    assert time.perf_counter() - start < 2.0
    assert q.truncated == (len(text) > MAX_QUERY_CHARS)
    assert a.kind in KINDS


def test_clean_and_lang_on_edge_text() -> None:
    assert clean("\u200bllama\u200d 70b\ufeff")[0] == "llama 70b"
    assert clean("๗๐b")[0] == "70b"
    assert clean("７０Ｂ")[0] == "70B"
    assert clean("<b>70b</b> **fp8**")[0] == "70b fp8"
    assert detect_lang("") is None
    assert detect_lang("70b int4") is None
    assert detect_lang("ile vram dla 70b") == "pl"
    assert detect_lang("70b บริบท 32k") == "th"
