"""The parser's pieces: model matching, numbers, languages, caching and the hot path."""

from __future__ import annotations

import re
import statistics
import time
from pathlib import Path

import pytest
import yaml

from engine import Catalog, load_catalog
from engine.understand import (
    MAX_QUERY_CHARS,
    STOP_WORDS,
    clean,
    detect_lang,
    match_models,
    model_key,
    name_key,
    parse,
    size_matches,
)
from engine.understand.model_index import model_index as token_index


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


# --------------------------------------------------------------------------- model matching


@pytest.mark.parametrize(
    ("text", "model", "others"),
    [
        ("llama 70b", "llama-3.3-70b", ["llama-3.1-70b", "llama-3-70b", "llama-2-70b"]),
        ("lama 70b", "llama-3.3-70b", ["llama-3.1-70b"]),
        ("lama3 70", "llama-3-70b", []),
        ("llama 3 70b", "llama-3-70b", []),
        ("llama 3.1 70b", "llama-3.1-70b", []),
        ("Llama-3.1-70B-Instruct", "llama-3.1-70b", []),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b", []),
        ("llama3.1:70b-instruct-q4_K_M", "llama-3.1-70b", []),
        ("gemma 27b", "gemma-3-27b", ["gemma-2-27b"]),
        ("qwen3 32b", "qwen3-32b", []),  # not the 30.5B MoE that is within 5%
        ("qwen 32b", "qwen3-32b", ["qwen2.5-32b"]),
        ("deepseek r1", "deepseek-r1", []),  # its own name beats the distills' aliases
        ("deepseek-r1:70b", "deepseek-r1-distill-llama-70b", []),
        ("deepseekr1", "deepseek-r1", []),
        ("mixtral", "mixtral-8x7b", []),  # an alias of one model
        ("8x7b", "mixtral-8x7b", []),
        ("gptoss 120b", "gpt-oss-120b", []),
        ("mistral7b", "mistral-7b-v0.3", ["mistral-7b-v0.1"]),
        ("kimi", "kimi-k2", []),
        ("r1", "deepseek-r1", []),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout", []),  # 17B active
        ("command r+", "command-r-plus", []),
    ],
)
def test_model_reading(cat: Catalog, text: str, model: str, others: list[str]) -> None:
    q = parse(text, cat)
    assert q.model is not None, (text, q.others)
    assert q.model.id == model
    got = [o.model.id for o in q.others]
    assert all(o in got for o in others), got
    if not others:
        assert got == []


@pytest.mark.parametrize(
    ("text", "candidates"),
    [
        ("llama 3.1", ["llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"]),
        ("gemma 3", ["gemma-3-1b", "gemma-3-4b", "gemma-3-12b", "gemma-3-27b"]),
        ("llama 3.4 70b", ["llama-3.3-70b"]),
        ("llama 3.1 13b", []),
        ("zephyr 7b", []),
        ("gpt-4", []),
    ],
)
def test_asks_instead_of_guessing(cat: Catalog, text: str, candidates: list[str]) -> None:
    q = parse(text, cat)
    assert q.model is None
    assert q.unmatched_model
    got = [o.model.id for o in q.others]
    assert all(c in got for c in candidates), got


def test_clarify_by_size_lists_smallest_first(cat: Catalog) -> None:
    q = parse("llama 3.1", cat)
    sizes = [o.model.params_b for o in q.others]
    assert sizes == sorted(sizes)


@pytest.mark.parametrize(
    "text", ["70b for coding", "what's a good 13b", "how much vram does a 70b need", "70b pls"]
)
def test_plain_words_are_not_unknown_models(cat: Catalog, text: str) -> None:
    q = parse(text, cat)
    assert q.model is None and not q.unmatched_model and q.size_b is not None


@pytest.mark.parametrize("text", ["what's the weather like", "asdfghjkl", "chatgpt"])
def test_no_model_and_no_size_is_not_a_clarify(cat: Catalog, text: str) -> None:
    q = parse(text, cat)
    assert q.model is None and not q.unmatched_model


def test_match_models_api(cat: Catalog) -> None:
    """bot/web/app.py reads these scores: a good hit is >= 70, a wrong size falls below it."""
    hits = match_models(cat, "llama 3.1", 70)
    assert hits[0].model.id == "llama-3.1-70b" and hits[0].score >= 90
    assert all(h.score < 70 for h in hits if not size_matches(h.model, 70))
    assert match_models(cat, "", None) == []
    assert match_models(cat, "zzzzqqq", None) == []


def test_size_matches_moe_names(cat: Catalog) -> None:
    scout = cat.model_by_id["llama-4-scout"]
    assert size_matches(scout, 109) and size_matches(scout, 17) and not size_matches(scout, 70)


def test_keys_used_by_suggest(cat: Catalog) -> None:
    assert model_key("Llama-3.1-70B-Instruct") == model_key("llama3.1 70b") == "llama 3.1 70b"
    assert model_key("mixtral 8x7b") == "mixtral 8x7b"
    assert name_key("Qwen/Qwen2.5-32B-Instruct") == "qwen qwen 2.5"
    assert "how" in STOP_WORDS and "llama" not in STOP_WORDS and "mini" not in STOP_WORDS


