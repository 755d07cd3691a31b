"""The answer's types: what the engine says back, serialised to the public JSON contract.

``Answer.to_json()`` is used by outside tools: keys are only ever added, never renamed or
dropped. Numbers are exact; rounding happens only in the text.
"""

from __future__ import annotations

from typing import Any, Literal

from engine.frozen import _SET, Frozen, field
from engine.models import MLA, AttentionShape, Lang, LayerTypes, RecurrentState, Task

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
    "compare",
]


class _Out(Frozen):
    """Answer parts: plain data, serialised to the JSON contract."""


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
    lora_rank: int | None = None  # a LoRA rank said ("rank 64"); None: rank-16 adapters


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
    offered: bool = True  # False: the asked hardware is not rented; the price is rent_card's
    rent_card: str | None = None
    rent_count: int | None = None
    released: str | None = None
    context_tokens: int = 8192  # what the need is sized at: the context and users asked
    batch: int = 1


class FitOption(_Out):
    """One way to run the model on the asked hardware (a rung of the fit ladder)."""

    precision: str
    kv_dtype: str
    context_tokens: int
    batch: int
    total_gb: float
    fits: bool
    headroom_gb: float
    decode_tok_s: float | None = None
    max_context_tokens: int | None = None  # filled for the best option only


class FitChange(_Out):
    """The smallest change that makes the asked setup fit: one slot changed, the rest kept."""

    # precision | kv_cache | context | batch | cards; two slots at once: precision_context,
    # precision_batch; a training run: sequence, train_batch, method, method_sequence
    change: str
    precision: str
    kv_dtype: str
    context_tokens: int
    batch: int
    count: int
    total_gb: float
    headroom_gb: float
    task: str | None = None  # a training change: the method it trains with
    max_context_tokens: int | None = None  # a context cut: the longest that fits, at the edge


TWO_SLOTS = ("precision_kv", "precision_context", "precision_batch")  # a change of two at once


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
    options: list[FitOption] = field(default_factory=list)
    best: FitOption | None = None
    offered: bool | None = None
    max_context_tokens: int | None = None
    max_batch: int | None = None
    changes: list[FitChange] = field(default_factory=list)
    rental: Pick | None = None  # the cheapest rental that runs the best option
    interconnect: str | None = None
    link_gbps: float | None = None
    decode_kv_tok_s: float | None = None
    precision: str | None = None
    # a Mac: the memory its GPU may use by default, which the verdict, the room and the limits
    # are judged against (``vram_gb`` stays the whole); ``raise_limit_mb``: the asked request
    # fits only the whole memory, after `sudo sysctl iogpu.wired_limit_mb=<that>`; the
    # limits at the whole memory once the limit is raised
    gpu_share_gb: float | None = None
    raise_limit_mb: int | None = None
    raised_max_context_tokens: int | None = None
    raised_max_batch: int | None = None
    mac: str | None = None  # the Mac as named ("MacBook Pro M3 Max"), None for other hardware


class RigCard(_Out):
    """One kind of card in a person's own rig of different cards, run as one (split by
    layers): ``layers`` and ``used_gb`` are what these cards hold of the option shown."""

    card: str
    count: int
    vram_gb: float  # one card's
    bandwidth_gbps: float  # one card's
    layers: int = 0
    used_gb: float = 0.0


class BuyOption(_Out):
    """One setup of cards a person can own that holds the model, in a "what to buy" answer:
    ``role`` says why it is listed ("verdict" first, then "tight": a smaller card that holds
    it with little room, "pair": two smaller cards,
    "workstation": the single card with the most memory, "shipped": the precision it ships
    in, "lighter": a 4-bit precision on a smaller card, "method": a lighter training
    method on fewer cards). Physics only: never a price."""

    role: str
    card: str
    cards: list[str]  # the cards of this memory that hold it as well (``card`` first)
    count: int
    vram_gb: float  # one card's
    precision: str
    total_gb: float
    headroom_gb: float
    tight: bool
    decode_tok_s: float | None = None
    rented: bool = False  # whether the fleet also rents this card (cards.yaml)
    task: str | None = None  # a training setup's method ("full", "lora", "qlora")


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


class OwnedCardInfo(_Out):
    """A card people own that we do not rent (``data/hardware.yaml``), asked about itself
    ("rx 7900 xtx specs", "is a 3060 good for llms?"): its figures, and as ``rental`` the
    cheapest card we rent with at least its memory (and FP8 when it has FP8), if any."""

    name: str
    vendor: str
    arch: str
    vram_gb: float  # one card's
    bandwidth_gbps: float  # one card's
    fp8: bool
    count: int
    rental: CardInfo | None = None


class LimitOption(_Out):
    """How far one precision stretches on the set (given when the asked one leaves nothing)."""

    precision: str
    max_context_tokens: int
    max_batch: int
    max_batch_kv_fp8: int


