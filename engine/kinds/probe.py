"""The limit searches: the longest context and the most users a set holds, by plain
arithmetic over the very sums ``room_on`` computes (see :class:`Probe`).
"""

from __future__ import annotations

from typing import Final

from engine.answer_types import ModelRef, Request
from engine.kinds.base import Builder
from engine.kinds.hardware import Hardware, runnable
from engine.limits import MAX_BATCH, MAX_CONTEXT_TOKENS
from engine.sizing import (
    GB,
    KV_K_AND_V,
    OVERHEAD_GB,
    kv_bytes_per_token,
    max_batch,
    max_context_tokens,
    recurrent_state_bytes,
)

CTX_STEP: Final = 1024  # context limits are reported in whole 1k steps
# vLLM's default --gpu-memory-utilization: the share of each card the engine plans with
# (SIZING.md, "Engine headroom"); a limit found at 100% of the memory is also given at this.
ENGINE_SHARE: Final = 0.9


class Probe:
    """``room_on`` of one request on one set at any context and batch, by plain arithmetic.

    The weights, the overhead, whether the set runs the precision and what tensor parallelism
    does with the cache do not change between the probes of a search; only the KV cache does.
    Each probe computes the very sums ``room_on`` computes (same terms, same order), so a
    search gives the same answer, many times faster. A cache whose bytes per token do
    not depend on the context (no sliding window) reads them once. A set's copied cache is
    ``kv * share - kv / count`` per card (``kv_extra_gb``), and a card, an owned set and a
    plain amount all leave ``vram - total - extra * count`` (a plain amount is one card).
    """

    __slots__ = ("count", "kvb", "model", "per_token", "runs", "share", "state", "vram", "weights")

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

    def longest(self, batch: int, steps: int, weights: float | None = None) -> int:
        """The binary search of ``max_context`` over ``steps`` 1k steps, ``room`` written out.

        ``weights``: another rung of the request that the hardware runs (its weights are all
        that differ: the cache, the overhead and the hardware are the same)."""
        if weights is None:
            if not self.runs:
                return 0
            weights = self.weights
        vram, share, count = self.vram, self.share, self.count
        per_token, state = self.per_token, self.state
        if share is None and per_token and batch > 0:
            guess = ((vram - weights - OVERHEAD_GB) * GB / batch - state) / per_token / CTX_STEP
            # what the binary search finds, from the closed-form guess: with no copied cache
            # every sum only grows with the count, so step to the border, each step checked
            # with the very sums (written out: no call per probe)
            mid = int(guess) if 0.0 < guess < steps else (steps if guess >= steps else 0)
            while mid < steps:
                kv = (per_token * ((mid + 1) * CTX_STEP) + state) * batch / GB
                if not vram - (weights + kv + OVERHEAD_GB) >= 0:
                    break
                mid += 1
            while mid > 0:
                kv = (per_token * (mid * CTX_STEP) + state) * batch / GB
                if vram - (weights + kv + OVERHEAD_GB) >= 0:
                    break
                mid -= 1
            return mid
        window = None if per_token is not None else _window_terms(self.model, self.kvb)
        lo, hi = 0, steps
        while lo < hi:
            mid = (lo + hi + 1) // 2
            tokens = mid * CTX_STEP
            if window is not None:  # kv_bytes_per_token(model, kvb, tokens), term for term
                full_bytes, per_layer, sliding, span = window
                per = full_bytes + per_layer * (sliding * min(tokens, span)) / tokens
                grow = per * tokens + state
            elif per_token is None:
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

    def most_users(self, context_tokens: int, weights: float | None = None) -> int:
        """The binary search of ``max_users``, with ``room`` written out in the loop
        (``weights``: another rung the hardware runs, as in ``longest``)."""
        if weights is None:
            if not self.runs:
                return 0
            weights = self.weights
        grow = self._grow(context_tokens)
        vram, share, count = self.vram, self.share, self.count
        if share is None and grow > 0:
            guess = (vram - weights - OVERHEAD_GB) * GB / grow
            # as in ``longest``: from the closed-form guess, stepped to the border
            hi = MAX_BATCH
            mid = int(guess) if 0.0 < guess < hi else (hi if guess >= hi else 0)
            while mid < hi and vram - (weights + grow * (mid + 1) / GB + OVERHEAD_GB) >= 0:
                mid += 1
            while mid > 0 and not vram - (weights + grow * mid / GB + OVERHEAD_GB) >= 0:
                mid -= 1
            return mid
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

    def room_at(
        self, context_tokens: int, batch: int, weights: float | None = None
    ) -> tuple[float, float]:
        """``room_on`` of the request at another context or batch (total GB, GB left): the
        breakdown's sums (``kv_cache_gb``, weights + cache + overhead), term for term
        (``weights``: another rung's, as in ``longest``)."""
        kv = self._grow(context_tokens) * batch / GB
        total = (self.weights if weights is None else weights) + kv + OVERHEAD_GB
        share, count = self.share, self.count
        extra = kv * share - kv / count if share is not None and kv else 0.0
        return total, self.vram - total - extra * count

    def cache_at(self, context_tokens: int, batch: int) -> tuple[float, float]:
        """``room_at``'s cache sums, for trying many weights at one context and batch: (the
        cache GB, the copied cache over the set); room_at is then ``vram - total - spill``."""
        kv = self._grow(context_tokens) * batch / GB
        share, count = self.share, self.count
        extra = kv * share - kv / count if share is not None and kv else 0.0
        return kv, extra * count


