"""Caveats whose text depends only on the model or the precision (and the reply language):
written once per catalog, language and model (or precision), then the same note is handed to
every answer that needs it (a note is immutable), instead of filled again per answer.
"""

from __future__ import annotations

from engine.answer_types import ModelRef, Note
from engine.catalog import Catalog
from engine.catalog_cache import per_catalog
from engine.sizing import recurrent_state_bytes
from engine.text.voice import Voice, ctx_label

_KEPT = 512  # models kept per language (a pasted model is a new ref each time): then start over

_new = object.__new__


def note(code: str, text: str) -> Note:
    """``Note.model_construct(code=code, text=text)``: both fields given, stored straight."""
    n = _new(Note)
    d = n.__dict__
    d["code"] = code
    d["text"] = text
    return n


class ModelNotes:
    """A model's own caveats in one language; None where the model has no such note (each is
    still asked only when the request meets its condition: inference, a longer context)."""

    __slots__ = ("beyond", "hybrid", "mla", "moe", "ref", "sliding")

    def __init__(self, v: Voice, m: ModelRef) -> None:
        self.ref = m  # kept alive with its notes: the id it is found by is never reused
        t, num = v.t, v.num
        self.moe = self.mla = self.sliding = self.beyond = self.hybrid = None
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
        self.fp8 = self.gguf = self.native = None
        if prec.needs_fp8:
            no_fp8 = ", ".join(c.name for c in cat.cards if not c.fp8)
            self.fp8 = note("fp8_cards", v.t("caveat.fp8_cards", cards=no_fp8))
        if prec.gguf:
            bits = v.num(prec.bits, _decimals(prec.bits))
            self.gguf = note("gguf", v.t("caveat.gguf", bits=bits))
        if prec.native_cards:
            text = v.t("caveat.native_cards", prec=name.upper(), cards=prec.native_cards)
            self.native = note("native_cards", text)


_Memos = tuple[dict[int, ModelNotes], dict[str, PrecisionNotes]]


@per_catalog
def note_memos(cat: Catalog) -> dict[str, _Memos]:
    """Per reply language: the notes made so far, by model ref id and by precision name."""
    return {}


def model_notes(v: Voice, m: ModelRef) -> ModelNotes:
    memos = note_memos(v.cat).get(v.lang) or note_memos(v.cat).setdefault(v.lang, ({}, {}))
    by_model = memos[0]
    hit = by_model.get(id(m))
    if hit is not None and hit.ref is m:
        return hit
    if len(by_model) >= _KEPT:
        by_model.clear()
    made = by_model[id(m)] = ModelNotes(v, m)
    return made


def precision_notes(v: Voice, name: str) -> PrecisionNotes:
    memos = note_memos(v.cat).get(v.lang) or note_memos(v.cat).setdefault(v.lang, ({}, {}))
    hit = memos[1].get(name)
    if hit is None:
        hit = memos[1][name] = PrecisionNotes(v, name)
    return hit


def _decimals(value: float) -> int:
    """The fewest decimals (up to 4) that show ``value`` exactly: 4.84, 6.5625, 8.5."""
    return next((d for d in range(4) if round(value, d) == round(value, 4)), 4)
