"""The request builder: free text, typed options and the conversation -> one :class:`Request`.

Adapters that already hold values as fields (a slash-command option, a button, a form) pass
them as :class:`RequestOptions`; they win over what the text says about the same slot, so no
adapter writes English for the engine to read back. A value that cannot be used (a context of
0, an unknown card) is refused with a friendly reply, never silently replaced by a default.
"""

from __future__ import annotations

from typing import Any, Final, cast, get_args

from engine import native
from engine.answer_types import ModelRef, Request, RequestOptions
from engine.catalog import Catalog, norm
from engine.kinds.base import Builder
from engine.kinds.mac import mac_precision
from engine.limits import (
    DEFAULT_BATCH,
    DEFAULT_CONTEXT,
    MAX_BATCH,
    MAX_CONTEXT_TOKENS,
    MAX_SIZE_B,
    parse_token_count,
)
from engine.models import Task
from engine.refs import model_ref, typical_ref
from engine.sizing import FT_SEQ_TOKENS, LORA_BASE_PRECISION
from engine.understand import CardAsk, Query
from engine.understand.catalog_words import catalog_words
from engine.understand.config_paste import DEFAULTS
from engine.understand.patterns import PRECISION_SEPARATORS

ModelNote = tuple[str, dict[str, Any]]  # an assumption about the model: code and its values
TASKS: Final[tuple[str, ...]] = get_args(Task)


#: The answer kinds an adapter may ask for by name (:attr:`RequestOptions.kind`).
KINDS: Final[tuple[str, ...]] = ("cards", "card", "faq", "help")


