"""Memory arithmetic: weights, KV cache, overhead and training state, in exact decimal GB.

Every constant here is a rule of the sizing guide (``SIZING.md``) and carries its name, so
the arithmetic reads like the rule it implements.
"""

from __future__ import annotations

import math
from typing import Final

from engine.answer_types import ModelRef
from engine.models import Task
from engine.rounding import round_half_up

GB: Final = 1e9  # decimal gigabyte: params in billions x bytes per param = GB
MB: Final = 1e6
OVERHEAD_GB: Final = 2.0  # CUDA context, framework and allocator, per process
KV_K_AND_V: Final = 2  # the cache holds a key and a value vector
STATE_BYTES: Final = 2  # linear-attention / Mamba recurrent and conv state, kept at 16 bits

# Full fine-tune with Adam, bytes per parameter.
FULL_FT_BYTES: Final = {
    "weights": 2.0,  # BF16 weights
    "gradients": 2.0,  # BF16 gradients
    "master_weights": 4.0,  # FP32 master copy
    "optimizer": 8.0,  # Adam first and second moments, FP32 each
}
FULL_FT_ACTIVATION_SHARE: Final = 0.15  # activations and fragmentation, at the default sequence
HF_FULL_FT_BYTES: Final = 18.0  # the alternative accounting (6 + 8 + 4) some guides quote

FT_SEQ_TOKENS: Final = 2048
FT_BATCH: Final = 1
LORA_BASE_BYTES: Final = {"lora": 2.0, "qlora": 0.5}  # frozen base: BF16, or 4-bit for QLoRA
LORA_BASE_PRECISION: Final = {"lora": "bf16", "qlora": "int4"}
ADAPTER_FRACTION: Final = 0.005  # rank-16 adapters on the attention projections, ~0.5% of params
ADAPTER_RANK: Final = 16  # the rank ADAPTER_FRACTION is for: adapter size grows with it
ADAPTER_BYTES: Final = 16.0  # adapter weights, gradients, master copy and Adam moments
ACTIVATION_GB_PER_STEP: Final = 2.0  # LoRA/QLoRA activation allowance: 2 GB per 20 layers...
ACTIVATION_LAYERS_PER_STEP: Final = 20  # ...rounded half-up, at sequence 2048 and batch 1

QUICK_RULE_MARGIN: Final = 1.2  # the rule-of-thumb page: params x bytes x 1.2
QUICK_RULE_TIGHT_SHARE: Final = 0.05  # within 5% of a card: short prompts only


class Breakdown:
    """Memory parts in GB; ``total`` is their sum (summed once: the parts never change).

    A plain class, not a frozen dataclass: compiled, its two fields are read natively, and
    either way it is built without the dataclass's per-field ``object.__setattr__``. ``Final``
    keeps the fields unassigned after ``__init__`` (mypy checks it)."""

    __slots__ = ("parts", "total")

    def __init__(self, parts: dict[str, float]) -> None:
        self.parts: Final = parts
        self.total: Final = sum(parts.values())

    def __repr__(self) -> str:
        return f"Breakdown(parts={self.parts!r})"

    def as_dict(self) -> dict[str, float]:
        return {**self.parts, "total": self.total}


def weights_gb(params_b: float, bytes_per_param: float) -> float:
    return params_b * bytes_per_param


def mixed_weights_gb(
    model: ModelRef, experts_bpp: float, dense_bpp: float, embeddings_bpp: float
) -> float:
    """A checkpoint stored at several precisions: each part at its own rate.

    ``experts_b`` and ``embeddings_b`` are derived from config values; the rest of
    ``params_b`` (attention, dense and shared-expert MLPs, router, norms) is at the dense rate.
    """
    experts = model.experts_b or 0.0
    embeddings = model.embeddings_b or 0.0
    rest = max(model.params_b - experts - embeddings, 0.0)
    return experts * experts_bpp + embeddings * embeddings_bpp + rest * dense_bpp


def grow_layers(model: ModelRef) -> tuple[int, int]:
    """(full-attention layers, sliding-window layers): the ones whose cache grows with context.

    Linear-attention, Mamba, shared-KV and state-free layers add no per-token cache.
    """
    if model.layer_types is not None:
        return model.layer_types.full, model.layer_types.sliding
    return model.layers - model.sliding_layers, model.sliding_layers


def kv_bytes_per_token(
    model: ModelRef, kv_bytes: float, context_tokens: int | None = None
) -> float:
    """Bytes one token adds to the cache, averaged over the context for windowed layers.

    MLA caches one compressed latent (plus the RoPE key) per layer; sliding-window layers stop
    growing once the window is full, so their share depends on the context length; only layers
    whose cache grows with context count (see ``grow_layers``).
    """
    lt = model.layer_types  # grow_layers, inlined: this runs for every probe of a search
    if lt is not None:
        full, sliding = lt.full, lt.sliding
    else:
        sliding = model.sliding_layers
        full = model.layers - sliding
    if model.mla is not None:
        latent = model.mla.kv_lora_rank + model.mla.qk_rope_head_dim
        return (full + sliding) * latent * kv_bytes
    per_layer = KV_K_AND_V * model.kv_heads * model.head_dim * kv_bytes
    per_full = per_layer
    if model.full_attention is not None:
        shape = model.full_attention
        per_full = KV_K_AND_V * shape.kv_heads * shape.head_dim * kv_bytes
    if not sliding or model.sliding_window is None or not context_tokens:
        return full * per_full + sliding * per_layer
    cached_sliding = sliding * min(context_tokens, model.sliding_window)
    return full * per_full + per_layer * cached_sliding / context_tokens


