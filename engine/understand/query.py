"""What the parser read from one message: each slot ``None`` when the person did not say it."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.models import Lang, ModelSpec, Task


@dataclass(slots=True)
class CardAsk:
    name: str
    count: int | None = None
    several: bool = False  # "on h100s", "na kilku a100": no count, but more than one may do
    said_gb: float | None = None  # an amount right after the name ("h100 nvl 94gb", "a100 40gb")


@dataclass(slots=True)
class ModelMatch:
    model: ModelSpec
    score: float


@dataclass(slots=True)
class Query:
    """What the text says; ``None`` means the person did not say it."""

    text: str
    lang: Lang | None = None
    task: Task | None = None
    task_generic: bool = False
    precision: str | None = None
    extra_precisions: list[str] = field(default_factory=list)
    unknown_precisions: list[str] = field(default_factory=list)
    kv_dtype: str | None = None
    context_tokens: int | None = None
    batch: int | None = None
    size_b: float | None = None
    bad_size_b: float | None = None  # a size nobody means ("0b", "1e-28t"): refused
    model: ModelSpec | None = None
    model_score: float = 0.0
    others: list[ModelMatch] = field(default_factory=list)
    model_words: str = ""
    unmatched_model: bool = False
    cards: list[CardAsk] = field(default_factory=list)
    owned: list[CardAsk] = field(default_factory=list)  # cards we do not rent (hardware.yaml)
    count: int | None = None
    vram_gb: float | None = None
    budget_usd: float | None = None
    faq_topic: str | None = None
    wants_fit: bool = False
    wants_what_fits: bool = False
    wants_limit: str | None = None
    wants_cards: bool = False
    wants_card_info: bool = False
    wants_help: bool = False
    wants_hourly: bool = False  # renting by the hour was asked about ("na godziny", "per hour")
    followup: bool = False
    short: str | None = None  # a short follow-up's ask: "cheaper", "why" or "math"
    truncated: bool = False
    unified: bool = False  # a Mac: the amount is memory the GPU shares with the CPU
    invalid: tuple[str, str] | None = None  # a slot said with a value nobody can size (batch 0)
    other_money: str | None = None  # an amount in a currency we do not price in ("2 000 zł")
    variant: tuple[str, float] | None = None  # a card with an amount it does not have: sized so
    variant_word: tuple[str, str] | None = None  # ("H100 NVL", "H100 SXM"): said back, sized so
    pasted: ModelSpec | None = None  # a shape read from a pasted config.json (not the catalog)
    config_error: str | None = None  # why a pasted config.json could not be read
    pasted_guessed: tuple[str, ...] = ()  # the paste's keys sized with a default
    shape: dict[str, int] = field(default_factory=dict)  # "80 layers, 8 kv heads" said inline
    alternatives: list[Query] = field(default_factory=list)  # "X vs Y": one query each
    rig: bool = False  # the cards named are one person's rig together ("my 3090 + 3060")

    @property
    def has_subject(self) -> bool:
        return self.model is not None or self.size_b is not None or self.pasted is not None

    @property
    def has_modifier(self) -> bool:
        return any(
            v is not None
            for v in (
                self.task,
                self.precision,
                self.kv_dtype,
                self.context_tokens,
                self.batch,
                self.count,
                self.vram_gb,
                self.budget_usd,
            )
        ) or bool(self.cards or self.owned)


_new = object.__new__


def new_query(text: str, truncated: bool, lang: Lang | None) -> Query:
    """``Query(text=text, truncated=truncated, lang=lang)`` for the parser's one query per
    message, every slot stored straight: half the generated ``__init__``'s cost (no keyword
    matching, no default-factory calls). The assert below keeps the two the same."""
    q: Query = _new(Query)
    q.text, q.truncated, q.lang = text, truncated, lang
    q.task = q.precision = q.kv_dtype = q.context_tokens = q.batch = q.size_b = None
    q.bad_size_b = q.model = q.count = q.vram_gb = q.budget_usd = q.faq_topic = None
    q.wants_limit = q.invalid = q.other_money = q.pasted = q.config_error = q.variant = None
    q.short = q.variant_word = None
    q.task_generic = q.unmatched_model = q.wants_fit = q.wants_what_fits = False
    q.wants_cards = q.wants_card_info = q.wants_help = q.wants_hourly = False
    q.followup = q.unified = q.rig = False
    q.model_score, q.model_words, q.pasted_guessed = 0.0, "", ()
    q.extra_precisions, q.unknown_precisions, q.others = [], [], []
    q.cards, q.owned, q.shape, q.alternatives = [], [], {}, []
    return q


assert new_query("x", True, "en") == Query(text="x", truncated=True, lang="en")
