"""The fit ladder: what the asked hardware physically holds, precision by precision.

Physics and the rental rules are separate facts (SIZING.md, "Physics vs what we rent"): any
card at any count, or a plain VRAM amount, holds what fits in its memory, judged card by card
the way tensor parallelism splits it. Whether the fleet rents that set is a separate flag.
"""

from __future__ import annotations

from typing import Final

from engine import native
from engine.answer_types import FitChange, FitOption, ModelRef, Request
from engine.kinds.base import Builder
from engine.kinds.base import as_float as _float
from engine.kinds.combos import (
    asked_cut,
    cache_sums,
    fit_change,
    precision_and_limit,
    small_cache,
    tight_best,
)
from engine.kinds.hardware import (
    Hardware,
    capacity_hardware,
    card_hardware,
    offered,
    owned_hardware,
    runnable,
)
from engine.kinds.mac import MAC_PRECISION
from engine.kinds.order import low_bits, ordered
from engine.kinds.probe import CTX_STEP, Probe, context_cap, max_context, max_users, probe
from engine.kinds.rungs import LADDER, Rung, rung_request, rungs
from engine.recommend import (
    TIGHT_PER_CARD_GB,
    TIGHT_SINGLE_GB,
    kv_extra_gb,
    stream_bandwidth_gbps,
)
from engine.sizing import OVERHEAD_GB

__all__ = [  # the hardware helpers and the limit searches are reached through this module too
    "CTX_STEP",
    "KV_READ_SHARE",
    "LADDER",
    "Hardware",
    "Probe",
    "Rung",
    "capacity_hardware",
    "card_hardware",
    "context_cap",
    "max_context",
    "max_users",
    "offered",
    "owned_hardware",
    "probe",
    "rung_request",
    "rungs",
    "runnable",
]

KV_READ_SHARE: Final = 0.10  # above this share of the weights, the KV read lowers the ceiling too


def room_on(b: Builder, hw: Hardware, req: Request) -> tuple[float, float]:
    """(total GB, GB left on the hardware), with no Workload built: the cache is the
    breakdown's own part (the very number a workload carries). As in ``set_headroom_gb``, a
    set's copied cache counts on every card (see :class:`Probe`)."""
    bd = b.breakdown(req)
    total = bd.total
    m = req.model
    count = hw.count
    extra = 0.0
    sets = hw.card is not None or hw.owned is not None  # a plain amount is one pool
    if count > 1 and sets and req.task == "inference" and m is not None:
        kv = bd.parts["kv_cache"]
        extra = kv_extra_gb(kv, count, None if m.mla else m.kv_heads, bool(m.mla))
    return total, hw.vram_gb - total - extra * count


def by_layers(hw: Hardware, m: ModelRef) -> bool:
    """A set of cards whose count does not divide the attention heads runs split by layers
    (no tensor parallelism): a stream then reads one card at a time, as llama.cpp's does."""
    count = hw.count
    return (
        count > 1
        and (hw.card is not None or hw.owned is not None)
        and bool(m.attention_heads % count)
    )


def _runs(b: Builder, hw: Hardware, g: Rung) -> bool:
    """``runnable`` of an inference rung, its FP8 need read from the table."""
    if not g.fp8:
        return True
    fp8 = hw.fp8
    return bool(fp8) if fp8 is not None else g.precision == b.q.precision


def ladder_requests(b: Builder, hw: Hardware, req: Request) -> list[Request]:
    """The asked request and every ladder precision the hardware can run, most bytes first."""
    if req.task != "inference":
        return [req]
    return [rung_request(b, req, g) for g in rungs(b, req) if _runs(b, hw, g)]


