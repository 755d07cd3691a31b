"""Frozen data types: what the catalog holds (the schema of ``data/*.yaml``).

The answer's own types live in :mod:`engine.answer_types`.

Units live in field names (``vram_gb``, ``monthly_usd``, ``bandwidth_gbps``): GB is 10^9 bytes.
Numbers are kept exact; rounding happens only when text is rendered.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from engine.frozen import Frozen, Ge, Gt, Le, Lt, field

Task = Literal["inference", "full", "lora", "qlora"]
Lang = Literal["en", "pl", "th"]
LANGS: tuple[Lang, ...] = ("en", "pl", "th")


class _Data(Frozen):
    """Catalog entries: strict, so a typo in a data file is an error, not a silent default."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}


# --------------------------------------------------------------------------- catalog: cards


class Region(_Data):
    id: str
    city: str


class Provider(_Data):
    name: str
    prices_as_of: str
    hours_per_month: Annotated[int, Gt(0)]
    min_term_days: Annotated[int, Gt(0)]
    hourly_rentals: bool
    deploy_seconds: Annotated[int, Gt(0)]
    node_host_ram_tb: Annotated[float, Gt(0)]
    payment_methods: list[str]
    regions: list[Region]


class Discount(_Data):
    count: Annotated[int, Ge(2)]
    pct: Annotated[float, Ge(0), Lt(100)]


class Cluster(_Data):
    card: str
    cards_per_node: Annotated[int, Gt(0)]


class Card(_Data):
    name: str
    aliases: list[str]
    vendor: str
    platform: Literal["CUDA", "ROCm"]
    arch: str
    vram_gb: Annotated[float, Gt(0)]
    memory_type: str
    bandwidth_gbps: Annotated[float, Gt(0)]
    monthly_usd: Annotated[float, Gt(0)]
    fp8: bool
    interconnect: str | None
    link_gbps: float | None
    regions: list[str]
    min_count: Annotated[int, Ge(1)]
    set_sizes: list[int]
    full_ft_sets: bool
    stock_free: int | None = None
    caveats: list[str]
    hourly_usd: float | None = None
    bridge_gbps: float | None = None  # an optional NVLink bridge a pair may add, when stated
    desktop: bool = False  # a card a person can buy for a desktop ("what should I buy" answers)

    @property
    def usd_per_gb_month(self) -> float:
        return self.monthly_usd / self.vram_gb

    @property
    def gbps_per_usd_month(self) -> float:
        return self.bandwidth_gbps / self.monthly_usd


class CardsFile(_Data):
    provider: Provider
    discounts: list[Discount]
    cluster: Cluster
    cards: list[Card]


class OwnedCard(_Data):
    """A card people own that the fleet does not rent (``data/hardware.yaml``): judged by
    physics only, never priced or the fleet's pick (a "what to buy" answer weighs them)."""

    name: str
    aliases: list[str]
    vendor: str
    arch: str
    vram_gb: Annotated[float, Gt(0)]
    bandwidth_gbps: Annotated[float, Gt(0)]
    fp8: bool
    source: str


class HardwareFile(_Data):
    cards: list[OwnedCard]


class PriceBook(_Data):
    name: str
    provider: str
    prices_as_of: str
    hourly_usd: dict[str, float]
    min_count: dict[str, int] = field(default_factory=dict)
    caveats: dict[str, list[str]] = field(default_factory=dict)
    market_low_hourly_usd: dict[str, float] = field(default_factory=dict)


# --------------------------------------------------------------------------- catalog: models


class MLA(_Data):
    kv_lora_rank: Annotated[int, Gt(0)]
    qk_rope_head_dim: Annotated[int, Gt(0)]


class MoE(_Data):
    experts: Annotated[int, Gt(0)]
    experts_per_token: Annotated[int, Gt(0)]
    shared_experts: Annotated[int, Ge(0)]
    expert_intermediate_size: Annotated[int, Gt(0)] | None = None
    moe_layers: Annotated[int, Gt(0)] | None = None
    # projections per routed expert: 3 for gated experts (gate, up, down), 2 for ungated
    # ReLU^2 experts (up, down) such as Nemotron-H's
    expert_matrices: Annotated[int, Ge(2), Le(3)] = 3
    # width the experts work in when it is not hidden_size (latent MoE: moe_latent_size)
    expert_hidden_size: Annotated[int, Gt(0)] | None = None