def _whole(value: object) -> int | None:
    """A whole number of at least one, or None (``True`` is not a count)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return None
    return value


def _context(value: int | str) -> int | None:
    if isinstance(value, str):
        return parse_token_count(value)
    return _whole(value)


def _kind(q: Query, o: RequestOptions, cat: Catalog) -> tuple[str, str] | None:
    """Check the answer kind asked for by name and the FAQ topic it may need."""
    if o.kind is not None and (o.kind not in KINDS or (o.kind == "card" and o.card is None)):
        return "kind", o.kind
    if o.faq_topic is not None:
        if o.faq_topic not in {t.id for t in cat.faq} or o.kind not in (None, "faq"):
            return "faq_topic", o.faq_topic
        q.faq_topic = o.faq_topic
    elif o.kind == "faq":
        return "faq_topic", ""
    return None


def apply_options(q: Query, o: RequestOptions, cat: Catalog) -> tuple[str, str] | None:
    """Merge typed options into what the text said (options win). Returns the first option
    that cannot be used, as (option name, value as given), or None when all could."""
    if o.model_id is not None:
        spec = cat.model_by_id.get(o.model_id)
        if spec is None:
            return "model_id", str(o.model_id)
        q.model, q.model_score, q.others, q.model_words = spec, 100.0, [], spec.name
        q.unmatched_model, q.size_b, q.bad_size_b = False, None, None
        q.faq_topic, q.wants_help = None, False
    if o.precision is not None:
        compact = PRECISION_SEPARATORS.sub("", o.precision.lower())
        name = catalog_words(cat).precision_compact.get(compact)
        if name is None:
            return "precision", o.precision
        q.precision, q.extra_precisions, q.unknown_precisions = name, [], []
    if o.kv_dtype is not None:
        kv = cat.kv_alias.get(norm(o.kv_dtype))
        if kv is None:
            return "kv_dtype", o.kv_dtype
        q.kv_dtype = kv
    if o.context_tokens is not None:
        ctx = _context(o.context_tokens)
        if ctx is None:
            return "context_tokens", str(o.context_tokens)
        q.context_tokens = ctx
    if o.batch is not None:
        if (batch := _whole(o.batch)) is None:
            return "batch", str(o.batch)
        q.batch = batch
    if o.task is not None:
        if o.task not in TASKS:
            return "task", o.task
        q.task, q.task_generic = cast(Task, o.task), False
    if (bad := _kind(q, o, cat)) is not None:
        return bad
    count = None
    if o.count is not None and (count := _whole(o.count)) is None:
        return "count", str(o.count)
    if o.card is not None:
        card = cat.card(o.card)
        if card is None:
            return "card", o.card
        q.cards = [CardAsk(card.name, count)]
    elif count is not None and q.cards:
        q.cards[0].count = count
    elif count is not None:
        q.count = count
    return None


def stated_shape(ref: ModelRef, shape: dict[str, int]) -> tuple[ModelRef, bool]:
    """A bare size with its shape said inline ("70b, 80 layers, 8 kv heads"): what was said
    replaces the typical shape's values. True when layers and KV heads were both given, so
    nothing about the cache is assumed any more."""
    upd: dict[str, Any] = {k: v for k, v in shape.items() if k != "hidden"}
    heads = upd.get("attention_heads", ref.attention_heads)
    if "hidden" in shape and "head_dim" not in upd and shape["hidden"] % heads == 0:
        upd["head_dim"] = shape["hidden"] // heads
    if "attention_heads" in upd and "kv_heads" not in upd:
        upd["kv_heads"] = min(ref.kv_heads, upd["attention_heads"])
    stated = "layers" in upd and "kv_heads" in upd
    if stated:
        upd.update(assumed=False, shape_source="stated shape")
    return ref.model_copy(update=upd), stated


def build_request(b: Builder) -> tuple[Request, ModelNote | None] | None:
    """Combine what this message says (text and typed options, already merged into the
    query) with the conversation's last request; None when there is nothing to size."""
    q = b.q
    subject = q.has_subject  # a property: read once
    base: Request | None = None
    if (
        b.prev is not None
        and (q.followup or not subject)
        and (q.has_modifier or q.followup or subject)
    ):
        base = b.prev.request
    if not subject and (base is None or q.unmatched_model):
        return None
    note: ModelNote | None = None
    if q.pasted is not None:
        ref = model_ref(q.pasted).model_copy(update={"id": None})  # never a catalog id
        if q.pasted_guessed:  # a partial paste: the defaults it was sized with are said
            said = ", ".join(DEFAULTS[k] for k in q.pasted_guessed)
            note = ("config_guessed", {"keys": ", ".join(q.pasted_guessed), "defaults": said})
    elif q.model is not None:
        ref = model_ref(q.model)
        if q.others:
            note = (
                "ambiguous_model",
                {"name": q.model.name, "others": ", ".join(o.model.name for o in q.others)},
            )
    elif q.size_b is not None:
        if q.unmatched_model:
            return None
        size = min(q.size_b, MAX_SIZE_B)
        ref = typical_ref(b.cat, size)  # a bisection of a per-catalog table
        note = ("typical_shape", {"size": b.num(size, 1), "like": ref.shape_source})
        if q.shape:
            ref, stated = stated_shape(ref, q.shape)
            note = None if stated else note
    else:
        assert base is not None and base.model is not None
        ref = base.model
    task = q.task or (base.task if base else "inference")
    if q.task is None and base is not None and q.precision and base.task == "qlora":
        task = "inference"
    precision = q.precision or (base.precision if base and base.task == task else None)
    if q.unified and task == "inference":  # "q4" on a Mac: the GGUF its runtimes run
        precision = mac_precision(b, precision)
    if task in LORA_BASE_PRECISION:
        if q.precision and q.precision != LORA_BASE_PRECISION[task]:
            b.caveat_fixed("training_precision", base=LORA_BASE_PRECISION[task].upper())
        precision = LORA_BASE_PRECISION[task]
    elif task == "full":
        precision = "bf16"
    precision, weight_parts = native.choose_weights(b.cat, q, ref, task, precision, base)
    training_task = task != "inference"
    default_ctx = FT_SEQ_TOKENS if training_task else DEFAULT_CONTEXT
    ctx = q.context_tokens or (
        base.context_tokens if base and (base.task != "inference") == training_task else None
    )
    batch = q.batch or (base.batch if base else None)
    if training_task and ctx is None:
        b.assume_fixed("ft_defaults", seq=b.num(FT_SEQ_TOKENS))
    elif not training_task:
        b.assume_defaults(ctx is not None, batch is not None)
    if ctx is None:
        ctx = default_ctx
    # clamp_context and clamp_batch, written out: the counts are ints already (else int())
    ctx = ctx if ctx.__class__ is int else int(ctx)
    if ctx > MAX_CONTEXT_TOKENS:
        ctx = MAX_CONTEXT_TOKENS
    elif ctx < 1:
        ctx = 1
    batch = batch or DEFAULT_BATCH
    batch = batch if batch.__class__ is int else int(batch)
    if batch > MAX_BATCH:
        batch = MAX_BATCH
    elif batch < 1:
        batch = 1
    kv = q.kv_dtype or (base.kv_dtype if base else "fp16")
    card, count = (q.cards[0].name, q.cards[0].count) if q.cards else (None, None)
    if not q.cards and q.owned:  # a card we do not rent: kept for the follow-ups too
        card, count = q.owned[0].name, q.owned[0].count
    elif not q.cards and base is not None:
        # "what about 2 cards": the card asked about before, or the one recommended.
        card = base.card or (b.prev_card() if q.count is not None else None)
        count = q.count if q.count is not None else base.count
    if q.task_generic and task == "full":
        b.assume("generic_finetune")
    rank = q.lora_rank if q.lora_rank is not None else (base.lora_rank if base else None)
    # Request(...) made straight, its fields in declaration order: every field is given, and
    # none is a float, a list or a dict the generated __init__ would convert; the fields go in
    # as one dict literal set as its __dict__ (why: engine.frozen._SET)
    req = _new(Request)
    _set(
        req,
        "__dict__",
        {
            "task": task,
            "model": ref,
            "precision": precision,
            "kv_dtype": kv,
            "context_tokens": ctx,
            "batch": batch,
            "card": card,
            "count": count,
            "weight_parts": weight_parts,
            "lora_rank": rank if task in ("lora", "qlora") else None,
        },
    )
    return req, note


_new: Final = object.__new__
_set: Final = object.__setattr__  # Frozen.__setattr__ refuses every assignment
