"""A person's own rig of different cards ("my 3090 + 3080 10GB"), judged as one.

Tensor parallelism needs equal cards, so different cards split the model by layers, in
proportion to their memory (llama.cpp's --tensor-split, or pipeline parallel): each card holds
its layers' weights and KV cache and its share of the one process's runtime overhead. The pool
is sized as one amount (the ladder's own sums), then each card's own share is checked, since
the split is by whole layers. A token passes the cards in turn, so its time is the sum over the
cards of the bytes there over that card's bandwidth.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.answer_types import Fit, Request, RigCard
from engine.kinds.base import Builder
from engine.kinds.hardware import Hardware
from engine.kinds.ladder import KV_READ_SHARE
from engine.kinds.probe import CTX_STEP, context_cap, probe
from engine.kinds.rungs import Rung, rungs
from engine.recommend import is_tight
from engine.sizing import OVERHEAD_GB


class Part(NamedTuple):
    """One kind of card in the rig and how many of it."""

    name: str
    count: int  # type: ignore[assignment]  # the field shadows tuple.count, never called
    vram_gb: float
    bandwidth_gbps: float
    fp8: bool


class Rig(NamedTuple):
    parts: tuple[Part, ...]  # most memory first: the card a split starts on
    hw: Hardware  # the pool: one amount of memory, its card count for the tight rule


def _part(b: Builder, name: str, count: int) -> Part | None:
    c = b.cat.card_by_name.get(name) or b.cat.owned_by_name.get(name)
    return None if c is None else Part(c.name, count, c.vram_gb, c.bandwidth_gbps, c.fp8)


def _said_before(b: Builder) -> list[Part | None]:
    """The rig a follow-up that names no hardware refines: read back from the last answer's
    label ("2× RTX 3090 + RTX 3060 12GB"), the one name a conversation keeps of it."""
    q, prev = b.q, b.prev
    if q.cards or q.owned or q.vram_gb or prev is None or " + " not in (prev.pick_card or ""):
        return []
    out: list[Part | None] = []
    for said in (prev.pick_card or "").split(" + "):
        n, x, name = said.partition("× ")
        count, name = (int(n), name) if x and n.isdigit() else (1, said)
        out.append(_part(b, name, count))
    return out


def capacity_label(b: Builder) -> str:
    """How an amount of memory is named: "40 GB", or "A100 with 40 GB" when a card was named
    with an amount the catalog does not know for it (the answer names the card said)."""
    gb = f"{b.num(b.q.vram_gb or 0, 1)} GB"
    return b.t("fit.variant_card", card=b.q.variant[0], gb=gb) if b.q.variant else gb


def rig_of(b: Builder) -> Rig | None:
    """The rig the message names, or the one a follow-up refines (None: not one)."""
    q = b.q
    if q.rig:
        asks = [*q.cards, *q.owned]
        found = [_part(b, ask.name, ask.count or 1) for ask in asks]
    elif b.prev is None or " + " not in (b.prev.pick_card or ""):
        return None  # most questions: no rig named, none to refine
    else:
        found = _said_before(b)
    parts = [p for p in found if p is not None]
    if len(parts) < 2 or len(parts) < len(found):
        return None
    parts.sort(key=lambda p: -p.vram_gb)
    label = " + ".join(p.name if p.count == 1 else f"{p.count}× {p.name}" for p in parts)
    vram = sum(p.vram_gb * p.count for p in parts)
    n = sum(p.count for p in parts)
    fp8 = all(p.fp8 for p in parts)  # FP8 weights on every layer: every card must run them
    hw = Hardware(label, None, n, vram, None, fp8, None, label)
    return Rig(tuple(parts), hw)


def _cards(rig: Rig) -> list[Part]:
    return [p for p in rig.parts for _ in range(p.count)]


def split(rig: Rig, total: float, layers: int) -> tuple[list[int], list[float]]:
    """Whole layers per card in proportion to memory (each to the card with the largest share
    of its memory still free, among those that still hold a layer) and the room each card has
    left; the overhead is shared in proportion to memory too."""
    cards = _cards(rig)
    pool = rig.hw.vram_gb
    per = max(total - OVERHEAD_GB, 0.0) / layers
    room = [c.vram_gb - OVERHEAD_GB * c.vram_gb / pool for c in cards]
    held = [0] * len(cards)
    for _ in range(layers):
        i = max(range(len(room)), key=lambda j: (room[j] >= per, room[j] / cards[j].vram_gb))
        room[i] -= per
        held[i] += 1
    return held, room


def room_gb(rig: Rig, total: float, layers: int) -> float:
    """GB left: the pool's, when every card holds its whole layers; else the card short most."""
    pool_room = rig.hw.vram_gb - total
    if pool_room < 0:
        return pool_room
    low = min(split(rig, total, layers)[1])
    return pool_room if low >= 0 else low


