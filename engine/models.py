"""Frozen data types: what the catalog holds and what an answer says.

Units live in field names (``vram_gb``, ``monthly_usd``, ``bandwidth_gbps``): GB is 10^9 bytes.
Numbers are kept exact; rounding happens only when text is rendered.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Task = Literal["inference", "full", "lora", "qlora"]
Kind = Literal[
    "sizing",
    "fit",
    "card",
    "cards",
    "faq",
    "clarify",
    "help",
    "error",
    "limit",
    "budget",
    "capacity",
]
Lang = Literal["en", "pl", "th"]
LANGS: tuple[Lang, ...] = ("en", "pl", "th")


class _Data(BaseModel):
    """Catalog entries: strict, so a typo in a data file is an error, not a silent default."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- catalog: cards


class Region(_Data):
    id: str
    city: str


class Provider(_Data):
    name: str
    prices_as_of: str
    hours_per_month: int = Field(gt=0)
    min_term_days: int = Field(gt=0)
    hourly_rentals: bool
    deploy_seconds: int = Field(gt=0)
    node_host_ram_tb: float = Field(gt=0)
    payment_methods: list[str]
    regions: list[Region]


class Discount(_Data):
    count: int = Field(ge=2)
    pct: float = Field(ge=0, lt=100)


class Cluster(_Data):
    card: str
    cards_per_node: int = Field(gt=0)


class Card(_Data):
    name: str
    aliases: list[str]
    vendor: str
    platform: Literal["CUDA", "ROCm"]
    arch: str
    vram_gb: float = Field(gt=0)
    memory_type: str
    bandwidth_gbps: float = Field(gt=0)
    monthly_usd: float = Field(gt=0)
    fp8: bool
    interconnect: str | None
    link_gbps: float | None
    regions: list[str]
    min_count: int = Field(ge=1)
    set_sizes: list[int]
    full_ft_sets: bool
    stock_free: int | None = None
    caveats: list[str]
    hourly_usd: float | None = None

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


class PriceBook(_Data):
    name: str
    provider: str
    prices_as_of: str
    hourly_usd: dict[str, float]
    min_count: dict[str, int] = {}
    caveats: dict[str, list[str]] = {}
    market_low_hourly_usd: dict[str, float] = {}


# --------------------------------------------------------------------------- catalog: models


class MLA(_Data):
    kv_lora_rank: int = Field(gt=0)
    qk_rope_head_dim: int = Field(gt=0)


class MoE(_Data):
    experts: int = Field(gt=0)
    experts_per_token: int = Field(gt=0)
    shared_experts: int = Field(ge=0)
    expert_intermediate_size: int | None = Field(default=None, gt=0)
    moe_layers: int | None = Field(default=None, gt=0)
    # projections per routed expert: 3 for gated experts (gate, up, down), 2 for ungated
    # ReLU^2 experts (up, down) such as Nemotron-H's
    expert_matrices: int = Field(default=3, ge=2, le=3)
    # width the experts work in when it is not hidden_size (latent MoE: moe_latent_size)
    expert_hidden_size: int | None = Field(default=None, gt=0)


class NativePrecision(_Data):
    """What the official checkpoint stores, per part; names are precisions.yaml names."""

    experts: str | None = None  # routed experts (MoE only); None = same as dense
    dense: str  # every other linear layer
    embeddings: str = "bf16"  # embed_tokens + lm_head
    source: str


class LayerTypes(_Data):
    """How many layers of each kind; only for models whose layers differ beyond sliding."""

    full: int = Field(default=0, ge=0)
    linear: int = Field(default=0, ge=0)  # Gated DeltaNet / linear attention
    mamba: int = Field(default=0, ge=0)  # Mamba / Mamba2
    sliding: int = Field(default=0, ge=0)
    shared_kv: int = Field(default=0, ge=0)  # reuse an earlier layer's KV: add nothing
    none: int = Field(default=0, ge=0)  # no sequence state (MLP-only layers)

    @property
    def total(self) -> int:
        return self.full + self.linear + self.mamba + self.sliding + self.shared_kv + self.none


class RecurrentState(_Data):
    """Fixed per-sequence state of a linear-attention or Mamba layer, from config.json."""

    heads: int = Field(gt=0)
    key_dim: int = Field(gt=0)
    value_dim: int = Field(gt=0)
    conv_kernel: int = Field(ge=0)  # 0: no causal conv (MiniMax lightning attention)
    conv_channels: int = Field(ge=0)


class AttentionShape(_Data):
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)


ModelTask = Literal["chat", "code", "reasoning", "vision"]


class ModelSpec(_Data):
    id: str
    name: str
    family: str
    nominal_b: float = Field(gt=0)
    released: str
    hf_repo: str
    aliases: list[str]
    params_b: float = Field(gt=0)
    active_params_b: float | None = None
    layers: int = Field(gt=0)
    hidden_size: int = Field(gt=0)
    attention_heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    vocab_size: int = Field(gt=0)
    max_context_tokens: int = Field(gt=0)
    sliding_window: int | None = None
    sliding_layers: int = Field(default=0, ge=0)
    mla: MLA | None = None
    moe: MoE | None = None
    intermediate_size: int | None = Field(default=None, gt=0)
    tie_word_embeddings: bool = False
    native_precision: NativePrecision
    layer_types: LayerTypes | None = None
    recurrent_state: RecurrentState | None = None
    full_attention: AttentionShape | None = None
    tasks: list[ModelTask] = Field(default_factory=list)
    variant_of: str | None = None
    ollama_precision: str | None = None
    source: str
    notes: str | None = None