def ladder_options(
    b: Builder, hw: Hardware, req: Request
) -> tuple[list[Rung] | None, list[FitOption], int | None, int | None]:
    """The rungs ``ladder_requests`` gives (None: a training request, its one rung) with
    each one's ``option`` (the same sums as ``room_on`` and ``ceiling``, term for term), the
    index of the asked request's option (None: the hardware does not run it) and of the
    first that fits (None: none does)."""
    if req.task != "inference":
        o = option(b, hw, req)
        return None, [o], 0, (0 if o.fits else None)
    m = req.model
    assert m is not None
    vram, count, bw, hw_fp8 = hw.vram_gb, hw.count, hw.bandwidth_gbps, hw.fp8
    copies = count > 1 and (hw.card is not None or hw.owned is not None)
    layers = copies and bool(m.attention_heads % count)  # by_layers(hw, m)
    table = rungs(b, req)
    # every rung's cache is the request's one sum: the copied cache is the same on each
    extra = 0.0
    if copies:
        extra = kv_extra_gb(table[0].kv, count, None if m.mla else m.kv_heads, bool(m.mla))
    spill = extra * count
    kvd, ctx, batch = req.kv_dtype, req.context_tokens, req.batch
    said = b.q.precision
    mac = b.q.unified and hw.card is None and hw.owned is None  # no INT4/INT8 runtime there
    shown: list[Rung] = []
    options: list[FitOption] = []
    asked_at = best_at = None
    for g in table:
        r, precision, total, _, _, fp8, read, split = g  # one unpack, not an attribute each
        if fp8 and not (bool(hw_fp8) if hw_fp8 is not None else precision == said):
            continue  # _runs: FP8 weights on hardware without FP8
        if mac and precision in MAC_PRECISION and r is not req:
            continue  # a Mac runs GGUF (engine/kinds/mac.py)
        if r is req:
            asked_at = len(options)
        room = vram - total - spill
        dec = None
        if room >= 0:
            if best_at is None:
                best_at = len(options)
            if bw is not None:
                dec = (bw / count if split or layers else stream_bandwidth_gbps(bw, count)) / read
        shown.append(g)
        o = _new(FitOption)  # numbers computed here, floats already: nothing to coerce
        d = o.__dict__  # stored key by key, in field order: no keyword dict per option
        d["precision"] = precision
        d["kv_dtype"] = kvd
        d["context_tokens"] = ctx
        d["batch"] = batch
        d["total_gb"] = total
        d["fits"] = room >= 0
        d["headroom_gb"] = room
        d["decode_tok_s"] = dec
        d["max_context_tokens"] = None
        options.append(o)
    if best_at is not None and (asked_at is None or not options[asked_at].fits):
        best_at = _lead(shown, options, best_at, vram, count)
    return shown, options, asked_at, best_at


# How far down the ladder the lead may move off an edge: weights at least this share of the
# edge rung's (Q8_0 -> FP8 or Q6_K, Q4_K_M -> INT4), never a cliff to a much smaller format.
LEAD_STEP: Final = 0.75


def _lead(shown: list[Rung], options: list[FitOption], first: int, vram: float, count: int) -> int:
    """The rung a fit answer leads with: the first that fits, unless it is tight and a rung a
    step lighter has real room (SIZING.md rule 4), or else, when it only fits at the edge
    (under vLLM's 10% too), a step lighter one that leaves more than that; on an FP8 card
    FP8 before Q8_0 when both have room (both 8-bit). A rung passed over is said beside it
    (SIZING.md, "Edges are reported")."""
    tight = TIGHT_SINGLE_GB if count == 1 else TIGHT_PER_CARD_GB * count
    floor = shown[first].weights * LEAD_STEP
    for room in (tight, min(tight, vram * 0.1)):
        if options[first].headroom_gb >= room:
            break
        for i in range(first + 1, len(options)):
            if shown[i].weights < floor:
                break
            if options[i].headroom_gb >= room:
                return i
    if not shown[first].fp8 and shown[first].split:  # Q8_0 first: an FP8 of as many bits?
        for i in range(first + 1, len(options)):
            g = shown[i]
            if g.fp8 and g.weights >= floor and options[i].headroom_gb >= tight:
                return i
    return first


_new: Final = object.__new__


def decode(b: Builder, hw: Hardware, req: Request) -> tuple[float | None, float | None]:
    """(ceiling, lower ceiling with the KV read) for one stream; None without bandwidth."""
    bw = hw.bandwidth_gbps
    if bw is None or req.task != "inference" or req.model is None:
        return None, None
    if b.layer_split(req) or by_layers(hw, req.model):  # the cards' layers one by one
        bw /= hw.count
    else:
        bw = stream_bandwidth_gbps(bw, hw.count)
    read = native.read_per_token_gb(b.cat, req)
    kv = b.breakdown(req).parts["kv_cache"]  # kv_cache_gb of this request
    lower = bw / (read + kv) if kv > KV_READ_SHARE * read else None
    return bw / read, lower


