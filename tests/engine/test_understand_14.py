"""Forms people actually type: context and users together, card counts, budgets, file names,
Polish endings, typos, pasted config.json files, unknown ids and numbers that cannot be used.
"""

from __future__ import annotations

import json

import pytest

from engine import ask, load_catalog
from engine.understand import detect_lang, parse
from engine.understand.model_index import model_index
from engine.understand.model_match import _token_matches

CAT = load_catalog()


def _req(text: str) -> tuple[str, dict[str, object]]:
    a = ask(text, catalog=CAT)
    r = a.request
    m = r.model if r else None
    return a.kind, {
        "model": m.id if m else None,
        "size": m.params_b if m else None,
        "precision": r.precision if r else None,
        "ctx": r.context_tokens if r else None,
        "batch": r.batch if r else None,
        "card": r.card if r else None,
        "count": r.count if r else None,
        "lang": a.lang,
    }


# Every example of the report that asked for this work, with what it must be understood as.
EXAMPLES = [
    ("qwen2.5 72b awq 16k context 4 users", "sizing",
     {"model": "qwen2.5-72b", "precision": "int4-g128", "ctx": 16384, "batch": 4}),
    ("qwen3 32b awq 32k context 8 concurrent users", "sizing",
     {"model": "qwen3-32b", "ctx": 32768, "batch": 8}),
    ("llama 3.1 8b 32k context 4 users", "sizing",
     {"model": "llama-3.1-8b", "ctx": 32768, "batch": 4}),
    ("70b int4, 128k context, 8 simultaneous chats", "sizing",
     {"size": 70, "precision": "int4", "ctx": 131072, "batch": 8}),
    ("Meta-Llama-3.1-8B-Instruct-Q6_K.gguf at 16k", "sizing",
     {"model": "llama-3.1-8b", "precision": "q6_k", "ctx": 16384}),
    ("Qwen2.5-7B-Instruct-Q4_K_M.gguf 32k", "sizing",
     {"model": "qwen2.5-7b", "precision": "q4_k_m", "ctx": 32768}),
    ("tp=4 on a100s for llama 3.1 405b int4?", "fit",
     {"model": "llama-3.1-405b", "precision": "int4", "card": "A100 SXM", "count": 4}),
    ("nvfp4 llama 3.1 405b on b200s", "fit",
     {"model": "llama-3.1-405b", "precision": "nvfp4", "card": "B200"}),
    ("what's the best gpu for deepseek r1", "sizing", {"model": "deepseek-r1"}),
    ("quen 2.5 14b int4", "sizing", {"model": "qwen2.5-14b", "precision": "int4"}),
    ("deepsek r1 fp8", "sizing", {"model": "deepseek-r1", "precision": "fp8"}),
    ("command-r:35b-08-2024-q4_K_M", "sizing",
     {"model": "command-r-08-2024", "precision": "q4_k_m"}),
    ("mistral-small 24b fp8", "sizing", {"model": "mistral-small-3", "precision": "fp8"}),
    ("DeepSeek-R1 int4 w/ 64k context", "sizing",
     {"model": "deepseek-r1", "ctx": 65536, "lang": "en"}),
    ("need vram estimate for qwen3 8b fp8 w/ 40k context", "sizing",
     {"model": "qwen3-8b", "precision": "fp8", "ctx": 40960, "lang": "en"}),
    ("z llamą 3.1 70b", "sizing", {"model": "llama-3.1-70b", "lang": "pl"}),
    ("deepseeka r1", "sizing", {"model": "deepseek-r1"}),
    ("gemmę 3 27b", "sizing", {"model": "gemma-3-27b", "lang": "pl"}),
    ("70b w 4 bitach", "sizing", {"size": 70, "precision": "int4", "lang": "pl"}),
    ("70b w 8 bitach", "sizing", {"size": 70, "precision": "int8", "lang": "pl"}),
    ("pokaż karty", "cards", {"lang": "pl"}),
    ("ilu użytkowników obsłużę na h100 z llamą 3.1 8b przy 8k kontekstu?", "limit",
     {"model": "llama-3.1-8b", "ctx": 8192, "lang": "pl"}),
    ("โมเดลอะไรรันบน 4090 ได้บ้าง", "capacity", {"lang": "th"}),
    ("i have 5k a month, whats the biggest model i can serve", "budget", {}),
]  # fmt: skip


