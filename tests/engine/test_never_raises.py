"""``ask()`` and the parser never raise on any text: generated questions and mutated real ones.

Real questions come from the query table; mutations are what hurried people and pasted text
do to them: a character inserted, dropped or swapped, two words glued, a quant suffix in one
of its many spellings ("q4k", "q4_KM", "q80"), a number blown up to an absurd size. Generated
questions are built from the catalog's own words (every precision alias, mangled), sizes,
contexts, cards and tasks. 2,000 examples in the default run; 20,000 in ``make test-slow``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Answer, Catalog, ask, context_of, load_catalog
from engine.limits import MAX_QUERY_CHARS, MAX_SIZE_B, MIN_SIZE_B
from engine.rounding import fmt_num
from engine.understand import parse

CAT: Catalog = load_catalog()
TABLE: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parents[1] / "queries" / "queries.yaml").read_text(encoding="utf-8")
)
QUESTIONS = sorted({c["q"] for c in TABLE} | {p for c in TABLE for p in c.get("prev", [])})
PREVIOUS = ["70b fp8", "llama 3.1 70b int4 on 2x a40", "qlora 13b", "llama 8b in 24gb"]

QUANTS = [
    "q4k", "q4_KM", "q4_K_M", "q4-k-m", "Q4KM", "q80", "q8_0", "q40", "q4_0", "q6k", "q6_K",
    "q5km", "q5_k_s", "q3_k_xl", "q2_k", "iq4_xs", "iq4xs", "iq3_xxs", "iq1_s", "q9", "q4_k_xl",
    "fp4", "nvfp4", "mxfp4", "fp6", "int3", "int2", "3bit", "2-bit", "6 bit", "w4a8", "nf4",
    "bf16", "fp8", "e4m3", "e5m2", "awq", "gptq", "exl2 4.0", "exl2 5.5", "gguf", "f16",
]  # fmt: skip
NUMBERS = [
    "0", "0b", "0B model", "0.0000000000000000000000000000001t", "1e309", "1e-309", "9" * 50,
    "9" * 400, "99999999999999999999b", "0.00001b", "-70b", "NaN", "inf", "1" + "0" * 300 + "k",
    "9" * 400 + "m", "0k", "0 tokens", "batch 0", "0 users", "ctx 0", "0x a40", "99999x h100",
    "$0", "$" + "9" * 300, "0gb", "9" * 300 + "gb", "1,000,000,000,000,000 tokens", "8x0b",
]  # fmt: skip
CARDS = ["a40", "4090", "rtx 5090", "h100", "2x a100", "mi300x", "b200", "l4", "24gb", "on a 3090"]
TASKS = ["", "serve", "inference", "lora", "qlora", "full fine-tune", "fine-tune", "train"]
CONTEXTS = ["", "8k", "128k", "1m", "131072", "32 000 tokens", "ctx 4096", "kontekst 32k"]
KINDS = {
    "sizing", "fit", "card", "cards", "faq", "clarify", "help", "limit", "budget", "capacity", "error",
    "compare",
}  # fmt: skip
SETTINGS: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}


def _precision_spellings(cat: Catalog) -> list[str]:
    out: set[str] = set(QUANTS)
    for p in cat.precisions:
        for alias in (p.name, *p.aliases):
            out.update({alias, alias.upper(), alias.replace("_", ""), alias.replace("_", "-")})
    return sorted(out)


SPELLINGS = _precision_spellings(CAT)
MODEL_WORDS = sorted({w for m in CAT.models for w in (m.name, m.id, *m.aliases[:2])})


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A real question with a few edits: typos, glued words, quant suffixes, wild numbers."""
    text: str = draw(st.sampled_from(QUESTIONS))
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(["insert", "delete", "swap", "glue", "quant", "number"]))
        pos = draw(st.integers(0, len(text)))
        if op == "insert":
            ch = draw(st.one_of(st.characters(), st.sampled_from(list("_-.:/0123456789kKbBqx²"))))
            text = text[:pos] + ch + text[pos:]
        elif op == "delete" and text:
            text = text[: max(0, pos - 1)] + text[pos:]
        elif op == "swap" and 0 < pos < len(text):
            text = text[: pos - 1] + text[pos] + text[pos - 1] + text[pos + 1 :]
        elif op == "glue" and " " in text:
            cut = text.find(" ", pos)
            cut = cut if cut >= 0 else text.rfind(" ")
            text = text[:cut] + text[cut + 1 :]
        elif op == "quant":
            sep = draw(st.sampled_from(["", " ", "-", "_", ":", "."]))
            text = text[:pos] + sep + draw(st.sampled_from(SPELLINGS)) + " " + text[pos:]
        elif op == "number":
            text = text[:pos] + " " + draw(st.sampled_from(NUMBERS)) + " " + text[pos:]
    return text


