"""Models as they ship, checked against hand arithmetic from each config.json.

Every expected figure below is written out from the config values (and the bit rates of
data/precisions.yaml), not read back from the engine, so a wrong split, rate or layer count fails.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Catalog, CatalogError, ModelRef, ask, load_catalog
from engine.catalog import DEFAULT_DATA_DIR
from engine.models import AttentionShape, LayerTypes, RecurrentState
from engine.native import embeddings_b, experts_b
from engine.recommend import Workload, set_allowed, set_headroom_gb
from engine.sizing import GB, kv_bytes_per_token, kv_cache_gb, recurrent_state_bytes

MXFP4 = 4.25 / 8  # bytes per weight: E2M1 + one E8M0 scale per 32
CTX = 8192


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def weights(text: str, cat: Catalog) -> float:
    a = ask(text, catalog=cat)
    assert a.memory_gb is not None
    return a.memory_gb["weights"]


# --------------------------------------------------------------------------- parameter split


def test_every_moe_entry_has_a_split_that_adds_up_to_params(cat: Catalog) -> None:
    """Experts + embeddings + attention + dense MLPs, from config values, land within 3% of
    params_b for every gated-MLP model without MLA (MLA attention has no simple closed form)."""
    checked = 0
    for m in cat.models:
        if m.mla is not None or m.family == "Falcon":  # Falcon's MLP is not gated (2 matrices)
            continue
        attn = m.layers * m.hidden_size * m.head_dim * 2 * (m.attention_heads + m.kv_heads)
        dense_layers = m.layers - (m.moe.moe_layers or 0 if m.moe else 0)
        mlp = dense_layers * 3 * m.hidden_size * (m.intermediate_size or 0)
        if m.moe is not None and m.moe.shared_experts:
            assert m.moe.moe_layers and m.moe.expert_intermediate_size
            width = m.moe.shared_experts * m.moe.expert_intermediate_size
            mlp += m.moe.moe_layers * 3 * m.hidden_size * width
        total = (attn + mlp) / 1e9 + (experts_b(m) or 0.0) + embeddings_b(m)
        assert total == pytest.approx(m.params_b, rel=0.03), m.id
        checked += 1
    assert checked >= 60


def test_every_entry_has_native_precision_tasks_and_source(cat: Catalog) -> None:
    for m in cat.models:
        assert m.native_precision.dense in cat.precision_by_name
        assert m.native_precision.source and m.source and m.tasks
        if m.moe is not None:
            assert m.moe.expert_intermediate_size and m.moe.moe_layers


# --------------------------------------------------------------------------- as shipped


def test_gpt_oss_120b_as_shipped(cat: Catalog) -> None:
    # config.json: 36 layers, 128 experts, hidden 2880, expert width 2880, vocab 201088, untied.
    experts = 36 * 128 * 3 * 2880 * 2880 / 1e9  # 114.66B
    emb = 201088 * 2880 * 2 / 1e9  # 1.158B
    rest = 116.83 - experts - emb
    hand = experts * MXFP4 + (emb + rest) * 2
    # The model card's own split (114.71B MLP + 0.96B attention + 1.16B embeddings) agrees.
    card = 114.71 * MXFP4 + (0.96 + 1.16) * 2
    a = ask("gpt-oss-120b", catalog=cat)
    assert a.request is not None and a.memory_gb is not None
    assert a.request.weight_parts is not None and a.request.weight_parts.as_released
    w = a.memory_gb["weights"]
    assert w == pytest.approx(hand, rel=1e-9)
    assert abs(w / card - 1) < 0.03
    # KV at 8k: 18 full layers x 8192 + 18 sliding layers x 128, 2 x 8 heads x 64 x 2 bytes.
    kv = (18 * CTX + 18 * 128) * 2 * 8 * 64 * 2 / GB
    assert a.memory_gb["kv_cache"] == pytest.approx(kv, rel=1e-9)
    total = hand + kv + 2.0
    assert a.memory_gb["total"] == pytest.approx(total, rel=1e-9)
    assert total == pytest.approx(67.56, abs=0.01) and total < 80
    assert a.recommendation is not None and a.recommendation.count == 1
    codes = [n.code for n in a.assumptions]
    assert "as_released" in codes
    note = next(n.text for n in a.assumptions if n.code == "as_released")
    assert "MXFP4 experts, BF16 rest" in note
    assert "236" in note  # the BF16 figure beside it: 116.83 x 2 + KV + 2 = 235.97


def test_gpt_oss_20b_at_8k_is_at_the_edge_of_16_gb(cat: Catalog) -> None:
    experts = 24 * 32 * 3 * 2880 * 2880 / 1e9
    emb = 201088 * 2880 * 2 / 1e9
    hand_w = experts * MXFP4 + (20.91 - experts) * 2
    kv = (12 * CTX + 12 * 128) * 2 * 8 * 64 * 2 / GB
    total = hand_w + kv + 2.0
    assert emb < 20.91 - experts
    a = ask("does gpt-oss-20b fit in 16gb", catalog=cat)
    assert a.memory_gb is not None and a.fits
    assert a.memory_gb["weights"] == pytest.approx(hand_w, rel=1e-9)
    assert a.memory_gb["total"] == pytest.approx(total, rel=1e-9)
    assert total == pytest.approx(15.956, abs=0.001)  # exact: 0.044 GB under 16 GB
    fit = a.fits[-1]
    assert fit.fits and fit.tight and fit.headroom_gb == pytest.approx(16 - total)
    assert {"tight", "vllm_headroom"} <= {n.code for n in a.caveats}


def test_deepseek_r1_and_kimi_k2_ship_in_fp8(cat: Catalog) -> None:
    # FP8 linear layers (block scales ~0.002 bit extra: ignored), BF16 embed_tokens + lm_head.
    emb = 129280 * 7168 * 2 / 1e9
    a = ask("deepseek r1", catalog=cat)
    assert a.request is not None and a.request.precision == "fp8"
    assert a.memory_gb is not None
    assert a.memory_gb["weights"] == pytest.approx((671.0 - emb) * 1 + emb * 2, rel=1e-9)
    assert "fp8_cards" in {n.code for n in a.caveats}
    # Kimi K2: the routed experts alone (60 MoE layers x 384 x 3 x 7168 x 2048 = 1014.7B) exceed
    # the card's rounded "1T", so the split from config.json counts: experts + embeddings.
    experts = 60 * 384 * 3 * 7168 * 2048 / 1e9
    emb = 163840 * 7168 * 2 / 1e9
    a = ask("kimi k2", catalog=cat)
    assert a.request is not None and a.request.precision == "fp8"
    assert a.memory_gb is not None
    assert a.memory_gb["weights"] == pytest.approx(experts * 1 + emb * 2, rel=1e-9)


def test_precision_defaults(cat: Catalog) -> None:
    assert weights("70b", cat) == pytest.approx(140.0)  # bare size: the sources' BF16
    assert weights("llama 3.1 70b", cat) == pytest.approx(70.55 * 2)  # BF16 release
    # Explicit precisions win: plain BF16 over every parameter, int4 at exactly 0.5 bytes.
    assert weights("gpt-oss-120b bf16", cat) == pytest.approx(116.83 * 2)
    assert weights("70b int4", cat) == pytest.approx(35.0)
    # Ollama tags without a quantisation: Q4_K_M (4.84 bits), or MXFP4 for gpt-oss.
    assert weights("qwen3:32b", cat) == pytest.approx(32.76 * 4.84 / 8)
    a = ask("gpt-oss:20b", catalog=cat)
    assert a.request is not None and a.request.precision == "mxfp4"
    assert "ollama_tag" in {n.code for n in a.assumptions}


def test_mxfp4_applies_to_experts_or_linear_layers(cat: Catalog) -> None:
    a = ask("gpt-oss-120b mxfp4", catalog=cat)
    assert a.request is not None and a.request.weight_parts is not None
    assert a.request.weight_parts.experts == "mxfp4" and not a.request.weight_parts.as_released
    # A dense model: every linear layer in MXFP4, embed_tokens + lm_head (untied) in BF16.
    emb = 151936 * 5120 * 2 / 1e9
    assert weights("qwen3 32b mxfp4", cat) == pytest.approx((32.76 - emb) * MXFP4 + emb * 2)
    # AWQ / GPTQ: INT4 + a 16-bit scale per 128 weights.
    emb70 = 128256 * 8192 * 2 / 1e9
    assert weights("llama 3.3 70b awq", cat) == pytest.approx(
        (70.55 - emb70) * 4.125 / 8 + emb70 * 2
    )


# --------------------------------------------------------------------------- KV cache


def test_q8_0_and_q4_0_kv_caches(cat: Catalog) -> None:
    assert cat.kv_by_name["q8_0"].bytes == 8.5 / 8
    assert cat.kv_by_name["q4_0"].bytes == 4.5 / 8
    for text, bits in (("70b kv q8_0", 8.5), ("70b kv q4_0", 4.5)):
        a = ask(text, catalog=cat)
        assert a.memory_gb is not None
        kv = 2 * 80 * 8 * 128 * (bits / 8) * CTX / GB
        assert a.memory_gb["kv_cache"] == pytest.approx(kv, rel=1e-9)


def _ref(**kw: Any) -> ModelRef:
    return ModelRef(name="test", assumed=False, params_b=1.0, attention_heads=16, **kw)


# Qwen3-Next-80B-A3B config.json: 48 layers, full_attention_interval 4, 2 KV heads x 256,
# linear_num_value_heads 32, linear_key_head_dim = linear_value_head_dim = 128,
# linear_num_key_heads 16, linear_conv_kernel_dim 4.
QWEN3_NEXT = _ref(
    layers=48,
    kv_heads=2,
    head_dim=256,
    layer_types=LayerTypes(full=12, linear=36),
    recurrent_state=RecurrentState(
        heads=32, key_dim=128, value_dim=128, conv_kernel=4, conv_channels=2 * 16 * 128 + 32 * 128
    ),
)
# NVIDIA-Nemotron-Nano-9B-v2 config.json: 56 layers (hybrid_override_pattern: 4 attention,
# 27 Mamba2, 25 MLP-only), 8 KV heads x 128, mamba_num_heads 128, mamba_head_dim 80,
# ssm_state_size 128, n_groups 8, conv_kernel 4.
NEMOTRON_NANO = _ref(
    layers=56,
    kv_heads=8,
    head_dim=128,
    layer_types=LayerTypes(full=4, mamba=27, none=25),
    recurrent_state=RecurrentState(
        heads=128, key_dim=128, value_dim=80, conv_kernel=4, conv_channels=128 * 80 + 2 * 8 * 128
    ),
)


def test_hybrid_kv_counts_only_full_attention_layers() -> None:
    assert kv_bytes_per_token(QWEN3_NEXT, 2.0, CTX) == 12 * 2 * 2 * 256 * 2  # 24,576
    assert kv_bytes_per_token(NEMOTRON_NANO, 2.0, CTX) == 4 * 2 * 8 * 128 * 2  # 16,384
    # Counting every layer would over-state them 4x and 14x.
    plain = _ref(layers=48, kv_heads=2, head_dim=256)
    assert kv_bytes_per_token(plain, 2.0, CTX) / kv_bytes_per_token(QWEN3_NEXT, 2.0, CTX) == 4


def test_hybrid_recurrent_state_is_fixed_per_sequence() -> None:
    qwen_layer = 32 * 128 * 128 * 2 + (2 * 16 * 128 + 32 * 128) * 3 * 2
    assert recurrent_state_bytes(QWEN3_NEXT) == 36 * qwen_layer  # 39,518,208
    nemo_layer = 128 * 128 * 80 * 2 + (128 * 80 + 2 * 8 * 128) * 3 * 2
    assert recurrent_state_bytes(NEMOTRON_NANO) == 27 * nemo_layer  # 72,769,536
    # State does not grow with context, and is held once per sequence.
    for ctx in (1024, CTX, 131072):
        grow = 12 * 2 * 2 * 256 * 2 * ctx
        assert kv_cache_gb(QWEN3_NEXT, 2.0, ctx, 4) == pytest.approx(
            4 * (grow + 36 * qwen_layer) / GB
        )


def test_shared_kv_layers_add_nothing() -> None:
    # gemma-3n-E4B text_config: 35 layers, pattern 4 sliding : 1 full, sliding_window 512,
    # num_kv_shared_layers 15 (the last 15 reuse earlier KV), 2 KV heads x 256.
    # The first 20 layers hold KV: 16 sliding + 4 full.
    gemma3n = _ref(
        layers=35,
        kv_heads=2,
        head_dim=256,
        sliding_window=512,
        sliding_layers=16,
        layer_types=LayerTypes(full=4, sliding=16, shared_kv=15),
    )
    per = 2 * 2 * 256 * 2
    assert kv_cache_gb(gemma3n, 2.0, CTX, 1) == pytest.approx((4 * CTX + 16 * 512) * per / GB)
    assert recurrent_state_bytes(gemma3n) == 0


def test_full_attention_override_shape() -> None:
    m = _ref(
        layers=6,
        kv_heads=8,
        head_dim=256,
        sliding_window=1024,
        sliding_layers=5,
        layer_types=LayerTypes(full=1, sliding=5),
        full_attention=AttentionShape(kv_heads=4, head_dim=512),
    )
    assert kv_cache_gb(m, 2.0, CTX, 1) == pytest.approx(
        (CTX * 2 * 4 * 512 * 2 + 5 * 1024 * 2 * 8 * 256 * 2) / GB
    )


# --------------------------------------------------------------------------- several cards


def _w(**kw: Any) -> Workload:
    base: dict[str, Any] = {
        "need_gb": 100.0,
        "task": "inference",
        "needs_fp8": False,
        "attention_heads": 64,
        "weights_read_gb": 50.0,
    }
    return Workload(**{**base, **kw})


def test_mla_latent_cache_is_copied_to_every_card(cat: Catalog) -> None:
    card = cat.card_by_name["H100 SXM"]
    pooled = card.vram_gb * 8 - 100.0
    split = _w(kv_gb=20.0, kv_heads=8)
    assert set_headroom_gb(card, 8, split) == pytest.approx(pooled)
    mla = _w(kv_gb=20.0, kv_replicated=True)
    # each card holds all 20 GB instead of 2.5: 8 x 17.5 GB more over the set
    assert set_headroom_gb(card, 8, mla) == pytest.approx(pooled - 8 * 17.5)
    few = _w(kv_gb=20.0, kv_heads=4)  # 4 KV heads on 8 cards: each card holds a quarter
    assert set_headroom_gb(card, 8, few) == pytest.approx(pooled - 8 * (5.0 - 2.5))


def test_tensor_parallel_must_divide_heads(cat: Catalog) -> None:
    card = cat.card_by_name["H100 SXM"]
    # Qwen2.5-7B: 28 attention heads, 4 KV heads: TP 8 is impossible, TP 4 and 2 work.
    assert set_allowed(card, 8, _w(attention_heads=28)) == "heads_not_divisible"
    assert set_allowed(card, 4, _w(attention_heads=28, kv_heads=4)) is None
    assert set_allowed(card, 4, _w(attention_heads=48, kv_heads=6)) == "kv_heads_not_divisible"
    a = ask("qwen2.5 7b on 8x h100", catalog=cat)
    assert a.fit is not None and not a.fit.fits and a.fit.reason == "heads_not_divisible"


def test_deepseek_per_card_check_counts_the_copied_latent(cat: Catalog) -> None:
    a = ask("deepseek r1 on 8x h200 at 128k with 8 users", catalog=cat)
    assert a.memory_gb is not None and a.fit is not None
    kv = a.memory_gb["kv_cache"]
    pooled = 8 * 141 - a.memory_gb["total"]
    assert a.fit.headroom_gb == pytest.approx(pooled - 8 * (kv - kv / 8))


# --------------------------------------------------------------------------- validation


def _broken(tmp_path: Path, model_id: str, update: dict[str, Any]) -> Path:
    data = tmp_path / "data"
    shutil.copytree(DEFAULT_DATA_DIR, data)
    path = data / "models.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    for m in raw["models"]:
        if m["id"] == model_id:
            m.update(update)
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    return data


@pytest.mark.parametrize(
    ("model_id", "update", "field", "problem"),
    [
        ("qwen3-8b", {"layer_types": {"full": 9, "linear": 20}}, "layer_types", "add up to 29"),
        (
            "qwen3-8b",
            {"native_precision": {"dense": "fp7", "source": "x"}},
            "native_precision.dense",
            "unknown precision fp7",
        ),
        ("qwen3-8b", {"variant_of": "qwen9"}, "variant_of", "no other entry"),
        (
            "mixtral-8x7b",
            {
                "moe": {
                    "experts": 8,
                    "experts_per_token": 2,
                    "shared_experts": 0,
                    "expert_intermediate_size": 14336,
                    "moe_layers": 33,
                }
            },
            "moe.moe_layers",
            "cannot exceed layers",
        ),
        (
            "qwen3-8b",
            {"layer_types": {"full": 12, "linear": 24}},
            "recurrent_state",
            "linear / mamba layers need it",
        ),
    ],
)
def test_bad_model_fields_are_refused_by_name(
    tmp_path: Path, model_id: str, update: dict[str, Any], field: str, problem: str
) -> None:
    with pytest.raises(CatalogError) as exc:
        load_catalog(_broken(tmp_path, model_id, update))
    msg = str(exc.value)
    assert msg.startswith("models.yaml") and model_id in msg and field in msg and problem in msg


def test_native_precision_is_required(tmp_path: Path) -> None:
    data = _broken(tmp_path, "qwen3-8b", {})
    path = data / "models.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    del raw["models"][0]["native_precision"]
    path.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CatalogError, match="native_precision"):
        load_catalog(data)