def decode(rig: Rig, g: Rung, layers: int) -> tuple[float, float | None]:
    """(ceiling, lower ceiling with the KV read) for one stream: the cards take their turns."""
    held, _ = split(rig, g.total, layers)
    seconds_per_gb = sum(
        n / layers / c.bandwidth_gbps for n, c in zip(held, _cards(rig), strict=True)
    )
    tok = 1 / (seconds_per_gb * g.read)
    kv = 1 / (seconds_per_gb * (g.read + g.kv)) if g.kv > KV_READ_SHARE * g.read else None
    return tok, kv


def adjust(b: Builder, rig: Rig, req: Request, f: Fit) -> Fit:
    """The pool's fit (``fit_on`` of ``rig.hw``) with each card's own share checked, the rig's
    speed, and the label of the rig as one piece of hardware."""
    m = req.model
    assert m is not None
    d = f.__dict__  # this fit is fresh and nothing else holds it yet: filled in place
    d["count"] = 1  # one rig, named by its label; the cards are in Answer.rig
    if req.task != "inference":
        d["tight"] = f.fits and is_tight(f.headroom_gb, rig.hw.count)
        return f
    layers = m.layers
    table = {g.precision: g for g in rungs(b, req)}
    for o in f.options:
        room = room_gb(rig, o.total_gb, layers)
        o.__dict__.update(fits=room >= 0, headroom_gb=room, decode_tok_s=None)
        if room >= 0:
            o.__dict__["decode_tok_s"] = decode(rig, table[o.precision], layers)[0]
    asked = next((o for o in f.options if o.precision == req.precision), None)
    if asked is not None:
        d["fits"], d["headroom_gb"] = asked.fits, asked.headroom_gb
    best = f.best
    if best is not None and not best.fits:  # the pool held it, one card does not
        best = next((o for o in f.options if o.fits), None)
        d["best"] = best
    g = table[best.precision] if best is not None and not (f.fits and best is asked) else None
    _limits(b, rig, req, f, g)
    d["changes"] = [c for c in f.changes if room_gb(rig, c.total_gb, layers) >= 0]
    for c in d["changes"]:
        c.__dict__["headroom_gb"] = room_gb(rig, c.total_gb, layers)
    shown = asked if f.fits else best
    d["tight"] = f.fits and is_tight(f.headroom_gb, rig.hw.count)
    d["decode_tok_s"] = d["decode_kv_tok_s"] = None
    if shown is not None:
        d["decode_tok_s"], d["decode_kv_tok_s"] = decode(rig, table[shown.precision], layers)
    return f


def _limits(b: Builder, rig: Rig, req: Request, f: Fit, g: Rung | None) -> None:
    """The pool's longest context and most users, stepped down until each card holds its
    share; and the best rung's context (``g``: that rung, None when it is the asked one)."""
    assert req.model is not None
    layers = req.model.layers
    p = probe(b, rig.hw, req)

    def held(ctx: int, batch: int, weights: float | None = None) -> bool:
        return room_gb(rig, p.room_at(ctx, batch, weights)[0], layers) >= 0

    d = f.__dict__
    mctx, users = f.max_context_tokens or 0, f.max_batch or 0
    while mctx > 0 and not held(mctx, req.batch):
        mctx -= CTX_STEP
    while users > 0 and not held(req.context_tokens, users):
        users -= 1
    d["max_context_tokens"], d["max_batch"] = mctx, users
    if g is not None and f.best is not None:
        bctx = p.longest(req.batch, context_cap(req) // CTX_STEP, g.weights) * CTX_STEP
        while bctx > 0 and not held(bctx, req.batch, g.weights):
            bctx -= CTX_STEP
        f.best.__dict__["max_context_tokens"] = bctx


def rig_cards(b: Builder, rig: Rig, req: Request, f: Fit) -> list[RigCard]:
    """The rig's cards for the answer, with the layers and GB each kind holds of the option
    shown (the asked one when it fits, else the best; none for a training run)."""
    shown = f.best if not f.fits else None  # nothing is shown when nothing fits
    if f.fits:
        shown = next((o for o in f.options if o.precision == req.precision), None)
    m = req.model
    held: list[int] = []
    room: list[float] = []
    if shown is not None and m is not None and req.task == "inference":
        held, room = split(rig, shown.total_gb, m.layers)
    out: list[RigCard] = []
    i = 0
    for p in rig.parts:
        n = sum(held[i : i + p.count]) if held else 0
        used = sum(p.vram_gb - r for r in room[i : i + p.count]) if room else 0.0
        i += p.count
        out.append(
            RigCard(
                card=p.name,
                count=p.count,
                vram_gb=p.vram_gb,
                bandwidth_gbps=p.bandwidth_gbps,
                layers=n,
                used_gb=used,
            )
        )
    return out