@st.composite
def generated(draw: st.DrawFn) -> str:
    """A question assembled from the catalog's words in a random order and spelling."""
    parts = [
        draw(st.one_of(st.sampled_from(MODEL_WORDS), st.sampled_from([*NUMBERS, "70b", "7b"]))),
        draw(st.sampled_from(SPELLINGS)),
        draw(st.sampled_from(CONTEXTS)),
        draw(st.sampled_from(TASKS)),
        draw(st.sampled_from(["", *CARDS])),
        draw(st.sampled_from(["", "batch 8", "32 users", "kv fp8", "fp8 kv cache", "$500/mo"])),
    ]
    parts = draw(st.permutations(parts))
    glue = draw(st.sampled_from([" ", "", "-", "_", ":", " , "]))
    return glue.join(p for p in parts if p)


questions = st.one_of(mutated(), generated())


def _check(text: str, prev_text: str | None) -> None:
    q = parse(text, CAT)
    assert len(q.text) <= MAX_QUERY_CHARS
    assert q.precision is None or q.precision in CAT.precision_by_name
    assert q.size_b is None or q.size_b > 0
    prev = context_of(ask(prev_text, catalog=CAT)) if prev_text else None
    a: Answer = ask(text, catalog=CAT, previous=prev)
    assert a.kind in KINDS and a.text
    if a.request is not None:
        assert a.request.precision in CAT.precision_by_name
        assert a.request.context_tokens >= 1 and a.request.batch >= 1
    a.to_json()


@settings(max_examples=2_000, **SETTINGS)
@given(questions, st.one_of(st.none(), st.sampled_from(PREVIOUS)))
def test_never_raises(text: str, prev: str | None) -> None:
    _check(text, prev)


@pytest.mark.slow
@settings(max_examples=20_000, **SETTINGS)
@given(questions, st.one_of(st.none(), st.sampled_from(PREVIOUS)))
def test_never_raises_slow(text: str, prev: str | None) -> None:
    _check(text, prev)


@pytest.mark.parametrize(
    ("text", "precision"),
    [
        ("70b q4k", "q4_k_m"),
        ("q80 70b", "q8_0"),
        ("70b q40", "q4_0"),
        ("70b q6k", "q6_k"),
        ("70b q4_KM", "q4_k_m"),
        ("70b Q4-K-M", "q4_k_m"),
        ("70b q5ks", "q5_k_s"),
        ("70b iq4xs", "iq4_xs"),
    ],
)
def test_every_quant_spelling_maps(text: str, precision: str) -> None:
    assert parse(text, CAT).precision == precision
    a = ask(text, catalog=CAT)
    assert a.kind == "sizing" and a.request is not None and a.request.precision == precision


def test_ollama_tag_with_a_glued_quant() -> None:
    a = ask("llama3.1:70b-instruct-q4_KM", catalog=CAT)
    assert a.request is not None and a.request.model is not None
    assert (a.request.model.id, a.request.precision) == ("llama-3.1-70b", "q4_k_m")


@pytest.mark.parametrize("text", ["70b q9", "70b fp3", "70b int3", "70b q4_k_xl", "70b 3bit"])
def test_unknown_precision_is_reported(text: str) -> None:
    a = ask(text, catalog=CAT)
    assert a.kind == "sizing" and a.request is not None and a.request.precision == "bf16"
    (note,) = [n for n in a.caveats if n.code == "unknown_precision"]
    assert text.split()[1] in note.text.lower()


@pytest.mark.parametrize(
    "text",
    ["0B model", "0b", "llama 0b", "AWQ:0b", "0.0000000000000000000000000000001t", "9" * 400 + "b"],
)
def test_nonsense_sizes_are_refused(text: str) -> None:
    for lang in ("en", "pl", "th"):
        a = ask(text, lang, catalog=CAT)
        assert a.kind == "help" and a.request is None
        low, high = fmt_num(MIN_SIZE_B, 2, lang, True), fmt_num(MAX_SIZE_B, 0, lang, True)
        assert a.headline == CAT.messages[lang]["help.bad_size"].format(min=low, max=high)


def test_cap_applies_after_normalisation() -> None:
    # U+FDFA expands to 18 characters under NFKC: 1,000 of them are 18,000 characters.
    q = parse("\ufdfa" * 1000, CAT)
    assert len(q.text) <= MAX_QUERY_CHARS and q.truncated
    assert not parse("70b int4 " + "\ufdfa" * 10, CAT).truncated