def rung_decode(hw: Hardware, g: Rung, layers: bool = False) -> tuple[float | None, float | None]:
    """``decode`` of a rung's request, read from its row (the very sums); ``layers``:
    ``by_layers`` of the hardware and the model."""
    bw = hw.bandwidth_gbps
    if bw is None:
        return None, None
    bw = bw / hw.count if g.split or layers else stream_bandwidth_gbps(bw, hw.count)
    read, kv = g.read, g.kv
    return bw / read, (bw / (read + kv) if kv > KV_READ_SHARE * read else None)


def ceiling(b: Builder, hw: Hardware, req: Request) -> float | None:
    """``decode(...)[0]``, without the cache's share of the read."""
    bw = hw.bandwidth_gbps
    if bw is None or req.task != "inference" or req.model is None:
        return None
    if b.layer_split(req) or by_layers(hw, req.model):
        bw = bw / hw.count
    else:
        bw = stream_bandwidth_gbps(bw, hw.count)
    return bw / native.read_per_token_gb(b.cat, req)


def option(b: Builder, hw: Hardware, req: Request) -> FitOption:
    """The option of a request that is not one of the shown rungs (a training request, or
    one the hardware does not run): ``FitOption(...)`` stored straight, in field order, the
    float fields with the generated __init__'s int-to-float step."""
    total, room = room_on(b, hw, req)
    fits = room >= 0 and runnable(b, hw, req)
    dec = ceiling(b, hw, req) if fits else None
    o = _new(FitOption)
    d = o.__dict__
    d["precision"] = req.precision
    d["kv_dtype"] = req.kv_dtype
    d["context_tokens"] = req.context_tokens
    d["batch"] = req.batch
    d["total_gb"] = _float(total)
    d["fits"] = fits
    d["headroom_gb"] = _float(room)
    d["decode_tok_s"] = _float(dec)
    d["max_context_tokens"] = None
    return o


def _fit_change(
    kind: str, precision: str, kv_dtype: str, context_tokens: int, batch: int, count: int,
    total: float, room: float,
) -> FitChange:  # fmt: skip
    """A one-slot change: ``combos.fit_change`` with no training method."""
    return fit_change(kind, precision, kv_dtype, context_tokens, batch, count, total, room, None)


def changes(
    b: Builder,
    hw: Hardware,
    req: Request,
    best: FitOption | None,
    mctx: int,
    mbatch: int,
    shown: list[Rung],
    asked_at: int | None,
) -> list[FitChange]:
    """The smallest changes that make an asked setup that does not fit, fit: one slot each
    (``best``: the first rung's option that fits, its sums ``room_on``'s of its request;
    ``shown`` and ``asked_at``: ``ladder_options``' rungs and the asked one's index, None
    when the hardware does not run it)."""
    out: list[FitChange] = []
    if req.task != "inference" or req.model is None:
        return out
    p = probe(b, hw, req)  # the searches' own: its weights are the breakdown's
    if best is not None and best.precision != req.precision:
        out.append(
            _fit_change(
                "precision",
                best.precision,
                best.kv_dtype,
                best.context_tokens,
                best.batch,
                hw.count,
                best.total_gb,
                best.headroom_gb,
            )
        )
    small = small_cache(b.cat.precision_by_name[req.precision].gguf)  # q8_0 in llama.cpp
    if req.kv_dtype != small and asked_at is not None:  # the cache's type does not matter
        # whether req with an 8-bit cache fits: its breakdown differs in the cache part only
        # (weights + kv_cache_gb + overhead, the order ``Breakdown.total`` sums them in)
        kv, extra = cache_sums(b, hw, req, small)  # and room_on's copied cache
        total = p.weights + kv + OVERHEAD_GB
        room = hw.vram_gb - total - extra * hw.count
        if room >= 0:
            ctx, batch = req.context_tokens, req.batch
            out.append(
                _fit_change("kv_cache", req.precision, small, ctx, batch, hw.count, total, room)
            )
    # a shorter context or fewer users: the searches' own probe gives room_on's sums
    prec, kvd, ctx, n = req.precision, req.kv_dtype, req.context_tokens, hw.count
    if 0 < mctx < ctx:  # a round cut with room, that keeps what the longest fit keeps
        out.append(asked_cut(p, hw, req, mctx))
    if 0 < mbatch < req.batch:
        total, room = p.room_at(ctx, mbatch)
        out.append(_fit_change("batch", prec, kvd, ctx, mbatch, n, total, room))
    if best is not None:  # tight: a rung a step lighter (never a cliff) with an 8-bit cache
        floor = next(g.weights for g in shown if g.precision == best.precision) * LEAD_STEP
        near = [g for g in shown if floor <= g.weights < p.weights]
        out += tight_best(b, hw, req, best.headroom_gb, near)
    if best is None:  # no one precision is enough: with a second slot
        cache = any(c.change == "kv_cache" for c in out)  # the 8-bit cache alone does it
        out += precision_and_limit(b, hw, req, p, shown, not mctx, not mbatch, not cache)
        if not out:  # no 4-bit format either: one below 4 bits, on the same hardware
            out += low_bits(b, hw, req, p)
    if hw.card is not None or hw.owned is not None:
        out += more_cards(hw, req, shown, asked_at, p.weights)
    return ordered(out, req, b)