def _window_terms(m: ModelRef, kvb: float) -> tuple[float, float, int, int] | None:
    """``kv_bytes_per_token``'s context-free terms for a windowed cache without MLA: (full
    layers' bytes, bytes per sliding layer, sliding layers, window); None for any other."""
    if m.mla is not None or m.sliding_window is None:
        return None
    lt = m.layer_types
    if lt is not None:
        full, sliding = lt.full, lt.sliding
    else:
        sliding = m.sliding_layers
        full = m.layers - sliding
    if not sliding:
        return None
    per_layer = KV_K_AND_V * m.kv_heads * m.head_dim * kvb
    per_full = per_layer
    if m.full_attention is not None:
        shape = m.full_attention
        per_full = KV_K_AND_V * shape.kv_heads * shape.head_dim * kvb
    return full * per_full, per_layer, sliding, m.sliding_window


def _sliding(m: ModelRef) -> int:
    """Sliding-window layers (the ones whose cache per token depends on the context)."""
    return m.layer_types.sliding if m.layer_types is not None else m.sliding_layers


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
    tokens = probe(b, hw, req).longest(req.batch, context_cap(req) // CTX_STEP) * CTX_STEP
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
    lo = probe(b, hw, req).most_users(req.context_tokens)
    b.memo[key] = (hw, req, lo)
    return lo


def probe(b: Builder, hw: Hardware, req: Request) -> Probe:
    """One Probe per hardware and request for the answer: both searches read the same one
    (a probe only reads what it was built with)."""
    key = ("probe", id(hw), id(req))
    hit = b.memo.get(key)
    if hit is None:
        hit = b.memo[key] = (hw, req, Probe(b, hw, req))
    probe: Probe = hit[2]
    return probe


def engine_limits(b: Builder, hw: Hardware, req: Request, fixed_gb: float) -> tuple[int, int]:
    """(longest context, most users) when the engine plans with ``ENGINE_SHARE`` of each card,
    as ``limit`` finds them at 100%: exact tokens on one card, 1k steps on a set."""
    assert req.model is not None
    if not runnable(b, hw, req):
        return 0, 0
    share = hw._replace(vram_gb=hw.vram_gb * ENGINE_SHARE)
    if hw.count == 1:
        free = share.vram_gb - fixed_gb
        kvb = b.cat.kv_by_name[req.kv_dtype].bytes
        ctx = max_context_tokens(req.model, free, kvb, req.batch, context_cap(req))
        return ctx, min(max_batch(req.model, free, kvb, req.context_tokens), MAX_BATCH)
    return max_context(b, share, req), max_users(b, share, req)
