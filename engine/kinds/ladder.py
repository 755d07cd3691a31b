"""The fit ladder: what the asked hardware physically holds, precision by precision.

Physics and the rental rules are separate facts (SIZING.md, "Physics vs what we rent"): any
card at any count, or a plain VRAM amount, holds what fits in its memory, judged card by card
the way tensor parallelism splits it. Whether the fleet rents that set is a separate flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import native
from engine.answer_types import FitChange, FitOption, ModelRef, Request
from engine.kinds.base import Builder
from engine.limits import MAX_BATCH, MAX_CONTEXT_TOKENS
from engine.models import Card, OwnedCard
from engine.recommend import (
    Workload,
    kv_extra_gb,
    set_allowed,
)
from engine.sizing import (
    GB,
    OVERHEAD_GB,
    kv_bytes_per_token,
    recurrent_state_bytes,
)

# Weight precisions a fit is tried at: the sources' three, INT8 and the common GGUF types.
LADDER = ("bf16", "fp8", "q8_0", "int8", "q6_k", "q5_k_m", "q4_k_m", "int4")
CTX_STEP = 1024  # context limits are reported in whole 1k steps
KV_READ_SHARE = 0.10  # above this share of the weights, the KV read lowers the ceiling too


@dataclass(frozen=True)
class Hardware:
    """The asked hardware: a card and a count, or a plain amount of memory (``card`` None)."""

    label: str
    card: Card | None
    count: int
    vram_gb: float
    owned: OwnedCard | None = None  # a card we do not rent (hardware.yaml); card is None

    @property
    def fp8(self) -> bool | None:
        """FP8 support; None for a plain VRAM amount (the hardware is not known)."""
        known = self.card or self.owned
        return None if known is None else known.fp8

    @property
    def bandwidth_gbps(self) -> float | None:
        known = self.card or self.owned
        return None if known is None else known.bandwidth_gbps * self.count

    @property
    def name(self) -> str:
        known = self.card or self.owned
        return known.name if known is not None else self.label

    def times(self, n: int) -> Hardware:
        """``n`` of the same card (a plain VRAM amount stays itself)."""
        if self.card is not None:
            return card_hardware(self.card, n)
        return owned_hardware(self.owned, n) if self.owned is not None else self


def card_hardware(card: Card, count: int | None) -> Hardware:
    n = count or card.min_count
    label = card.name if n == 1 else f"{n}× {card.name}"
    return Hardware(label, card, n, card.vram_gb * n)


def owned_hardware(card: OwnedCard, count: int | None) -> Hardware:
    n = count or 1
    label = card.name if n == 1 else f"{n}× {card.name}"
    return Hardware(label, None, n, card.vram_gb * n, card)


def capacity_hardware(label: str, vram_gb: float) -> Hardware:
    return Hardware(label, None, 1, vram_gb)


def offered(hw: Hardware, w: Workload) -> tuple[bool, str | None]:
    """Whether the fleet rents this set for the workload, and the rule that says no."""
    if hw.card is None:
        return False, None
    why = set_allowed(hw.card, hw.count, w)
    return why is None, why


def runnable(b: Builder, hw: Hardware, req: Request) -> bool:
    """FP8 weights need FP8 hardware; a plain VRAM amount is given the benefit of the doubt
    only for what was asked."""
    if req.task != "inference":
        return True
    if req.weight_parts is None:  # native.needs_fp8, without the call for one precision
        if not b.cat.precision_by_name[req.precision].needs_fp8:
            return True
    elif not native.needs_fp8(b.cat, req):
        return True
    return bool(hw.fp8) if hw.fp8 is not None else req.precision == b.q.precision


def headroom(b: Builder, hw: Hardware, req: Request) -> tuple[float, float, Workload]:
    """(total GB, GB left on the hardware, workload); copied caches count on every card."""
    total, room = room_on(b, hw, req)
    return total, room, b.workload(req, total)


def room_on(b: Builder, hw: Hardware, req: Request) -> tuple[float, float]:
    """``headroom`` without the workload: the cache is the breakdown's own part (the very
    number the workload carries), so a rung that is only compared builds no Workload. As in
    ``set_headroom_gb``, a set's copied cache counts on every card (see :class:`Probe`)."""
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


