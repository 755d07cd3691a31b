"""Texts that depend only on the model or the precision (and the reply language): caveats,
and the model's lines of "show the math". Written once per catalog, language and model (or
precision) into the voice's ``made`` table, then handed to every answer that needs them (a
note is immutable), instead of filled again per answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.answer_types import ModelRef, Note
from engine.sizing import GB, KV_K_AND_V, recurrent_state_bytes
from engine.text.voice import Voice, ctx_label, partial

_KEPT = 512  # models kept per language (a pasted model is a new ref each time): then start over

_new = object.__new__


def note(code: str, text: str) -> Note:
    """``Note.model_construct(code=code, text=text)``: both fields given, stored straight."""
    n = _new(Note)
    d = n.__dict__
    d["code"] = code
    d["text"] = text
    return n


class ModelTexts:
    """A model's own caveats in one language, None where the model has none (each is still
    asked only when the request meets its condition: inference, a longer context); and its
    lines of the math: the shape, the sliding window, the KV formula with the shape written in
    (``kv``: the bytes, context, batch and GB texts give the line), the units line."""

    __slots__ = (
        "beyond", "hybrid", "kv", "mla", "moe", "params", "ref", "shape", "sliding", "units",
        "window",
    )  # fmt: skip

    def __init__(self, v: Voice, m: ModelRef) -> None:
        self.ref = m  # kept alive with its texts: the id it is found by is never reused
        t, num, fill = v.t, v.num, v.fill
        self.params = v.nums[2][m.params_b]
        spec = (
            "math.shape_assumed:layers,heads,kv_heads,head_dim,source"
            if m.assumed
            else "math.shape_source:layers,heads,kv_heads,head_dim,source"
        )
        shape = (m.layers, m.attention_heads, m.kv_heads, m.head_dim, m.shape_source or "?")
        self.shape = fill[spec](shape)
        self.units = fill["math.units:gb"]((v.nums[0][GB],))
        self.kv: Callable[[tuple[Any, ...]], str]
        self.window: str | None = None
        if m.mla is not None:
            given: tuple[Any, ...] = (m.layers, m.mla.kv_lora_rank, m.mla.qk_rope_head_dim)
            self.kv = partial(fill, "math.kv_mla:layers,rank,rope,bytes,ctx,batch,gb", given)
        else:
            given = (KV_K_AND_V, m.layers, m.kv_heads, m.head_dim)
            spec = "math.kv:two,layers,kv_heads,head_dim,bytes,ctx,batch,gb"
            self.kv = partial(fill, spec, given)
            if m.sliding_layers and m.sliding_window:
                window = (m.sliding_layers, v.nums[0][m.sliding_window])
                self.window = fill["math.kv_window:layers,window"](window)
        self.moe: Note | None = None
        self.mla: Note | None = None
        self.sliding: Note | None = None
        self.beyond: Note | None = None
        self.hybrid: Note | None = None
        if m.active_params_b:
            total, active = num(m.params_b, 1), num(m.active_params_b, 1)
            self.moe = note("moe", t("caveat.moe", total=total, active=active))
        if m.mla is not None:
            rank, rope = m.mla.kv_lora_rank, m.mla.qk_rope_head_dim
            self.mla = note("mla", t("caveat.mla", rank=rank, rope=rope))
        if m.sliding_window:
            text = t(
                "caveat.sliding",
                window=num(m.sliding_window),
                layers=m.sliding_layers,
                total=m.layers,
            )
            self.sliding = note("sliding", text)
        if m.max_context_tokens:
            text = t("caveat.beyond_max_context", max=ctx_label(m.max_context_tokens))
            self.beyond = note("beyond_max_context", text)
        lt = m.layer_types
        if lt is not None and (lt.linear or lt.mamba or lt.shared_kv or lt.none):
            state = recurrent_state_bytes(m)  # no recurrent layers: no "0 MB of fixed state"
            key = "caveat.hybrid_layers" if state else "caveat.hybrid_layers_stateless"
            full, layers, mb = lt.full + lt.sliding, m.layers, num(state / 1e6, 1)
            self.hybrid = note("hybrid_layers", t(key, full=full, total=layers, state=mb))


class PrecisionNotes:
    """A precision's caveats in one language (None where it has none)."""

    __slots__ = ("fp8", "gguf", "native")

    def __init__(self, v: Voice, name: str) -> None:
        cat = v.cat
        prec = cat.precision_by_name[name]
        self.fp8: Note | None = None
        self.gguf: Note | None = None
        self.native: Note | None = None
        if prec.needs_fp8:
            no_fp8 = ", ".join(c.name for c in cat.cards if not c.fp8)
            self.fp8 = note("fp8_cards", v.t("caveat.fp8_cards", cards=no_fp8))
        if prec.gguf:
            bits = v.num(prec.bits, _decimals(prec.bits))
            self.gguf = note("gguf", v.t("caveat.gguf", bits=bits))
        if prec.native_cards:
            text = v.t("caveat.native_cards", prec=name.upper(), cards=prec.native_cards)
            self.native = note("native_cards", text)


def model_texts(v: Voice, m: ModelRef) -> ModelTexts:
    made = v.made
    hit = made.get(id(m))
    if hit is not None and hit.ref is m:
        texts: ModelTexts = hit
        return texts
    if len(made) >= _KEPT:
        made.clear()
    texts = made[id(m)] = ModelTexts(v, m)
    return texts


def precision_notes(v: Voice, name: str) -> PrecisionNotes:
    made = v.made
    hit = made.get(name)
    if hit is None:
        hit = made[name] = PrecisionNotes(v, name)
    notes: PrecisionNotes = hit
    return notes


def _decimals(value: float) -> int:
    """The fewest decimals (up to 4) that show ``value`` exactly: 4.84, 6.5625, 8.5."""
    return next((d for d in range(4) if round(value, d) == round(value, 4)), 4)