class ModelsFile(_Data):
    models: list[ModelSpec]


class Precision(_Data):
    name: str
    bits: float = Field(gt=0)
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
    bytes: float = Field(gt=0)
    aliases: list[str]


class PrecisionsFile(_Data):
    precisions: list[Precision]
    kv_dtypes: list[KvDtype]


class Shape(_Data):
    params_b: float = Field(gt=0)
    layers: int = Field(gt=0)
    attention_heads: int = Field(gt=0)
    kv_heads: int = Field(gt=0)
    head_dim: int = Field(gt=0)
    like: str


class ShapesFile(_Data):
    shapes: list[Shape]


class FaqTopic(_Data):
    id: str
    keywords: dict[Lang, list[str]]


class FaqFile(_Data):
    topics: list[FaqTopic]


# --------------------------------------------------------------------------- requests


class _Out(BaseModel):
    """Answer parts: plain data, serialised to the JSON contract."""

    model_config = ConfigDict(frozen=True)


class ModelRef(_Out):
    """The model as the engine sized it (a catalog model or an assumed typical shape)."""

    id: str | None = None
    name: str | None
    params_b: float
    active_params_b: float | None = None
    layers: int
    kv_heads: int
    head_dim: int
    attention_heads: int
    assumed: bool
    mla: MLA | None = None
    sliding_window: int | None = None
    sliding_layers: int = 0
    max_context_tokens: int | None = None
    shape_source: str | None = None
    experts_b: float | None = None  # routed-expert parameters, derived from config values
    embeddings_b: float | None = None  # embed_tokens + lm_head parameters
    layer_types: LayerTypes | None = None
    recurrent_state: RecurrentState | None = None
    full_attention: AttentionShape | None = None


class WeightParts(_Out):
    """Weights stored at different precisions per part (a mixed checkpoint, e.g. as released)."""

    experts: str | None = None
    dense: str
    embeddings: str
    as_released: bool = False


class Request(_Out):
    task: Task = "inference"
    model: ModelRef | None = None
    precision: str = "bf16"
    kv_dtype: str = "fp16"
    context_tokens: int = 8192
    batch: int = 1
    card: str | None = None
    count: int | None = None
    weight_parts: WeightParts | None = None


# --------------------------------------------------------------------------- answer parts


class Pick(_Out):
    card: str
    count: int
    monthly_usd: float
    headroom_gb: float
    tight: bool
    list_usd: float | None = None
    discount_pct: float = 0
    reason: str | None = None
    decode_tok_s: float | None = None
    hourly_usd: float | None = None
    precision: str | None = None
    need_gb: float | None = None


class BudgetOption(_Out):
    model: str
    model_id: str
    params_b: float
    precision: str
    need_gb: float
    card: str
    count: int
    monthly_usd: float
    decode_tok_s: float | None = None


class Fit(_Out):
    card: str
    count: int
    fits: bool
    headroom_gb: float
    tight: bool
    monthly_usd: float | None = None
    reason: str | None = None
    vram_gb: float | None = None
    decode_tok_s: float | None = None


class CardInfo(_Out):
    name: str
    vram_gb: float
    bandwidth_gbps: float
    monthly_usd: float
    fp8: bool
    usd_per_gb_month: float
    gbps_per_usd_month: float
    usd_per_gpu_hour: float
    memory_type: str
    min_count: int
    interconnect: str | None
    link_gbps: float | None
    platform: str
    arch: str
    regions: list[str]
    set_sizes: list[int]


class Limit(_Out):
    card: str
    count: int
    max_context_tokens: int | None
    max_batch: int | None


class Note(_Out):
    """A caveat or assumption: a stable code for tools, and text in the answer's language."""

    code: str
    text: str


class Section(_Out):
    """One block of the rendered answer; every renderer formats the same blocks."""

    title: str
    lines: list[str]


class Candidate(_Out):
    id: str
    name: str
    score: float


class Answer(_Out):
    kind: Kind
    lang: Lang = "en"
    request: Request | None = None
    memory_gb: dict[str, float] | None = None
    recommendation: Pick | None = None
    alternatives: list[Pick] = Field(default_factory=list)
    decode_tok_s: float | None = None
    cluster_nodes: int | None = None
    fit: Fit | None = None
    fits: list[Fit] = Field(default_factory=list)
    card: CardInfo | None = None
    cards: list[CardInfo] = Field(default_factory=list)
    limit: Limit | None = None
    budget: list[BudgetOption] = Field(default_factory=list)
    budget_usd: float | None = None
    candidates: list[Candidate] = Field(default_factory=list)
    caveats: list[Note] = Field(default_factory=list)
    assumptions: list[Note] = Field(default_factory=list)
    quick_rule_gb: float | None = None
    kv_bytes_per_token: float | None = None
    prices_as_of: str | None = None
    faq_topic: str | None = None
    headline: str = ""
    sections: list[Section] = Field(default_factory=list)
    math: list[str] = Field(default_factory=list)
    text: str = ""

    def to_json(self) -> dict[str, Any]:
        """The public JSON contract (keys are only ever added, never renamed)."""
        return self.model_dump(mode="json")
