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
from engine.models import AttentionShape, ModelSpec
from engine.native import embeddings_b, experts_b
from engine.recommend import Workload, set_allowed, set_headroom_gb
from engine.refs import model_ref
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


# Parameters the schema has no field for, written out from each config.json.
EXTRA_PARAMS = {
    # Per-Layer-Embedding table: vocab_size_per_layer_input 262144 x 42 layers x 256
    "gemma-4-e4b": 262144 * 42 * 256,
    # PLE table (262144 x 35 x 256), plus use_double_wide_mlp: the 20 KV-shared layers have an
    # MLP of 2 x 6144, i.e. 20 x 3 x 1536 x 6144 more than intermediate_size says
    "gemma-4-e2b": 262144 * 35 * 256 + 20 * 3 * 1536 * 6144,
    # gemma-3n-E4B: PLE table 262144 x 35 x 256, per_layer_model_projection 2048 x 35*256,
    # per-layer input gate + projection 35 x 2 x 2048 x 256, AltUp projections 6 x 2048 x 2048,
    # LAuReL 35 x 2 x 2048 x 64
    "gemma-3n-e4b": 262144 * 35 * 256
    + 2048 * 35 * 256
    + 35 * 2 * 2048 * 256
    + 6 * 2048 * 2048
    + 35 * 2 * 2048 * 64,
}


def _vit(depth: int, width: int, inter: int, out: int, mergers: int, *, gated: bool) -> int:
    """A Qwen vision tower: blocks (qkv + proj, MLP), patch mergers (4w -> 4w -> out), patches."""
    block = 4 * width * width + (3 if gated else 2) * width * inter
    merger = 16 * width * width + 4 * width * out
    return depth * block + mergers * merger + 3 * 2 * 16 * 16 * width


# Entries whose params_b includes the vision tower: vision_config values of each config.json
# (Qwen3-VL: 3 deepstack mergers besides the final one; Qwen2.5-VL: gated MLP, 32 layers).
VISION_PARAMS = {
    "qwen2.5-vl-7b": _vit(32, 1280, 3420, 3584, 1, gated=True),
    "qwen3-vl-235b-a22b": _vit(27, 1152, 4304, 4096, 4, gated=False),
    "qwen3-vl-30b-a3b": _vit(27, 1152, 4304, 2048, 4, gated=False),
    "qwen3-vl-32b": _vit(27, 1152, 4304, 5120, 4, gated=False),
    "qwen3-vl-8b": _vit(27, 1152, 4304, 4096, 4, gated=False),
    "qwen3-vl-4b": _vit(24, 1024, 4096, 2560, 4, gated=False),
    "qwen3-vl-2b": _vit(24, 1024, 4096, 2048, 4, gated=False),
    "qwen3.5-27b": _vit(27, 1152, 4304, 5120, 1, gated=False),
    "qwen3.5-35b-a3b": _vit(27, 1152, 4304, 2048, 1, gated=False),
    "qwen3.5-122b-a10b": _vit(27, 1152, 4304, 3072, 1, gated=False),
    "qwen3.5-397b-a17b": _vit(27, 1152, 4304, 4096, 1, gated=False),
}


def _attention_params(m: ModelSpec) -> int:
    """q, k, v and o projections of every attention layer (full layers in their own shape)."""

    def per(kv_heads: int, head_dim: int) -> int:
        return m.hidden_size * head_dim * 2 * (m.attention_heads + kv_heads)

    full = m.full_attention or AttentionShape(kv_heads=m.kv_heads, head_dim=m.head_dim)
    lt = m.layer_types
    if lt is None:
        n_full, n_other = m.layers - m.sliding_layers, m.sliding_layers
    else:
        n_full, n_other = lt.full, lt.sliding + lt.shared_kv
    return n_full * per(full.kv_heads, full.head_dim) + n_other * per(m.kv_heads, m.head_dim)


def _state_layer_params(m: ModelSpec) -> int:
    """A Gated DeltaNet / Mamba2 layer: in_proj to the conv channels, the gate (z) and one scalar
    per head, the causal conv, and out_proj back from heads x value_dim."""
    rs = m.recurrent_state
    if rs is None or m.layer_types is None:
        return 0
    inner = rs.heads * rs.value_dim
    per = m.hidden_size * (rs.conv_channels + inner + rs.heads) + inner * m.hidden_size
    per += rs.conv_channels * rs.conv_kernel
    return (m.layer_types.linear + m.layer_types.mamba) * per