def recurrent_state_bytes(model: ModelRef) -> float:
    """Fixed state one sequence keeps in linear-attention / Mamba layers, whatever its length.

    Per layer: the state matrix (heads x key_dim x value_dim) plus the causal-conv window
    (conv_channels x (conv_kernel - 1)), both at 2 bytes.
    """
    rs, lt = model.recurrent_state, model.layer_types
    if rs is None or lt is None:
        return 0.0
    per_layer = (
        rs.heads * rs.key_dim * rs.value_dim + rs.conv_channels * max(rs.conv_kernel - 1, 0)
    ) * STATE_BYTES
    return (lt.linear + lt.mamba) * per_layer


def kv_cache_gb(model: ModelRef, kv_bytes: float, context_tokens: int, batch: int) -> float:
    """The per-token cache for the whole context plus each sequence's fixed recurrent state."""
    grow = kv_bytes_per_token(model, kv_bytes, context_tokens) * context_tokens
    if model.recurrent_state is None:  # no fixed state: the common case, without the call
        return (grow + 0.0) * batch / GB
    return (grow + recurrent_state_bytes(model)) * batch / GB


def inference(
    model: ModelRef,
    bytes_per_param: float,
    kv_bytes: float,
    context_tokens: int,
    batch: int,
    weights: float | None = None,
    kv_cache: float | None = None,
) -> Breakdown:
    """``weights`` (GB) overrides params x bytes for a checkpoint stored at several precisions;
    ``kv_cache`` is the very ``kv_cache_gb`` of these arguments when the caller has it."""
    if kv_cache is None:
        kv_cache = kv_cache_gb(model, kv_bytes, context_tokens, batch)
    return Breakdown(
        {
            "weights": weights_gb(model.params_b, bytes_per_param) if weights is None else weights,
            "kv_cache": kv_cache,
            "overhead": OVERHEAD_GB,
        }
    )


def activation_allowance_gb(layers: int, seq_tokens: int, batch: int) -> float:
    """LoRA/QLoRA activations: the fitted allowance of SIZING.md, scaled by tokens per step."""
    if layers.__class__ is int and layers >= 0:
        # half up of layers / 20 in whole numbers: n / 20 is a half exactly when n = 20k + 10,
        # and any other quotient is at least 0.05 away from one, so the float cannot cross it
        steps = float((layers + ACTIVATION_LAYERS_PER_STEP // 2) // ACTIVATION_LAYERS_PER_STEP)
    else:
        steps = float(round_half_up(layers / ACTIVATION_LAYERS_PER_STEP, 0))
    return ACTIVATION_GB_PER_STEP * steps * (seq_tokens * batch / FT_SEQ_TOKENS)


def adapter_fraction(rank: int | None) -> float:
    """The share of the parameters that LoRA adapters of ``rank`` add (None: rank 16's 0.5%);
    an adapter's size grows in proportion to its rank."""
    return ADAPTER_FRACTION * (rank or ADAPTER_RANK) / ADAPTER_RANK


def training(
    model: ModelRef, task: Task, seq_tokens: int, batch: int, rank: int | None = None
) -> Breakdown:
    """``rank``: the LoRA rank said (None: the rank-16 adapters of the sources' rule)."""
    p = model.params_b
    scale = seq_tokens * batch / FT_SEQ_TOKENS
    if task == "full":
        parts = {k: p * b for k, b in FULL_FT_BYTES.items()}
        parts["activations"] = sum(parts.values()) * FULL_FT_ACTIVATION_SHARE * scale
        return Breakdown(parts)
    if task not in LORA_BASE_BYTES:
        raise ValueError(f"not a training task: {task}")
    return Breakdown(
        {
            "weights": p * LORA_BASE_BYTES[task],
            "adapters": p * adapter_fraction(rank) * ADAPTER_BYTES,
            "activations": activation_allowance_gb(model.layers, seq_tokens, batch),
            "overhead": OVERHEAD_GB,
        }
    )


def full_ft_bytes_per_param() -> float:
    return sum(FULL_FT_BYTES.values())


def quick_rule_gb(params_b: float, bytes_per_param: float) -> float:
    """The rule-of-thumb figure (params x bytes x 1.2), shown beside the exact one."""
    return params_b * bytes_per_param * QUICK_RULE_MARGIN


def decode_ceiling_tok_s(bandwidth_gbps: float, weights_read_gb: float) -> float:
    """Single-stream decode reads every active weight once per token: a ceiling, not a benchmark."""
    return bandwidth_gbps / weights_read_gb


def cluster_nodes(need_gb: float, node_gb: float) -> int:
    return math.ceil(need_gb / node_gb)


def max_context_tokens(
    model: ModelRef, free_gb: float, kv_bytes: float, batch: int, cap: int
) -> int:
    """Longest context whose cache fits ``free_gb`` (binary search: windows make it non-linear)."""
    if free_gb <= 0:
        return 0
    lo, hi = 0, cap
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if kv_cache_gb(model, kv_bytes, mid, batch) <= free_gb:
            lo = mid
        else:
            hi = mid - 1
    return lo


def max_batch(model: ModelRef, free_gb: float, kv_bytes: float, context_tokens: int) -> int:
    if free_gb <= 0:
        return 0
    per_seq = kv_cache_gb(model, kv_bytes, context_tokens, 1)
    return int(free_gb // per_seq) if per_seq > 0 else 0


def quick_rule_tight(need_gb: float, vram_gb: float) -> bool:
    """The rule of thumb's warning: within 5% of the card, only short prompts fit."""
    return need_gb > vram_gb * (1 - QUICK_RULE_TIGHT_SHARE)
