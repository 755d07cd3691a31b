"""KV cache per token for real models, checked against hand arithmetic from their config.json."""

from __future__ import annotations

import pytest

from engine import Catalog, ask, load_catalog
from engine.refs import model_ref
from engine.sizing import kv_bytes_per_token, kv_cache_gb


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def test_llama_31_70b_gqa(cat: Catalog) -> None:
    m = model_ref(cat.model_by_id["llama-3.1-70b"])
    # 2 (K and V) x 80 layers x 8 KV heads x 128 head dim x 2 bytes
    assert kv_bytes_per_token(m, 2.0) == 2 * 80 * 8 * 128 * 2 == 327_680


def test_llama_2_13b_mha(cat: Catalog) -> None:
    m = model_ref(cat.model_by_id["llama-2-13b"])
    assert (m.layers, m.kv_heads, m.head_dim) == (40, 40, 128)
    assert kv_bytes_per_token(m, 2.0) == 2 * 40 * 40 * 128 * 2 == 819_200


def test_deepseek_v3_mla(cat: Catalog) -> None:
    m = model_ref(cat.model_by_id["deepseek-v3"])
    assert m.mla is not None
    # one latent of kv_lora_rank + the RoPE key per layer: 61 x (512 + 64) x 2 bytes
    assert kv_bytes_per_token(m, 2.0) == 61 * (512 + 64) * 2 == 70_272
    # the plain formula would claim 61 x 2 x 128 x 192 x 2 bytes, about 43x more
    assert kv_bytes_per_token(m, 2.0) < 2 * 61 * 128 * 192 * 2 / 40


def test_gemma_3_27b_sliding_window(cat: Catalog) -> None:
    spec = cat.model_by_id["gemma-3-27b"]
    m = model_ref(spec)
    assert (m.layers, m.kv_heads, m.head_dim, m.sliding_window) == (62, 16, 128, 1024)
    assert m.sliding_layers == 62 - 62 // 6  # every 6th layer is global
    per_layer = 2 * 16 * 128 * 2
    ctx = 131_072
    expected = per_layer * (10 * ctx + 52 * 1024)  # 10 global layers, 52 capped at the window
    assert kv_cache_gb(m, 2.0, ctx, 1) * 1e9 == pytest.approx(expected)
    # inside the window every layer grows, like plain attention
    assert kv_bytes_per_token(m, 2.0, 512) == per_layer * 62


def test_mistral_7b_v01_window_caps_every_layer(cat: Catalog) -> None:
    m = model_ref(cat.model_by_id["mistral-7b-v0.1"])
    at_window = kv_cache_gb(m, 2.0, 4096, 1)
    assert kv_cache_gb(m, 2.0, 32768, 1) == pytest.approx(at_window)


def test_named_model_uses_real_parameter_count(cat: Catalog) -> None:
    a = ask("llama 3.1 70b fp8", catalog=cat)
    assert a.request is not None and a.request.model is not None
    assert a.request.model.params_b == pytest.approx(70.55)
    assert a.request.model.assumed is False
    assert a.memory_gb is not None
    assert a.memory_gb["weights"] == pytest.approx(70.55)


def test_moe_memory_from_total_speed_from_active(cat: Catalog) -> None:
    a = ask("mixtral 8x7b int4", catalog=cat)
    assert a.memory_gb is not None and a.recommendation is not None
    assert a.memory_gb["weights"] == pytest.approx(46.7 * 0.5)
    card = cat.card_by_name[a.recommendation.card]
    assert a.decode_tok_s == pytest.approx(card.bandwidth_gbps / (12.9 * 0.5))
    assert any(n.code == "moe" for n in a.caveats)


def test_fp8_kv_halves_the_cache(cat: Catalog) -> None:
    full = ask("llama 3.1 70b fp8 128k", catalog=cat).memory_gb
    half = ask("llama 3.1 70b fp8 128k fp8 kv", catalog=cat).memory_gb
    assert full is not None and half is not None
    assert half["kv_cache"] == pytest.approx(full["kv_cache"] / 2)


def test_every_model_has_sane_shape(cat: Catalog) -> None:
    assert len(cat.models) >= 60
    for spec in cat.models:
        m = model_ref(spec)
        per = kv_bytes_per_token(m, 2.0)
        assert 1_000 < per < 5_000_000, spec.id
        assert spec.source, spec.id