def test_every_entry_has_a_split_that_adds_up_to_params(cat: Catalog) -> None:
    """Experts + embeddings + attention (or recurrent layers) + dense MLPs (+ a vision tower),
    from config values, land within 3% of params_b for every gated-MLP model without MLA (MLA
    attention has no simple closed form). Nemotron-H hybrids (MLP-only layers, ungated MLPs)
    are checked one by one below."""
    checked = 0
    for m in cat.models:
        if m.mla is not None or m.family == "Falcon":  # Falcon: parallel MQA block, 2-matrix MLP
            continue
        if m.layer_types is not None and m.layer_types.none:
            assert m.id in HAND_SPLIT, m.id
            continue
        dense_layers = m.layers - (m.moe.moe_layers or 0 if m.moe else 0)
        matrices = 2 if m.family in UNGATED_MLP else 3
        mlp = dense_layers * matrices * m.hidden_size * (m.intermediate_size or 0)
        if m.moe is not None and m.moe.shared_experts:
            assert m.moe.moe_layers and m.moe.expert_intermediate_size
            width = m.moe.shared_experts * m.moe.expert_intermediate_size
            mlp += m.moe.moe_layers * 3 * m.hidden_size * width
        own = _attention_params(m) + _state_layer_params(m) + mlp
        own += EXTRA_PARAMS.get(m.id, 0) + VISION_PARAMS.get(m.id, 0)
        total = own / 1e9 + (experts_b(m) or 0.0) + embeddings_b(m)
        assert total == pytest.approx(m.params_b, rel=0.03), m.id
        checked += 1
    assert checked >= 140


# Families whose dense MLP is ungated (up + down only): StarCoder2 and Phi-2 (GELU c_fc / c_proj),
# Nemotron-Mini (ReLU^2).
UNGATED_MLP = {"StarCoder2", "Phi-2", "Nemotron"}

# Models with state-free layers ('none'), by hand from each config.json. Nemotron-H: embeddings (untied), attention layers ('*'),
# MLP-only layers ('-', ReLU^2: up + down) or MoE layers ('E': ungated experts, a shared expert,
# a router), and Mamba2 layers ('M': in_proj to 2 x d_inner + 2 x n_groups x state + heads,
# out_proj, conv over d_inner + 2 x n_groups x state channels).
HAND_SPLIT = {
    "nemotron-nano-9b-v2": 131072 * 4480 * 2
    + 4 * 4480 * 128 * 2 * (40 + 8)
    + 25 * 2 * 4480 * 15680
    + 27 * (4480 * (2 * 10240 + 2 * 8 * 128 + 128) + 10240 * 4480 + 12288 * 4),
    "nemotron-3-nano-30b-a3b": 131072 * 2688 * 2
    + 6 * 2688 * 128 * 2 * (32 + 2)
    + 23 * (128 * 2 * 2688 * 1856 + 2 * 2688 * 3712 + 128 * 2688)
    + 23 * (2688 * (2 * 4096 + 2 * 8 * 128 + 64) + 4096 * 2688 + 6144 * 4),
    # Latent MoE: each MoE layer projects 4096 -> moe_latent_size 1024 and back, its 512 experts
    # work at 1024 x 2688; the shared expert (5376) works at full width.
    "nemotron-3-super-120b-a12b": 131072 * 4096 * 2
    + 8 * 4096 * 128 * 2 * (32 + 2)
    + 40 * (512 * 2 * 1024 * 2688 + 2 * 4096 * 1024 + 2 * 4096 * 5376 + 512 * 4096)
    + 40 * (4096 * (2 * 8192 + 2 * 8 * 128 + 128) + 8192 * 4096 + 10240 * 4),
    "nemotron-3-ultra-550b-a55b": 131072 * 8192 * 2
    + 12 * 8192 * 128 * 2 * (64 + 2)
    + 48 * (512 * 2 * 2048 * 5120 + 2 * 8192 * 2048 + 2 * 8192 * 10240 + 512 * 8192)
    + 48 * (8192 * (2 * 16384 + 2 * 8 * 128 + 256) + 16384 * 8192 + 18432 * 4),
    "nemotron-h-56b": 131072 * 8192 * 2
    + 10 * 8192 * 128 * 2 * (64 + 8)
    + 54 * 2 * 8192 * 32768
    + 54 * (8192 * (2 * 16384 + 2 * 8 * 256 + 256) + 16384 * 8192 + 20480 * 4),
    # Llama-3.3-Nemotron-Super-49B (NAS): 49 blocks keep GQA attention (8 KV heads), 31 have none;
    # gated FFN widths per block_configs: 49 x 28672, 10 x 7168, 8 x 5632, 6 x 14336, 6 x 2816,
    # 1 x 17920.
    "llama-3.3-nemotron-super-49b": 128256 * 8192 * 2
    + 49 * 8192 * 128 * 2 * (64 + 8)
    + 3 * 8192 * (49 * 28672 + 10 * 7168 + 8 * 5632 + 6 * 14336 + 6 * 2816 + 17920),
}