class NativePrecision(_Data):
    """What the official checkpoint stores, per part; names are precisions.yaml names."""

    experts: str | None = None  # routed experts (MoE only); None = same as dense
    dense: str  # every other linear layer
    embeddings: str = "bf16"  # embed_tokens + lm_head
    source: str


class LayerTypes(_Data):
    """How many layers of each kind; only for models whose layers differ beyond sliding."""

    full: Annotated[int, Ge(0)] = 0
    linear: Annotated[int, Ge(0)] = 0  # Gated DeltaNet / linear attention
    mamba: Annotated[int, Ge(0)] = 0  # Mamba / Mamba2
    sliding: Annotated[int, Ge(0)] = 0
    shared_kv: Annotated[int, Ge(0)] = 0  # reuse an earlier layer's KV: add nothing
    none: Annotated[int, Ge(0)] = 0  # no sequence state (MLP-only layers)

    @property
    def total(self) -> int:
        return self.full + self.linear + self.mamba + self.sliding + self.shared_kv + self.none


class RecurrentState(_Data):
    """Fixed per-sequence state of a linear-attention or Mamba layer, from config.json."""

    heads: Annotated[int, Gt(0)]
    key_dim: Annotated[int, Gt(0)]
    value_dim: Annotated[int, Gt(0)]
    conv_kernel: Annotated[int, Ge(0)]  # 0: no causal conv (MiniMax lightning attention)
    conv_channels: Annotated[int, Ge(0)]


class AttentionShape(_Data):
    kv_heads: Annotated[int, Gt(0)]
    head_dim: Annotated[int, Gt(0)]


ModelTask = Literal["chat", "code", "reasoning", "vision"]


class ModelSpec(_Data):
    id: str
    name: str
    family: str
    nominal_b: Annotated[float, Gt(0)]
    released: str
    hf_repo: str
    aliases: list[str]
    params_b: Annotated[float, Gt(0)]
    active_params_b: float | None = None
    layers: Annotated[int, Gt(0)]
    hidden_size: Annotated[int, Gt(0)]
    attention_heads: Annotated[int, Gt(0)]
    kv_heads: Annotated[int, Gt(0)]
    head_dim: Annotated[int, Gt(0)]
    vocab_size: Annotated[int, Gt(0)]
    max_context_tokens: Annotated[int, Gt(0)]
    sliding_window: int | None = None
    sliding_layers: Annotated[int, Ge(0)] = 0
    mla: MLA | None = None
    moe: MoE | None = None
    intermediate_size: Annotated[int, Gt(0)] | None = None
    tie_word_embeddings: bool = False
    native_precision: NativePrecision
    layer_types: LayerTypes | None = None
    recurrent_state: RecurrentState | None = None
    full_attention: AttentionShape | None = None
    tasks: list[ModelTask] = field(default_factory=list)
    variant_of: str | None = None
    ollama_precision: str | None = None
    source: str
    notes: str | None = None


class ModelsFile(_Data):
    models: list[ModelSpec]


class Precision(_Data):
    name: str
    bits: Annotated[float, Gt(0)]
    needs_fp8: bool
    gguf: bool = False
    # Where a request for this precision applies: "all" parameters (the sources' plain types),
    # or "linear" layers only (embeddings and lm_head stay BF16), or "experts" of an MoE model
    # (attention, shared MLPs, router and embeddings stay BF16; a dense model gets "linear").
    scope: Literal["all", "linear", "experts"] = "all"
    native_cards: str | None = None  # the hardware that computes in this format natively
    aliases: list[str]

    @property
    def bytes_per_param(self) -> float:
        return self.bits / 8


class KvDtype(_Data):
    name: str
    bytes: Annotated[float, Gt(0)]
    aliases: list[str]


class PrecisionsFile(_Data):
    precisions: list[Precision]
    kv_dtypes: list[KvDtype]


class Shape(_Data):
    params_b: Annotated[float, Gt(0)]
    layers: Annotated[int, Gt(0)]
    attention_heads: Annotated[int, Gt(0)]
    kv_heads: Annotated[int, Gt(0)]
    head_dim: Annotated[int, Gt(0)]
    like: str


class ShapesFile(_Data):
    shapes: list[Shape]


class FaqTopic(_Data):
    id: str
    keywords: dict[Lang, list[str]]


class FaqFile(_Data):
    topics: list[FaqTopic]


# --------------------------------------------------------------------------- old import paths

# The answer's types moved to engine.answer_types; adapters written against the old path
# (``from engine.models import Pick``) keep working until they import from ``engine``. Resolved
# on first use, not at import time, so this module does not depend on the one that uses it.
