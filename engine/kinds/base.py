"""What every answer kind shares: the catalog, the reply language and voice, the notes
(caveats and assumptions) collected on the way, and the arithmetic several kinds run.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

from engine import native
from engine.answer_types import Answer, Context, ModelRef, Note, Pick, Request
from engine.catalog import Catalog
from engine.limits import DEFAULT_CONTEXT
from engine.models import Card, Lang
from engine.recommend import Workload, recommend
from engine.sizing import (
    Breakdown,
    inference,
    kv_bytes_per_token,
    kv_cache_gb,
    training,
)
from engine.text.notes import ModelTexts, model_texts, precision_notes
from engine.text.notes import note as _note
from engine.text.voice import ctx_label, render_text, voice_of
from engine.understand import Query


class Builder:
    """Builds one answer: what was asked, the conversation so far, and the notes collected.

    The kinds (``engine.kinds.*``) are functions of a Builder; text goes through its
    :class:`Voice`, the one formatting object every text builder shares.
    """

    def __init__(self, cat: Catalog, lang: Lang, q: Query, prev: Context | None) -> None:
        self.cat = cat
        self.lang = lang
        self.q = q
        self.prev = prev
        self.voice = voice_of(cat, lang)
        self.caveats: list[Note] = []
        self.assumptions: list[Note] = []
        # Pure results memoised for this one answer (a fit asks the same sums many times).
        # Keys hold ids; each value keeps its object alive, so an id is never reused meanwhile.
        self._bd_of: dict[int, tuple[Request, Breakdown]] = {}  # by request object
        self.memo: dict[tuple[Any, ...], Any] = {}  # the kinds' own per-answer results

    # -- text helpers (the voice's, for short call sites)
    def t(self, key: str, **params: Any) -> str:
        return self.voice.t(key, **params)

    # the number helpers read the voice's memos straight (one call, not two)
    def gb(self, value: float) -> str:
        return self.voice.gbs[value]

    def usd(self, value: float) -> str:
        return self.voice.usds[value]

    def room(self, value: float) -> str:
        return self.voice.rooms[value]

    def num(self, value: float, decimals: int = 0) -> str:
        if 0 <= decimals < 5:
            return self.voice.nums[decimals][value]
        return self.voice.num(value, decimals)

    def caveat(self, code: str, key: str | None = None, **params: Any) -> None:
        """Add a note once per code; ``key`` picks another wording for the same code."""
        for n in self.caveats:  # a loop, not all(...): no generator per note
            if n.code == code:
                return
        key = key or "caveat." + code
        if not params:  # a text of the language alone: one note per voice, shared
            self.caveats.append(self.fixed_note(code, key))
            return
        try:  # Voice.t, inline: the keywords are already a dict
            text = self.voice.pct[key] % params
        except KeyError:
            text = self.voice.t_slow(key, params)
        self.caveats.append(_note(code, text))

    def assume(self, code: str, **params: Any) -> None:
        for n in self.assumptions:
            if n.code == code:
                return
        key = "assume." + code
        if not params:  # as caveat: one note per voice
            self.assumptions.append(self.fixed_note(code, key))
            return
        try:  # Voice.t, inline (as caveat)
            text = self.voice.pct[key] % params
        except KeyError:
            text = self.voice.t_slow(key, params)
        self.assumptions.append(_note(code, text))

    def fixed_note(self, code: str, key: str, **params: Any) -> Note:
        """The note ``code`` worded by ``key`` with ``params`` that never change within a
        language (none, or constants such as the default context's label): written on its
        first use and kept in the voice's table of texts made once (notes are immutable, so
        every answer may hold the same one)."""
        made = self.voice.made
        memo = ("note", code, key, *params.items()) if params else key
        note: Note | None = made.get(memo)
        if note is None or note.code != code:
            note = made[memo] = _note(code, self.voice.t(key, **params))
        return note

    def caveat_fixed(self, code: str, **params: Any) -> None:
        """``caveat`` for values that never change within a language (``fixed_note``)."""
        for n in self.caveats:
            if n.code == code:
                return
        self.caveats.append(self.fixed_note(code, "caveat." + code, **params))

    def assume_fixed(self, code: str, key: str | None = None, **params: Any) -> None:
        """``assume`` for values that never change within a language (``fixed_note``);
        ``key`` picks another wording for the same code."""
        for n in self.assumptions:
            if n.code == code:
                return
        self.assumptions.append(self.fixed_note(code, key or "assume." + code, **params))

    def assume_defaults(self, context_said: bool, users_said: bool) -> None:
        """Say only what was really assumed: the default context, one user, or both."""
        if context_said and users_said:
            return
        code = "default_users" if context_said else "default_context"
        for n in self.assumptions:
            if n.code == code:
                return
        made, memo = self.voice.made, ("defaults", context_said, users_said)  # per language
        note: Note | None = made.get(memo)
        if note is None and context_said:
            note = made[memo] = self.fixed_note(code, "assume.default_users")
        elif note is None:
            key = "assume.default_context" if not users_said else "assume.default_context_only"
            note = made[memo] = self.fixed_note(code, key, ctx=ctx_label(DEFAULT_CONTEXT))
        self.assumptions.append(note)

    def finish(self, answer: Answer) -> Answer:
        """Attach notes and the plain text every platform can fall back to."""
        if self.q.truncated:
            self.caveat("truncated")
        # every caller hands over an answer it has just built (describe fills it in place)
        # and nothing else holds: filled in place, not copied once more
        d = answer.__dict__
        d["caveats"] = self.caveats
        d["assumptions"] = self.assumptions
        d["prices_as_of"] = self.cat.prices_as_of
        d["lang"] = self.lang
        d["text"] = render_text(answer)
        return answer

    def prev_card(self) -> str | None:
        """The card of the last answer, when this message follows up on it."""
        if self.prev is None or not self.q.followup:
            return None
        name = self.prev.pick_card  # may be "24 GB" after a fit against a bare VRAM size
        known = name in self.cat.card_by_name or name in self.cat.owned_by_name
        return name if known else None

    def breakdown(self, req: Request) -> Breakdown:
        """The request's memory sums, once per request object for the answer (the same
        object is asked again and again; two objects with the same fields are rare)."""
        seen = self._bd_of.get(id(req))
        if seen is not None:
            return seen[1]
        bd = self._breakdown(req)
        self._bd_of[id(req)] = (req, bd)
        return bd

    def _breakdown(self, req: Request) -> Breakdown:
        m = req.model
        assert m is not None
        if req.task != "inference":
            return training(m, req.task, req.context_tokens, req.batch, req.lora_rank)
        bpp = self.cat.precision_by_name[req.precision].bits / 8  # bytes_per_param's, no call
        kvb = self.cat.kv_by_name[req.kv_dtype].bytes
        weights = None if req.weight_parts is None else native.weights_gb(self.cat, req)
        kv = self._kv(m, kvb, req)
        return inference(m, bpp, kvb, req.context_tokens, req.batch, weights, kv)

    def _kv(self, m: ModelRef, kvb: float, req: Request) -> float:
        """``kv_cache_gb`` at the request's context and batch, once per answer: the rungs of a
        ladder differ in their weights only, and the workload carries the same sum."""
        key = ("kv", id(m), kvb, req.context_tokens, req.batch)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = (m, kv_cache_gb(m, kvb, req.context_tokens, req.batch))
        kv: float = hit[1]
        return kv

    def workload(self, req: Request, need_gb: float) -> Workload:
        """What a set must satisfy for ``req`` (no memo: an answer almost never asks twice)."""
        m = req.model
        assert m is not None
        if req.task != "inference":  # no read, no cache split: the Workload defaults
            fixed = (need_gb, req.task, False, m.attention_heads, None, 0.0, None, False, False)
            return _tuple_new(Workload, fixed)
        cat = self.cat
        prec = cat.precision_by_name[req.precision]
        if req.weight_parts is None:  # native.needs_fp8 / read_per_token_gb of one precision
            fp8 = prec.needs_fp8
            read = (m.active_params_b or m.params_b) * (prec.bits / 8)  # bytes_per_param's
        else:
            fp8, read = native.needs_fp8(cat, req), native.read_per_token_gb(cat, req)
        # the fields of native.needs_fp8 / kv_fields / layer_split, positionally, in order
        row = (
            need_gb,
            req.task,
            fp8,
            m.attention_heads,
            read,
            self._kv(m, cat.kv_by_name[req.kv_dtype].bytes, req),
            None if m.mla else m.kv_heads,
            bool(m.mla),
            prec.gguf,
        )
        return _tuple_new(Workload, row)  # Workload(*row), without its Python-level __new__

    def layer_split(self, req: Request) -> bool:
        """GGUF weights run in llama.cpp, which splits a set by layers (no tensor parallel)."""
        return req.task == "inference" and self.cat.precision_by_name[req.precision].gguf

    def model_notes(self, req: Request) -> None:
        m = req.model
        assert m is not None
        made = self.voice.made  # model_texts' and precision_notes' hits read here, no call
        mn = made.get(id(m))
        if mn is None or mn.ref is not m:
            mn = model_texts(self.voice, m)  # the model's notes, made once per language
        inference = req.task == "inference"
        add = self.add_note
        if m.active_params_b:
            add(mn.moe or mn.make_moe())
        if m.mla is not None and inference:
            add(mn.mla or mn.make_mla())
        if m.sliding_window and inference and req.context_tokens > m.sliding_window:
            add(mn.sliding or mn.make_sliding())
        if m.max_context_tokens and req.context_tokens > m.max_context_tokens:
            add(mn.beyond or mn.make_beyond(), first=True)  # it undoes the verdict
        pn = made.get(req.precision)
        if pn is None:
            pn = precision_notes(self.voice, req.precision)
        if pn.fp8 is not None and inference:
            add(pn.fp8)
        if pn.gguf is not None:
            add(pn.gguf)
        if req.kv_dtype == "fp8":
            self.caveat("kv_fp8")
        if inference:
            self.native_notes(req, mn, pn.native)

    def add_note(self, note: Note, first: bool = False) -> None:
        """Add a caveat already written, once per code (as ``caveat``); ``first``: ahead of
        the others (a note that undoes the verdict)."""
        code = note.code
        for n in self.caveats:
            if n.code == code:
                return
        if first:
            self.caveats.insert(0, note)
        else:
            self.caveats.append(note)

    def native_notes(self, req: Request, mn: ModelTexts, native_cards: Note | None) -> None:
        """Say how the weights were counted when they are not the sources' one precision (an
        inference request; ``mn`` and ``native_cards``: its model's texts, its precision's note)."""
        parts = req.weight_parts
        if parts is not None and parts.as_released:
            bf16 = req.model_copy(update={"precision": "bf16", "weight_parts": None})
            self.assume(
                "as_released",
                parts=native.parts_label(self.cat, self.lang, parts),
                weights=self.gb(self.breakdown(req).parts["weights"]),
                bf16=self.gb(self.breakdown(bf16).total),
            )
        elif parts is not None:
            self.assume("weight_parts", parts=native.parts_label(self.cat, self.lang, parts))
        if (
            self.q.precision is None
            and self.q.model is not None
            and native.is_ollama_tag(self.q.text)
        ):
            self.assume("ollama_tag", prec=req.precision.upper())
        lt = mn.ref.layer_types
        if lt is not None and (lt.linear or lt.mamba or lt.shared_kv or lt.none):
            self.add_note(mn.hybrid or mn.make_hybrid())
        if native_cards is not None:
            self.add_note(native_cards)

    def edge_note(
        self, vram_gb: float, headroom_gb: float, need_gb: float = 0.0, fp8: bool = False
    ) -> None:
        """vLLM takes 90% of a card by default: a fit inside the last 10% is at the edge, and
        the next card up that leaves that room is named."""
        if not 0 <= headroom_gb < vram_gb * native.VLLM_DEFAULT_SHARE:
            return
        share = 1 - native.VLLM_DEFAULT_SHARE
        nxt = None  # the cheapest single card (then the smallest) that leaves that room
        if need_gb:
            for c in _singles_by_price(self.cat):
                if c.vram_gb * share >= need_gb and (c.fp8 or not fp8):
                    nxt = c
                    break
        if nxt is None:
            self.caveat("vllm_headroom", headroom=self.room(headroom_gb))
            return
        self.caveat(
            "vllm_headroom",
            key="caveat.vllm_headroom_next",
            headroom=self.room(headroom_gb),
            card=nxt.name,
            vram=self.gb(nxt.vram_gb),
            price=self.usd(nxt.monthly_usd),
        )

    def prev_set(self) -> tuple[str, int] | None:
        """The card and count of the last answer's pick, when this message follows up on it.

        A stored conversation may carry the card only: the count is then the pick the last
        request gets again (the same rules give the same set)."""
        name = self.prev_card()
        if name is None or self.prev is None:
            return None
        if self.prev.pick_count:
            return name, self.prev.pick_count
        req = self.prev.request
        if req.model is not None:
            pick, _ = recommend(self.cat, self.workload(req, self.breakdown(req).total))
            if pick is not None and pick.card == name:
                return name, pick.count
        card = self.cat.card_by_name.get(name)
        return name, card.min_count if card is not None else 1  # an owned card: one

    def served_by_vllm(self, req: Request) -> bool:
        """vLLM's 90% default concerns serving, not a training job or a GGUF file (llama.cpp
        and Ollama take no such share)."""
        if req.task != "inference":
            return False
        p = self.cat.precision_by_name.get(req.precision)
        return p is None or not p.gguf

    def pick_notes(self, pick: Pick, req: Request) -> None:
        card = self.cat.card_by_name[pick.card]
        if pick.tight:
            self.tight_note(pick.headroom_gb, pick.count, req.task)
        vram, room = card.vram_gb * pick.count, pick.headroom_gb
        # edge_note's own first test before the calls: most picks leave more than 10%
        if 0 <= room < vram * native.VLLM_DEFAULT_SHARE and self.served_by_vllm(req):
            self.edge_note(vram, room, vram - room, self.needs_fp8(req))
        if card.caveats:  # the card's notes, written once per voice (caveat's, in order)
            notes = self.voice.made.get(("card.notes", card.name))
            if notes is None:
                notes = [self.fixed_note(f"card.{c}", f"caveat.card.{c}") for c in card.caveats]
                self.voice.made["card.notes", card.name] = notes
            for n in notes:
                self.add_note(n)
        if pick.count > 1:
            assert req.model is not None
            if req.task == "inference" and not self.layer_split(req):
                self.caveat(
                    "tensor_parallel",
                    count=pick.count,
                    heads=req.model.attention_heads,
                    link=self.voice.link(card.interconnect),
                )
            if card.link_gbps and card.link_gbps < 200 and not self.layer_split(req):
                self.caveat("slow_link", link=self.num(card.link_gbps))

    def tight_note(self, headroom_gb: float, count: int, task: str) -> None:
        """Under 5 GB left: a training run grows with the sequence and batch, not with users."""
        key = None
        if count == 1 and task != "inference":
            key = "caveat.tight_train"
        self.caveat(
            "tight" if count == 1 else "tight_set",
            key=key,
            headroom=self.room(headroom_gb),
            per_card=self.room(headroom_gb / count),
        )

    def needs_fp8(self, req: Request) -> bool:
        return req.task == "inference" and native.needs_fp8(self.cat, req)

    def kv_per_token(self, req: Request) -> float | None:
        if req.task != "inference" or req.model is None:
            return None
        kvb = self.cat.kv_by_name[req.kv_dtype].bytes
        return kv_bytes_per_token(req.model, kvb, req.context_tokens)


_new: Final = object.__new__
_tuple_new: Final = tuple.__new__


def as_float(v: float | None) -> float | None:
    """What a Frozen type's generated ``__init__`` stores for a float field (an int becomes a
    float), for the kinds that store an answer's fields straight into its ``__dict__``. Here,
    not in engine/frozen.py, so that a compiled build calls it natively."""
    return float(v) if type(v) is int else v


@lru_cache(maxsize=8)
def _singles_by_price(cat: Catalog) -> tuple[Card, ...]:
    """The cards rented one at a time, by (price, VRAM), ties in catalog order (as ``min``
    by that key picks); per catalog."""
    singles = [c for c in cat.cards if c.min_count == 1]
    return tuple(sorted(singles, key=lambda c: (c.monthly_usd, c.vram_gb)))
