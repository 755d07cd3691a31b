"""Texts that depend only on the model or the precision (and the reply language): caveats,
and the model's lines of "show the math". Written once per catalog, language and model (or
precision) into the voice's ``made`` table, then handed to every answer that needs them (a
note is immutable), instead of filled again per answer.
"""

from __future__ import annotations

from typing import Final

from engine.answer_types import ModelRef, Note
from engine.sizing import recurrent_state_bytes
from engine.text.labels import ctx_text
from engine.text.voice import Voice

_KEPT: Final = (
    512  # models kept per language (a pasted model is a new ref each time): then start over
)

_new: Final = object.__new__


def note(code: str, text: str) -> Note:
    """``Note.model_construct(code=code, text=text)``: both fields given, stored straight."""
    n = _new(Note)
    d = n.__dict__
    d["code"] = code
    d["text"] = text
    return n


class ModelTexts:
    """A model's own texts in one language, each made on its first use (None until then; a
    caller asks ``moe or make_moe()`` only where the request meets the text's condition, as
    before): its caveats, and its lines of the math: the shape and the sliding window."""

    moe: Note | None = None
    mla: Note | None = None
    sliding: Note | None = None
    beyond: Note | None = None
    hybrid: Note | None = None
    shape: str | None = None
    window: str | None = None

    def __init__(self, v: Voice, m: ModelRef) -> None:
        self.ref = m  # kept alive with its texts: the id it is found by is never reused
        self.v = v  # the texts' language (a voice of this answer's catalog and language)

    def make_moe(self) -> Note:
        m, num = self.ref, self.v.num
        assert m.active_params_b is not None
        total, active = num(m.params_b, 1), num(m.active_params_b, 1)
        made = self.moe = note("moe", self.v.t("caveat.moe", total=total, active=active))
        return made

    def make_mla(self) -> Note:
        mla = self.ref.mla
        assert mla is not None
        text = self.v.t("caveat.mla", rank=mla.kv_lora_rank, rope=mla.qk_rope_head_dim)
        made = self.mla = note("mla", text)
        return made

    def make_sliding(self) -> Note:
        m = self.ref
        window = self.v.num(m.sliding_window or 0)
        text = self.v.t("caveat.sliding", window=window, layers=m.sliding_layers, total=m.layers)
        made = self.sliding = note("sliding", text)
        return made

    def make_beyond(self) -> Note:
        text = self.v.t(
            "caveat.beyond_max_context", max=ctx_text(self.v, self.ref.max_context_tokens or 0)
        )
        made = self.beyond = note("beyond_max_context", text)
        return made

    def make_hybrid(self) -> Note:
        m = self.ref
        lt = m.layer_types
        assert lt is not None
        state = recurrent_state_bytes(m)  # no recurrent layers: no "0 MB of fixed state"
        key = "caveat.hybrid_layers" if state else "caveat.hybrid_layers_stateless"
        full, mb = lt.full + lt.sliding, self.v.num(state / 1e6, 1)
        made = self.hybrid = note(
            "hybrid_layers", self.v.t(key, full=full, total=m.layers, state=mb)
        )
        return made

    def make_shape(self) -> str:
        m = self.ref
        spec = (
            "math.shape_assumed:layers,heads,kv_heads,head_dim,source"
            if m.assumed
            else "math.shape_source:layers,heads,kv_heads,head_dim,source"
        )
        shape = (m.layers, m.attention_heads, m.kv_heads, m.head_dim, m.shape_source or "?")
        made = self.shape = self.v.fill[spec](shape)
        return made

    def make_window(self) -> str:
        m = self.ref
        window = (m.sliding_layers, self.v.nums[0][m.sliding_window or 0])
        made = self.window = self.v.fill["math.kv_window:layers,window"](window)
        return made


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
