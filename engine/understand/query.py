"""What the parser read from one message: each slot ``None`` when the person did not say it.

Plain classes with their slots written out, not dataclasses: importing ``dataclasses`` and
decorating costs a cold start more than these types ever do (docs/BENCHMARKS.md), and compiled
(deploy/native.py) a written ``__init__`` is native and the fields are read as C struct
members. Each class's ``*_FIELDS`` lists its fields (its ``__slots__``; ``==`` and ``repr``
go by it); ``__reduce__`` gives ``copy`` and pickle (compiled, a class with required
``__init__`` arguments cannot be rebuilt without them).
"""

from __future__ import annotations

from typing import Final

from engine.models import Lang, ModelSpec, Task


def _same(a: object, b: object, names: tuple[str, ...]) -> bool:
    return all(getattr(a, n) == getattr(b, n) for n in names)


def _shown(a: object, names: tuple[str, ...]) -> str:
    return f"{type(a).__qualname__}({', '.join(f'{n}={getattr(a, n)!r}' for n in names)})"


CARD_ASK_FIELDS: Final = ("name", "count", "several", "said_gb")
MODEL_MATCH_FIELDS: Final = ("model", "score")


class CardAsk:
    __slots__ = CARD_ASK_FIELDS
    name: str
    count: int | None
    several: bool  # "on h100s", "na kilku a100": no count, but more than one may do
    said_gb: float | None  # an amount right after the name ("h100 nvl 94gb", "a100 40gb")

    def __init__(
        self,
        name: str,
        count: int | None = None,
        several: bool = False,
        said_gb: float | None = None,
    ) -> None:
        self.name = name
        self.count = count
        self.several = several
        self.said_gb = said_gb

    def __reduce__(self) -> tuple[type[CardAsk], tuple[str, int | None, bool, float | None]]:
        return CardAsk, (self.name, self.count, self.several, self.said_gb)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardAsk) and _same(self, other, CARD_ASK_FIELDS)

    def __repr__(self) -> str:
        return _shown(self, CARD_ASK_FIELDS)


class ModelMatch:
    __slots__ = MODEL_MATCH_FIELDS
    model: ModelSpec
    score: float

    def __init__(self, model: ModelSpec, score: float) -> None:
        self.model, self.score = model, score

    def __reduce__(self) -> tuple[type[ModelMatch], tuple[ModelSpec, float]]:
        return ModelMatch, (self.model, self.score)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ModelMatch) and _same(self, other, MODEL_MATCH_FIELDS)

    def __repr__(self) -> str:
        return _shown(self, MODEL_MATCH_FIELDS)


QUERY_FIELDS: Final = (
    "text",
    "lang",
    "task",
    "task_generic",
    "precision",
    "extra_precisions",
    "unknown_precisions",
    "kv_dtype",
    "context_tokens",
    "batch",
    "size_b",
    "bad_size_b",
    "model",
    "model_score",
    "others",
    "model_words",
    "unmatched_model",
    "cards",
    "owned",
    "count",
    "vram_gb",
    "system_ram_gb",
    "bpw",
    "lora_rank",
    "budget_usd",
    "faq_topic",
    "wants_fit",
    "wants_what_fits",
    "wants_limit",
    "wants_cards",
    "wants_card_info",
    "wants_help",
    "wants_hourly",
    "followup",
    "short",
    "truncated",
    "unified",
    "invalid",
    "other_money",
    "variant",
    "variant_word",
    "pasted",
    "config_error",
    "pasted_guessed",
    "shape",
    "alternatives",
    "rig",
)


class Query:
    """What the text says; ``None`` means the person did not say it."""

    __slots__ = QUERY_FIELDS

    text: str
    lang: Lang | None
    task: Task | None
    task_generic: bool
    precision: str | None
    extra_precisions: list[str]
    unknown_precisions: list[str]
    kv_dtype: str | None
    context_tokens: int | None
    batch: int | None
    size_b: float | None
    bad_size_b: float | None  # a size nobody means ("0b", "1e-28t"): refused
    model: ModelSpec | None
    model_score: float
    others: list[ModelMatch]
    model_words: str
    unmatched_model: bool
    cards: list[CardAsk]
    owned: list[CardAsk]  # cards we do not rent (hardware.yaml)
    count: int | None
    vram_gb: float | None
    system_ram_gb: float | None  # RAM beside the GPU ("and 64gb ram"): said back, not sized on
    bpw: tuple[float, str] | None  # bits per weight said ("4.65bpw") and the type sized for it
    lora_rank: int | None  # a LoRA rank said ("rank 64", "r=64"): the adapters' rank
    budget_usd: float | None
    faq_topic: str | None
    wants_fit: bool
    wants_what_fits: bool
    wants_limit: str | None
    wants_cards: bool
    wants_card_info: bool
    wants_help: bool
    wants_hourly: bool  # renting by the hour was asked about ("na godziny", "per hour")
    followup: bool
    short: str | None  # a short follow-up's ask: "cheaper", "why" or "math"
    truncated: bool
    unified: bool  # a Mac: the amount is memory the GPU shares with the CPU
    invalid: tuple[str, str] | None  # a slot said with a value nobody can size (batch 0)
    other_money: str | None  # an amount in a currency we do not price in ("2 000 zł")
    variant: tuple[str, float] | None  # a card with an amount it does not have: sized so
    variant_word: tuple[str, str] | None  # ("H100 NVL", "H100 SXM"): said back, sized so
    pasted: ModelSpec | None  # a shape read from a pasted config.json (not the catalog)
    config_error: str | None  # why a pasted config.json could not be read
    pasted_guessed: tuple[str, ...]  # the paste's keys sized with a default
    shape: dict[str, int]  # "80 layers, 8 kv heads" said inline
    alternatives: list[Query]  # "X vs Y": one query each
    rig: bool  # the cards named are one person's rig together ("my 3090 + 3060")

    def __init__(
        self,
        text: str,
        truncated: bool = False,
        lang: Lang | None = None,
        size_b: float | None = None,
        model_words: str = "",
        alternatives: list[Query] | None = None,
    ) -> None:
        """Every slot unsaid but the ones given (the parser sets the rest as it reads)."""
        self.text, self.truncated, self.lang = text, truncated, lang
        self.size_b, self.model_words = size_b, model_words
        self.alternatives = [] if alternatives is None else alternatives
        self.task = self.precision = self.kv_dtype = self.context_tokens = self.batch = None
        self.bad_size_b = self.model = self.count = self.vram_gb = self.budget_usd = None
        self.system_ram_gb = self.bpw = self.lora_rank = None
        self.faq_topic = self.wants_limit = self.invalid = self.other_money = None
        self.pasted = self.config_error = self.variant = self.short = self.variant_word = None
        self.task_generic = self.unmatched_model = self.wants_fit = self.wants_what_fits = False
        self.wants_cards = self.wants_card_info = self.wants_help = self.wants_hourly = False
        self.followup = self.unified = self.rig = False
        self.model_score, self.pasted_guessed = 0.0, ()
        self.extra_precisions, self.unknown_precisions, self.others = [], [], []
        self.cards, self.owned, self.shape = [], [], {}

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

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Query) and _same(self, other, QUERY_FIELDS)

    def __repr__(self) -> str:
        return _shown(self, QUERY_FIELDS)


def new_query(text: str, truncated: bool, lang: Lang | None) -> Query:
    """The parser's one query per message."""
    return Query(text, truncated, lang)