@pytest.mark.parametrize("model_id", sorted(HAND_SPLIT))
def test_nemotron_h_parameters_from_the_config(cat: Catalog, model_id: str) -> None:
    m = cat.model_by_id[model_id]
    assert HAND_SPLIT[model_id] / 1e9 == pytest.approx(m.params_b, rel=0.01)
    assert embeddings_b(m) == m.vocab_size * m.hidden_size * 2 / 1e9


def test_latent_experts_work_in_their_own_width(cat: Catalog) -> None:
    # Nemotron 3 Super: 40 x 512 x (up + down) x moe_latent_size 1024 x 2688 = 112.74B of 120.7B.
    m = cat.model_by_id["nemotron-3-super-120b-a12b"]
    assert experts_b(m) == 40 * 512 * 2 * 1024 * 2688 / 1e9
    ultra = cat.model_by_id["nemotron-3-ultra-550b-a55b"]
    assert experts_b(ultra) == 48 * 512 * 2 * 2048 * 5120 / 1e9


def test_no_split_exceeds_the_model(cat: Catalog) -> None:
    """Routed experts plus embeddings, derived from the config, stay below params_b."""
    for m in cat.models:
        assert (experts_b(m) or 0.0) + embeddings_b(m) < m.params_b, m.id


def test_ungated_experts_count_two_matrices(cat: Catalog) -> None:
    # Nemotron 3 Nano: 23 MoE layers x 128 experts x (up + down) x 2688 x 1856 = 29.37B; with the
    # gated rule (3 matrices) the experts alone would be 44.06B, more than the whole model.
    m = cat.model_by_id["nemotron-3-nano-30b-a3b"]
    assert experts_b(m) == 23 * 128 * 2 * 2688 * 1856 / 1e9
    assert (experts_b(m) or 0) < m.params_b < 23 * 128 * 3 * 2688 * 1856 / 1e9
    a = ask("nemotron 3 nano 30b", catalog=cat)
    assert a.memory_gb is not None and a.request is not None
    assert a.request.model is not None and a.request.model.id == m.id
    assert a.memory_gb["weights"] == pytest.approx(m.params_b * 2)  # BF16 release


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
    # the card's rounded "1T", so params_b is the config-derived 1026.4B: experts, embeddings and
    # the rest (attention, dense and shared MLPs, router), all linear layers in FP8.
    experts = 60 * 384 * 3 * 7168 * 2048 / 1e9
    emb = 163840 * 7168 * 2 / 1e9
    rest = 1026.4 - experts - emb
    assert 9 < rest < 10  # MLA 6.2B + dense and shared MLPs 3.0B + router 0.2B
    a = ask("kimi k2", catalog=cat)
    assert a.request is not None and a.request.precision == "fp8"
    assert a.memory_gb is not None
    assert a.memory_gb["weights"] == pytest.approx(experts * 1 + emb * 2 + rest * 1, rel=1e-9)
    # Kimi K2 Thinking ships INT4 experts (a 16-bit scale per 32 weights: 4.5 bits), BF16 rest.
    a = ask("kimi k2 thinking", catalog=cat)
    assert a.request is not None and a.memory_gb is not None
    assert a.request.weight_parts is not None and a.request.weight_parts.experts == "int4-g32"
    assert a.memory_gb["weights"] == pytest.approx(experts * 4.5 / 8 + (emb + rest) * 2, rel=1e-9)


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


def _ref(cat: Catalog, model_id: str) -> ModelRef:
    return model_ref(cat.model_by_id[model_id])


def test_hybrid_kv_counts_only_full_attention_layers(cat: Catalog) -> None:
    # Qwen3-Next-80B-A3B: 48 layers, full_attention_interval 4 -> 12 full layers, 2 KV heads x 256.
    qwen = _ref(cat, "qwen3-next-80b-a3b")
    assert kv_bytes_per_token(qwen, 2.0, CTX) == 12 * 2 * 2 * 256 * 2  # 24,576
    # Nemotron-Nano-9B-v2: hybrid_override_pattern has 4 '*' of 56 layers, 8 KV heads x 128.
    nano = _ref(cat, "nemotron-nano-9b-v2")
    assert kv_bytes_per_token(nano, 2.0, CTX) == 4 * 2 * 8 * 128 * 2  # 16,384
    # Nemotron 3 Nano 30B-A3B: 6 '*' of 52 layers, 2 KV heads x 128.
    nano3 = _ref(cat, "nemotron-3-nano-30b-a3b")
    assert kv_bytes_per_token(nano3, 2.0, CTX) == 6 * 2 * 2 * 128 * 2  # 6,144
    # Counting every layer would over-state them 4x and 14x.
    every = qwen.model_copy(update={"layer_types": None})
    assert kv_bytes_per_token(every, 2.0, CTX) == 4 * kv_bytes_per_token(qwen, 2.0, CTX)
    every = nano.model_copy(update={"layer_types": None})
    assert kv_bytes_per_token(every, 2.0, CTX) == 14 * kv_bytes_per_token(nano, 2.0, CTX)