@pytest.mark.parametrize(("text", "kind", "want"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_reported_examples(text: str, kind: str, want: dict[str, object]) -> None:
    got_kind, got = _req(text)
    assert got_kind == kind, (text, got)
    for key, value in want.items():
        if key == "size":
            assert got["size"] == pytest.approx(value) and got["model"] is None, (text, got)
        else:
            assert got[key] == value, (text, key, got)


def test_int3_is_reported_not_taken_for_a_model() -> None:
    a = ask("70b int3", catalog=CAT)
    assert a.kind == "sizing" and a.request is not None and a.request.model is not None
    assert a.request.model.name is None  # the bare 70B, not "which model is int3?"
    assert [n.code for n in a.caveats if n.code == "unknown_precision"] == ["unknown_precision"]


def test_budget_without_a_currency_sign() -> None:
    for text, usd in (("i have 5k a month", 5000), ("$5,000/mo", 5000),
                      ("5 tys. miesięcznie", 5000), ("งบเดือนละ 2000", 2000)):  # fmt: skip
        assert parse(text, CAT).budget_usd == usd, text


def test_how_many_tokens_asks_for_the_longest_context() -> None:
    text = "how many tokens of context fit with qwen2.5 72b int4 on an a100"
    a = ask(text, catalog=CAT)
    assert a.kind == "limit" and a.limit is not None
    assert parse(text, CAT).wants_limit == "context"
    assert a.limit.max_context_tokens > 8192  # the longest context, not a fit at the default


@pytest.mark.parametrize("text", ["70b batch 0", "70b context 0", "llama 3.1 8b 0k", "partia 0"])
def test_a_said_but_unusable_number_is_refused(text: str) -> None:
    a = ask(text, catalog=CAT)
    assert a.kind == "error"
    assert "0" in (a.headline or "")
    assert not any(n.code in ("default_context",) for n in a.assumptions)


def test_unknown_hf_id_is_said_back_as_typed_and_not_substituted() -> None:
    a = ask("mistralai/Ministral-8B-Instruct-2410", catalog=CAT)
    assert a.kind == "clarify" and a.candidates == []
    assert "mistralai/Ministral-8B-Instruct-2410" in (a.headline or "")
    assert "config.json" in (a.headline or "")
    assert "Hugging Face id" not in a.text  # not "give the HF id" after it was given


def test_close_typos_are_still_offered_or_taken() -> None:
    assert parse("lama 3.1 8b", CAT).model is not None
    q = parse("zephyr 7b", CAT)
    assert q.model is None and q.unmatched_model and q.others == []


def test_a_known_word_is_not_fuzzed() -> None:
    index = model_index(CAT)
    for word in ("llama", "qwen", "mistral", "gemma"):
        assert _token_matches(index, word) == ((word, 1.0),)


@pytest.mark.parametrize(
    ("word", "model"),
    [("llamą", "llama-3.1-8b"), ("llamy", "llama-3.1-8b"), ("llamie", "llama-3.1-8b"),
     ("llamę", "llama-3.1-8b")],
)  # fmt: skip
def test_polish_cases_of_a_name(word: str, model: str) -> None:
    q = parse(f"z {word} 3.1 8b", CAT)
    assert q.model is not None and q.model.id == model


@pytest.mark.parametrize("word", ["qwena", "qwenem", "qwenie"])
def test_polish_cases_of_qwen(word: str) -> None:
    q = parse(f"{word} 2.5 14b", CAT)
    assert q.model is not None and q.model.id == "qwen2.5-14b"


def test_language_does_not_flip_on_shorthand_or_one_word() -> None:
    assert detect_lang("DeepSeek-R1 int4 w/ 64k context") != "pl"
    assert detect_lang("need vram for qwen3 8b w/ 40k context") == "en"
    assert detect_lang("does 70b fit on a40 na") == "en"
    assert detect_lang("70b w int4") == "pl"
    assert detect_lang("ile vram potrzebuje model 70b") == "pl"


def test_every_catalog_precision_name_is_read() -> None:
    for p in CAT.precisions:
        for alias in (p.name, *p.aliases):
            q = parse(f"70b {alias}", CAT)
            assert q.precision == p.name, (alias, q.precision)


_LLAMA_70B = {
    "architectures": ["LlamaForCausalLM"], "hidden_size": 8192, "intermediate_size": 28672,
    "max_position_embeddings": 131072, "model_type": "llama", "num_attention_heads": 64,
    "num_hidden_layers": 80, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
    "rope_theta": 500000.0, "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}  # fmt: skip


def test_pasted_config_sizes_that_shape_exactly() -> None:
    text = "here is my config: " + json.dumps(_LLAMA_70B, indent=2) + " at 32k"
    a = ask(text, catalog=CAT)
    assert a.kind == "sizing" and a.request is not None and a.request.model is not None
    m = a.request.model
    assert (m.layers, m.kv_heads, m.head_dim, m.attention_heads) == (80, 8, 128, 64)
    assert m.assumed is False and m.shape_source == "pasted config.json" and m.id is None
    assert a.request.context_tokens == 32768 and a.request.precision == "bf16"
    same = ask("llama 3.1 70b 32k", catalog=CAT)
    assert a.memory_gb is not None and same.memory_gb is not None
    assert a.memory_gb["kv_cache"] == pytest.approx(same.memory_gb["kv_cache"])
    assert m.params_b == pytest.approx(70.55, abs=0.01)  # counted from the matrices


def test_pasted_moe_mla_config_with_quantization() -> None:
    cfg = {
        "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
        "kv_lora_rank": 512, "moe_intermediate_size": 2048, "n_routed_experts": 256,
        "n_shared_experts": 1, "num_attention_heads": 128, "num_experts_per_tok": 8,
        "num_hidden_layers": 61, "num_key_value_heads": 128, "q_lora_rank": 1536,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "vocab_size": 129280, "first_k_dense_replace": 3,
        "quantization_config": {"quant_method": "fp8", "fmt": "e4m3"},
    }  # fmt: skip
    a = ask(json.dumps(cfg), catalog=CAT)
    assert a.request is not None and a.request.model is not None
    m = a.request.model
    assert m.params_b == pytest.approx(671, rel=0.01)
    assert m.active_params_b == pytest.approx(37.5, rel=0.02)
    assert m.mla is not None and a.request.precision == "fp8"


def test_pasted_key_lines_with_awq() -> None:
    text = (
        '"hidden_size": 5120, "num_hidden_layers": 48, "num_attention_heads": 40, '
        '"num_key_value_heads": 8, "intermediate_size": 13824, "vocab_size": 152064, '
        '"quantization_config": {"bits": 4, "group_size": 128, "quant_method": "awq"} '
        "16k context 4 users"
    )
    a = ask(text, catalog=CAT)
    assert a.request is not None and a.request.model is not None
    assert a.request.precision == "int4-g128" and a.request.batch == 4
    assert a.request.context_tokens == 16384
    assert a.request.model.params_b == pytest.approx(14.77, abs=0.01)  # Qwen2.5 14B's shape


def test_sliding_window_layers_from_a_paste() -> None:
    cfg = {"hidden_size": 3584, "num_hidden_layers": 42, "num_attention_heads": 16,
           "num_key_value_heads": 8, "head_dim": 256, "intermediate_size": 14336,
           "vocab_size": 256000, "sliding_window": 4096, "model_type": "gemma2",
           "tie_word_embeddings": True}  # fmt: skip
    m = parse(json.dumps(cfg), CAT).pasted
    assert m is not None and m.sliding_window == 4096 and m.sliding_layers == 21


@pytest.mark.parametrize(
    "text",
    [
        'my config {"hidden_size": 4096, "num_hidden_layers": "eighty", "num_attention_heads": 32',
        '{"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 0}',
        '{"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, '
        '"num_key_value_heads": 7}',
        '{"num_key_value_heads": 8, "num_hidden_layers": 32}',
    ],
)
def test_malformed_paste_gets_a_clear_reply(text: str) -> None:
    a = ask(text, catalog=CAT)
    assert a.kind == "error" and "config.json" in (a.headline or "")
    pl = ask(text, "pl", catalog=CAT)
    assert pl.lang == "pl" and "config.json" in (pl.headline or "")


def test_inline_shape_replaces_the_typical_one() -> None:
    a = ask("34b, 60 layers, 8 kv heads, 56 heads, head_dim 128 at 32k", catalog=CAT)
    assert a.request is not None and a.request.model is not None
    m = a.request.model
    assert (m.layers, m.kv_heads, m.attention_heads, m.head_dim) == (60, 8, 56, 128)
    assert m.assumed is False and m.params_b == 34
    assert not any(n.code == "typical_shape" for n in a.assumptions)