class Limit(_Out):
    card: str
    count: int
    max_context_tokens: int | None
    max_batch: int | None
    options: list[LimitOption] = field(default_factory=list)
    # the same two limits when the engine plans with 90% of each card (vLLM's default)
    engine_context_tokens: int | None = None
    engine_batch: int | None = None
    # a Mac: the limits above are at the memory its GPU may use by default (``gpu_share_gb``);
    # these at the whole memory once `sudo sysctl iogpu.wired_limit_mb` raises that limit
    gpu_share_gb: float | None = None
    raised_context_tokens: int | None = None
    raised_batch: int | None = None
    # the plain amount it was judged on (a Mac's whole memory), None on a card or a rig: what
    # a follow-up keeps, as a fit's ``vram_gb``; ``mac`` names the Mac, as a fit's
    vram_gb: float | None = None
    mac: str | None = None


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
    alternatives: list[Pick] = field(default_factory=list)
    decode_tok_s: float | None = None
    cluster_nodes: int | None = None
    fit: Fit | None = None
    fits: list[Fit] = field(default_factory=list)
    card: CardInfo | None = None
    cards: list[CardInfo] = field(default_factory=list)
    limit: Limit | None = None
    budget: list[BudgetOption] = field(default_factory=list)
    budget_usd: float | None = None
    candidates: list[Candidate] = field(default_factory=list)
    caveats: list[Note] = field(default_factory=list)
    assumptions: list[Note] = field(default_factory=list)
    quick_rule_gb: float | None = None
    kv_bytes_per_token: float | None = None
    prices_as_of: str | None = None
    faq_topic: str | None = None
    headline: str = ""
    sections: list[Section] = field(default_factory=list)
    math: list[str] = field(default_factory=list)
    text: str = ""
    decode_kv_tok_s: float | None = None  # the lower ceiling that also reads the KV cache
    items: list[Answer] = field(default_factory=list)  # kind "compare": the alternatives
    verdict: str | None = None  # kind "compare": which alternative wins, in one line
    # a model asked with a budget the pick is over: the first lighter setup within it (its
    # precision, need_gb and, as reason, the task), else the cheapest setup of all
    within_budget: Pick | None = None
    budget_floor: Pick | None = None
    budget_asked: Pick | None = None  # the cheapest rental of the setup as asked, sets included
    rig: list[RigCard] = field(default_factory=list)  # kind "fit": the person's cards, as one
    # what the headline answers first, when the question asked it first ("speed": the decode
    # ceiling, before the fit verdict); renderers lead with the headline then
    leads_with: str | None = None
    # the short follow-up this answers ("cheaper", "no_cheaper", "why", "math"): its headline
    # leads; ``show_math``: the math is shown as well, as a renderer's "show the math" would
    follows_up: str | None = None
    show_math: bool = False
    # kind "capacity" asked about an owned card itself: the card's sheet beside its list
    owned_card: OwnedCardInfo | None = None
    # "what should I buy", "at home": the setups of cards a person can own that hold it, the
    # verdict first (``leads_with`` is then "buying"); [] for every other answer
    buying: list[BuyOption] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The public JSON contract (keys are only ever added, never renamed)."""
        return self.model_dump(mode="json")


class Context(Frozen):
    """What a follow-up refines: the last request and the card it was answered with."""

    request: Request
    pick_card: str | None = None
    pick_count: int | None = None
    vram_gb: float | None = None  # the plain amount it was checked against ("in 48gb")
    budget_usd: float | None = None  # the monthly budget it was asked within ("under $500")
    mac: str | None = None  # the Mac that plain amount is ("MacBook Pro M3 Max")
    # a list answered last ("budget" or "capacity"): ``request`` then holds no model, only the
    # context and users it was sized at, and the hardware is ``pick_card`` or ``vram_gb``
    listing: str | None = None
    # the language it was answered in: a follow-up that says none ("qlora", "int4?") keeps it
    lang: Lang | None = None

    def __init__(
        self,
        request: Request,
        pick_card: str | None = None,
        pick_count: int | None = None,
        vram_gb: float | None = None,
        budget_usd: float | None = None,
        mac: str | None = None,
        listing: str | None = None,
        lang: Lang | None = None,
    ) -> None:
        """Positional as well as by name, as callers have always built it."""
        _SET(
            self,
            "__dict__",
            {
                "request": request,
                "pick_card": pick_card,
                "pick_count": pick_count,
                "vram_gb": vram_gb,
                "budget_usd": budget_usd,
                "mac": mac,
                "listing": listing,
                "lang": lang,
            },
        )


class RequestOptions(Frozen):
    """Request values an adapter already has as fields; each ``None`` leaves the text's say.

    ``model_id`` is a catalog model id: a model picked from a list, or the candidate a person
    chose after a "which model did you mean?" answer (ask the same text again with it).
    ``context_tokens`` is a count (131072) or as typed in a form ("128k", "1M").
    ``kind`` asks for one answer kind whatever the text says (a command such as /gpus):
    ``"cards"`` (the fleet), ``"card"`` (the card in ``card``), ``"faq"`` (``faq_topic``)
    or ``"help"``; a ``faq_topic`` alone also asks for that FAQ answer.
    Keyword arguments only, like every ``Frozen`` type; copy one with ``model_copy(update=)``.
    """

    model_id: str | None = None
    precision: str | None = None
    kv_dtype: str | None = None
    context_tokens: int | str | None = None
    batch: int | None = None
    task: str | None = None
    card: str | None = None
    count: int | None = None
    kind: str | None = None
    faq_topic: str | None = None