def test_index_is_cached_per_catalog(cat: Catalog) -> None:
    assert token_index(cat) is token_index(cat)
    other = load_catalog()
    assert token_index(other) is not token_index(cat)
    assert parse("llama 3.1 70b", other).model is other.model_by_id["llama-3.1-70b"]


# --------------------------------------------------------------------------- slots


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("70b 7,6b", "size_b", 70),
        ("ile vram dla 7,6b", "size_b", 7.6),
        ("model 1,5 mld parametrów", "size_b", 1.5),
        ("๗๐b", "size_b", 70),
        ("1t", "size_b", 1000),
        ("70b 32 000 tokens", "context_tokens", 32000),
        ("70b kontekst 32 768", "context_tokens", 32768),
        ("70b kontekst 128 tys.", "context_tokens", 131072),
        ("70b 1m", "context_tokens", 1048576),
        ("70b 1.5k", "context_tokens", 1536),
        ("Mistral-Nemo-Instruct-2407", "context_tokens", None),  # a release date, not a context
        ("phi-3-mini-128k-instruct", "context_tokens", None),
        ("how many 8k users fit 70b fp8 on h200", "context_tokens", 8192),
        ("70b 8 users", "batch", 8),
        ("70b bs=8", "batch", 8),
        ("ผู้ใช้ 8 คน 70b", "batch", 8),
        ("under $1.5k", "budget_usd", 1500),
        ("$2,000/mo", "budget_usd", 2000),
        ("budget 700", "budget_usd", 700),
        ("70b 24gb", "vram_gb", 24),
        ("70b on a 4090 24gb", "vram_gb", None),  # the card's own memory, not a second target
        ("bf16 kv fp8", "kv_dtype", "fp8"),
        ("bf16 kv fp8", "precision", "bf16"),
        ("fp8 kv cache", "kv_dtype", "fp8"),
        ("fp8 kv cache", "precision", None),
        ("what about 2 cards", "count", 2),
        ("0b", "size_b", None),
        ("70b on " + "9" * 300 + "gb", "vram_gb", 100_000.0),
    ],
)
def test_slots(cat: Catalog, text: str, field: str, value: object) -> None:
    assert getattr(parse(text, cat), field) == value


def test_cards_and_counts(cat: Catalog) -> None:
    def cards(text: str) -> list[tuple[str, int | None]]:
        return [(c.name, c.count) for c in parse(text, cat).cards]

    assert cards("70b on 2x a40") == [("A40", 2)]
    assert cards("70b on 4x4090") == [("RTX 4090", 4)]
    assert cards("70b a40 x2") == [("A40", 2)]
    assert cards("70b on two a100s") == [("A100 SXM", 2)]
    assert cards("gemma na dwóch kartach a40") == [("A40", 2)]
    assert cards("h100 or mi300x?") == [("H100 SXM", None), ("MI300X", None)]
    assert cards("lama 3.1 70 a40") == [("A40", None)]  # 70 is the size, not a count
    assert cards("rtx-4090") == [("RTX 4090", None)]


def test_limits(cat: Catalog) -> None:
    assert parse("max context for 70b int4 on an a40", cat).wants_limit == "context"
    assert parse("how many 8k users fit 70b fp8 on h200", cat).wants_limit == "batch"
    assert parse("najdłuższy kontekst dla 70b na a40", cat).wants_limit == "context"
    assert parse("70b fp8 on h200", cat).wants_limit is None
    q = parse("max context?", cat)
    assert q.wants_limit == "context" and q.followup  # about the previous model


def test_clean_and_languages() -> None:
    assert clean("a" * (MAX_QUERY_CHARS + 10)) == ("a" * MAX_QUERY_CHARS, True)
    assert clean("  \u200b70b\u00a0\u202eint4  ")[0] == "70b int4"
    assert detect_lang("ile vram dla 70b int4?") == "pl"
    assert detect_lang("deepseek r1 w fp8 na mi300x") == "pl"
    assert detect_lang("๗๐b int4") == "th"
    assert detect_lang("how much vram for 70b") == "en"
    assert detect_lang("70b int4 128k") is None


# --------------------------------------------------------------------------- hot path


def _table() -> list[str]:
    path = Path(__file__).parent.parent / "queries" / "queries.yaml"
    return [c["q"] for c in yaml.safe_load(path.read_text(encoding="utf-8"))]


def test_no_regex_compiled_per_question(cat: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _table()
    for t in texts:  # warm the per-catalog caches
        parse(t, cat)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"re.compile on the hot path: {args!r}")

    monkeypatch.setattr(re, "compile", refuse)
    for t in texts:
        parse(t, cat)


def test_parse_is_fast(cat: Catalog) -> None:
    """Generous bound (shared CI machines): the typical question parses in well under 1 ms."""
    texts = _table()
    for t in texts:
        parse(t, cat)
    times = []
    for t in texts:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            parse(t, cat)
            best = min(best, time.perf_counter() - start)
        times.append(best)
    assert statistics.median(times) < 0.001