def test_hybrid_recurrent_state_is_fixed_per_sequence(cat: Catalog) -> None:
    # Gated DeltaNet: 32 value heads x 128 x 128, conv 4 over 2*16*128 + 32*128 channels.
    qwen_layer = 32 * 128 * 128 * 2 + (2 * 16 * 128 + 32 * 128) * 3 * 2
    qwen = _ref(cat, "qwen3-next-80b-a3b")
    assert recurrent_state_bytes(qwen) == 36 * qwen_layer  # 39,518,208
    # Mamba2: mamba_num_heads x ssm_state_size x mamba_head_dim, conv 4 over
    # mamba_num_heads*mamba_head_dim + 2*n_groups*ssm_state_size channels.
    nano_layer = 128 * 128 * 80 * 2 + (128 * 80 + 2 * 8 * 128) * 3 * 2
    assert recurrent_state_bytes(_ref(cat, "nemotron-nano-9b-v2")) == 27 * nano_layer  # 72,769,536
    nano3_layer = 64 * 128 * 64 * 2 + (64 * 64 + 2 * 8 * 128) * 3 * 2
    assert recurrent_state_bytes(_ref(cat, "nemotron-3-nano-30b-a3b")) == 23 * nano3_layer
    # State does not grow with context, and is held once per sequence.
    for ctx in (1024, CTX, 131072):
        grow = 12 * 2 * 2 * 256 * 2 * ctx
        assert kv_cache_gb(qwen, 2.0, ctx, 4) == pytest.approx(4 * (grow + 36 * qwen_layer) / GB)
    # The answer for the named model carries the same cache: 8k tokens, FP16 KV, one sequence.
    a = ask("qwen3-next-80b-a3b", catalog=cat)
    assert a.memory_gb is not None
    hand = (12 * 2 * 2 * 256 * 2 * CTX + 36 * qwen_layer) / GB
    assert a.memory_gb["kv_cache"] == pytest.approx(hand, rel=1e-9)


def test_shared_kv_layers_add_nothing(cat: Catalog) -> None:
    # gemma-3n-E4B text_config: 35 layers, full attention every 5th, sliding_window 512,
    # num_kv_shared_layers 15 (the last 15 reuse earlier KV), 2 KV heads x 256: only layers
    # 0-19 hold KV, 16 sliding + 4 full.
    gemma3n = _ref(cat, "gemma-3n-e4b")
    per = 2 * 2 * 256 * 2
    hand = (4 * CTX + 16 * 512) * per / GB
    assert kv_cache_gb(gemma3n, 2.0, CTX, 1) == pytest.approx(hand)
    assert recurrent_state_bytes(gemma3n) == 0
    a = ask("gemma 3n e4b", catalog=cat)
    assert a.memory_gb is not None and a.memory_gb["kv_cache"] == pytest.approx(hand)
    # Counting the 15 shared layers as their own would add 3 full + 12 sliding layers.
    unshared = gemma3n.model_copy(update={"layer_types": None, "sliding_layers": 28})
    assert kv_cache_gb(unshared, 2.0, CTX, 1) == pytest.approx((7 * CTX + 28 * 512) * per / GB)


def test_full_attention_layers_in_their_own_shape(cat: Catalog) -> None:
    # Gemma 4 31B: 50 sliding layers (16 KV heads x 256, window 1024) + 10 full layers with
    # num_global_key_value_heads 4 x global_head_dim 512.
    m = _ref(cat, "gemma-4-31b")
    hand = (10 * CTX * 2 * 4 * 512 * 2 + 50 * 1024 * 2 * 16 * 256 * 2) / GB
    assert kv_cache_gb(m, 2.0, CTX, 1) == pytest.approx(hand)
    # Gemma 4 E4B adds KV sharing: 24 of 42 layers hold a cache (20 sliding 2 x 256 in a
    # 512 window, 4 full 2 x 512).
    e4b = _ref(cat, "gemma-4-e4b")
    hand = (4 * CTX * 2 * 2 * 512 * 2 + 20 * 512 * 2 * 2 * 256 * 2) / GB
    assert kv_cache_gb(e4b, 2.0, CTX, 1) == pytest.approx(hand)


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
    # Physics and renting are separate: 8 cards hold it split by layers, TP 8 is refused.
    assert a.fit is not None and a.fit.fits and a.fit.reason == "heads_not_divisible"
    assert a.fit.offered is False
    assert any("split by layers only" in line for s in a.sections for line in s.lines)


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
        ("kimi-k2", {"params_b": 1000}, "params_b", "experts and embeddings"),
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