class Probe:
    """``headroom`` of one request on one set at any context and batch, by plain arithmetic.

    The weights, the overhead, whether the set runs the precision and what tensor parallelism
    does with the cache do not change between the probes of a search; only the KV cache does.
    Each probe computes the very sums ``headroom`` computes (same terms, same order), so a
    search gives the same answer, many times faster. A cache whose bytes per token do
    not depend on the context (no sliding window) reads them once. A set's copied cache is
    ``kv * share - kv / count`` per card (``kv_extra_gb``), and a card, an owned set and a
    plain amount all leave ``vram - total - extra * count`` (a plain amount is one card).
    """

    def __init__(self, b: Builder, hw: Hardware, req: Request) -> None:
        assert req.model is not None and req.task == "inference"
        m = req.model
        self.model = m
        self.runs = runnable(b, hw, req)
        self.weights = b.breakdown(req).parts["weights"]
        self.kvb = b.cat.kv_by_name[req.kv_dtype].bytes
        windowed = m.mla is None and m.sliding_window is not None and _sliding(m) > 0
        self.per_token = None if windowed else kv_bytes_per_token(m, self.kvb)
        self.state = 0.0 if m.recurrent_state is None else recurrent_state_bytes(m)
        self.vram, self.count = hw.vram_gb, hw.count
        share = None  # kv_extra_gb's share of the cache each card holds (None: no copies)
        if hw.count > 1 and (hw.card is not None or hw.owned is not None):
            if m.mla:
                share = 1.0
            elif m.kv_heads and m.kv_heads < hw.count:
                share = 1 / m.kv_heads
        self.share = share

    def _grow(self, context_tokens: int) -> float:
        """``kv_cache_gb`` for one sequence, before the batch and the GB: bytes."""
        per_token = self.per_token
        if per_token is None:
            per_token = kv_bytes_per_token(self.model, self.kvb, context_tokens)
        return per_token * context_tokens + self.state

    def longest(self, batch: int, steps: int) -> int:
        """The binary search of ``max_context`` over ``steps`` 1k steps, ``room`` written out."""
        if not self.runs:
            return 0
        weights, vram, share, count = self.weights, self.vram, self.share, self.count
        per_token, state = self.per_token, self.state
        lo, hi = 0, steps
        while lo < hi:
            mid = (lo + hi + 1) // 2
            tokens = mid * CTX_STEP
            if per_token is None:
                grow = kv_bytes_per_token(self.model, self.kvb, tokens) * tokens + state
            else:
                grow = per_token * tokens + state
            kv = grow * batch / GB
            total = weights + kv + OVERHEAD_GB
            extra = kv * share - kv / count if share is not None and kv else 0.0
            if vram - total - extra * count >= 0:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def most_users(self, context_tokens: int) -> int:
        """The binary search of ``max_users``, with ``room`` written out in the loop."""
        if not self.runs:
            return 0
        grow = self._grow(context_tokens)
        weights, vram, share, count = self.weights, self.vram, self.share, self.count
        lo, hi = 0, MAX_BATCH
        while lo < hi:
            mid = (lo + hi + 1) // 2
            kv = grow * mid / GB
            total = weights + kv + OVERHEAD_GB
            extra = kv * share - kv / count if share is not None and kv else 0.0
            if vram - total - extra * count >= 0:
                lo = mid
            else:
                hi = mid - 1
        return lo


def _sliding(m: ModelRef) -> int:
    """Sliding-window layers (the ones whose cache per token depends on the context)."""
    return m.layer_types.sliding if m.layer_types is not None else m.sliding_layers


def holds(b: Builder, hw: Hardware, req: Request) -> bool:
    """One check at the request's own context and batch: the sums a Probe would redo are
    the (memoised) breakdown's, term for term."""
    return runnable(b, hw, req) and room_on(b, hw, req)[1] >= 0


def with_precision(b: Builder, req: Request, precision: str) -> Request:
    assert req.model is not None
    parts = native.parts_for(b.cat, req.model, precision)
    return req.model_copy(update={"precision": precision, "weight_parts": parts})


def ladder_requests(b: Builder, hw: Hardware, req: Request) -> list[Request]:
    """The asked request and every ladder precision the hardware can run, most bytes first."""
    if req.task != "inference":
        return [req]
    key = ("rungs", id(req))
    hit = b.memo.get(key)
    if hit is None:  # the rungs and their order do not depend on the hardware
        out = {req.precision: req}
        for p in LADDER:
            if p not in out and p in b.cat.precision_by_name:
                out[p] = with_precision(b, req, p)
        rungs = sorted(out.values(), key=lambda r: -b.breakdown(r).parts["weights"])
        hit = b.memo[key] = (req, rungs)
    return [r for r in hit[1] if runnable(b, hw, r)]


def decode(b: Builder, hw: Hardware, req: Request) -> tuple[float | None, float | None]:
    """(ceiling, lower ceiling with the KV read) for one stream; None without bandwidth."""
    bw = hw.bandwidth_gbps
    if bw is None or req.task != "inference" or req.model is None:
        return None, None
    if b.layer_split(req):  # llama.cpp reads the cards' layers one after another
        bw /= hw.count
    read = native.read_per_token_gb(b.cat, req)
    kv = b.breakdown(req).parts["kv_cache"]  # kv_cache_gb of this request
    lower = bw / (read + kv) if kv > KV_READ_SHARE * read else None
    return bw / read, lower


def ceiling(b: Builder, hw: Hardware, req: Request) -> float | None:
    """``decode(...)[0]``, without the cache's share of the read."""
    bw = hw.bandwidth_gbps
    if bw is None or req.task != "inference" or req.model is None:
        return None
    if b.layer_split(req):
        bw /= hw.count
    return bw / native.read_per_token_gb(b.cat, req)