def more_cards(
    hw: Hardware, req: Request, shown: list[Rung], asked_at: int | None, asked_bytes: float
) -> list[FitChange]:
    """The fewest more of the asked card that hold it, at the heaviest rung that leaves them
    real room (the first that fits, when none does), then the fewest that hold it at the
    asked precision ("2x 4090 in INT4" before "8x 4090 in BF16"). A card we rent in sets
    is only offered in those sets (SIZING.md: recommendations keep the set rules).

    ``shown``: the rungs the hardware runs (``ladder_options``'), the asked one at
    ``asked_at`` (None: the hardware does not run it); ``asked_bytes``: its weights."""
    m = req.model
    assert m is not None
    known = hw.card or hw.owned
    assert known is not None
    heads = m.attention_heads
    counts = [n for n in range(hw.count + 1, 9) if heads % n == 0]  # TP divides the heads
    if hw.card is not None and hw.card.set_sizes:  # rented in sets: only those
        counts = [n for n in counts if n in hw.card.set_sizes]
    out: list[FitChange] = []
    if not counts or not shown:
        return out
    sets = _sets_of(known.vram_gb, counts, shown[0].kv, m)  # every rung's cache is one sum
    asked = shown[asked_at] if asked_at is not None else None
    # the rungs and their weights do not depend on the count (FP8 support is the card's)
    tried = [g for g in shown if g is asked or g.weights < asked_bytes]
    for n, cap, extra, tp in sets:
        real = min(TIGHT_PER_CARD_GB * n, cap * 0.1)  # as ``_lead``'s room
        held: tuple[Rung, float] | None = None  # the first that holds, the first with real room
        for g in tried:
            if (tp or g.split) and (room := cap - g.total - extra) >= 0:
                if room >= real:
                    held = g, room
                    break
                if held is None:
                    held = g, room
        if held is not None:
            out.append(_cards(req, held[0], n, held[1]))
            break
    if asked is None or (out and out[0].precision == asked.precision):
        return out
    for n, cap, extra, tp in sets:
        if (tp or asked.split) and cap - asked.total - extra >= 0:
            out.append(_cards(req, asked, n, cap - asked.total - extra))
            break
    return out


def _sets_of(
    unit: float, counts: list[int], kv: float, m: ModelRef
) -> list[tuple[int, float, float, bool]]:
    """(n, VRAM of n cards of ``unit`` GB, the copied cache over the set, whether vLLM's tensor
    parallelism splits the KV heads on n cards) for each count: what ``room_on`` of a rung
    on n cards reads besides its total (every rung's cache is the request's one sum). The
    KV heads must divide by n (or n by them); llama.cpp (GGUF) splits by layers, any n."""
    kv_heads, replicated = (None if m.mla else m.kv_heads), bool(m.mla)
    mkv = m.kv_heads
    return [
        (
            n,
            unit * n,
            kv_extra_gb(kv, n, kv_heads, replicated) * n,
            bool(m.mla) or not mkv or mkv % n == 0 or n % mkv == 0,
        )
        for n in counts
    ]


def _cards(req: Request, g: Rung, n: int, room: float) -> FitChange:
    """``_change`` on n cards for the rung's request, read from the rung table: its total and
    cache are that request's breakdown (it differs from ``req`` in its weights); ``room`` is
    ``room_on`` of it on the n cards."""
    return _fit_change(
        "cards", g.precision, req.kv_dtype, req.context_tokens, req.batch, n, g.total, room
    )