def option(b: Builder, hw: Hardware, req: Request) -> FitOption:
    total, room = room_on(b, hw, req)
    fits = room >= 0 and runnable(b, hw, req)
    return FitOption(
        precision=req.precision,
        kv_dtype=req.kv_dtype,
        context_tokens=req.context_tokens,
        batch=req.batch,
        total_gb=total,
        fits=fits,
        headroom_gb=room,
        decode_tok_s=ceiling(b, hw, req) if fits else None,
    )


def context_cap(req: Request) -> int:
    assert req.model is not None
    return req.model.max_context_tokens or MAX_CONTEXT_TOKENS


def max_context(b: Builder, hw: Hardware, req: Request) -> int:
    """The longest context in whole 1k steps that fits (0 when not even 1k does)."""
    if req.task != "inference":
        return 0
    key = ("max_context", id(hw), id(req))
    hit = b.memo.get(key)
    if hit is not None:
        return int(hit[2])
    tokens = Probe(b, hw, req).longest(req.batch, context_cap(req) // CTX_STEP) * CTX_STEP
    b.memo[key] = (hw, req, tokens)
    return tokens


def max_users(b: Builder, hw: Hardware, req: Request) -> int:
    """The most sequences at the asked context that fit (0 when not even one does)."""
    if req.task != "inference":
        return 0
    key = ("max_users", id(hw), id(req))
    hit = b.memo.get(key)
    if hit is not None:
        return int(hit[2])
    lo = Probe(b, hw, req).most_users(req.context_tokens)
    b.memo[key] = (hw, req, lo)
    return lo


def _change(b: Builder, hw: Hardware, kind: str, req: Request, count: int) -> FitChange:
    total, room = room_on(b, hw, req)
    return FitChange(
        change=kind,
        precision=req.precision,
        kv_dtype=req.kv_dtype,
        context_tokens=req.context_tokens,
        batch=req.batch,
        count=count,
        total_gb=total,
        headroom_gb=room,
    )


def changes(
    b: Builder, hw: Hardware, req: Request, best: Request | None, mctx: int, mbatch: int
) -> list[FitChange]:
    """The smallest changes that make an asked setup that does not fit, fit: one slot each."""
    out: list[FitChange] = []
    if req.task != "inference" or req.model is None:
        return out
    if best is not None and best.precision != req.precision:
        out.append(_change(b, hw, "precision", best, hw.count))
    if req.kv_dtype != "fp8":
        kv8 = req.model_copy(update={"kv_dtype": "fp8"})
        if holds(b, hw, kv8):
            out.append(_change(b, hw, "kv_cache", kv8, hw.count))
    if 0 < mctx < req.context_tokens:
        shorter = req.model_copy(update={"context_tokens": mctx})
        out.append(_change(b, hw, "context", shorter, hw.count))
    if 0 < mbatch < req.batch:
        fewer = req.model_copy(update={"batch": mbatch})
        out.append(_change(b, hw, "batch", fewer, hw.count))
    if hw.card is not None or hw.owned is not None:
        out += more_cards(b, hw, req)
    return out


def splits(b: Builder, req: Request, n: int) -> bool:
    """vLLM's tensor parallelism needs the KV heads to divide by n (or n by them); llama.cpp
    (GGUF) splits by layers and takes any count."""
    assert req.model is not None
    kv = req.model.kv_heads
    if b.layer_split(req) or req.model.mla or not kv:
        return True
    return kv % n == 0 or n % kv == 0


def more_cards(b: Builder, hw: Hardware, req: Request) -> list[FitChange]:
    """How many of the asked card hold it at the asked precision, and, when fewer cards would
    do at a lower precision, that too ("2x 4090 in INT4" beside "8x 4090 in BF16")."""
    assert req.model is not None
    heads = req.model.attention_heads
    counts = [n for n in range(hw.count + 1, 9) if heads % n == 0]  # TP divides the heads
    out: list[FitChange] = []
    sets = {n: hw.times(n) for n in counts}  # built once for both searches
    same = None
    if runnable(b, hw, req):
        same = next(
            (n for n in counts if splits(b, req, n) and holds(b, sets[n], req)),
            None,
        )
        if same is not None:
            out.append(_change(b, sets[same], "cards", req, same))
    asked_bytes = b.breakdown(req).parts["weights"]
    # the rungs and their weights do not depend on the count (FP8 support is the card's)
    rungs: list[Request] | None = None
    for n in counts:
        if same is not None and n >= same:
            break
        more = sets[n]
        if rungs is None:
            rungs = [
                r
                for r in ladder_requests(b, more, req)
                if b.breakdown(r).parts["weights"] < asked_bytes
            ]
        lower = next((r for r in rungs if splits(b, r, n) and holds(b, more, r)), None)
        if lower is not None:
            out.append(_change(b, more, "cards", lower, n))
            break
    return out
